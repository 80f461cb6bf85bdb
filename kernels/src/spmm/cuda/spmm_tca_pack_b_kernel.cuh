#pragma once
// Kernels that copy B into the row-major layout with 16-byte aligned rows the TCA-SpMM kernels
// read, where the caller's B is not so (tca_b_in_place). Included by spmm_tca_launch.cu alone
// (internal linkage).
#include <cuda_runtime.h>

#include "spmm_tca_elem.cuh"

namespace tessera::kernels::cuda::tca_detail {
namespace {

// B (any strides) -> row-major Bp with ld = n_pad (multiple of 16 bytes), zero padding.
// Consecutive threads take consecutive columns: coalesced where B's rows are contiguous.
template <class T>
__global__ void tca_pack_b_kernel(const T* __restrict__ B, long long ldb_row, long long ldb_col, T* __restrict__ Bp,
                                  long long k_rows, int n, int n_pad) {
  const long long total = k_rows * n_pad;
  for (long long idx = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; idx < total;
       idx += static_cast<long long>(gridDim.x) * blockDim.x) {
    const long long k = idx / n_pad;
    const int j = static_cast<int>(idx % n_pad);
    Bp[idx] = j < n ? B[k * ldb_row + j * ldb_col] : Elem<T>::from_acc(0);
  }
}

// Column-major B (ldb_row == 1) -> row-major Bp as above, through a 32 x 32 shared-memory tile
// so that both the reads (down B's columns) and the writes (along Bp's rows) are coalesced;
// block (32, 8), grid (k tiles, n_pad tiles).
template <class T>
__global__ void tca_pack_b_transpose_kernel(const T* __restrict__ B, long long ldb_col, T* __restrict__ Bp,
                                            long long k_rows, int n, int n_pad) {
  __shared__ T tile[32][33];  // [column][row], padded against bank conflicts
  const long long k0 = blockIdx.x * 32LL;
  const int j0 = blockIdx.y * 32, tx = threadIdx.x, ty = threadIdx.y;
  for (int i = ty; i < 32; i += 8) {
    const long long k = k0 + tx;
    const int j = j0 + i;
    tile[i][tx] = k < k_rows && j < n ? B[k + j * ldb_col] : Elem<T>::from_acc(0);
  }
  __syncthreads();
  for (int i = ty; i < 32; i += 8) {
    const long long k = k0 + i;
    const int j = j0 + tx;
    if (k < k_rows && j < n_pad) Bp[k * n_pad + j] = tile[tx][i];
  }
}

}  // namespace
}  // namespace tessera::kernels::cuda::tca_detail
