#pragma once
/// \file
/// Row-block SpMM for few columns: C = alpha * A * B + beta * C with B (K x N) and C (M x N)
/// row-major, N <= kRowBlockSpmmMaxN, fp32 and fp64, the row blocks of an SpmvPlan built for
/// N's lane count (spmm_row_blocks_plan). Raw-pointer interface (no Kokkos).
///
/// Algorithm (kernels/src/spmm/cuda/spmm_row_blocks.cu): N is rounded up to P lanes (1, 2, 4, 8
/// or 16) and a block of 256 threads is 256 / P slots of P lanes. As SpMV's row blocks, a block
/// takes up to 256 / P consecutive rows whose nonzeros fit 2048 / P: each slot loads one nonzero
/// at a time (its P lanes read the value and column id together and P consecutive entries of
/// that row of B), leaves the P products in shared memory, and then the lane of row r, column c
/// adds up its products in order and writes C(r, c). A row longer than a block is cut into
/// chunks, one block each in the same launch, whose per-column sums the block finishing the row's
/// last chunk adds in chunk order. Results are the same bits from call to call.
#include <cstdint>
#include <memory>

#include <cuda_runtime_api.h>

#include "tessera/kernels/common/cuda/kernel_status.hpp"
#include "tessera/kernels/spmv/cuda/spmv_csr.hpp"

namespace tessera::kernels::cuda {

/// Most columns of B and C the row-block SpMM takes.
inline constexpr std::int64_t kRowBlockSpmmMaxN = 16;

/// C = alpha * A * B + beta * C, A rows x cols in CSR arrays, B and C row-major in device memory.
struct RowBlockSpmmArgs {
  SpmvType type = SpmvType::F64;        ///< of vals, B and C
  SpmvOffset offset = SpmvOffset::I32;  ///< of pos
  std::int64_t rows = 0;       ///< A's rows
  std::int64_t cols = 0;       ///< A's columns
  std::int64_t n = 0;          ///< columns of B and C
  const void* pos = nullptr;   ///< rows + 1 row offsets
  const int* crd = nullptr;    ///< column ids
  const void* vals = nullptr;  ///< values
  const void* B = nullptr;     ///< cols x n, row stride ldb
  std::int64_t ldb = 0;        ///< B's row stride
  void* C = nullptr;           ///< rows x n, row stride ldc; not read when beta == 0
  std::int64_t ldc = 0;        ///< C's row stride
  double alpha = 1.0;          ///< scales A B, converted to the value type
  double beta = 0.0;           ///< scales C, converted to the value type
};

/// Whether the row blocks are the faster CUDA-core SpMM for a matrix of `rows` rows and `nnz`
/// nonzeros times n columns (else the TCA row split): measured on the benchmark's matrices, at
/// n <= 8, and at n <= 16 on rows of fewer than 24 nonzeros on average.
bool spmm_row_blocks_preferred(std::int64_t rows, std::int64_t nnz, std::int64_t n);

/// Lanes per nonzero for n columns: n rounded up to a power of two.
int spmm_row_blocks_lanes(std::int64_t n);

/// The plan the row-block SpMM runs with for n columns (row blocks of 256 / P rows and 2048 / P
/// nonzeros, P = spmm_row_blocks_lanes(n)); plans for the same P serve each other's n.
std::shared_ptr<const SpmvPlan> spmm_row_blocks_plan(const void* pos, SpmvOffset offset, std::int64_t rows,
                                                     std::int64_t n, cudaStream_t stream);

/// Whether spmm_row_blocks runs these arguments (and why not).
KernelStatus spmm_row_blocks_can_implement(const RowBlockSpmmArgs& args);

/// Runs the product on `stream` with `plan` (spmm_row_blocks_plan for args.n's lane count).
/// Throws what spmm_row_blocks_can_implement refuses (ShapeError / NotCompiled) and CudaError.
void spmm_row_blocks(const SpmvPlan& plan, const RowBlockSpmmArgs& args, cudaStream_t stream);

}  // namespace tessera::kernels::cuda
