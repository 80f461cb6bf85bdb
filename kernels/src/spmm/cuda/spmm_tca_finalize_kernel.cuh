#pragma once
// The TCA-SpMM finalize kernel: adds up the parts of split windows (tensor cores) or of
// chunked rows (row split) into C. Included by spmm_tca_launch.cu alone (internal linkage).
#include <cuda_runtime.h>

#include "../../common/grid_dependency.cuh"
#include "spmm_tca_elem.cuh"
#include "spmm_tca_internal.cuh"

namespace tessera::kernels::cuda::tca_detail {
namespace {

// C rows of split windows (rows_per_split = kWindowRows) or split rows (1) = alpha * (sum of
// their parts in ws) + beta * C. Split s starts at C row split_rows[s] and has the parts
// [part_begin[s], part_begin[s + 1]); part p is ws rows [p * rows_per_split, (p + 1) *
// rows_per_split) of ws_ld (>= n). Each warp of a block takes one FinalizeSlot: 32 columns
// (blockIdx.y) of one C row, or its share of the parts of them when the slot's group has
// several warps (TcaPlan::build sizes groups by parts); the group's first warp adds the
// group's sums in order. The order of the additions depends on the plan only, not on which
// part finished first: repeated calls give the same bits.
template <class T, class W>
__global__ void __launch_bounds__(kFinalizeBlockWarps * 32)
    tca_finalize_kernel(const FinalizeSlot* __restrict__ slots, const int* __restrict__ split_rows,
                        const int* __restrict__ part_begin, int rows_per_split, const W* __restrict__ ws,
                        long long ws_ld, T* __restrict__ C, long long ldc_row, long long ldc_col, int rows, int n,
                        W alpha, W beta) {
  __shared__ W warp_sums[kFinalizeBlockWarps][32];
  wait_for_prerequisite_grid();  // the parts in ws are complete
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const FinalizeSlot slot = slots[blockIdx.x * kFinalizeBlockWarps + warp];
  const int split = slot.split_row / rows_per_split, r = slot.split_row % rows_per_split;
  const int col = blockIdx.y * 32 + lane;
  W sum = W(0);
  if (slot.group > 0 && col < n) {
    const W* part_row = ws + r * ws_ld + col;
#pragma unroll 4
    for (int p = part_begin[split] + slot.rank; p < part_begin[split + 1]; p += slot.group)
      sum += part_row[static_cast<long long>(p) * rows_per_split * ws_ld];
  }
  warp_sums[warp][lane] = sum;
  __syncthreads();
  if (slot.group == 0 || slot.rank != 0 || col >= n) return;
  W y = W(0);
  for (int w = warp; w < warp + slot.group; ++w) y += warp_sums[w][lane];
  T* out = C + (split_rows[split] + r) * ldc_row + col * ldc_col;
  y *= alpha;
  if (beta != W(0)) y += beta * Elem<T>::to_acc(*out);
  *out = Elem<T>::from_acc(y);
}

}  // namespace
}  // namespace tessera::kernels::cuda::tca_detail
