// NV24 sparse-tensor-core kernel (see tessera/kernels/nm_spmm/cuda/nv24_spmm_cuda.hpp and the
// layout in tessera/formats/nv24/layout.hpp). Raw pointers only; every CUDA call and launch
// is checked and turned into tessera::CudaError.
#include "tessera/kernels/nm_spmm/cuda/nv24_spmm_cuda.hpp"

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <mutex>
#include <string>
#include <vector>

#include "tessera/core/error.hpp"
#include "tessera/formats/nv24/layout.hpp"

#define TESSERA_NV24_CUDA_CHECK(expr)                                                                    \
  do {                                                                                                   \
    const cudaError_t tessera_err_ = (expr);                                                             \
    if (tessera_err_ != cudaSuccess)                                                                     \
      throw ::tessera::CudaError(std::string(#expr) + " failed: " + cudaGetErrorString(tessera_err_) +  \
                                 " (" __FILE__ ":" + std::to_string(__LINE__) + ")");                    \
  } while (0)

namespace tessera::kernels::cuda {
namespace {

constexpr int kKTile = nv24::kKTile;
constexpr int kValsPerRow = kKTile / 2;  // compressed values of one row per k tile (32 = 4 x 16 B)
static_assert(kKTile == 64 && nv24::kRowTile == 16 && nv24::kTileWords == 32,
              "the kernel reads one metadata tile (16 rows x 64 k, 32 words) per warp row tile and k tile");

// ---------------------------------------------------------------------------------
// PTX wrappers (sm_80+)
__device__ __forceinline__ unsigned smem_addr(const void* p) {
  return static_cast<unsigned>(__cvta_generic_to_shared(p));
}
// 16-byte global -> shared copy; the bytes past src_bytes are zero-filled.
__device__ __forceinline__ void cp_async_16(void* dst, const void* src, int src_bytes) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(smem_addr(dst)), "l"(src), "r"(src_bytes));
}
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::); }
template <int N>
__device__ __forceinline__ void cp_async_wait() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(N));
}
__device__ __forceinline__ void ldmatrix_x4(unsigned (&r)[4], const void* p) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(smem_addr(p)));
}
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
__device__ __forceinline__ __half from_float(float x, __half) { return __float2half_rn(x); }
__device__ __forceinline__ __nv_bfloat16 from_float(float x, __nv_bfloat16) { return __float2bfloat16_rn(x); }

// ---------------------------------------------------------------------------------
// Tile shape. BN: rows of W (columns of C) per block; BM: rows of A (rows of C) per block;
// WN x WM warps, each computing a (BN/WN) x (BM/WM) piece with (BN/WN/16) x (BM/WM/8) mma.sp;
// STAGES pipeline stages of KSUB k tiles of 64 each (one barrier per stage).
template <int BN, int BM, int WN, int WM, int STAGES, int KSUB>
struct Shape {
  static constexpr int kThreads = WN * WM * 32;
  static constexpr int kTileElems = BN * BM;
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
                int k_tiles, int tiles_m, int tiles_n, bool c_vec) {
  using S = Shape<BN, BM, WN, WM, STAGES, KSUB>;
  extern __shared__ __align__(128) unsigned char smem[];
  const int tid = threadIdx.x, warp = tid >> 5, lane = tid & 31;
  const int wn = warp % WN, wm = warp / WN;

  // Grouped rasterization: 8 consecutive blocks along m share W tiles in L2.
  constexpr int kGroupM = 8;
  const int per_group = kGroupM * tiles_n;
  const int group = blockIdx.x / per_group, first_m = group * kGroupM;
  const int group_m = min(tiles_m - first_m, kGroupM);
  const int tm = first_m + (blockIdx.x % per_group) % group_m;
  const int tn = (blockIdx.x % per_group) / group_m;
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

  // Stage st: k tiles st*KSUB .. st*KSUB+KSUB-1 (those < k_tiles).
  const int k_stages = (k_tiles + KSUB - 1) / KSUB;
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
    if (s < k_stages) load(s, s);
    cp_async_commit();
  }

  // ldmatrix row addresses of this lane. W fragment (16 x 16 compressed): matrices
  // (rows 0-7, chunk 2h), (rows 8-15, 2h), (rows 0-7, 2h+1), (rows 8-15, 2h+1) for k32 half h.
  // A fragment (8 rows x 32 k): matrices k 0-7, 8-15, 16-23, 24-31 of half h.
  const int w_row = wn * S::kWarpN + (lane & 7) + ((lane >> 3) & 1) * 8, w_ch = lane >> 4;
  const int a_row = wm * S::kWarpM + (lane & 7), a_ch = lane >> 3;

  for (int st = 0; st < k_stages; ++st) {
    cp_async_wait<STAGES - 2>();
    __syncthreads();  // stage st landed for everyone; stage (st-1) % STAGES is free
    if (st + STAGES - 1 < k_stages) load(st + STAGES - 1, (st + STAGES - 1) % STAGES);
    cp_async_commit();

    const int s = st % STAGES;
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
  __syncthreads();

  // Accumulators (C^T rows = W rows g / g+8, columns = A rows 2t, 2t+1) -> C tile in shared
  // memory as (BM, BN), then 16-byte coalesced stores along C's rows.
  T* out = reinterpret_cast<T*>(smem);
  const int g = lane >> 2, t = lane & 3;
#pragma unroll
  for (int i = 0; i < S::kFragN; ++i)
#pragma unroll
    for (int j = 0; j < S::kFragM; ++j) {
      const int r = wn * S::kWarpN + i * 16 + g, c = wm * S::kWarpM + j * 8 + 2 * t;
      out[c * S::kOutStride + r] = from_float(acc[i][j][0], T());
      out[(c + 1) * S::kOutStride + r] = from_float(acc[i][j][1], T());
      out[c * S::kOutStride + r + 8] = from_float(acc[i][j][2], T());
      out[(c + 1) * S::kOutStride + r + 8] = from_float(acc[i][j][3], T());
    }
  __syncthreads();
  for (int c = tid; c < BM * BN / 8; c += S::kThreads) {
    const int row = c / (BN / 8), col = (c % (BN / 8)) * 8;
    const int gm = m0 + row, gn = n0 + col;
    if (gm >= m || gn >= n) continue;
    const T* src = out + row * S::kOutStride + col;
    T* dst = C + gm * ldc + gn;
    if (c_vec && gn + 8 <= n) {
      *reinterpret_cast<uint4*>(dst) = *reinterpret_cast<const uint4*>(src);
    } else {
      for (int q = 0; q < 8 && gn + q < n; ++q) dst[q] = src[q];
    }
  }
}

// ---------------------------------------------------------------------------------
// Host side
struct DeviceInfo {
  int sms = 0;
  int max_smem_optin = 0;
};
DeviceInfo device_info() {
  static std::mutex mutex;
  static std::vector<DeviceInfo> cache;
  int dev = 0;
  TESSERA_NV24_CUDA_CHECK(cudaGetDevice(&dev));
  std::lock_guard<std::mutex> lock(mutex);
  if (static_cast<int>(cache.size()) <= dev) cache.resize(dev + 1);
  if (cache[dev].sms == 0) {
    TESSERA_NV24_CUDA_CHECK(cudaDeviceGetAttribute(&cache[dev].sms, cudaDevAttrMultiProcessorCount, dev));
    TESSERA_NV24_CUDA_CHECK(
        cudaDeviceGetAttribute(&cache[dev].max_smem_optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev));
  }
  return cache[dev];
}

template <int BN, int BM, int WN, int WM, int STAGES, int KSUB>
struct Config {
  using S = Shape<BN, BM, WN, WM, STAGES, KSUB>;
  static std::int64_t blocks(const Nv24Args& a) { return ((a.m + BM - 1) / BM) * ((a.n + BN - 1) / BN); }
  // Blocks that fit on one multiprocessor at once (shared memory bound; 228 KB per SM on
  // Hopper is read as the opt-in limit plus the 1 KB per block the runtime reserves).
  static int per_sm(const DeviceInfo& d) { return std::max(1, (d.max_smem_optin + 1024) / (S::kSmemBytes + 1024)); }

  template <class T>
  static void launch(const Nv24Args& a, cudaStream_t stream) {
    auto kernel = nv24_kernel<T, BN, BM, WN, WM, STAGES, KSUB>;
    TESSERA_NV24_CUDA_CHECK(
        cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, S::kSmemBytes));
    const int tiles_m = static_cast<int>((a.m + BM - 1) / BM), tiles_n = static_cast<int>((a.n + BN - 1) / BN);
    const bool c_vec = a.ldc % 8 == 0 && reinterpret_cast<std::uintptr_t>(a.C) % 16 == 0;
    kernel<<<tiles_m * tiles_n, S::kThreads, S::kSmemBytes, stream>>>(
        static_cast<const T*>(a.A), a.lda, static_cast<const T*>(a.vals), a.meta, static_cast<T*>(a.C), a.ldc,
        static_cast<int>(a.m), static_cast<int>(a.n), static_cast<int>(a.k), static_cast<int>(a.k_padded / kKTile),
        tiles_m, tiles_n, c_vec);
    TESSERA_NV24_CUDA_CHECK(cudaGetLastError());
  }
};
// Measured on an H100 (perf_tests/nv24, --sweep): 256 x 128 with 3 stages of two k tiles
// ran 5-20% faster than 128 x 256 / 4 stages of one k tile and the 16-warp variants.
using LargeTile = Config<256, 128, 4, 2, 3, 2>;   // 8 warps of 64 x 64, 204 KB: 1 block per SM
using MediumTile = Config<128, 128, 2, 2, 4, 1>;  // 4 warps of 64 x 64, 100 KB: 2 blocks per SM
using SmallTile = Config<64, 64, 2, 2, 4, 1>;     // 4 warps of 32 x 32, 50 KB
// Relative throughput of a full GPU of each shape (same H100 sweep: about 390, 360, 230
// dense-equivalent TFLOP/s at 4096^3), for the choice below.
constexpr double kLargeRate = 1.0, kMediumRate = 0.9, kSmallRate = 0.6;

template <class T>
void launch(Nv24Tile tile, const Nv24Args& a, cudaStream_t stream) {
  switch (tile) {
    case Nv24Tile::Large: return LargeTile::launch<T>(a, stream);
    case Nv24Tile::Medium: return MediumTile::launch<T>(a, stream);
    default: return SmallTile::launch<T>(a, stream);
  }
}

// Estimated time of a tile shape, in units of (tile elements / rate): waves of blocks, each
// wave as long as one block's tile takes while sharing its multiprocessor with the blocks
// co-resident with it.
template <class Cfg>
double estimate(const Nv24Args& a, const DeviceInfo& d, double rate) {
  const std::int64_t blocks = Cfg::blocks(a), per_sm = Cfg::per_sm(d);
  const std::int64_t waves = (blocks + d.sms * per_sm - 1) / (d.sms * per_sm);
  const std::int64_t share = std::min<std::int64_t>(per_sm, (blocks + d.sms - 1) / d.sms);
  return static_cast<double>(waves) * Cfg::S::kTileElems * static_cast<double>(share) / rate;
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
  }
  return "?";
}

Nv24Tile nv24_choose_tile(const Nv24Args& args) {
  const DeviceInfo d = device_info();
  const double large = estimate<LargeTile>(args, d, kLargeRate), medium = estimate<MediumTile>(args, d, kMediumRate),
               small = estimate<SmallTile>(args, d, kSmallRate);
  if (large <= medium && large <= small) return Nv24Tile::Large;
  return medium <= small ? Nv24Tile::Medium : Nv24Tile::Small;
}

void nv24_spmm(const Nv24Args& a, cudaStream_t stream, Nv24Tile tile) {
  require(a.m >= 0 && a.n >= 0 && a.k >= 0, "negative extent");
  require(a.k_padded == nv24::padded_k(a.k), "k_padded is " + std::to_string(a.k_padded) + ", expected " +
                                                 std::to_string(nv24::padded_k(a.k)));
  require(a.ldc >= a.n, "ldc " + std::to_string(a.ldc) + " < n " + std::to_string(a.n));
  require(a.m * std::max(a.lda, a.k) < (std::int64_t(1) << 31) && a.m * a.ldc < (std::int64_t(1) << 31) &&
              a.n * a.k_padded < (std::int64_t(1) << 31),
          "operands of 2^31 elements or more are not supported");
  if (a.m == 0 || a.n == 0) return;
  require(a.k == 0 || nv24_a_in_place(a.A, a.lda, a.k),
          "A needs a row stride >= k that is a multiple of 8 and a 16-byte aligned base (lda " +
              std::to_string(a.lda) + ", k " + std::to_string(a.k) + ")");
  if (tile == Nv24Tile::Auto) tile = nv24_choose_tile(a);
  if (a.type == Nv24Type::F16) launch<__half>(tile, a, stream);
  else launch<__nv_bfloat16>(tile, a, stream);
}

}  // namespace tessera::kernels::cuda
