#pragma once
// Shared pieces of the stand-alone VNM programs (no Kokkos): checked CUDA calls, device
// buffers, and a VNM matrix on the device with its staged offsets.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>

#include "tessera/formats/vnm/pattern.hpp"
#include "tessera/formats/vnm/staging.hpp"
#include "tessera/kernels/nm_spmm/cuda/vnm_spmm.hpp"
#include "../common/harness_check.hpp"

namespace vnm_harness {

template <class T>
struct DeviceBuffer {
  T* ptr = nullptr;
  std::size_t count = 0;
  DeviceBuffer() = default;
  explicit DeviceBuffer(std::size_t n) : count(n) { HARNESS_CHECK(cudaMalloc(&ptr, std::max<std::size_t>(n, 1) * sizeof(T))); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  DeviceBuffer(DeviceBuffer&& o) noexcept : ptr(o.ptr), count(o.count) { o.ptr = nullptr; }
  DeviceBuffer& operator=(DeviceBuffer&& o) noexcept {
    std::swap(ptr, o.ptr);
    std::swap(count, o.count);
    return *this;
  }
  ~DeviceBuffer() { if (ptr) cudaFree(ptr); }
  void upload(const std::vector<T>& h) { HARNESS_CHECK(cudaMemcpy(ptr, h.data(), h.size() * sizeof(T), cudaMemcpyHostToDevice)); }
  std::vector<T> download() const {
    std::vector<T> h(count);
    HARNESS_CHECK(cudaMemcpy(h.data(), ptr, count * sizeof(T), cudaMemcpyDeviceToHost));
    return h;
  }
};

template <class T>
DeviceBuffer<T> to_device(const std::vector<T>& h) {
  DeviceBuffer<T> d(h.size());
  if (!h.empty()) d.upload(h);
  return d;
}

// A VNM weight on the device: vals (filled by the caller) and the stage plan's arrays.
struct DeviceVnm {
  tessera::VnmPattern p;
  tessera::VnmExtents e;
  tessera::VnmStagePlan plan;
  DeviceBuffer<float> vals;
  DeviceBuffer<std::int32_t> tile_stage_pos, column_list;
  DeviceBuffer<tessera::VnmStage> stage;
  DeviceBuffer<std::uint8_t> offsets;
  std::int64_t max_tile_stages = 0;

  DeviceVnm(const tessera::VnmPattern& pat, const tessera::VnmExtents& ext, const std::vector<std::uint8_t>& meta,
            bool packed)
      : p(pat), e(ext), plan(tessera::vnm_stage_plan(meta.data(), ext, pat, tessera::kernels::cuda::kVnmTileCols, packed)),
        vals(e.stored_rows * e.padded_cols), tile_stage_pos(to_device(plan.tile_stage_pos)),
        column_list(to_device(plan.column_list)), stage(to_device(plan.stage)), offsets(to_device(plan.offsets)) {
    for (std::size_t t = 0; t + 1 < plan.tile_stage_pos.size(); ++t)
      max_tile_stages = std::max<std::int64_t>(max_tile_stages, plan.tile_stage_pos[t + 1] - plan.tile_stage_pos[t]);
  }

  tessera::kernels::cuda::VnmSpmmArgs args(const float* A, std::int64_t m, float* C) const {
    tessera::kernels::cuda::VnmSpmmArgs a;
    a.m = m;
    a.k = e.rows;
    a.n = e.cols;
    a.N = p.n;
    a.M = p.m;
    a.L = p.l;
    a.A = A;
    a.lda = e.rows;
    a.vals = vals.ptr;
    a.stored_rows = e.stored_rows;
    a.padded_cols = e.padded_cols;
    a.packed = plan.packed;
    a.tile_stage_pos = tile_stage_pos.ptr;
    a.stage = reinterpret_cast<const int4*>(stage.ptr);
    a.column_list = plan.packed ? column_list.ptr : nullptr;
    a.offsets = offsets.ptr;
    a.offsets_ld = plan.offsets_ld;
    a.max_tile_stages = max_tile_stages;
    a.C = C;
    a.ldc = e.cols;
    return a;
  }
};

}  // namespace vnm_harness
