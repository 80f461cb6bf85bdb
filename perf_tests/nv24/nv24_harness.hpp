#pragma once
// Shared pieces of the stand-alone NV24 programs (nv24_check, nv24_bench): random fp16/bf16
// operands, the NV24 encoding through the library's host codec, device buffers, the
// double-precision reference. No Kokkos, so the programs build with plain nvcc.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "tessera/formats/nv24/host_codec.hpp"
#include "tessera/kernels/nm_spmm/cuda/nv24_spmm.hpp"
#include "../common/harness_check.hpp"

namespace nv24_harness {

using tessera::kernels::cuda::Nv24Type;

// 16-bit storage of either type, converted on the host.
inline std::uint16_t to_bits(double x, Nv24Type t) {
  std::uint16_t b;
  if (t == Nv24Type::F16) {
    const __half h = __float2half_rn(static_cast<float>(x));
    std::memcpy(&b, &h, 2);
  } else {
    const __nv_bfloat16 h = __float2bfloat16_rn(static_cast<float>(x));
    std::memcpy(&b, &h, 2);
  }
  return b;
}
inline double from_bits(std::uint16_t b, Nv24Type t) {
  if (t == Nv24Type::F16) {
    __half h;
    std::memcpy(&h, &b, 2);
    return __half2float(h);
  }
  __nv_bfloat16 h;
  std::memcpy(&h, &b, 2);
  return __bfloat162float(h);
}
inline const char* name(Nv24Type t) { return t == Nv24Type::F16 ? "fp16" : "bf16"; }

// xorshift64*: fast, reproducible uniform values in [-1, 1).
struct Rng {
  std::uint64_t s;
  explicit Rng(std::uint64_t seed) : s(seed * 0x9E3779B97F4A7C15ull + 1) {}
  double uniform() {
    s ^= s >> 12;
    s ^= s << 25;
    s ^= s >> 27;
    return static_cast<double>((s * 0x2545F4914F6CDD1Dull) >> 11) * (2.0 / 9007199254740992.0) - 1.0;
  }
};

// Row-major rows x cols matrix of 16-bit values with row stride ld.
struct HostMat {
  std::int64_t rows = 0, cols = 0, ld = 0;
  std::vector<std::uint16_t> bits;
  double at(std::int64_t i, std::int64_t j, Nv24Type t) const { return from_bits(bits[i * ld + j], t); }
};
inline HostMat random_mat(std::int64_t rows, std::int64_t cols, std::int64_t ld, Nv24Type t, std::uint64_t seed) {
  HostMat m{rows, cols, ld, std::vector<std::uint16_t>(static_cast<std::size_t>(rows * ld), to_bits(0.0, t))};
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < rows; ++i) {
    Rng r(seed * 1000003 + static_cast<std::uint64_t>(i));
    for (std::int64_t j = 0; j < cols; ++j) m.bits[i * ld + j] = to_bits(r.uniform(), t);
  }
  return m;
}

// The NV24 weight: pruned dense copy (k x n, for the dense baselines and the reference) and
// the encoded arrays.
struct Nv24Host {
  std::int64_t k = 0, n = 0, kp = 0;
  HostMat pruned;  // (k x n)
  std::vector<std::uint16_t> vals;
  std::vector<std::uint32_t> meta;
};
// Row tiles are independent in the layout (each owns a contiguous range of vals and meta),
// so the weight is encoded in blocks of columns in parallel (OpenMP when compiled in).
inline Nv24Host prune_encode(const HostMat& B, Nv24Type t) {
  namespace nv = tessera::nv24;
  Nv24Host w;
  w.k = B.rows;
  w.n = B.cols;
  w.kp = nv::padded_k(w.k);
  w.vals.resize(static_cast<std::size_t>(w.n * w.kp / 2));
  w.meta.resize(static_cast<std::size_t>(nv::meta_words(w.n, w.kp)));
  w.pruned = HostMat{w.k, w.n, w.n, std::vector<std::uint16_t>(static_cast<std::size_t>(w.k * w.n), to_bits(0.0, t))};
  constexpr std::int64_t kBlock = 16 * nv::kRowTile;  // columns per parallel block
  const std::int64_t blocks = (w.n + kBlock - 1) / kBlock;
#pragma omp parallel for schedule(dynamic)
  for (std::int64_t b = 0; b < blocks; ++b) {
    const std::int64_t j0 = b * kBlock, cols = std::min(kBlock, w.n - j0);
    std::uint16_t* vals = w.vals.data() + j0 * (w.kp / 2);
    std::uint32_t* meta = w.meta.data() + (j0 / nv::kRowTile) * (w.kp / nv::kKTile) * nv::kTileWords;
    nv::encode(
        w.k, cols, [&](std::int64_t kk, std::int64_t j) { return B.at(kk, j0 + j, t); },
        [&](double x) { return to_bits(x, t); }, true, vals, meta);
    nv::decode(
        w.k, cols, vals, meta, [&](std::uint16_t v) { return from_bits(v, t); },
        [&](std::int64_t kk, std::int64_t j, double v) { w.pruned.bits[kk * w.n + j0 + j] = to_bits(v, t); });
  }
  return w;
}

template <class T>
struct DeviceBuf {
  T* p = nullptr;
  std::size_t count = 0;
  DeviceBuf() = default;
  explicit DeviceBuf(std::size_t n) : count(n) {
    if (n) HARNESS_CHECK(cudaMalloc(&p, n * sizeof(T)));
  }
  template <class V>
  explicit DeviceBuf(const std::vector<V>& h) : DeviceBuf(h.size()) {
    static_assert(sizeof(V) == sizeof(T), "same element size");
    if (count) HARNESS_CHECK(cudaMemcpy(p, h.data(), count * sizeof(T), cudaMemcpyHostToDevice));
  }
  DeviceBuf(const DeviceBuf&) = delete;
  DeviceBuf& operator=(const DeviceBuf&) = delete;
  DeviceBuf(DeviceBuf&& o) noexcept : p(o.p), count(o.count) { o.p = nullptr; }
  ~DeviceBuf() {
    if (p) cudaFree(p);
  }
};

// Reference C = A * B_pruned in double (m x n, row-major), rows in parallel (OpenMP when
// compiled in): computed once per operand pair, compared against every launch of it.
inline std::vector<double> reference(const HostMat& A, const HostMat& Bp, Nv24Type t) {
  const std::int64_t m = A.rows, k = A.cols, n = Bp.cols;
  std::vector<double> bd(static_cast<std::size_t>(k * n)), ref(static_cast<std::size_t>(m * n), 0.0);
  for (std::int64_t i = 0; i < k * n; ++i) bd[i] = from_bits(Bp.bits[i], t);
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < m; ++i) {
    double* row = &ref[i * n];
    for (std::int64_t kk = 0; kk < k; ++kk) {
      const double a = A.at(i, kk, t);
      if (a == 0.0) continue;
      const double* b = &bd[kk * n];
      for (std::int64_t j = 0; j < n; ++j) row[j] += a * b[j];
    }
  }
  return ref;
}

// Relative Frobenius error of `got` (m x n, row stride ldc) against `ref` (m x n) and the
// number of non-finite entries.
struct Error {
  double rel = 0;
  std::int64_t nonfinite = 0;
};
inline Error compare(const std::vector<double>& ref, std::int64_t m, std::int64_t n,
                     const std::vector<std::uint16_t>& got, std::int64_t ldc, Nv24Type t) {
  double num = 0, den = 0;
  Error e;
  for (std::int64_t i = 0; i < m; ++i)
    for (std::int64_t j = 0; j < n; ++j) {
      const double g = from_bits(got[i * ldc + j], t), r = ref[i * n + j];
      if (!std::isfinite(g)) ++e.nonfinite;
      num += (g - r) * (g - r);
      den += r * r;
    }
  e.rel = den > 0 ? std::sqrt(num / den) : std::sqrt(num);
  return e;
}

}  // namespace nv24_harness
