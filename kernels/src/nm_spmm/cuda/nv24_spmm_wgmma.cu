// NV24 kernel for Hopper (sm_90a only: this source is compiled with
// -gencode arch=compute_90a,code=sm_90a): wgmma.mma_async.sp m64nNk32, fp32 accumulation.
// C^T = W * A^T as in nv24_spmm_mma.cu: W (the weight, n x k, 2:4 along k) is wgmma's sparse
// A operand, the activations A (m x k) its dense B operand, both read from shared memory
// through matrix descriptors; the NV24 metadata tiles are wgmma.sp's metadata registers as
// stored (tessera/formats/nv24/layout.hpp; checked by perf_tests/nv24/nv24_wgmma_probe).
//
// A block of two consumer warpgroups computes BN = 2 x 64 x MB weight rows (MB row blocks
// of 64 per warpgroup) x BM activation rows. Per k tile of 64, a producer (a warp; for the
// 256 x 192 tile a warpgroup, below) stages with bulk tensor copies (TMA, completing on the
// stage's "full" mbarrier) into a STAGES-deep ring, each slot reused once the 8 consumer
// warps arrived on its "empty" mbarrier:
//   * A: BM rows x 64 k = 128 B per row, 128-byte swizzle (chunk c of row r at c ^ (r % 8));
//   * W's values: BN rows x 32 compressed = 64 B per row, 64-byte swizzle
//     (chunk c of row r at c ^ (r / 2 % 4));
//   * the BN / 16 metadata tiles of those rows (32 words each).
// Each warpgroup issues 2 x MB wgmma.sp per k tile (k32 halves: sparsity selectors 0 and 1,
// one metadata word per thread and row block), KSTEP k tiles per wgmma group, one group kept
// in flight while the next is issued and the copies of the next tiles land.
//
// K split s ways (blockIdx.y): the s blocks of an output tile form one thread-block cluster
// (1 x s); each leaves its fp32 partial tile in its shared memory, and after a cluster barrier
// each block adds up a 1/s share of the tile's rows over all of them (distributed shared
// memory loads) and writes it to C: one launch, no workspace. Through an fp32 workspace in global
// memory (a memset, 8-byte atomics, a conversion kernel) splits cost small products more than
// they gained.
#include <cuda.h>
#include <cudaTypedefs.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <tuple>
#include <type_traits>

#include "tessera/core/error.hpp"
#include "tessera/formats/nv24/layout.hpp"
#include "../../common/cluster.cuh"
#include "../../common/cuda_support.hpp"
#include "../../common/grid_dependency.cuh"
#include "../../common/tensor_map.hpp"
#include "../../common/ptx_copy.cuh"
#include "../../common/ptx_wgmma.cuh"
#include "nv24_launch.hpp"
#include "nv24_spmm_internal.cuh"

#if defined(__CUDA_ARCH__) && !defined(__CUDA_ARCH_FEAT_SM90_ALL)
#error "nv24_spmm_wgmma.cu needs the sm_90a target (-gencode arch=compute_90a,code=sm_90a)"
#endif

namespace tessera::kernels::cuda::nv24_detail {
namespace {

constexpr int kKTile = nv24::kKTile;
constexpr int kThreads = 256;  // two consumer warpgroups

// Who issues the copies. A producer warp is the ninth warp of the block: an SM's registers are
// split among its four schedulers, and the one that holds three warps caps every thread at 168
// registers, enough for up to 128 accumulators (MB x BM / 2) per thread. The 256 x 192 tile
// holds 192: its producer is a whole warpgroup that gives its registers to the consumers
// (setmaxnreg; per scheduler one producer warp at 40 and two consumer warps at 232).
enum class Producer { Warp, Warpgroup };
template <Producer P>
constexpr int kBlockThreadsOf = kThreads + (P == Producer::Warp ? 32 : 128);
constexpr int kProducerRegs = 40, kConsumerRegs = 232;
// setmaxnreg only moves registers within what the launch gave the block (168 per thread).
static_assert(32 * (kProducerRegs + 2 * kConsumerRegs) <= 65536 / 4 &&
                  kThreads * kConsumerRegs + 128 * kProducerRegs <= (kThreads + 128) * (65536 / (kThreads + 128) / 8 * 8),
              "the producer warpgroup's registers do not cover the consumers' increase");
static_assert(kKTile == 64 && nv24::kRowTile == 16 && nv24::kTileWords == 32,
              "one k tile of 64 = one 128-byte activation row = two wgmma.sp k32");

// Rows [r0, r1) of a K split's (rows x COLS) fp32 partial tiles, at `part` (row stride STRIDE
// floats) in each of the SPLITS blocks of this cluster, summed and written to C at (m0 + r0,
// n0) in 8-byte pieces where c_vec; `threads` threads, this one `tid`. Each thread issues about
// 16 loads (U rows x SPLITS blocks) before its first add; the sum still runs at the cluster
// network's pace.
template <int SPLITS, int COLS, int STRIDE, class T>
__device__ __forceinline__ void sum_cluster_rows(const float* part, int r0, int r1, T* C, long long ldc, int m0, int n0,
                                                 int m, int n, bool c_vec, int tid, int threads) {
  constexpr int kQuads = COLS / 4, U = SPLITS >= 16 ? 1 : 16 / SPLITS;
  const int first = r0 * kQuads, last = r1 * kQuads;
  for (int e0 = first + tid; e0 < last; e0 += U * threads) {
    float4 v[U][SPLITS];
#pragma unroll
    for (int u = 0; u < U; ++u) {
      const int e = min(e0 + u * threads, last - 1);  // past the end: a duplicate, not stored
      const unsigned local = smem_addr(part + e / kQuads * STRIDE + e % kQuads * 4);
#pragma unroll
      for (int b = 0; b < SPLITS; ++b) v[u][b] = load_cluster_shared_f4(local, b);
    }
#pragma unroll
    for (int u = 0; u < U; ++u) {
      const int e = e0 + u * threads, gm = m0 + e / kQuads, gn = n0 + e % kQuads * 4;
      if (e >= last || gm >= m || gn >= n) continue;
      float4 sum = v[u][0];
#pragma unroll
      for (int b = 1; b < SPLITS; ++b) {
        sum.x += v[u][b].x;
        sum.y += v[u][b].y;
        sum.z += v[u][b].z;
        sum.w += v[u][b].w;
      }
      T* dst = C + gm * ldc + gn;
      const T o[4] = {from_float(sum.x, T()), from_float(sum.y, T()), from_float(sum.z, T()), from_float(sum.w, T())};
      if (c_vec && gn + 4 <= n) *reinterpret_cast<uint2*>(dst) = *reinterpret_cast<const uint2*>(o);
      else
        for (int q = 0; q < 4 && gn + q < n; ++q) dst[q] = o[q];
    }
  }
}

template <int MB, int BM, int STAGES, int KSTEP>
struct WShape {
  static constexpr int kBN = 2 * 64 * MB;                                     // weight rows per block
  static constexpr int kActBytes = BM * kKTile * 2;                           // (BM, 64), 128-B swizzle
  static constexpr int kValsBytes = kBN * kKTile;                             // (BN, 32) x 2 B, 64-B swizzle
  static constexpr int kMetaBytes = kBN / nv24::kRowTile * nv24::kTileWords * 4;
  static constexpr int kStageBytes = kActBytes + kValsBytes + kMetaBytes;
  static constexpr int kOutStride = kBN + 8;  // C tile row (elements), padded
  static constexpr int kOutBytes = BM * kOutStride * 2;
  // The fp32 partial tile of a K split, transposed as C (BM rows of BN): + 4 keeps the rows'
  // float4 alignment and puts the fragment writes' 8 row groups x 4 column pairs on 32 banks.
  static constexpr int kPartStride = kBN + 4;
  static constexpr int kPartBytes = BM * kPartStride * 4;
  // + 1 KB: the dynamic shared memory base is aligned up to the 1024 B the 128-B swizzle needs
  static constexpr int kSmemBytes = std::max({STAGES * kStageBytes, kOutBytes, kPartBytes}) + 1024;
  static_assert(kStageBytes % 1024 == 0, "every stage's activation tile 1024-byte aligned");
  static_assert(BM == 128 || BM == 192 || BM == 256, "wgmma N");
  static_assert(STAGES >= 2 * KSTEP, "a group in flight, the next issued: both held until the first retires");
  static_assert(KSTEP == 1 || KSTEP == 2, "a first odd tile is the only partial step");
};

// The three operands as bulk-tensor-copy maps (built on the host, passed by value).
struct TensorMaps {
  CUtensorMap act;   // A: (k, m) of 2-byte elements, box (64, BM), 128-byte swizzle
  CUtensorMap vals;  // W's values: (k_padded / 2, n), box (32, BN), 64-byte swizzle
  CUtensorMap meta;  // metadata tiles: (k_tiles * 32, row tiles) words, box (32, BN / 16)
};

template <class T, int MB, int BM, int STAGES, int KSTEP, Producer P>
__global__ void __launch_bounds__(kBlockThreadsOf<P>, 1)
    nv24_wgmma_kernel(const __grid_constant__ TensorMaps maps, T* __restrict__ C, long long ldc, int m, int n,
                      int k_tiles, int tiles_m, int tiles_n, bool c_vec, int split_stages) {
  // A tail launch (nv24_spmm.cu's run) may take the multiprocessors this grid no longer needs: it
  // writes other rows of C and reads nothing this grid writes.
  allow_dependent_grid_launch();
  using S = WShape<MB, BM, STAGES, KSTEP>;
  constexpr int kBN = S::kBN;
  extern __shared__ unsigned char smem_raw[];
  __shared__ std::uint64_t full[STAGES];   // stage s holds its tile (copies complete)
  __shared__ std::uint64_t empty[STAGES];  // the 8 consumer warps are done with stage s
  unsigned char* smem = smem_raw + ((1024 - (smem_addr(smem_raw) & 1023)) & 1023);
  const int tid = threadIdx.x, lane = tid & 31, wgi = tid >> 7, wwarp = (tid >> 5) & 3;
  int tm, tn;
  block_tile(tiles_m, tiles_n, tm, tn);
  const int m0 = tm * BM, n0 = tn * kBN;

  auto stage_act = [&](int s) { return smem + s * S::kStageBytes; };
  auto stage_vals = [&](int s) { return stage_act(s) + S::kActBytes; };
  auto stage_meta = [&](int s) { return reinterpret_cast<const unsigned*>(stage_vals(s) + S::kValsBytes); };

  // Issued by the producer: one copy per operand, rows past m / n and k past the tensor zero-
  // filled (rows of W past n: zero values and zero metadata, results dropped).
  auto load = [&](int kt, int s) {
    mbarrier_arrive_expect_tx(&full[s], S::kStageBytes);
    tma_load_2d(stage_act(s), &maps.act, kt * kKTile, m0, &full[s]);
    tma_load_2d(stage_vals(s), &maps.vals, kt * (kKTile / 2), n0, &full[s]);
    tma_load_2d(stage_vals(s) + S::kValsBytes, &maps.meta, kt * nv24::kTileWords, n0 / nv24::kRowTile,
                       &full[s]);
  };

  // Split blockIdx.y (cluster rank) runs k tiles [kt0, kt1).
  const int kt0 = blockIdx.y * split_stages, kt1 = min(k_tiles, kt0 + split_stages), count = max(0, kt1 - kt0);

  // Written first by the first wgmma (scale-d 0): zeroing them ahead of the wgmma would
  // serialize the wgmma (ptxas C7515). Without k tiles they are zeroed after the loop.
  float acc[MB][BM / 2];

  if (tid == 0) {
    for (int s = 0; s < STAGES; ++s) {
      mbarrier_init(&full[s], 1);
      mbarrier_init(&empty[s], kThreads / 32);
    }
    mbarrier_init_fence();
  }
  __syncthreads();
  if (tid >= kThreads) {
    // Producer: one lane issues every tile of this block into the ring, each into a slot once
    // the consumer warps released the tile before it there.
    if constexpr (P == Producer::Warpgroup) asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;\n" ::"n"(kProducerRegs));
    if (tid == kThreads)
      for (int j = 0; j < count; ++j) {
        const int s = j % STAGES;
        if (j >= STAGES) mbarrier_wait(&empty[s], (j / STAGES - 1) & 1);
        load(kt0 + j, s);
      }
    if (gridDim.y > 1) {  // the consumers' two cluster barriers (below) wait for every thread
      cluster_arrive_unordered();
      cluster_wait();
      cluster_arrive_unordered();
      cluster_wait();
    }
    return;
  }
  if constexpr (P == Producer::Warpgroup) asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;\n" ::"n"(kConsumerRegs));
  // Consumers, step i (U tiles: i .. i + U - 1, U = KSTEP but for a first odd tile): as each
  // tile lands, two wgmma.sp per row block (k32 halves) on it, all in one group (no
  // data-dependent wgmma: ptxas would serialize them), then wait for the previous group only,
  // so one group stays in the tensor cores while the next is prepared, and release the
  // previous group's slots to the producer. The in-flight wgmma reads its metadata register
  // late (products go wrong when it changes under it), so the steps
  // alternate between two metadata arrays and each keeps the other one's registers alive
  // until that group retired: the compiler cannot give both the same registers. `first`
  // (the block's first step, whose first wgmma ignores the accumulators) is a compile-time
  // scale-d.
  int released = 0;
  unsigned meta_a[KSTEP][MB] = {}, meta_b[KSTEP][MB] = {};
  auto step = [&](int i, auto first, auto tiles, unsigned (&e)[KSTEP][MB], unsigned (&in_flight)[KSTEP][MB]) {
    constexpr int U = decltype(tiles)::value;
#pragma unroll
    for (int u = 0; u < U; ++u) {
      const int s = (i + u) % STAGES;
      mbarrier_wait(&full[s], ((i + u) / STAGES) & 1);
#pragma unroll
      for (int mb = 0; mb < MB; ++mb)
        e[u][mb] = stage_meta(s)[((wgi * MB + mb) * 4 + wwarp) * nv24::kTileWords + lane];
    }
#pragma unroll
    for (int mb = 0; mb < MB; ++mb) wgmma::fence_regs(acc[mb]);
    wgmma::fence();
#pragma unroll
    for (int u = 0; u < U; ++u) {
      const int s = (i + u) % STAGES;
      const unsigned char* sa = stage_act(s);
#pragma unroll
      for (int mb = 0; mb < MB; ++mb) {
        const unsigned char* sv = stage_vals(s) + (wgi * MB + mb) * 64 * 64;  // this row block's 64 weight rows
        wgmma::mma_sp_ss<0>(acc[mb], wgmma::descriptor(sv, 16, 512, wgmma::Swizzle::B64),
                            wgmma::descriptor(sa, 16, 1024, wgmma::Swizzle::B128), e[u][mb],
                            decltype(first)::value && u == 0 ? 0 : 1, T());
        wgmma::mma_sp_ss<1>(acc[mb], wgmma::descriptor(sv + 32, 16, 512, wgmma::Swizzle::B64),
                            wgmma::descriptor(sa + 64, 16, 1024, wgmma::Swizzle::B128), e[u][mb], 1, T());
      }
    }
    wgmma::commit();
    wgmma::wait<1>();  // the previous group retired
#pragma unroll
    for (int u = 0; u < KSTEP; ++u)
#pragma unroll
      for (int mb = 0; mb < MB; ++mb) asm volatile("" ::"r"(in_flight[u][mb]));
    for (; released < i; ++released)
      if (lane == 0) mbarrier_arrive(&empty[released % STAGES]);
  };
  using One = std::integral_constant<int, 1>;
  using Full = std::integral_constant<int, KSTEP>;
  const int head = count % KSTEP;  // a first step of one tile when count is odd (KSTEP 2)
  if (head == 1) step(0, std::true_type(), One(), meta_a, meta_b);
  else if (count > 0) step(0, std::true_type(), Full(), meta_a, meta_b);
  for (int i = head == 1 ? 1 : KSTEP; i < count; i += 2 * KSTEP) {
    step(i, std::false_type(), Full(), meta_b, meta_a);
    if (i + KSTEP < count) step(i + KSTEP, std::false_type(), Full(), meta_a, meta_b);
  }
  wgmma::wait<0>();
#pragma unroll
  for (int mb = 0; mb < MB; ++mb) wgmma::fence_regs(acc[mb]);
  // The 256 consumer threads only: the producer warp has left.
  auto consumers_sync = [] { asm volatile("bar.sync 1, %0;\n" ::"n"(kThreads) : "memory"); };
  if (count == 0) {
#pragma unroll
    for (int mb = 0; mb < MB; ++mb)
#pragma unroll
      for (int i = 0; i < BM / 2; ++i) acc[mb][i] = 0.f;
  }

  // Accumulator q of n8 block j of row block mb: weight row 16 * wwarp + g (+8 for q >= 2),
  // activation row 8j + 2t (+1 for odd q), within that row block's 64 rows.
  const int g = lane >> 2, t = lane & 3;
  auto wrow = [&](int mb) { return (wgi * MB + mb) * 64 + wwarp * 16 + g; };
  if (gridDim.y > 1) {
    // Split K (rank = blockIdx.y in the cluster): this block's partial tile into its shared
    // memory, then a 1/splits share of the tile's rows summed over the cluster's blocks (the
    // same layout in each) and written to C.
    consumers_sync();  // every warpgroup is past its last read of the pipeline buffers
    float* part = reinterpret_cast<float*>(smem);
#pragma unroll
    for (int mb = 0; mb < MB; ++mb)
#pragma unroll
      for (int j = 0; j < BM / 8; ++j) {
        const int c = 8 * j + 2 * t, r = wrow(mb);
        const float* q = &acc[mb][4 * j];
        part[c * S::kPartStride + r] = q[0];
        part[(c + 1) * S::kPartStride + r] = q[1];
        part[c * S::kPartStride + r + 8] = q[2];
        part[(c + 1) * S::kPartStride + r + 8] = q[3];
      }
    cluster_sync();  // every block's partial tile written
    const int splits = static_cast<int>(gridDim.y), rank = static_cast<int>(blockIdx.y);
    const int r0 = BM * rank / splits, r1 = BM * (rank + 1) / splits;
    const auto reduce = [&](auto splits_constant) {
      sum_cluster_rows<decltype(splits_constant)::value, kBN, S::kPartStride>(part, r0, r1, C, ldc, m0, n0, m, n,
                                                                             c_vec, tid, kThreads);
    };
    switch (splits) {
      case 2: reduce(std::integral_constant<int, 2>()); break;
      case 3: reduce(std::integral_constant<int, 3>()); break;
      case 4: reduce(std::integral_constant<int, 4>()); break;
      case 5: reduce(std::integral_constant<int, 5>()); break;
      case 6: reduce(std::integral_constant<int, 6>()); break;
      case 7: reduce(std::integral_constant<int, 7>()); break;
      default: reduce(std::integral_constant<int, kMaxClusterSplits>());
    }
    cluster_arrive_unordered();  // every block's partial tile stays until all of them have read it
    cluster_wait();
    return;
  }

  consumers_sync();  // every warpgroup is past its last read of the pipeline buffers
  // (BM, BN) C tile through shared memory, then 16-byte coalesced stores along C's rows.
  T* out = reinterpret_cast<T*>(smem);
#pragma unroll
  for (int mb = 0; mb < MB; ++mb)
#pragma unroll
    for (int j = 0; j < BM / 8; ++j) {
      const int c = 8 * j + 2 * t, r = wrow(mb);
      put_fragment(out, S::kOutStride, r, c, acc[mb][4 * j], acc[mb][4 * j + 1], acc[mb][4 * j + 2],
                   acc[mb][4 * j + 3]);
    }
  consumers_sync();
  store_c_tile<BM, kBN>(out, S::kOutStride, C, ldc, m0, n0, m, n, c_vec, tid, kThreads);
}

template <int MB, int BM, int STAGES, int KSTEP, Producer P = Producer::Warp>
struct WConfig {
  using S = WShape<MB, BM, STAGES, KSTEP>;
  static constexpr int kBN = S::kBN;
  static TileInfo info() { return {kBN, BM, 1, S::kSmemBytes}; }  // one k tile per stage
  static int max_active_clusters(int splits) {
    auto kernel = nv24_wgmma_kernel<__half, MB, BM, STAGES, KSTEP, P>;  // bf16: the same resources
    TESSERA_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, S::kSmemBytes));
    cudaLaunchAttribute cluster{};
    cluster.id = cudaLaunchAttributeClusterDimension;
    cluster.val.clusterDim.x = 1;
    cluster.val.clusterDim.y = static_cast<unsigned>(splits);
    cluster.val.clusterDim.z = 1;
    cudaLaunchConfig_t config{};
    config.gridDim = dim3(1, static_cast<unsigned>(splits));
    config.blockDim = dim3(kBlockThreadsOf<P>);
    config.dynamicSmemBytes = S::kSmemBytes;
    config.attrs = &cluster;
    config.numAttrs = 1;
    int clusters = 0;
    TESSERA_CUDA_CHECK(cudaOccupancyMaxActiveClusters(&clusters, kernel, &config));
    return clusters;
  }
  template <class T>
  static void launch(const Nv24Args& a, int splits, int split_stages, bool dependent, cudaStream_t stream) {
    auto kernel = nv24_wgmma_kernel<T, MB, BM, STAGES, KSTEP, P>;
    TESSERA_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, S::kSmemBytes));
    const int tiles_m = static_cast<int>((a.m + BM - 1) / BM), tiles_n = static_cast<int>((a.n + kBN - 1) / kBN);
    const bool c_vec = a.ldc % 8 == 0 && reinterpret_cast<std::uintptr_t>(a.C) % 16 == 0;
    const std::int64_t k_tiles = a.k_padded / kKTile;
    TensorMaps maps{};  // k == 0: no k tile, no copy, no map
    if (k_tiles > 0) {
      maps.act = tensor_map(CU_TENSOR_MAP_DATA_TYPE_UINT16, a.A, a.k, a.m, a.lda * 2, kKTile, BM,
                            CU_TENSOR_MAP_SWIZZLE_128B, "tessera::nv24_spmm");
      maps.vals = tensor_map(CU_TENSOR_MAP_DATA_TYPE_UINT16, a.vals, a.k_padded / 2, a.n, a.k_padded, kKTile / 2,
                             kBN, CU_TENSOR_MAP_SWIZZLE_64B, "tessera::nv24_spmm");
      maps.meta = tensor_map(CU_TENSOR_MAP_DATA_TYPE_UINT32, a.meta, k_tiles * nv24::kTileWords,
                             nv24::row_tiles(a.n), k_tiles * nv24::kTileWords * 4, nv24::kTileWords,
                             kBN / nv24::kRowTile, CU_TENSOR_MAP_SWIZZLE_NONE, "tessera::nv24_spmm");
    }
    const dim3 grid(tiles_m * tiles_n, splits), block(kBlockThreadsOf<P>);
    if (splits > 1)  // never a dependent: tails run unsplit
      launch_clustered(kernel, grid, block, S::kSmemBytes, stream, dim3(1, splits), maps, static_cast<T*>(a.C), a.ldc,
                       static_cast<int>(a.m), static_cast<int>(a.n), static_cast<int>(k_tiles), tiles_m, tiles_n,
                       c_vec, split_stages);
    else
      launch_kernel_after(dependent, kernel, grid, block, S::kSmemBytes, stream, maps, static_cast<T*>(a.C), a.ldc,
                          static_cast<int>(a.m), static_cast<int>(a.n), static_cast<int>(k_tiles), tiles_m, tiles_n,
                          c_vec, split_stages);
  }
};
// Producer warp, per-slot release and one wgmma group in flight: a group in flight holds its
// slots longer, so the rings of 4-5 stages keep their lookahead only with one k tile per group;
// the 6-stage Tall ring keeps two.
using WideTile = WConfig<1, 256, 5, 1>;    // 128 x 256, 5 x 41 KB stages: 1 block per SM
using SquareTile = WConfig<1, 128, 4, 1>;  // 128 x 128, 4 x 25 KB stages: 2 blocks per SM
using TallTile = WConfig<2, 128, 6, 2>;    // 256 x 128, 6 x 34 KB stages: 1 block per SM
// 256 x 192, 5 x 42 KB stages, one k tile per group (two lost their lookahead in this ring,
// as for Wide): wgmma.sp reads the activations once per 64 weight rows whatever the tile, so
// the larger tile saves shared-memory traffic on the weights and the copies (about 205 B per
// tensor-core cycle at the sparse peak against Tall's 228; the SM's shared memory gives 128).
using LargeTile = WConfig<2, 192, 5, 1, Producer::Warpgroup>;

template <class T>
void launch(Nv24Tile tile, const Nv24Args& a, int splits, int split_stages, bool dependent, cudaStream_t stream) {
  switch (tile) {
    case Nv24Tile::HopperWide: return WideTile::launch<T>(a, splits, split_stages, dependent, stream);
    case Nv24Tile::HopperTall: return TallTile::launch<T>(a, splits, split_stages, dependent, stream);
    case Nv24Tile::HopperLarge: return LargeTile::launch<T>(a, splits, split_stages, dependent, stream);
    default: return SquareTile::launch<T>(a, splits, split_stages, dependent, stream);
  }
}

}  // namespace

int wgmma_max_active_clusters(Nv24Tile tile, int splits) {
  static std::mutex mutex;
  static std::map<std::tuple<int, Nv24Tile, int>, int> cache;  // (device, tile, splits)
  int device = 0;
  TESSERA_CUDA_CHECK(cudaGetDevice(&device));
  std::lock_guard<std::mutex> lock(mutex);
  int& clusters = cache[{device, tile, splits}];
  if (clusters == 0) {
    switch (tile) {
      case Nv24Tile::HopperWide: clusters = WideTile::max_active_clusters(splits); break;
      case Nv24Tile::HopperTall: clusters = TallTile::max_active_clusters(splits); break;
      case Nv24Tile::HopperLarge: clusters = LargeTile::max_active_clusters(splits); break;
      default: clusters = SquareTile::max_active_clusters(splits);
    }
    clusters = std::max(clusters, 1);
  }
  return clusters;
}

TileInfo wgmma_tile_info(Nv24Tile tile) {
  switch (tile) {
    case Nv24Tile::HopperWide: return WideTile::info();
    case Nv24Tile::HopperTall: return TallTile::info();
    case Nv24Tile::HopperLarge: return LargeTile::info();
    default: return SquareTile::info();
  }
}

void wgmma_launch(Nv24Tile tile, const Nv24Args& a, int splits, int split_stages, bool dependent,
                  cudaStream_t stream) {
  if (a.type == Nv24Type::F16) launch<__half>(tile, a, splits, split_stages, dependent, stream);
  else launch<__nv_bfloat16>(tile, a, splits, split_stages, dependent, stream);
}

}  // namespace tessera::kernels::cuda::nv24_detail
