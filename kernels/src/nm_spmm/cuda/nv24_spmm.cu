// NV24 sparse-tensor-core kernel (see tessera/kernels/nm_spmm/cuda/nv24_spmm_cuda.hpp and the
// layout in tessera/formats/nv24/layout.hpp). Raw pointers only; every CUDA call and launch
// is checked and turned into tessera::CudaError.
#include "tessera/kernels/nm_spmm/cuda/nv24_spmm_cuda.hpp"

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <iterator>
#include <map>
#include <mutex>
#include <utility>
#include <string>
#include <vector>

#include "tessera/core/error.hpp"
#include "../../common/cuda_support.hpp"
#include "../../common/ptx_copy.cuh"
#include "nv24_launch_cache.hpp"
#include "nv24_spmm_internal.cuh"
#include "tessera/formats/nv24/layout.hpp"

namespace tessera::kernels::cuda {
namespace {
using nv24_detail::from_float;
using nv24_detail::put_fragment;
using nv24_detail::store_c_tile;

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

// ---------------------------------------------------------------------------------
// Host side
struct DeviceInfo {
  int sms = 0;
  int max_smem_optin = 0;
  bool hopper = false;  // compute capability 9.0: the sm_90a wgmma kernel runs
};
DeviceInfo device_info() {
  static std::mutex mutex;
  static std::vector<DeviceInfo> cache;
  int dev = 0;
  TESSERA_CUDA_CHECK(cudaGetDevice(&dev));
  std::lock_guard<std::mutex> lock(mutex);
  if (static_cast<int>(cache.size()) <= dev) cache.resize(dev + 1);
  if (cache[dev].sms == 0) {
    int major = 0, minor = 0;
    TESSERA_CUDA_CHECK(cudaDeviceGetAttribute(&cache[dev].sms, cudaDevAttrMultiProcessorCount, dev));
    TESSERA_CUDA_CHECK(
        cudaDeviceGetAttribute(&cache[dev].max_smem_optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev));
    TESSERA_CUDA_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev));
    TESSERA_CUDA_CHECK(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, dev));
    cache[dev].hopper = major == 9 && minor == 0;
  }
  return cache[dev];
}

// The sm_90a wgmma.sp tiles (nv24_spmm_wgmma.cu), Auto's candidates on compute capability 9.0.
constexpr Nv24Tile kHopperTiles[] = {Nv24Tile::HopperWide, Nv24Tile::HopperSquare, Nv24Tile::HopperTall,
                                     Nv24Tile::HopperLarge};
// The tiles of a head + tail pair (Nv24Launch::tail_rows). Not HopperSquare: on an H100, 10 of
// the 12 pairs with it as head or tail ran 12-31% slower than the single launch they replaced
// (two of its blocks share a multiprocessor, which the one-block-per-multiprocessor estimate
// below ignores).
constexpr Nv24Tile kHeadTailTiles[] = {Nv24Tile::HopperWide, Nv24Tile::HopperTall, Nv24Tile::HopperLarge};
bool is_hopper_tile(Nv24Tile t) {
  return std::find(std::begin(kHopperTiles), std::end(kHopperTiles), t) != std::end(kHopperTiles);
}

// Tuning constants of the time model below, fitted to H100 runs of perf_tests/nv24
// (nv24_bench --sweep for the mma.sp tiles, --sweep-set for the wgmma.sp ones): relative
// throughput of a full multiprocessor for each tile shape (about 400, 360 and 220
// dense-equivalent TFLOP/s at 4096^3 for the mma.sp tiles; 810, 680 and 930 for the
// wgmma.sp Wide, Square and Tall tiles, Tall behind Wide below m = 2048; HopperLarge about
// 1050 where its blocks fill whole waves, slower than the others below m = 1024), and the
// cost of the mma.sp tiles' split-K reduction per output element and split (8-byte atomic)
// and per output element (zeroing + finalize), in units of one (tile element x k tile of 64)
// of the Large shape's main loop. The wgmma.sp constants minimise the geometric-mean loss of
// the chosen (tile, split) against the fastest one over the LLM set (4.3% -> 1.1% on those sweeps;
// 0.7% with HopperLarge, whose rates were fitted with the others kept). Re-checked with two
// runs of the interleaved --sweep-set (every tile, split and head + tail pair timed in the same
// power state): Auto's launch is 1.5-1.6% from the fastest candidate (geometric mean), and a
// refit of these constants on either run gains 0.1% on the other, so they stay.
constexpr double kLargeRate = 1.0, kMediumRate = 0.9, kSmallRate = 0.55;
constexpr double kHopperWideRate = 2.3, kHopperSquareRate = 1.7, kHopperTallRate = 1.8, kHopperTallLargeMRate = 2.4,
                 kHopperLargeRate = 2.7, kHopperLargeSmallMRate = 1.8;
constexpr std::int64_t kHopperTallLargeM = 2048, kHopperLargeSmallM = 1024;
constexpr double kSplitCostPerElement = 0.044, kReduceCostPerElement = 0.1;
// The wgmma.sp tiles sum K splits in a cluster (nv24_spmm_wgmma.cu), which costs a block
// about this many k tiles of its main loop, plus as many again per split (on an H100, per
// block: 0.5-0.9 us to write its fp32 partial tile, 0.8-1.5 us of cluster barrier, 2.4-3.7 us
// to sum its share from the other blocks' shared memory; the first tile's latency, 1-2.4 us,
// is paid once per block too). Fitted on an H100 (every wgmma.sp tile at 1-8 splits, m = 256,
// 512 and 1024 of the LLM set, random data; the estimate re-evaluated off line over those
// measured times): Auto's launch 2.8% from the fastest one in geometric mean over those 60
// shapes, against 9.0% with no splits. A split's blocks only run
// as whole clusters on one GPC, so its waves count clusters (wgmma_max_active_clusters).
constexpr double kClusterReduceStages = 1.0, kClusterReduceStagesPerSplit = 6.0;
constexpr int kMaxSplits = nv24_detail::kMaxClusterSplits;  // the wgmma.sp tiles' limit, the mma.sp ones' too
// A tail launch (Nv24Launch::tail_rows) costs about one k tile of the HopperLarge block.
constexpr double kTailLaunchCost = 256 * 192 / kHopperLargeRate;

// A block tile as the time model sees it: bn x bm outputs, ksub k tiles of 64 per pipeline
// stage (the unit of K splitting), its shared memory and its relative rate. lone_full_rate:
// one resident block already runs at the multiprocessor's rate (the wgmma.sp kernel, fed by
// the copy engine); a second one only fills its gaps, which `rate` accounts for.
struct TileModel {
  int bn, bm, ksub, smem_bytes;
  double rate;
  bool lone_full_rate = false;
  bool cluster_splits = false;  // K splits summed in a cluster, else through the fp32 workspace
  Nv24Tile tile = Nv24Tile::Auto;  // the wgmma.sp tile, for its cluster occupancy

  std::int64_t blocks(const Nv24Args& a) const { return ((a.m + bm - 1) / bm) * ((a.n + bn - 1) / bn); }
  std::int64_t k_stages(const Nv24Args& a) const { return (a.k_padded / kKTile + ksub - 1) / ksub; }
  // One block's time over the whole of K, on a multiprocessor of its own.
  double block_time(const Nv24Args& a) const { return static_cast<double>(k_stages(a)) * bn * bm * ksub / rate; }
  // Blocks that fit on one multiprocessor at once (shared memory bound; 228 KB per SM on
  // Hopper is read as the opt-in limit plus the 1 KB per block the runtime reserves).
  int per_sm(const DeviceInfo& d) const {
    return lone_full_rate ? 1 : std::max(1, (d.max_smem_optin + 1024) / (smem_bytes + 1024));
  }

  // Estimated time with `splits` K splits: waves of blocks, each taking its share of K at the
  // speed of one block (a multiprocessor's rate divided by the blocks that fit on it: a lone
  // small block leaves most of a multiprocessor idle), plus the split-K reduction.
  double estimate(const Nv24Args& a, const DeviceInfo& d, int splits) const {
    const std::int64_t per = per_sm(d);
    const std::int64_t waves = (blocks(a) * splits + d.sms * per - 1) / (d.sms * per);
    const std::int64_t stages = (k_stages(a) + splits - 1) / splits;
    const double block_stage = static_cast<double>(per) * bn * bm * ksub / rate;
    if (cluster_splits && splits > 1) {
      // one block per multiprocessor (as above), whole clusters per GPC
      const std::int64_t concurrent =
          std::max<std::int64_t>(1, std::min<std::int64_t>(nv24_detail::wgmma_max_active_clusters(tile, splits),
                                                           d.sms / splits));
      const std::int64_t cluster_waves = (blocks(a) + concurrent - 1) / concurrent;
      return cluster_waves * (stages + kClusterReduceStages + kClusterReduceStagesPerSplit * splits) * block_stage;
    }
    const double reduce =
        splits > 1 ? static_cast<double>(a.m * a.n) * (kSplitCostPerElement * splits + kReduceCostPerElement) : 0.0;
    return static_cast<double>(waves * stages) * block_stage + reduce;
  }
  // The best split count and its estimated time; each split keeps at least two stages.
  std::pair<int, double> best_split(const Nv24Args& a, const DeviceInfo& d) const {
    std::pair<int, double> best{1, estimate(a, d, 1)};
    for (int s = 2; s <= kMaxSplits && 2 * s <= k_stages(a); ++s) {
      const double t = estimate(a, d, s);
      if (t < best.second) best = {s, t};
    }
    return best;
  }
};

// Time to the end of a launch of head_blocks blocks of head_time each followed by a tail
// launch of tail_blocks blocks of tail_time each, one block per multiprocessor (the wgmma.sp
// tiles): the tail's blocks take the multiprocessors the head's last wave leaves idle, then
// each one that comes free (list scheduling of equal blocks), plus the tail launch's cost.
double head_tail_estimate(std::int64_t head_blocks, double head_time, std::int64_t tail_blocks, double tail_time,
                          std::int64_t sms) {
  const std::int64_t full = head_blocks / sms, rest = head_blocks % sms;
  // multiprocessors free from a time on, by time
  std::multimap<double, std::int64_t> free = {{static_cast<double>(full) * head_time, sms - rest}};
  if (rest > 0) free.emplace(static_cast<double>(full + 1) * head_time, rest);
  double end = static_cast<double>(full + (rest > 0 ? 1 : 0)) * head_time;
  while (tail_blocks > 0) {
    const auto [t, count] = *free.begin();
    free.erase(free.begin());
    const std::int64_t run = std::min(count, tail_blocks);
    tail_blocks -= run;
    end = std::max(end, t + tail_time);
    free.emplace(t + tail_time, run);
    if (count > run) free.emplace(t, count - run);
  }
  return end + kTailLaunchCost;
}

// `splits` K splits over `stages` pipeline stages as launched: (splits, stages per split),
// at most `stages` splits and none empty (k == 0: one split).
std::pair<int, int> split_extent(int splits, std::int64_t stages) {
  splits = static_cast<int>(std::max<std::int64_t>(1, std::min<std::int64_t>(splits, stages)));
  const int split_stages = static_cast<int>(std::max<std::int64_t>(1, (stages + splits - 1) / splits));
  return {static_cast<int>(std::max<std::int64_t>(1, (stages + split_stages - 1) / split_stages)), split_stages};
}

// Runs run(ws, ldw, splits, split_stages) with K split `splits` ways over `stages` pipeline
// stages (the mma.sp kernel): ws == nullptr for one split, else a zeroed fp32 workspace C^T
// (n x ldw) that the blocks add their partial tiles to and that is converted into C afterwards.
template <class Run>
void run_split(const Nv24Args& a, int splits_asked, std::int64_t stages, cudaStream_t stream, Run&& run) {
  const auto [splits, split_stages] = split_extent(splits_asked, stages);
  if (splits == 1) return run(nullptr, 0LL, 1, split_stages);
  const long long ldw = (a.m + 1) / 2 * 2;  // even: 8-byte atomics stay aligned
  DeviceBuffer<float> ws(static_cast<std::size_t>(a.n * ldw), stream, workspace_pool());
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
  static TileModel model(double rate) { return {BN, BM, KSUB, S::kSmemBytes, rate}; }

  template <class T>
  static void launch(const Nv24Args& a, int splits, cudaStream_t stream) {
    auto kernel = nv24_kernel<T, BN, BM, WN, WM, STAGES, KSUB>;
    TESSERA_CUDA_CHECK(
        cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, S::kSmemBytes));
    const int tiles_m = static_cast<int>((a.m + BM - 1) / BM), tiles_n = static_cast<int>((a.n + BN - 1) / BN);
    const bool c_vec = a.ldc % 8 == 0 && reinterpret_cast<std::uintptr_t>(a.C) % 16 == 0;
    run_split(a, splits, model(1.0).k_stages(a), stream, [&](float* ws, long long ldw, int grid_splits, int split_stages) {
      kernel<<<dim3(tiles_m * tiles_n, grid_splits), S::kThreads, S::kSmemBytes, stream>>>(
          static_cast<const T*>(a.A), a.lda, static_cast<const T*>(a.vals), a.meta, static_cast<T*>(a.C), a.ldc,
          static_cast<int>(a.m), static_cast<int>(a.n), static_cast<int>(a.k), static_cast<int>(a.k_padded / kKTile),
          tiles_m, tiles_n, c_vec, split_stages, ws, ldw);
      TESSERA_CUDA_CHECK_LAUNCH("nv24_kernel");
    });
  }
};
// Measured on an H100 (perf_tests/nv24, --sweep): 256 x 128 with 3 stages of two k tiles
// ran 5-20% faster than 128 x 256 / 4 stages of one k tile and the 16-warp variants.
using LargeTile = Config<256, 128, 4, 2, 3, 2>;   // 8 warps of 64 x 64, 204 KB: 1 block per SM
using MediumTile = Config<128, 128, 2, 2, 4, 1>;  // 4 warps of 64 x 64, 100 KB: 2 blocks per SM
using SmallTile = Config<64, 64, 2, 2, 4, 1>;     // 4 warps of 32 x 32, 50 KB

// The sm_90a tiles (nv24_spmm_wgmma.cu): one k tile per stage.
TileModel hopper_model(Nv24Tile t, const Nv24Args& a) {
  const nv24_detail::WgmmaTileInfo i = nv24_detail::wgmma_tile_info(t);
  const double rate = t == Nv24Tile::HopperWide    ? kHopperWideRate
                      : t == Nv24Tile::HopperTall  ? (a.m >= kHopperTallLargeM ? kHopperTallLargeMRate : kHopperTallRate)
                      : t == Nv24Tile::HopperLarge ? (a.m < kHopperLargeSmallM ? kHopperLargeSmallMRate : kHopperLargeRate)
                                                   : kHopperSquareRate;
  return {i.bn, i.bm, 1, i.smem_bytes, rate, true, true, t};
}

template <class T>
void launch(const Nv24Launch& l, const Nv24Args& a, cudaStream_t stream) {
  switch (l.tile) {
    case Nv24Tile::Large: return LargeTile::launch<T>(a, l.splits, stream);
    case Nv24Tile::Medium: return MediumTile::launch<T>(a, l.splits, stream);
    default: return SmallTile::launch<T>(a, l.splits, stream);
  }
}

void require(bool ok, const std::string& what) {
  if (!ok) throw ShapeError("tessera::nv24_spmm: " + what);
}

}  // namespace

bool nv24_a_in_place(const void* A, std::int64_t lda, std::int64_t k) {
  return lda >= k && lda % 8 == 0 && reinterpret_cast<std::uintptr_t>(A) % 16 == 0;
}

const char* to_string(Nv24Tile t) {
  switch (t) {
    case Nv24Tile::Auto: return "Auto";
    case Nv24Tile::Large: return "Large(256x128)";
    case Nv24Tile::Medium: return "Medium(128x128)";
    case Nv24Tile::Small: return "Small(64x64)";
    case Nv24Tile::HopperWide: return "HopperWide(128x256)";
    case Nv24Tile::HopperSquare: return "HopperSquare(128x128)";
    case Nv24Tile::HopperTall: return "HopperTall(256x128)";
    case Nv24Tile::HopperLarge: return "HopperLarge(256x192)";
  }
  return "?";
}

std::string to_string(const Nv24Launch& l) {
  std::string s = to_string(l.tile);
  if (l.splits > 1) s += " /" + std::to_string(l.splits) + " K";
  if (l.tail_rows > 0) s += " + " + std::to_string(l.tail_rows) + " rows " + to_string(l.tail_tile);
  return s;
}

namespace {
void require_runnable(Nv24Tile tile, const DeviceInfo& d) {
  if (is_hopper_tile(tile) && !d.hopper)
    throw NotCompiled(std::string("tessera::nv24_spmm: tile ") + to_string(tile) +
                      " runs the sm_90a wgmma.sp kernel, which needs a compute capability 9.0 device");
}

TileModel tile_model(Nv24Tile t, const Nv24Args& args) {
  return is_hopper_tile(t)         ? hopper_model(t, args)
         : t == Nv24Tile::Large  ? LargeTile::model(kLargeRate)
         : t == Nv24Tile::Medium ? MediumTile::model(kMediumRate)
                                 : SmallTile::model(kSmallRate);
}

// The first head row tile a tail may start at (tails start there up to the last one).
std::int64_t first_tail_start(std::int64_t row_tiles, std::int64_t head_cols, const DeviceInfo& d) {
  return std::max<std::int64_t>(1, row_tiles - d.sms / head_cols - 2);
}

// The best tail (Nv24Launch::tail_rows) behind whole row tiles of the wgmma.sp tile `head`
// and its estimated time; tail_rows 0 when none beats `time`, the head tile alone. The tail
// starts at one of the last head row tiles: it is there to fill the head's last wave, and a
// tail of more than about a wave of head blocks only runs more of C on a slower tile.
std::pair<Nv24Launch, double> best_tail(const Nv24Args& a, const DeviceInfo& d, Nv24Tile head, double time) {
  std::pair<Nv24Launch, double> best{{head, 1}, time};
  const TileModel h = hopper_model(head, a);
  const std::int64_t head_cols = (a.n + h.bn - 1) / h.bn, row_tiles = (a.m + h.bm - 1) / h.bm;
  if (h.blocks(a) % d.sms == 0) return best;
  for (Nv24Tile tail : kHeadTailTiles) {
    if (tail == head) continue;
    const TileModel t = hopper_model(tail, a);
    const std::int64_t tail_cols = (a.n + t.bn - 1) / t.bn;
    for (std::int64_t rows = first_tail_start(row_tiles, head_cols, d); rows < row_tiles; ++rows) {
      const std::int64_t tail_rows = a.m - rows * h.bm;
      const double estimate = head_tail_estimate(rows * head_cols, h.block_time(a),
                                                 (tail_rows + t.bm - 1) / t.bm * tail_cols, t.block_time(a), d.sms);
      if (estimate < best.second) best = {{head, 1, tail, tail_rows}, estimate};
    }
  }
  return best;
}

// The wgmma.sp kernel sums a tile's K splits in one cluster, whose portable size limit is 8.
void require_splits(const Nv24Launch& l) {
  require(!is_hopper_tile(l.tile) || l.splits <= nv24_detail::kMaxClusterSplits,
          std::string("tile ") + to_string(l.tile) + " runs at most " + std::to_string(nv24_detail::kMaxClusterSplits) +
              " K splits (one cluster per output tile), not " + std::to_string(l.splits));
}

void require_args(const Nv24Args& a) {
  require(a.m >= 0 && a.n >= 0 && a.k >= 0, "negative extent");
  require(a.k_padded == nv24::padded_k(a.k), "k_padded is " + std::to_string(a.k_padded) + ", expected " +
                                                 std::to_string(nv24::padded_k(a.k)));
  require(a.ldc >= a.n, "ldc " + std::to_string(a.ldc) + " < n " + std::to_string(a.n));
  require(a.m * std::max(a.lda, a.k) < (std::int64_t(1) << 31) && a.m * a.ldc < (std::int64_t(1) << 31) &&
              a.n * a.k_padded < (std::int64_t(1) << 31),
          "operands of 2^31 elements or more are not supported");
  require(a.m == 0 || a.n == 0 || a.k == 0 || nv24_a_in_place(a.A, a.lda, a.k),
          "A needs a row stride >= k that is a multiple of 8 and a 16-byte aligned base (lda " +
              std::to_string(a.lda) + ", k " + std::to_string(a.k) + ")");
}

void run(const Nv24Args& a, const Nv24Launch& l, cudaStream_t stream) {
  if (a.m == 0 || a.n == 0) return;
  if (l.tail_rows > 0) {
    // Rows [0, m - tail_rows) with the head tile, the rest with the tail tile as its dependent.
    const std::int64_t head_rows = a.m - l.tail_rows, k_tiles = std::max<std::int64_t>(1, a.k_padded / kKTile);
    Nv24Args head = a, tail = a;
    head.m = head_rows;
    tail.m = l.tail_rows;
    if (a.k > 0) tail.A = static_cast<const char*>(a.A) + head_rows * a.lda * 2;  // 2-byte elements; k 0: unread
    tail.C = static_cast<char*>(a.C) + head_rows * a.ldc * 2;
    nv24_detail::wgmma_launch(l.tile, head, 1, static_cast<int>(k_tiles), false, stream);
    nv24_detail::wgmma_launch(l.tail_tile, tail, 1, static_cast<int>(k_tiles), true, stream);
    return;
  }
  if (is_hopper_tile(l.tile)) {
    const auto [splits, split_stages] = split_extent(l.splits, a.k_padded / kKTile);
    nv24_detail::wgmma_launch(l.tile, a, splits, split_stages, false, stream);  // splits summed in clusters
    return;
  }
  if (a.type == Nv24Type::F16) launch<__half>(l, a, stream);
  else launch<__nv_bfloat16>(l, a, stream);
}
}  // namespace

Nv24TileShape nv24_tile_shape(Nv24Tile tile) {
  require(tile != Nv24Tile::Auto, "Auto has no block tile");
  const TileModel t = tile_model(tile, Nv24Args{});
  return {t.bn, t.bm};
}

namespace {
// Auto's estimate, uncached (nv24_choose).
Nv24Launch estimate_launch(const Nv24Args& args, Nv24Tile tile) {
  const DeviceInfo d = device_info();
  require_runnable(tile, d);
  // On compute capability 9.0 the wgmma.sp tiles only, as nv24_candidates: the mma.sp ones ran
  // slower on every shape measured, and their split-K estimate (a workspace) is another model's.
  std::vector<Nv24Tile> candidates = {Nv24Tile::Large, Nv24Tile::Medium, Nv24Tile::Small};
  if (d.hopper) candidates.assign(std::begin(kHopperTiles), std::end(kHopperTiles));
  if (tile != Nv24Tile::Auto) candidates = {tile};
  Nv24Launch best{candidates.front(), 1};
  double best_time = 0;
  for (Nv24Tile t : candidates) {
    const auto [splits, time] = tile_model(t, args).best_split(args, d);
    if (t == candidates.front() || time < best_time) {
      best = {t, splits};
      best_time = time;
    }
  }
  // Auto: a head of one wgmma.sp tile and a tail of another may beat every single launch.
  if (tile == Nv24Tile::Auto && d.hopper)
    for (Nv24Tile head : kHeadTailTiles) {
      const auto [launch, time] = best_tail(args, d, head, tile_model(head, args).estimate(args, d, 1));
      if (launch.tail_rows > 0 && time < best_time) {
        best = launch;
        best_time = time;
      }
    }
  return best;
}

nv24_detail::LaunchCache chosen_launches;
}  // namespace

// The estimate takes 2-55 us on the host (H100, the LLM set: median 7.7 us), of the order of
// the smallest products' kernels (11 us at 256 x 2048 x 2048), and every nv24_spmm call without
// a launch asks for it: each device and shape's pick is kept.
Nv24Launch nv24_choose(const Nv24Args& args, Nv24Tile tile) {
  const auto key = nv24_detail::LaunchCache::key(args, tile);
  if (const auto found = chosen_launches.find(key)) return *found;
  const Nv24Launch launch = estimate_launch(args, tile);
  chosen_launches.store(key, launch);
  return launch;
}

std::size_t nv24_chosen_shapes() { return chosen_launches.size(); }

std::vector<Nv24Launch> nv24_candidates(const Nv24Args& args) {
  const DeviceInfo d = device_info();
  std::vector<Nv24Launch> out = {nv24_choose(args)};
  const auto add = [&](const Nv24Launch& l) {
    for (const Nv24Launch& o : out)
      if (o.tile == l.tile && o.splits == l.splits && o.tail_tile == l.tail_tile && o.tail_rows == l.tail_rows) return;
    out.push_back(l);
  };
  std::vector<Nv24Tile> tiles = {Nv24Tile::Large, Nv24Tile::Medium, Nv24Tile::Small};
  if (d.hopper) tiles.assign(std::begin(kHopperTiles), std::end(kHopperTiles));
  for (Nv24Tile t : tiles)
    for (int splits : {1, 2, 3, 4, 6, 8})
      if (splits == 1 || 2 * splits <= tile_model(t, args).k_stages(args)) add({t, splits});
  if (d.hopper)
    for (Nv24Tile head : kHeadTailTiles) {
      const TileModel h = hopper_model(head, args);
      const std::int64_t head_cols = (args.n + h.bn - 1) / h.bn, row_tiles = (args.m + h.bm - 1) / h.bm;
      if (h.blocks(args) % d.sms == 0) continue;
      for (Nv24Tile tail : kHeadTailTiles)
        for (std::int64_t rows = first_tail_start(row_tiles, head_cols, d); tail != head && rows < row_tiles; ++rows)
          add({head, 1, tail, args.m - rows * h.bm});
    }
  return out;
}

void nv24_spmm(const Nv24Args& a, cudaStream_t stream, Nv24Tile tile, int splits) {
  require_args(a);
  if (a.m == 0 || a.n == 0) return;
  Nv24Launch l = nv24_choose(a, tile);
  if (splits > 0) l = {l.tile, splits};  // a forced split count runs without a tail
  require_splits(l);
  run(a, l, stream);
}

void nv24_spmm(const Nv24Args& a, cudaStream_t stream, const Nv24Launch& l) {
  require_args(a);
  require(l.tile != Nv24Tile::Auto, "a launch needs its tile");
  require(l.splits >= 1, "a launch needs splits >= 1, not " + std::to_string(l.splits));
  require_splits(l);
  const DeviceInfo d = device_info();
  require_runnable(l.tile, d);
  if (l.tail_rows != 0) {
    require(is_hopper_tile(l.tile) && is_hopper_tile(l.tail_tile) && l.splits == 1,
            "a tail needs wgmma.sp tiles (Hopper*) and one split");
    require(l.tail_rows > 0 && l.tail_rows < a.m,
            "tail_rows " + std::to_string(l.tail_rows) + " not in (0, m = " + std::to_string(a.m) + ")");
    require_runnable(l.tail_tile, d);
  }
  run(a, l, stream);
}

}  // namespace tessera::kernels::cuda
