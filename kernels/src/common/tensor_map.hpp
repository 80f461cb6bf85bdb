#pragma once
// Host side of the copy engine (TMA): tiled tensor maps for bulk tensor copies, encoded with
// the driver's cuTensorMapEncodeTiled, found through the runtime (no libcuda link). Private to
// the compiled CUDA kernels; not installed.
#include <cuda.h>
#include <cudaTypedefs.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <string>

#include "tessera/core/error.hpp"
#include "cuda_support.hpp"

namespace tessera::kernels::cuda {

inline PFN_cuTensorMapEncodeTiled_v12000 encode_tiled() {
  static PFN_cuTensorMapEncodeTiled_v12000 fn = [] {
    void* f = nullptr;
    cudaDriverEntryPointQueryResult found{};
    TESSERA_CUDA_CHECK(cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &f, 12000, cudaEnableDefault, &found));
    if (found != cudaDriverEntryPointSuccess || f == nullptr)
      throw CudaError("tessera: the CUDA driver has no cuTensorMapEncodeTiled");
    return reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(f);
  }();
  return fn;
}

// The driver's name of `r` ("CUDA_ERROR_INVALID_VALUE (1)"), or its number where the driver
// cannot name it: the number alone sent readers to cuda.h.
inline std::string driver_error_text(CUresult r) {
  void* f = nullptr;
  cudaDriverEntryPointQueryResult found{};
  const char* name = nullptr;
  if (cudaGetDriverEntryPointByVersion("cuGetErrorName", &f, 6000, cudaEnableDefault, &found) == cudaSuccess &&
      found == cudaDriverEntryPointSuccess && f != nullptr &&
      reinterpret_cast<PFN_cuGetErrorName_v6000>(f)(r, &name) == CUDA_SUCCESS && name != nullptr)
    return std::string(name) + " (" + std::to_string(r) + ")";
  (void)cudaGetLastError();  // a failed lookup must not stay the thread's last error
  return "error " + std::to_string(r);
}

// Tensor of 2 or 3 dimensions, innermost first (dims[0] contiguous), strides in bytes for the
// others, in any order; boxes of box[] elements; out-of-range elements read as zero. `who`
// names the caller in errors.
template <int Rank>
CUtensorMap tensor_map_nd(CUtensorMapDataType type, const void* base, const std::int64_t (&dims)[Rank],
                          const std::int64_t (&strides)[Rank - 1], const int (&box)[Rank], CUtensorMapSwizzle swizzle,
                          const char* who) {
  CUtensorMap map;
  cuuint64_t d[Rank], st[Rank - 1];
  cuuint32_t b[Rank], steps[Rank];
  std::string shape, box_shape;
  for (int i = 0; i < Rank; ++i) {
    d[i] = static_cast<cuuint64_t>(dims[i]);
    b[i] = static_cast<cuuint32_t>(box[i]);
    steps[i] = 1;
    if (i + 1 < Rank) st[i] = static_cast<cuuint64_t>(strides[i]);
    shape += (i ? " x " : "") + std::to_string(dims[i]);
    box_shape += (i ? " x " : "") + std::to_string(box[i]);
  }
  const CUresult r = encode_tiled()(&map, type, Rank, const_cast<void*>(base), d, st, b, steps,
                                    CU_TENSOR_MAP_INTERLEAVE_NONE, swizzle, CU_TENSOR_MAP_L2_PROMOTION_L2_128B,
                                    CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (r != CUDA_SUCCESS)
    throw CudaError(std::string(who) + ": cuTensorMapEncodeTiled failed (" + driver_error_text(r) + ", operand " +
                    shape + ", box " + box_shape + ", innermost first)");
  return map;
}

// Row-major (rows x cols) matrix with row stride `row_bytes`, copied in boxes of
// (box_cols x box_rows) elements.
inline CUtensorMap tensor_map(CUtensorMapDataType type, const void* base, std::int64_t cols, std::int64_t rows,
                              std::int64_t row_bytes, int box_cols, int box_rows, CUtensorMapSwizzle swizzle,
                              const char* who) {
  return tensor_map_nd<2>(type, base, {cols, rows}, {row_bytes}, {box_cols, box_rows}, swizzle, who);
}

}  // namespace tessera::kernels::cuda
