#pragma once
// Private pieces shared by the two NV24 kernel sources: nv24_spmm.cu (portable mma.sp kernel,
// launch choice, split-K workspace) and nv24_spmm_wgmma.cu (sm_90a wgmma.sp kernel). Not
// installed.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include "tessera/kernels/nm_spmm/cuda/nv24_spmm_cuda.hpp"

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

// K splits of a wgmma.sp launch: the blocks of one output tile form a cluster (the portable limit).
constexpr int kMaxClusterSplits = 8;

// The sm_90a kernel (nv24_spmm_wgmma.cu): a block of two warpgroups and a producer warp
// computes bn weight rows x bm activation rows. Host-side facts the launch choice needs, and
// the launch itself: blocks of the tiles_m x tiles_n grid along x, `splits` K splits along
// y (at most kMaxClusterSplits, one cluster per output tile), each running split_stages k
// tiles. dependent (one split only): launched as the programmatic dependent of the wgmma.sp
// launch before it on the stream (whose blocks allow it at once), which it must not read from.
struct WgmmaTileInfo {
  int bn, bm, threads, smem_bytes;
};
WgmmaTileInfo wgmma_tile_info(Nv24Tile tile);
// Clusters of `splits` blocks of `tile` the current device runs at once (its GPCs hold whole
// clusters only, so this can be less than the multiprocessors / splits). Cached per device.
int wgmma_max_active_clusters(Nv24Tile tile, int splits);
void wgmma_launch(Nv24Tile tile, const Nv24Args& a, int splits, int split_stages, bool dependent,
                  cudaStream_t stream);

}  // namespace tessera::kernels::cuda::nv24_detail
