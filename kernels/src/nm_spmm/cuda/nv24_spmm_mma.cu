// The portable NV24 kernel: mma.sp (sm_80 and newer; the algorithm is described in
// tessera/kernels/nm_spmm/cuda/nv24_spmm.hpp, the layout in tessera/formats/nv24/layout.hpp),
// its split-K finalization and its launches (nv24_launch.hpp). Every CUDA call and launch is
// checked and turned into tessera::CudaError.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "tessera/formats/nv24/layout.hpp"
#include "../../common/cuda_support.hpp"
#include "../../common/ptx_copy.cuh"
#include "nv24_launch.hpp"
#include "nv24_spmm_internal.cuh"

namespace tessera::kernels::cuda {
namespace {
using nv24_detail::from_float;
using nv24_detail::k_tiles;
using nv24_detail::put_fragment;
using nv24_detail::split_extent;
using nv24_detail::store_c_tile;
using nv24_detail::TileInfo;

constexpr int kKTile = nv24::kKTile;
constexpr int kValsPerRow = kKTile / 2;  // compressed values of one row per k tile (32 = 4 x 16 B)
static_assert(kKTile == 64 && nv24::kRowTile == 16 && nv24::kTileWords == 32,
              "the kernel reads one metadata tile (16 rows x 64 k, 32 words) per warp row tile and k tile");

// ---------------------------------------------------------------------------------
// mma wrappers (sm_80+; the copy wrappers are in common/ptx_copy.cuh)
// SM80_SPARSE_16x8x32_F32F16F16F32_TN: D (16x8) += A (16x32, 2:4, compressed 16x16) * B (32x8).
// SEL: which lanes of each quad hold the metadata (0: lanes 0,1; 1: lanes 2,3).
template <int SEL>
__device__ __forceinline__ void mma_sp_16832(float (&d)[4], const unsigned (&a)[4], const unsigned (&b)[4],
                                             unsigned e, __half) {
  asm volatile(
      "mma.sp::ordered_metadata.sync.aligned.m16n8k32.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, "
      "{%4,%5,%6,%7}, {%8,%9,%10,%11}, {%0,%1,%2,%3}, %12, %13;\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "r"(b[2]), "r"(b[3]), "r"(e),
        "n"(SEL));
}
template <int SEL>
__device__ __forceinline__ void mma_sp_16832(float (&d)[4], const unsigned (&a)[4], const unsigned (&b)[4],
                                             unsigned e, __nv_bfloat16) {
  asm volatile(
      "mma.sp::ordered_metadata.sync.aligned.m16n8k32.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, "
      "{%4,%5,%6,%7}, {%8,%9,%10,%11}, {%0,%1,%2,%3}, %12, %13;\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "r"(b[2]), "r"(b[3]), "r"(e),
        "n"(SEL));
}

// ---------------------------------------------------------------------------------
// Tile shape. BN: rows of W (columns of C) per block; BM: rows of A (rows of C) per block;
// WN x WM warps, each computing a (BN/WN) x (BM/WM) piece with (BN/WN/16) x (BM/WM/8) mma.sp;
// STAGES pipeline stages of KSUB k tiles of 64 each (one barrier per stage).
template <int BN, int BM, int WN, int WM, int STAGES, int KSUB>
struct Shape {
  static constexpr int kThreads = WN * WM * 32;
  static constexpr int kWarpN = BN / WN, kWarpM = BM / WM;
  static constexpr int kFragN = kWarpN / 16, kFragM = kWarpM / 8;
  static constexpr int kValsElems = BN * kValsPerRow;            // (BN, 32) compressed values
  static constexpr int kActElems = BM * kKTile;                  // (BM, 64)
  static constexpr int kMetaWords = BN / nv24::kRowTile * nv24::kTileWords;  // (BN/16, 32)
  static constexpr int kSubBytes = (kValsElems + kActElems) * 2 + kMetaWords * 4;  // one k tile of 64
  static constexpr int kStageBytes = KSUB * kSubBytes;  // KSUB k tiles per pipeline stage
  static constexpr int kOutStride = BN + 8;                      // C tile row (elements), padded
  static constexpr int kOutBytes = BM * kOutStride * 2;          // (BM, BN) output tile, after the loop
  static constexpr int kSmemBytes = std::max(STAGES * kStageBytes, kOutBytes);
  static_assert(kWarpN % 16 == 0 && kWarpM % 8 == 0, "whole mma.sp tiles per warp");
  static_assert((BN * 4) % kThreads == 0 || BN * 4 < kThreads, "value chunks per thread");
  static_assert((BM * 8) % kThreads == 0, "activation chunks per thread");
  static_assert(kStageBytes % 16 == 0, "16-byte aligned stages");
};

// Swizzled shared-memory element offsets of 16-byte chunk `ch` of a row: values rows are
// 64 B (4 chunks, two rows per 128-B bank line), activation rows 128 B (8 chunks).
__device__ __forceinline__ int vals_off(int row, int ch) { return row * kValsPerRow + ((ch ^ ((row >> 1) & 3)) << 3); }
__device__ __forceinline__ int act_off(int row, int ch) { return row * kKTile + ((ch ^ (row & 7)) << 3); }

template <class T, int BN, int BM, int WN, int WM, int STAGES, int KSUB>
__global__ void __launch_bounds__(WN* WM * 32)
    nv24_kernel(const T* __restrict__ A, long long lda, const T* __restrict__ vals,
                const unsigned* __restrict__ meta, T* __restrict__ C, long long ldc, int m, int n, int k,
                int k_tiles, int tiles_m, int tiles_n, bool c_vec, int split_stages, float* __restrict__ ws,
                long long ldw) {
  using S = Shape<BN, BM, WN, WM, STAGES, KSUB>;
  extern __shared__ __align__(128) unsigned char smem[];
  const int tid = threadIdx.x, warp = tid >> 5, lane = tid & 31;
  const int wn = warp % WN, wm = warp / WN;

  int tm, tn;
  nv24_detail::block_tile(tiles_m, tiles_n, tm, tn);
  const int m0 = tm * BM, n0 = tn * BN;
  const long long vals_ld = static_cast<long long>(k_tiles) * kValsPerRow;
  const int row_tiles = (n + nv24::kRowTile - 1) / nv24::kRowTile;

  // Sub-tile u of stage s holds one k tile of 64.
  auto stage_vals = [&](int s, int u) { return reinterpret_cast<T*>(smem + s * S::kStageBytes + u * S::kSubBytes); };
  auto stage_act = [&](int s, int u) { return stage_vals(s, u) + S::kValsElems; };
  auto stage_meta = [&](int s, int u) { return reinterpret_cast<unsigned*>(stage_act(s, u) + S::kActElems); };

  // Stage k tile kt into sub-tile u of stage s: W values (BN, 32), A (BM, 64), metadata (BN/16, 32 words).
  auto load_tile = [&](int kt, int s, int u) {
    T* sv = stage_vals(s, u);
    for (int c = tid; c < BN * 4; c += S::kThreads) {
      const int row = c >> 2, ch = c & 3;
      const bool ok = n0 + row < n;
      const T* src = ok ? vals + (n0 + row) * vals_ld + kt * kValsPerRow + ch * 8 : vals;
      cp_async_16(sv + vals_off(row, ch), src, ok ? 16 : 0);
    }
    T* sa = stage_act(s, u);
#pragma unroll
    for (int i = 0; i < BM * 8 / S::kThreads; ++i) {
      const int c = tid + i * S::kThreads;
      const int row = c >> 3, ch = c & 7;
      const int col = kt * kKTile + ch * 8;
      const int bytes = m0 + row < m ? max(0, min(16, (k - col) * 2)) : 0;
      const T* src = bytes > 0 ? A + (m0 + row) * lda + col : A;
      cp_async_16(sa + act_off(row, ch), src, bytes);
    }
    unsigned* sm = stage_meta(s, u);
    for (int c = tid; c < S::kMetaWords / 4; c += S::kThreads) {
      // Rows past n read the last real tile (their values are zero-filled, results dropped).
      const int rt = min(n0 / nv24::kRowTile + (c >> 3), row_tiles - 1);
      cp_async_16(sm + c * 4, meta + (static_cast<long long>(rt) * k_tiles + kt) * nv24::kTileWords + (c & 7) * 4,
                  16);
    }
  };

  // Stage st: k tiles st*KSUB .. st*KSUB+KSUB-1 (those < k_tiles). Split blockIdx.y runs
  // stages [st0, st1).
  const int k_stages = (k_tiles + KSUB - 1) / KSUB;
  const int st0 = blockIdx.y * split_stages, st1 = min(k_stages, st0 + split_stages);
  auto load = [&](int st, int s) {
#pragma unroll
    for (int u = 0; u < KSUB; ++u)
      if (st * KSUB + u < k_tiles) load_tile(st * KSUB + u, s, u);
  };

  float acc[S::kFragN][S::kFragM][4];
#pragma unroll
  for (int i = 0; i < S::kFragN; ++i)
#pragma unroll
    for (int j = 0; j < S::kFragM; ++j)
#pragma unroll
      for (int q = 0; q < 4; ++q) acc[i][j][q] = 0.f;

#pragma unroll
  for (int s = 0; s < STAGES - 1; ++s) {
    if (st0 + s < st1) load(st0 + s, s);
    cp_async_commit();
  }

  // ldmatrix row addresses of this lane. W fragment (16 x 16 compressed): matrices
  // (rows 0-7, chunk 2h), (rows 8-15, 2h), (rows 0-7, 2h+1), (rows 8-15, 2h+1) for k32 half h.
  // A fragment (8 rows x 32 k): matrices k 0-7, 8-15, 16-23, 24-31 of half h.
  const int w_row = wn * S::kWarpN + (lane & 7) + ((lane >> 3) & 1) * 8, w_ch = lane >> 4;
  const int a_row = wm * S::kWarpM + (lane & 7), a_ch = lane >> 3;

  for (int st = st0; st < st1; ++st) {
    cp_async_wait<STAGES - 2>();
    __syncthreads();  // stage st landed for everyone; the slot of stage st-1 is free
    if (st + STAGES - 1 < st1) load(st + STAGES - 1, (st - st0 + STAGES - 1) % STAGES);
    cp_async_commit();

    const int s = (st - st0) % STAGES;
#pragma unroll
    for (int u = 0; u < KSUB; ++u) {
      if (KSUB > 1 && st * KSUB + u >= k_tiles) break;
      const T* sv = stage_vals(s, u);
      const T* sa = stage_act(s, u);
      const unsigned* sm = stage_meta(s, u);
      unsigned e[S::kFragN];
#pragma unroll
      for (int i = 0; i < S::kFragN; ++i) e[i] = sm[(wn * S::kFragN + i) * nv24::kTileWords + lane];
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        unsigned a[S::kFragN][4];
#pragma unroll
        for (int i = 0; i < S::kFragN; ++i) ldmatrix_x4(a[i], sv + vals_off(w_row + i * 16, 2 * h + w_ch));
#pragma unroll
        for (int j = 0; j < S::kFragM; ++j) {
          unsigned b[4];
          ldmatrix_x4(b, sa + act_off(a_row + j * 8, 4 * h + a_ch));
#pragma unroll
          for (int i = 0; i < S::kFragN; ++i) {
            if (h == 0) mma_sp_16832<0>(acc[i][j], a[i], b, e[i], T());
            else mma_sp_16832<1>(acc[i][j], a[i], b, e[i], T());
          }
        }
      }
    }
  }
  cp_async_wait<0>();
  const int g = lane >> 2, t = lane & 3;

  if (ws != nullptr) {
    // Split K: add the partial tile to the fp32 workspace, stored as C^T (n x ldw) so that a
    // thread's two accumulators of one W row are adjacent (one 8-byte atomic).
#pragma unroll
    for (int i = 0; i < S::kFragN; ++i)
#pragma unroll
      for (int j = 0; j < S::kFragM; ++j)
#pragma unroll
        for (int hi = 0; hi < 2; ++hi) {
          const int r = n0 + wn * S::kWarpN + i * 16 + g + 8 * hi, c = m0 + wm * S::kWarpM + j * 8 + 2 * t;
          if (r >= n || c >= m) continue;
          float* dst = ws + r * ldw + c;
          if (c + 1 < m) atomicAdd(reinterpret_cast<float2*>(dst), make_float2(acc[i][j][2 * hi], acc[i][j][2 * hi + 1]));
          else atomicAdd(dst, acc[i][j][2 * hi]);
        }
    return;
  }
  __syncthreads();

  // Accumulators (C^T rows = W rows g / g+8, columns = A rows 2t, 2t+1) -> C tile in shared
  // memory as (BM, BN), then 16-byte coalesced stores along C's rows.
  T* out = reinterpret_cast<T*>(smem);
#pragma unroll
  for (int i = 0; i < S::kFragN; ++i)
#pragma unroll
    for (int j = 0; j < S::kFragM; ++j) {
      const int r = wn * S::kWarpN + i * 16 + g, c = wm * S::kWarpM + j * 8 + 2 * t;
      put_fragment(out, S::kOutStride, r, c, acc[i][j][0], acc[i][j][1], acc[i][j][2], acc[i][j][3]);
    }
  __syncthreads();
  store_c_tile<BM, BN>(out, S::kOutStride, C, ldc, m0, n0, m, n, c_vec, tid, S::kThreads);
}

// C (m x n) = the split-K workspace W^T (n x ldw, fp32), transposed through shared memory.
template <class T>
__global__ void nv24_split_finalize(const float* __restrict__ ws, long long ldw, T* __restrict__ C, long long ldc,
                                    int m, int n) {
  __shared__ float tile[32][33];
  const int r0 = blockIdx.y * 32, c0 = blockIdx.x * 32;  // r: rows of W (columns of C), c: rows of C
  for (int y = threadIdx.y; y < 32; y += blockDim.y) {
    const int r = r0 + y, c = c0 + threadIdx.x;
    tile[y][threadIdx.x] = r < n && c < m ? ws[r * ldw + c] : 0.f;
  }
  __syncthreads();
  for (int y = threadIdx.y; y < 32; y += blockDim.y) {
    const int c = c0 + y, r = r0 + threadIdx.x;
    if (c < m && r < n) C[c * ldc + r] = from_float(tile[threadIdx.x][y], T());
  }
}

// fp32 workspace rows (C^T, n of them) of a split launch: even, so that 8-byte atomics stay aligned.
long long workspace_ld(const Nv24Args& a) { return (a.m + 1) / 2 * 2; }

// Runs run(ws, ldw, splits, split_stages) with K split `splits` ways over `stages` pipeline
// stages: ws == nullptr for one split, else a zeroed fp32 workspace C^T (n x ldw) that the
// blocks add their partial tiles to and that is converted into C afterwards.
template <class Run>
void run_split(const Nv24Args& a, int splits_asked, std::int64_t stages, cudaStream_t stream, Run&& run) {
  const auto [splits, split_stages] = split_extent(splits_asked, stages);
  if (splits == 1) return run(nullptr, 0LL, 1, split_stages);
  const long long ldw = workspace_ld(a);
  DeviceBuffer<float> ws(static_cast<std::size_t>(a.n * ldw), stream, formats::cuda::device_scratch_pool());
  TESSERA_CUDA_CHECK(cudaMemsetAsync(ws.ptr, 0, a.n * ldw * sizeof(float), stream));
  run(ws.ptr, ldw, splits, split_stages);
  const dim3 grid((a.m + 31) / 32, (a.n + 31) / 32), block(32, 8);
  const int m = static_cast<int>(a.m), n = static_cast<int>(a.n);
  if (a.type == Nv24Type::F16)
    nv24_split_finalize<__half><<<grid, block, 0, stream>>>(ws.ptr, ldw, static_cast<__half*>(a.C), a.ldc, m, n);
  else
    nv24_split_finalize<__nv_bfloat16>
        <<<grid, block, 0, stream>>>(ws.ptr, ldw, static_cast<__nv_bfloat16*>(a.C), a.ldc, m, n);
  TESSERA_CUDA_CHECK_LAUNCH("nv24_split_finalize");
}

template <int BN, int BM, int WN, int WM, int STAGES, int KSUB>
struct Config {
  using S = Shape<BN, BM, WN, WM, STAGES, KSUB>;
  static TileInfo info() { return {BN, BM, KSUB, S::kSmemBytes}; }
  static std::int64_t k_stages(const Nv24Args& a) { return (k_tiles(a) + KSUB - 1) / KSUB; }

  template <class T>
  static void launch(const Nv24Args& a, int splits, cudaStream_t stream) {
    auto kernel = nv24_kernel<T, BN, BM, WN, WM, STAGES, KSUB>;
    TESSERA_CUDA_CHECK(
        cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, S::kSmemBytes));
    const int tiles_m = static_cast<int>((a.m + BM - 1) / BM), tiles_n = static_cast<int>((a.n + BN - 1) / BN);
    const bool c_vec = a.ldc % 8 == 0 && reinterpret_cast<std::uintptr_t>(a.C) % 16 == 0;
    run_split(a, splits, k_stages(a), stream, [&](float* ws, long long ldw, int grid_splits, int split_stages) {
      kernel<<<dim3(tiles_m * tiles_n, grid_splits), S::kThreads, S::kSmemBytes, stream>>>(
          static_cast<const T*>(a.A), a.lda, static_cast<const T*>(a.vals), a.meta, static_cast<T*>(a.C), a.ldc,
          static_cast<int>(a.m), static_cast<int>(a.n), static_cast<int>(a.k), static_cast<int>(a.k_padded / kKTile),
          tiles_m, tiles_n, c_vec, split_stages, ws, ldw);
      TESSERA_CUDA_CHECK_LAUNCH("nv24_kernel");
    });
  }
};
// 256 x 128 with 3 stages of two k tiles: the fastest of the shapes tried (128 x 256 with 4
// stages of one k tile, 16-warp variants).
using LargeTile = Config<256, 128, 4, 2, 3, 2>;   // 8 warps of 64 x 64, 204 KB: 1 block per SM
using MediumTile = Config<128, 128, 2, 2, 4, 1>;  // 4 warps of 64 x 64, 100 KB: 2 blocks per SM
using SmallTile = Config<64, 64, 2, 2, 4, 1>;     // 4 warps of 32 x 32, 50 KB

// Calls f(Config) for the tile's configuration (Small for any other tile).
template <class F>
decltype(auto) with_config(Nv24Tile tile, F&& f) {
  switch (tile) {
    case Nv24Tile::Large: return f(LargeTile());
    case Nv24Tile::Medium: return f(MediumTile());
    default: return f(SmallTile());
  }
}

}  // namespace

namespace nv24_detail {

TileInfo mma_tile_info(Nv24Tile tile) {
  return with_config(tile, [](auto config) { return decltype(config)::info(); });
}

std::size_t mma_workspace_bytes(Nv24Tile tile, const Nv24Args& a, int splits) {
  if (a.m == 0 || a.n == 0) return 0;
  const std::int64_t stages = with_config(tile, [&](auto config) { return decltype(config)::k_stages(a); });
  if (split_extent(splits, stages).first == 1) return 0;
  return static_cast<std::size_t>(a.n * workspace_ld(a)) * sizeof(float);
}

void mma_launch(Nv24Tile tile, const Nv24Args& a, int splits, cudaStream_t stream) {
  with_config(tile, [&](auto config) {
    if (a.type == Nv24Type::F16) decltype(config)::template launch<__half>(a, splits, stream);
    else decltype(config)::template launch<__nv_bfloat16>(a, splits, stream);
  });
}

}  // namespace nv24_detail
}  // namespace tessera::kernels::cuda
