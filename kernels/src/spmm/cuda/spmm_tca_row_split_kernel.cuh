#pragma once
// The TCA-SpMM CUDA-core row split kernel. Included by spmm_tca_launch.cu alone (internal
// linkage).
#include <cuda_runtime.h>

#include "../../common/grid_dependency.cuh"
#include "spmm_tca_elem.cuh"
#include "spmm_tca_internal.cuh"

namespace tessera::kernels::cuda::tca_detail {
namespace {

// CUDA-core row split. B is row-major with 16-byte aligned rows (read in place, or packed so
// by row_major_b, zero-padded to a multiple of kVec columns): each lane
// holds kVec consecutive columns (one 16-byte load per nonzero), L lanes span a column
// tile, and the 32 / L lane groups of a warp take alternate nonzeros of the row and add up
// at the end. A warp's load of one B row is then L x 16 contiguous bytes, which L1 serves
// at one wavefront per 128 bytes: half of what the tensor-core kernels spend (a copy into
// shared memory and a read back), which is what bounds them on long rows in fp32.
// Work items per column tile: one per row in row order, or, where the plan chunked its long rows,
// the plan's item list: the chunks (pieces of at most row_chunk_nnz nonzeros; each stores its sum
// in its ws row and tca_finalize_kernel adds them up into C) and the other rows, longest first.
// So no warp runs much more than a chunk, however uneven the rows, the 8 warps of a block run
// items of about one length, and the shortest items fill the last wave. ws rows are ws_ld (a
// multiple of kVec) wide.
// U gathers of one lane group are in flight at once (the unroll of the gather loop): 4 in
// 40 registers (6 blocks per SM), or 8 in 48 (5 blocks) for fp32 plans of long rows
// (kDeepGatherMeanRowNnz). row_vec_blocks_per_sm is its launch bound, which run_row_split also
// uses to count the warps the GPU keeps resident.
constexpr int row_vec_blocks_per_sm(int unroll) { return unroll == 8 ? 5 : 6; }
template <class T, int L, int U>
__global__ void __launch_bounds__(256, row_vec_blocks_per_sm(U))
    tca_row_vec_kernel(const int* __restrict__ pos, const int* __restrict__ crd, const T* __restrict__ vals,
                       const T* __restrict__ B, long long ldb, T* __restrict__ C, long long ldc_row,
                       long long ldc_col, int rows, int n, typename Elem<T>::acc alpha, typename Elem<T>::acc beta,
                       bool c_vec, const RowChunk* __restrict__ listed, int n_listed,
                       typename Elem<T>::acc* __restrict__ ws, long long ws_ld) {
  allow_dependent_grid_launch();  // the finalize kernel, if any (launch_finalize)
  using Acc = typename Elem<T>::acc;
  constexpr int kVec = 16 / int(sizeof(T));
  constexpr int kGroups = 32 / L;
  static_assert(L == 8 || L == 16 || L == 32, "lane groups within a warp");
  struct alignas(16) Row16 {  // kVec consecutive elements of a row of B or C
    T e[kVec];
  };
  const int lane = threadIdx.x & 31, sub = lane / L, col_lane = lane % L;
  const long long gw = (blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x) >> 5;
  const long long tiles = (n + L * kVec - 1) / (L * kVec), items = listed ? n_listed : rows;
  if (gw >= items * tiles) return;
  // Consecutive warps take consecutive items of one column tile: neighbouring rows often share
  // columns, and their warps then meet the same B rows in L1.
  const int item = static_cast<int>(gw % items), col = static_cast<int>(gw / items) * L * kVec + col_lane * kVec;
  int row, begin, end, ws_row = -1;
  if (listed) {
    const RowChunk c = listed[item];
    row = c.row, begin = c.begin, end = c.end, ws_row = c.ws_row;
  } else {
    row = item, begin = __ldg(pos + row), end = __ldg(pos + row + 1);
  }
  const bool active = col < n;  // B holds kVec columns from col on (zero past n where packed)
  const T* b_lane = B + (active ? col : 0);
  Acc acc[kVec];
#pragma unroll
  for (int e = 0; e < kVec; ++e) acc[e] = Acc(0);
  // Column ids and values come 32 at a time, one per lane; the next 32 are loaded before the
  // current ones are used, so their latency overlaps the gathers instead of preceding them.
  // Positions are unsigned: p + 32 + lane exceeds INT_MAX in the last rows of a matrix of
  // nearly INT_MAX nonzeros, and stays below 2^32.
  const unsigned first = begin, last = end;
  int k_next = first + lane < last ? __ldg(crd + first + lane) : 0;
  T v_next = first + lane < last ? vals[first + lane] : Elem<T>::from_acc(0);
  for (unsigned p = first; p < last; p += 32) {
    const int cnt = min(32u, last - p), k_l = k_next;
    const T v_l = v_next;
    const unsigned nx = p + 32 + lane;
    k_next = nx < last ? __ldg(crd + nx) : 0;
    v_next = nx < last ? vals[nx] : Elem<T>::from_acc(0);
#pragma unroll U
    for (int q0 = 0; q0 < cnt; q0 += kGroups) {
      const int q = q0 + sub;  // this lane group's nonzero; shuffles stay outside the branch
      const int k = __shfl_sync(0xffffffffu, k_l, q & 31);
      const T v = __shfl_sync(0xffffffffu, v_l, q & 31);
      if (q < cnt) {
        const Row16 x = *reinterpret_cast<const Row16*>(b_lane + k * ldb);
        const Acc va = Elem<T>::to_acc(v);
#pragma unroll
        for (int e = 0; e < kVec; ++e) acc[e] += va * Elem<T>::to_acc(x.e[e]);
      }
    }
  }
#pragma unroll
  for (int off = 16; off >= L; off /= 2)
#pragma unroll
    for (int e = 0; e < kVec; ++e) acc[e] += __shfl_xor_sync(0xffffffffu, acc[e], off);
  if (sub != 0 || !active) return;
  if (ws_row >= 0) {  // one vector store; ws rows are ws_ld (a multiple of kVec) wide
    struct alignas(sizeof(Acc) * kVec) AccVec {
      Acc e[kVec];
    };
    AccVec y;
#pragma unroll
    for (int e = 0; e < kVec; ++e) y.e[e] = acc[e];
    *reinterpret_cast<AccVec*>(ws + ws_row * ws_ld + col) = y;
    return;
  }
  T* out = C + row * ldc_row + col * ldc_col;
  if (c_vec) {
    Row16 y;
    if (beta != Acc(0)) y = *reinterpret_cast<const Row16*>(out);
#pragma unroll
    for (int e = 0; e < kVec; ++e)
      y.e[e] = Elem<T>::from_acc(beta != Acc(0) ? alpha * acc[e] + beta * Elem<T>::to_acc(y.e[e]) : alpha * acc[e]);
    *reinterpret_cast<Row16*>(out) = y;
  } else {
    for (int e = 0; e < kVec && col + e < n; ++e) {
      T* o = out + e * ldc_col;
      Acc y = alpha * acc[e];
      if (beta != Acc(0)) y += beta * Elem<T>::to_acc(*o);
      *o = Elem<T>::from_acc(y);
    }
  }
}

}  // namespace
}  // namespace tessera::kernels::cuda::tca_detail
