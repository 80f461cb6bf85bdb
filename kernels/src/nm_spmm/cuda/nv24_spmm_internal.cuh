#pragma once
// Device code shared by the two NV24 kernels: nv24_spmm_mma.cu (portable mma.sp kernel) and
// nv24_spmm_wgmma.cu (sm_90a wgmma.sp kernel); what the host knows of them is in
// nv24_launch.hpp. Not installed.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

namespace tessera::kernels::cuda::nv24_detail {

__device__ __forceinline__ __half from_float(float x, __half) { return __float2half_rn(x); }
__device__ __forceinline__ __nv_bfloat16 from_float(float x, __nv_bfloat16) { return __float2bfloat16_rn(x); }

// The four fp32 accumulators of one mma fragment position (weight rows r, r + 8; activation
// rows c, c + 1) into the transposed C tile `out` in shared memory (row stride `stride`).
template <class T>
__device__ __forceinline__ void put_fragment(T* out, int stride, int r, int c, float q0, float q1, float q2,
                                             float q3) {
  out[c * stride + r] = from_float(q0, T());
  out[(c + 1) * stride + r] = from_float(q1, T());
  out[c * stride + r + 8] = from_float(q2, T());
  out[(c + 1) * stride + r + 8] = from_float(q3, T());
}

// The (ROWS, COLS) C tile in shared memory (row stride `stride`) to C at (m0, n0): 16-byte
// stores along C's rows when c_vec (ldc a multiple of 8, C 16-byte aligned), element by
// element at the right edge; `threads` threads, this one `tid`.
template <int ROWS, int COLS, class T>
__device__ __forceinline__ void store_c_tile(const T* out, int stride, T* C, long long ldc, int m0, int n0, int m,
                                             int n, bool c_vec, int tid, int threads) {
  for (int c = tid; c < ROWS * COLS / 8; c += threads) {
    const int row = c / (COLS / 8), col = (c % (COLS / 8)) * 8;
    const int gm = m0 + row, gn = n0 + col;
    if (gm >= m || gn >= n) continue;
    const T* src = out + row * stride + col;
    T* dst = C + gm * ldc + gn;
    if (c_vec && gn + 8 <= n) {
      *reinterpret_cast<uint4*>(dst) = *reinterpret_cast<const uint4*>(src);
    } else {
      for (int q = 0; q < 8 && gn + q < n; ++q) dst[q] = src[q];
    }
  }
}

// Grouped rasterization of the (tiles_m x tiles_n) output tiles over blockIdx.x: 8
// consecutive blocks along m share the weight tile in L2.
__device__ __forceinline__ void block_tile(int tiles_m, int tiles_n, int& tm, int& tn) {
  constexpr int kGroupM = 8;
  const int per_group = kGroupM * tiles_n;
  const int group = blockIdx.x / per_group, first_m = group * kGroupM;
  const int group_m = min(tiles_m - first_m, kGroupM);
  tm = first_m + (blockIdx.x % per_group) % group_m;
  tn = (blockIdx.x % per_group) / group_m;
}

}  // namespace tessera::kernels::cuda::nv24_detail
