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

// Row-major (rows x cols) matrix with row stride `row_bytes`, copied in boxes of
// (box_cols x box_rows) elements; out-of-range elements read as zero. `who` names the caller
// in errors.
inline CUtensorMap tensor_map(CUtensorMapDataType type, const void* base, std::int64_t cols, std::int64_t rows,
                              std::int64_t row_bytes, int box_cols, int box_rows, CUtensorMapSwizzle swizzle,
                              const char* who) {
  CUtensorMap map;
  const cuuint64_t dims[2] = {static_cast<cuuint64_t>(cols), static_cast<cuuint64_t>(rows)};
  const cuuint64_t strides[1] = {static_cast<cuuint64_t>(row_bytes)};
  const cuuint32_t box[2] = {static_cast<cuuint32_t>(box_cols), static_cast<cuuint32_t>(box_rows)};
  const cuuint32_t steps[2] = {1, 1};
  const CUresult r = encode_tiled()(&map, type, 2, const_cast<void*>(base), dims, strides, box, steps,
                                    CU_TENSOR_MAP_INTERLEAVE_NONE, swizzle, CU_TENSOR_MAP_L2_PROMOTION_L2_128B,
                                    CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (r != CUDA_SUCCESS)
    throw CudaError(std::string(who) + ": cuTensorMapEncodeTiled failed (error " + std::to_string(r) + ", " +
                    std::to_string(rows) + " x " + std::to_string(cols) + " operand, box " + std::to_string(box_rows) +
                    " x " + std::to_string(box_cols) + ")");
  return map;
}

}  // namespace tessera::kernels::cuda
