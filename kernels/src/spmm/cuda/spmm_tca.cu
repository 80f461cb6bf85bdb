// TCA-SpMM kernels (see tessera/kernels/spmm/cuda/spmm_tca.hpp for the algorithm).
// Raw pointers only; every CUDA call and launch is checked and turned into
// tessera::CudaError.
#include "tessera/kernels/spmm/cuda/spmm_tca.hpp"

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <mutex>
#include <cstdio>
#include <string>
#include <type_traits>
#include <vector>

#include "tessera/core/error.hpp"
#include "../../common/cuda_support.hpp"
#include "../../common/ptx_copy.cuh"
#include "../../common/cluster.cuh"
#include "../../common/grid_dependency.cuh"
#include "../../common/gpu_busy_wait.cuh"


namespace tessera::kernels::cuda {
namespace {

// ---------------------------------------------------------------------------------
// Element traits
template <class T>
struct Elem;
template <>
struct Elem<float> {
  using acc = float;
  __device__ static float to_acc(float x) { return x; }
  __device__ static float from_acc(float x) { return x; }
};
template <>
struct Elem<double> {
  using acc = double;
  __device__ static double to_acc(double x) { return x; }
  __device__ static double from_acc(double x) { return x; }
};
template <>
struct Elem<__half> {
  using acc = float;
  __device__ static float to_acc(__half x) { return __half2float(x); }
  __device__ static __half from_acc(float x) { return __float2half_rn(x); }
};
template <>
struct Elem<__nv_bfloat16> {
  using acc = float;
  __device__ static float to_acc(__nv_bfloat16 x) { return __bfloat162float(x); }
  __device__ static __nv_bfloat16 from_acc(float x) { return __float2bfloat16_rn(x); }
};

// Four consecutive elements of C, stored with one 8-byte (fp16/bf16) or 16-byte (fp32) access.
template <class T>
struct alignas(4 * sizeof(T)) Vec4 {
  T e[4];
};

// ---------------------------------------------------------------------------------
// mma wrappers (sm_80+; the copy wrappers are in common/ptx_copy.cuh)
// SM80_16x8x16_F32F16F16F32_TN
__device__ __forceinline__ void mma_16816(float (&d)[4], const unsigned (&a)[4], const unsigned (&b)[2], __half) {
  asm volatile(
      "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
      "{%0,%1,%2,%3};\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}
// SM80_16x8x16_F32BF16BF16F32_TN
__device__ __forceinline__ void mma_16816(float (&d)[4], const unsigned (&a)[4], const unsigned (&b)[2],
                                          __nv_bfloat16) {
  asm volatile(
      "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
      "{%0,%1,%2,%3};\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}
// SM80_16x8x8_F32TF32TF32F32_TN
__device__ __forceinline__ void mma_1688_tf32(float (&d)[4], const unsigned (&a)[4], const unsigned (&b)[2]) {
  asm volatile(
      "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
      "{%0,%1,%2,%3};\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}
__device__ __forceinline__ unsigned to_tf32(float x) {
  unsigned r;
  asm("cvt.rna.tf32.f32 %0, %1;\n" : "=r"(r) : "f"(x));
  return r;
}

// ---------------------------------------------------------------------------------
// Tensor-core kernel.
// cp.async pipeline depth (chunk buffers per warp). 2 ran faster than 3 on H100 with the
// L1-allocating gathers (own time, geomean over the real and synthetic set at N >= 64: fp16
// 1.05x, TF32 1.15x): the smaller footprint leaves room for more resident warps
// (TF32, 256-nnz staging: 5 blocks/SM instead of 3) and for more L1 that serves the gathers.
constexpr int kStages = 2;
// Column tile width: BN = 32 rather than 64 for TF32 always (a 64-column TF32 stage is twice
// the fp16 one; at 32 columns a block holds 28 KB instead of 45 KB, which leaves L1 room for
// the gathers and more blocks per SM: 1.11x own time over 27 small and large matrices at
// N = 64 and 256 on H100), and for fp16/bf16 when the 64-column grid would hold at most this
// many blocks per SM: a small problem then runs twice as many, half as long blocks (up to 1.2x
// on matrices of a few thousand rows; on large ones the narrow tile cost up to 16 %).
constexpr int kNarrowGridBlocksPerSm = 4;
// Plans whose segments (the automatic size grows with nnz per SM) reach this many nonzeros
// run twice as wide tiles, 128 columns for fp16/bf16 and 64 for TF32: a warp then stages
// its item's column ids and values and masks each chunk's values once per 8 MMAs instead
// of 4 (TF32: 4 instead of 2). Over 27 matrices on H100 (own time, N = 64 / 128 / 256) the
// wide tiles ran 1.04-1.15x faster on those with long segments (wave, soc-Slashdot0902,
// email-Enron, bcsstk16) and up to 15% slower on those with short ones (r05, 176bit,
// nh2010, ca-CondMat), which lose a third of their resident warps (80 registers).
constexpr int kWideTileSegmentNnz = 128;
// Plans whose work items all have at most this many nonzeros run the kernel variant with
// the small (or medium) staging area, which leaves more of the SM's unified 256 KB to L1 (on
// H100 both fp16 at BN = 64 and TF32 at BN = 32 are register-bound, at 9 and 8 blocks per SM,
// with any of the three). With the unpadded stages (TcTile) the medium area ran 1.02-1.11x
// faster (own time, H100, N = 64 and 256) on the matrices whose plans pick it (nh2010,
// delaunay_n16, cage10, ca-CondMat, ex9, EX5, r05).
constexpr int kShortItemNnz = 48;
constexpr int kMediumItemNnz = 128;
// A plan whose split windows all fit clusters runs them so (no workspace, no finalize kernel)
// where blocks x column tiles x cluster blocks is at most this many per SM: about one wave for
// clusters of 16 (TF32 holds 8 blocks per SM), more for smaller ones. Own time on an H100
// against the workspace (17 matrices, N = 32-256, two rounds): 57 runs in clusters at 1.17x
// (wiki-Vote, facebook_combined, orani678, adder_dcop_05 up to 1.46x; r05 TF32 N = 64 1.09x),
// the slowest amazon_photo fp16 N = 256 at 0.95x (159 per SM, now above the limit); with no
// limit r05 TF32 N = 256 ran 0.76x (clusters of 16 over 4 waves) and soc-Slashdot0902 (clusters
// of 4) 0.89x over 6 waves: a cluster's blocks are scheduled together and wait for each other.
constexpr long long kClusterLaunchBudget = 150;
// Rows are "even" when none holds more than this many times the mean: a warp per row is then
// balanced as it is (tca_choose, and no row chunks in an automatic plan).
constexpr double kRegularRowSpread = 2.5;

// CAP: largest work item (values) the per-warp shared-memory staging holds; a small CAP
// keeps the footprint (and so the occupancy) of plans whose items are all short. SHARED:
// the plan's K slots are shared columns (spmm_tca.hpp), each with a row mask and value offset.
template <class T, int BN, int CAP, bool SHARED>
struct TcTile {
  static constexpr int kVec = 16 / int(sizeof(T));          // elements per 16-byte load
  static constexpr int kStageElems = kChunkNnz * BN;        // (kChunkNnz, BN), swizzled (below)
  static constexpr int kOutStride = BN + 4;                 // output tile row (floats)
  static constexpr int kVecPerRow = BN / kVec;
  static constexpr int kLoadsPerLane = kChunkNnz * kVecPerRow / 32;
  static constexpr int kStageBytes = kStages * kStageElems * int(sizeof(T));
  // per warp: B stages | item column ids (CAP ints) | SHARED: slot rows and value offsets
  // (CAP ints) | item values (CAP T)
  static constexpr int kWarpSmemBytes = kStageBytes + CAP * (4 + (SHARED ? 4 : 0) + int(sizeof(T)));
  static_assert(BN % 16 == 0, "BN is a multiple of the MMA M tile");
  static_assert((kChunkNnz * kVecPerRow) % 32 == 0, "whole loads per lane");
  static_assert(kWindowRows * kOutStride * 4 <= kStageBytes, "output tile fits the stages");
  static_assert(kStageBytes % 16 == 0 && kWarpSmemBytes % 16 == 0, "16-byte aligned regions");
  static_assert(CAP % kChunkNnz == 0 && CAP <= kSegmentNnz, "whole chunks staged");
  static_assert(kWindowRows == 8 && kChunkNnz == 16, "MMA shape: window rows = N = 8, chunk = K = 16");
  // Element offset of the 16-byte column chunk cv of staged row k. Rows are not padded: chunk
  // cv is stored at cv ^ swizzle(k), so the rows read together hit distinct banks (fp16/bf16:
  // the 8 rows of one ldmatrix matrix; TF32: rows t4 = 0..3 of one quarter-warp's 16-byte
  // loads). Without the 8-element pad a TF32 warp holds 1 KB less (8 blocks per SM instead of
  // 7 with the 256-nnz staging) and every variant leaves more shared memory to L1. The XOR
  // acts inside the row (cv * kVec < BN, a power of two).
  __host__ __device__ static constexpr int swizzle(int k) {
    if constexpr (sizeof(T) == 4) return 2 * (k & 3);
    else if constexpr (kVecPerRow >= 8) return k & 7;
    else return (k >> 1) & 3;
  }
  __device__ static int at(int k, int cv) { return (k * BN + cv * kVec) ^ (swizzle(k) * kVec); }
  static_assert(sizeof(T) == 4 ? kVecPerRow % 8 == 0 : (kVecPerRow % 8 == 0 || kVecPerRow == 4),
                "the swizzle stays inside the row");
  // A lane copies rows k0 .. k0 + kLoadsPerLane - 1 with k0 a multiple of kLoadsPerLane; for
  // them swizzle(k0 + i) == swizzle(k0) ^ swizzle(i), so its copies land at one per-lane
  // offset XOR a per-load constant (issue() in the kernel).
  static constexpr bool swizzle_splits() {
    for (int k0 = 0; k0 < kChunkNnz; k0 += kLoadsPerLane)
      for (int i = 0; i < kLoadsPerLane; ++i)
        if (swizzle(k0 + i) != (swizzle(k0) ^ swizzle(i))) return false;
    return true;
  }
  static_assert(swizzle_splits(), "per-load swizzle constants");
  static_assert(kVec * sizeof(T) == 16, "16-byte column chunks");
};

// One warp's work: nonzeros [begin, end) (at most kSegmentNnz), or with shared columns the
// slots [begin, end) (at most kSegmentNnz values), of the window starting at row0. meta
// packs the size of the group of consecutive warps of this block that share the window (0:
// idle slot, bits 2-4) and this warp's rank in it (bits 0-1), and for a window split across
// blocks either its part id (the workspace tile of this block; bits 5-29 hold part + 1, 0 if
// the window is not split) or, with bit 30 set, where its blocks sit in their cluster: the
// cluster rank of the first (bits 10-14) and their count - 1 (bits 5-9).
struct alignas(16) WorkItem {
  int row0, begin, end, meta;
};
static_assert(kBlockWarps <= 4, "rank takes 2 bits");
constexpr int item_meta(int part, int group, int rank) { return ((part + 1) << 5) | (group << 2) | rank; }
constexpr int item_meta_cluster(int first, int parts, int group, int rank) {
  return (1 << 30) | (first << 10) | ((parts - 1) << 5) | (group << 2) | rank;
}
__host__ __device__ constexpr int item_rank(int meta) { return meta & 3; }
__host__ __device__ constexpr int item_group(int meta) { return (meta >> 2) & 7; }
__host__ __device__ constexpr bool item_in_cluster(int meta) { return (meta >> 30) & 1; }
__host__ __device__ constexpr int item_part(int meta) { return (meta >> 5) - 1; }  // (without bit 30)
__host__ __device__ constexpr int item_cluster_parts(int meta) { return ((meta >> 5) & 31) + 1; }
__host__ __device__ constexpr int item_cluster_first(int meta) { return (meta >> 10) & 31; }
constexpr long long kMaxParts = (1LL << 25) - 1;  // what meta's part field holds
constexpr int kMaxClusterBlocks = 16;             // what the cluster fields hold (and the H100's largest cluster)
constexpr int kPortableClusterBlocks = 8;         // larger clusters need an opt-in per kernel

// One warp's share of the finalize kernel: C row split_row of the splits (split *
// rows_per_split + row within the split), the parts rank, rank + group, ... of it (group:
// consecutive warps of one block; 0: idle slot).
struct FinalizeSlot {
  int split_row;
  short group, rank;
};
constexpr int kFinalizeBlockWarps = 32;
// Warps per split row: enough that none adds more than this many parts, at most a block's.
// The parts per split vary from 2 to hundreds (BOYD1_A's dense row: 570 parts of one window);
// one thread per C element adding them all took longer than the SpMM there, and a fixed 32
// warps per element slowed matrices of many chunked rows of a few parts (amazon_photo TF32
// N = 256 0.57x own time).
constexpr int kFinalizePartsPerWarp = 8;

// Finalize slots of splits with parts [part_begin[s], part_begin[s + 1]) and rows_per_split C
// rows from first_rows[s] (those below `rows`): groups of a power of two warps, the largest
// first, so no group straddles a block; padded to whole blocks.
std::vector<FinalizeSlot> finalize_slots(const std::vector<int>& part_begin, const std::vector<int>& first_rows,
                                         int rows_per_split, std::int64_t rows) {
  std::vector<std::pair<int, int>> groups;  // (warps, split row)
  for (std::size_t s = 0; s + 1 < part_begin.size(); ++s) {
    int warps = 1;
    while (warps < kFinalizeBlockWarps && warps * kFinalizePartsPerWarp < part_begin[s + 1] - part_begin[s]) warps *= 2;
    for (int r = 0; r < rows_per_split && first_rows[s] + r < rows; ++r)
      groups.emplace_back(warps, static_cast<int>(s) * rows_per_split + r);
  }
  std::stable_sort(groups.begin(), groups.end(), [](const auto& x, const auto& y) { return x.first > y.first; });
  std::vector<FinalizeSlot> slots;
  for (const auto& [warps, split_row] : groups)
    for (int k = 0; k < warps; ++k) slots.push_back({split_row, static_cast<short>(warps), static_cast<short>(k)});
  slots.resize((slots.size() + kFinalizeBlockWarps - 1) / kFinalizeBlockWarps * kFinalizeBlockWarps, FinalizeSlot{0, 0, 0});
  return slots;
}

// The minimum blocks per SM keep the register counts the kernels had before the vectorised
// epilogue (fp16/bf16 56 at BN = 64, 48 at BN = 32; TF32 at most 64): without them ptxas
// took 64-72 and each variant lost one resident block. The widest tiles (fp16/bf16 128,
// TF32 64 columns) hold 34-40 KB of shared memory per block, so 6 blocks is all an SM can
// take of them anyway.
constexpr int min_blocks_per_sm(int elem_bytes, int bn) {
  if (elem_bytes == 2) return bn == 32 ? 10 : bn == 64 ? 9 : 6;
  return bn == 32 ? 8 : 6;
}

// A plan's shared columns (TcaPlan::slot_cols ...), null without.
struct SharedColumns {
  const int* cols;
  const unsigned char* rows;
  const int* value_begin;
  const int* perm;
};

// Raw bits of a 2-byte element (MMA operand halves).
template <class T>
__device__ __forceinline__ unsigned bits16(T x) {
  static_assert(sizeof(T) == 2, "fp16/bf16");
  unsigned short u;
  memcpy(&u, &x, 2);
  return u;
}

// CLUSTERS: launched in clusters, with split windows summed in them (a separate instance, so
// that the other launches run the code they ran before: the cluster epilogue in every
// instance cost fp16 plans without clusters 3-5 % on an H100).
template <class T, int BN, int CAP, bool SHARED, bool CLUSTERS>
__global__ void __launch_bounds__(kBlockWarps * 32, min_blocks_per_sm(sizeof(T), BN))
    tca_tensor_core_kernel(const WorkItem* __restrict__ items, const int* __restrict__ pos,
                           const int* __restrict__ crd, const T* __restrict__ vals, SharedColumns shared,
                           const T* __restrict__ B, unsigned ldb_bytes, T* __restrict__ C, long long ldc_row,
                           long long ldc_col, int rows, int n, int n_load, float alpha, float beta,
                           float* __restrict__ ws, int ws_ld, bool c_vec) {
  allow_dependent_grid_launch();  // the finalize kernel, if any (launch_finalize)
  using Tile = TcTile<T, BN, CAP, SHARED>;
  extern __shared__ __align__(16) unsigned char smem_raw[];
  const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
  // The plan fills every slot of every block (idle slots have group 0): all warps reach
  // the block barrier below.
  const WorkItem it = items[blockIdx.x * kBlockWarps + warp];
  const int group = item_group(it.meta);
  unsigned char* wsm = smem_raw + warp * Tile::kWarpSmemBytes;
  T* stage = reinterpret_cast<T*>(wsm);                             // (kStages, 16, BN)
  int* s_crd = reinterpret_cast<int*>(wsm + Tile::kStageBytes);     // (CAP)
  int* s_slot = s_crd + CAP;                                        // SHARED: (CAP) row mask << 24 | value offset
  T* s_val = reinterpret_cast<T*>(s_crd + (SHARED ? 2 : 1) * CAP);  // (CAP)
  float* O = reinterpret_cast<float*>(stage);                       // (kWindowRows, kOutStride), after the loop
  const int j0 = blockIdx.y * BN;

  if (group > 0) {
    const int g = lane >> 2, t4 = lane & 3;
    const int cnt = it.end - it.begin;  // K units (nonzeros or slots); their values <= CAP (plan's max_item_nnz)
    // This thread's MMA-B column is window row g: the nonzeros [lo, hi) (item-relative) are
    // its. Loaded first, so their latency overlaps the staging loads below. With shared
    // columns the values [vb, vb + nv) of value_perm are the item's.
    int lo = cnt, hi = cnt, vb = 0, nv = 0;
    if constexpr (SHARED) {
      vb = __ldg(shared.value_begin + it.begin);
      nv = __ldg(shared.value_begin + it.end) - vb;
    } else if (it.row0 + g < rows) {
      lo = max(__ldg(pos + it.row0 + g), it.begin) - it.begin;
      hi = min(__ldg(pos + it.row0 + g + 1), it.end) - it.begin;
    }
    // Stage the item's column ids and values: all loads in flight at once. With shared
    // columns the values (read through value_perm) are staged after the first gathers are
    // issued (below), so their two dependent loads overlap those.
    constexpr int kPerLane = (CAP + 31) / 32;
    {
      int cr[kPerLane], sl[kPerLane];
      T vl[kPerLane];
#pragma unroll
      for (int i = 0; i < kPerLane; ++i) {
        const int q = lane + 32 * i;
        if (q >= cnt) continue;
        if constexpr (SHARED) {
          cr[i] = __ldg(shared.cols + it.begin + q);
          sl[i] = (int(__ldg(shared.rows + it.begin + q)) << 24) | (__ldg(shared.value_begin + it.begin + q) - vb);
        } else {
          cr[i] = __ldg(crd + it.begin + q);
          vl[i] = vals[it.begin + q];
        }
      }
#pragma unroll
      for (int i = 0; i < kPerLane; ++i) {
        const int q = lane + 32 * i;
        if (q >= cnt) continue;
        s_crd[q] = cr[i];
        if constexpr (SHARED) s_slot[q] = sl[i];
        else s_val[q] = vl[i];
      }
    }
    // Value of K slot p (item-relative) in window row g, zero where the row has none there.
    auto value_of = [&](int p) -> T {
      if constexpr (SHARED) {
        if (p >= cnt) return Elem<T>::from_acc(0.f);
        const unsigned slot = static_cast<unsigned>(s_slot[p]), mask = slot >> 24;
        return (mask >> g) & 1u ? s_val[(slot & 0xFFFFFFu) + __popc(mask & ((1u << g) - 1u))] : Elem<T>::from_acc(0.f);
      } else {
        return p >= lo && p < hi ? s_val[p] : Elem<T>::from_acc(0.f);
      }
    };
    const int nchunks = (cnt + kChunkNnz - 1) / kChunkNnz;
    __syncwarp();

    // Stage chunk c's gathered B rows: (16 nonzeros) x (BN columns), 16-byte copies that
    // allocate in L1: the warps of an SM gather the same B rows again and again (mesh and
    // banded neighbours, hot columns), and L2 alone serves them at a fraction of L1's rate.
    // Each lane copies column chunk cv of kLoadsPerLane consecutive rows, so vector
    // shared-memory reads (one per 4 rows) fetch all their column ids.
    struct alignas(sizeof(int) * Tile::kLoadsPerLane) LaneIds {
      int k[Tile::kLoadsPerLane];
    };
    // Addresses are kept to one IMAD.WIDE (source) and one XOR with a constant plus an
    // immediate (destination) per copy: computed from 64-bit ldb, the generic stage pointer
    // and B and ldb reloaded under the register cap, a chunk's four copies took 112
    // instructions, two thirds of the fp16 chunk loop.
    const int k_first = (lane / Tile::kVecPerRow) * Tile::kLoadsPerLane, cv = lane % Tile::kVecPerRow;
    const int col = j0 + cv * Tile::kVec;
    const int cnt_lane = col < n_load ? cnt : 0;  // copies past it zero-fill (read nothing)
    const char* const b_lane = reinterpret_cast<const char*>(B + (col < n_load ? col : 0));
    const unsigned stage_lane = smem_addr(stage) + k_first * BN * int(sizeof(T));
    const unsigned chunk_lane = (cv ^ Tile::swizzle(k_first)) * 16u;
    auto issue = [&](int c) {
      const unsigned dst = stage_lane + (c % kStages) * Tile::kStageElems * int(sizeof(T));
      const int q0 = c * kChunkNnz + k_first;
      const LaneIds ids = *reinterpret_cast<const LaneIds*>(s_crd + q0);
#pragma unroll
      for (int i = 0; i < Tile::kLoadsPerLane; ++i) {
        const bool ok = q0 + i < cnt_lane;
        const unsigned row = ok ? static_cast<unsigned>(ids.k[i]) : 0u;
        cp_async_16_ca(dst + i * BN * int(sizeof(T)) + (chunk_lane ^ (Tile::swizzle(i) * 16u)),
                       b_lane + static_cast<unsigned long long>(row) * ldb_bytes, ok ? 16 : 0);
      }
    };
    // TF32 MMA-B values of chunk c held by this thread: K slots t4, t4+4, 8+t4, 12+t4; zero
    // unless the nonzero is in window row g (fp16/bf16 read theirs in pairs, below).
    auto load_vals = [&](int c, float (&v)[4]) {
      const int base = c * kChunkNnz;
#pragma unroll
      for (int q = 0; q < 4; ++q) v[q] = Elem<T>::to_acc(value_of(base + t4 + 4 * q));
    };

    float acc[BN / 16][4];
#pragma unroll
    for (int mt = 0; mt < BN / 16; ++mt)
#pragma unroll
      for (int q = 0; q < 4; ++q) acc[mt][q] = 0.f;

    // Prologue: chunks 0 .. kStages-2 in flight.
#pragma unroll
    for (int s = 0; s < kStages - 1; ++s) {
      if (s < nchunks) issue(s);
      cp_async_commit();
    }
    if constexpr (SHARED) {
      int src[kPerLane];
      T vl[kPerLane];
#pragma unroll
      for (int i = 0; i < kPerLane; ++i)
        if (lane + 32 * i < nv) src[i] = __ldg(shared.perm + vb + lane + 32 * i);
#pragma unroll
      for (int i = 0; i < kPerLane; ++i)
        if (lane + 32 * i < nv) vl[i] = vals[src[i]];
#pragma unroll
      for (int i = 0; i < kPerLane; ++i)
        if (lane + 32 * i < nv) s_val[lane + 32 * i] = vl[i];
      __syncwarp();
    }

    for (int c = 0; c < nchunks; ++c) {
      const int cn = c + kStages - 1;
      if (cn < nchunks) issue(cn);
      cp_async_commit();
      float vcur[4];
      if constexpr (sizeof(T) == 4) load_vals(c, vcur);
      cp_async_wait<kStages - 1>();
      __syncwarp();
      const T* S = stage + (c % kStages) * Tile::kStageElems;  // (16, BN): S[k][m] at Tile::at(k, m / kVec)
      if constexpr (sizeof(T) == 2) {
        // The two value pairs (K slots 2t4, 2t4+1 and 2t4+8, 2t4+9) as stored, each half
        // kept only if its nonzero is in window row g.
        unsigned b[2];
#pragma unroll
        for (int h = 0; h < 2; ++h) {
          const int p = c * kChunkNnz + 2 * t4 + 8 * h;
          if constexpr (SHARED) {
            b[h] = bits16(value_of(p)) | (bits16(value_of(p + 1)) << 16);
          } else {
            const unsigned pair = *reinterpret_cast<const unsigned*>(s_val + p);
            b[h] = pair & ((p >= lo && p < hi ? 0x0000FFFFu : 0u) | (p + 1 >= lo && p + 1 < hi ? 0xFFFF0000u : 0u));
          }
        }
        // ldmatrix.trans row addresses: matrices (m 0-7,k 0-7), (m 8-15,k 0-7), (m 0-7,k 8-15), (m 8-15,k 8-15)
        // (m-tile mt's chunk is (2 mt + h) ^ swizzle = c0 ^ 2 mt: one XOR per ldmatrix)
        const int lk = (lane & 7) + ((lane >> 4) << 3), c0 = ((lane >> 3) & 1) ^ Tile::swizzle(lk);
#pragma unroll
        for (int mt = 0; mt < BN / 16; ++mt) {
          unsigned a[4];
          ldmatrix_x4_trans(a, S + lk * BN + (c0 ^ (2 * mt)) * Tile::kVec);
          mma_16816(acc[mt], a, b, T());
        }
      } else {
        // MMA rows are permuted so that one 16-byte LDS feeds two m-tiles: in each 32-column
        // pair of tiles (2p, 2p+1), MMA row g / g+8 of tile 2p+h reads column 4g+2h / 4g+2h+1.
        // The gathered B elements go to the tensor core as fp32 bits, which it truncates to
        // TF32 (relative error < 2^-10 instead of cvt.rna's 2^-11): a cvt per element was two
        // thirds of this loop's instructions. The sparse values, 4 per chunk, are still rounded.
#pragma unroll
        for (int kk = 0; kk < 2; ++kk) {
          const unsigned b[2] = {to_tf32(vcur[2 * kk]), to_tf32(vcur[2 * kk + 1])};
          const float* Sf = reinterpret_cast<const float*>(S);
          const int k = kk * 8 + t4;
#pragma unroll
          for (int pr = 0; pr < BN / 32; ++pr) {
            const float4 lo4 = *reinterpret_cast<const float4*>(Sf + Tile::at(k, pr * 8 + g));
            const float4 hi4 = *reinterpret_cast<const float4*>(Sf + Tile::at(k + 4, pr * 8 + g));
            const unsigned a0[4] = {__float_as_uint(lo4.x), __float_as_uint(lo4.y), __float_as_uint(hi4.x),
                                    __float_as_uint(hi4.y)};
            const unsigned a1[4] = {__float_as_uint(lo4.z), __float_as_uint(lo4.w), __float_as_uint(hi4.z),
                                    __float_as_uint(hi4.w)};
            mma_1688_tf32(acc[2 * pr], a0, b);
            mma_1688_tf32(acc[2 * pr + 1], a1, b);
          }
        }
      }
      __syncwarp();
    }
    cp_async_wait<0>();
    __syncwarp();

    // Accumulators (m = column g / g+8, n = window row 2t4 / 2t4+1) -> O[row][col] in
    // this warp's shared memory.
#pragma unroll
    for (int mt = 0; mt < BN / 16; ++mt) {
      // column of MMA rows g and g+8 (fp16/bf16: natural order; tf32: the permuted one above)
      const int c_lo = sizeof(T) == 2 ? mt * 16 + g : (mt / 2) * 32 + 4 * g + 2 * (mt % 2);
      const int c_hi = sizeof(T) == 2 ? mt * 16 + g + 8 : c_lo + 1;
      O[(2 * t4) * Tile::kOutStride + c_lo] = acc[mt][0];
      O[(2 * t4 + 1) * Tile::kOutStride + c_lo] = acc[mt][1];
      O[(2 * t4) * Tile::kOutStride + c_hi] = acc[mt][2];
      O[(2 * t4 + 1) * Tile::kOutStride + c_hi] = acc[mt][3];
    }
  }
  __syncthreads();
  if (group == 0) return;

  // Epilogue: the group's warps sum their tiles (group leader = warp - rank) and store
  // rows of the window, four consecutive columns per thread (quad idx by warp rank + 32 *
  // lane ...), coalesced along rows: one 16-byte shared-memory read per tile and, where C's
  // rows are contiguous and aligned (c_vec), one 8- or 16-byte store. Element by element, this
  // loop was about a fifth of the kernel's instructions on matrices of short work items.
  const int rank = item_rank(it.meta);
  unsigned char* group_smem = smem_raw + (warp - rank) * Tile::kWarpSmemBytes;
  constexpr int kQuadsPerRow = BN / 4;
  constexpr int kQuads = kWindowRows * kQuadsPerRow;
  static_assert(Tile::kOutStride % 4 == 0, "16-byte aligned output rows");
  const auto tile_offset = [](int r, int cc) { return (r * Tile::kOutStride + cc) * int(sizeof(float)); };
  // C[row][col .. col + 3] (those below n) = alpha * v + beta * C.
  const auto store_c = [&](int row, int col, const float (&v)[4]) {
    T* out = C + row * ldc_row + col * ldc_col;
    const int cols = min(4, n - col);
    if (c_vec && cols == 4) {
      Vec4<T> y;
      if (beta != 0.f) y = *reinterpret_cast<const Vec4<T>*>(out);
#pragma unroll
      for (int q = 0; q < 4; ++q)
        y.e[q] = Elem<T>::from_acc(beta != 0.f ? alpha * v[q] + beta * Elem<T>::to_acc(y.e[q]) : alpha * v[q]);
      *reinterpret_cast<Vec4<T>*>(out) = y;
    } else {
      for (int q = 0; q < cols; ++q) {
        T* o = out + q * ldc_col;
        float y = alpha * v[q];
        if (beta != 0.f) y += beta * Elem<T>::to_acc(*o);
        *o = Elem<T>::from_acc(y);
      }
    }
  };

  if (CLUSTERS && item_in_cluster(it.meta)) {
    // A window split across the blocks [first, first + parts) of this cluster: each block
    // leaves its sum in its group leader's tile (the same offset in every block of it), and
    // after the cluster barrier each block adds up a share of the quads over all of them, in
    // block order (the same bits from call to call), reading the others' shared memory.
    for (int idx = rank * 32 + lane; idx < kQuads; idx += group * 32) {
      const int r = idx / kQuadsPerRow, cc = (idx % kQuadsPerRow) * 4;
      float4* sum = reinterpret_cast<float4*>(group_smem + tile_offset(r, cc));
      for (int w = 1; w < group; ++w) {
        const float4 o = *reinterpret_cast<const float4*>(group_smem + w * Tile::kWarpSmemBytes + tile_offset(r, cc));
        sum->x += o.x, sum->y += o.y, sum->z += o.z, sum->w += o.w;
      }
    }
    cluster_sync();
    const int first = item_cluster_first(it.meta), parts = item_cluster_parts(it.meta);
    const int mine = static_cast<int>(cluster_block_rank()) - first;
    const unsigned tile = smem_addr(group_smem);
    for (int idx = mine + parts * (rank * 32 + lane); idx < kQuads; idx += parts * group * 32) {
      const int r = idx / kQuadsPerRow, cc = (idx % kQuadsPerRow) * 4;
      const int row = it.row0 + r, col = j0 + cc;
      if (row >= rows || col >= n) continue;
      float v[4] = {0.f, 0.f, 0.f, 0.f};
      for (int p = 0; p < parts; ++p) {
        const float4 o = load_cluster_shared_f4(tile + tile_offset(r, cc), static_cast<unsigned>(first + p));
        v[0] += o.x, v[1] += o.y, v[2] += o.z, v[3] += o.w;
      }
      store_c(row, col, v);
    }
    cluster_sync();  // the other blocks' tiles stay until every block has read them
    return;
  }
  const int part = item_part(it.meta);
  for (int idx = rank * 32 + lane; idx < kQuads; idx += group * 32) {
    const int r = idx / kQuadsPerRow, cc = (idx % kQuadsPerRow) * 4;
    const int row = it.row0 + r, col = j0 + cc;
    if (row >= rows || col >= n) continue;
    float v[4] = {0.f, 0.f, 0.f, 0.f};
    for (int w = 0; w < group; ++w) {
      const float4 o = *reinterpret_cast<const float4*>(group_smem + w * Tile::kWarpSmemBytes + tile_offset(r, cc));
      v[0] += o.x, v[1] += o.y, v[2] += o.z, v[3] += o.w;
    }
    if (part >= 0) {  // this block's part of a split window; ws rows hold whole quads (ws_ld)
      *reinterpret_cast<float4*>(ws + (static_cast<long long>(part) * kWindowRows + r) * ws_ld + col) =
          make_float4(v[0], v[1], v[2], v[3]);
      continue;
    }
    store_c(row, col, v);
  }
}

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

// B as the kernels read it: in place where tca_b_in_place, else packed into `packed`
// (row-major, rows padded to 16 bytes with zeros). Sets ldb and the padded width n_load.
template <class T>
const T* row_major_b(const TcaArgs& a, DeviceBuffer<T>& packed, long long& ldb, int& n_load, cudaStream_t stream) {
  ldb = a.B.row_stride;
  n_load = static_cast<int>(a.n);
  if (!packed.ptr) return static_cast<const T*>(a.B.ptr);
  const int vec = 16 / static_cast<int>(sizeof(T));
  n_load = static_cast<int>((a.n + vec - 1) / vec * vec);
  ldb = n_load;
  const T* B = static_cast<const T*>(a.B.ptr);
  if (a.cols > 0 && a.B.row_stride == 1 && a.n > 1) {
    const long long k_tiles = (a.cols + 31) / 32, n_tiles = (n_load + 31) / 32;
    if (k_tiles > 0x7fffffffLL) throw Error("spmm_tca: B too large to repack");  // n_tiles: see kSliceColumns
    tca_pack_b_transpose_kernel<T><<<dim3(static_cast<unsigned>(k_tiles), static_cast<unsigned>(n_tiles)),
                                     dim3(32, 8), 0, stream>>>(B, a.B.col_stride, packed.ptr, a.cols,
                                                               static_cast<int>(a.n), n_load);
    TESSERA_CUDA_CHECK_LAUNCH("tca_pack_b_transpose_kernel");
  } else if (a.cols > 0) {
    const long long total = a.cols * static_cast<long long>(n_load);
    const int blocks = static_cast<int>(std::min<long long>((total + 255) / 256, 65535));
    tca_pack_b_kernel<T><<<blocks, 256, 0, stream>>>(B, a.B.row_stride, a.B.col_stride, packed.ptr, a.cols,
                                                     static_cast<int>(a.n), n_load);
    TESSERA_CUDA_CHECK_LAUNCH("tca_pack_b_kernel");
  }
  return packed.ptr;
}

// Elements of the packed copy of B that row_major_b needs (0 where B is read in place).
template <class T>
std::size_t packed_b_count(const TcaArgs& a) {
  const long long vec = 16 / static_cast<long long>(sizeof(T));
  return tca_b_in_place(a) ? 0 : static_cast<std::size_t>(a.cols) * static_cast<std::size_t>((a.n + vec - 1) / vec * vec);
}

// A work item of the vectorised row split: nonzeros [begin, end) of `row`, the whole row or a
// piece of it (a chunk), whose sum goes to workspace row `ws_row` (-1: a whole row, straight to C).
struct alignas(16) RowChunk {
  int row, begin, end, ws_row;
};

// ---------------------------------------------------------------------------------
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

// ---------------------------------------------------------------------------------
std::size_t elem_size(TcaType t) {
  switch (t) {
    case TcaType::F32: return 4;
    case TcaType::F64: return 8;
    default: return 2;
  }
}

// Programmatic dependent launches (grid_dependency.cuh) need compute capability 9.0.
bool programmatic_launches() {
  int device = 0, major = 0;
  TESSERA_CUDA_CHECK(cudaGetDevice(&device));
  TESSERA_CUDA_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
  return major >= 9;
}

// C rows of the split windows or rows = alpha * (the sums of their parts in ws, rows of ws_ld) + beta * C,
// blocks of kFinalizeBlockWarps slots (TcaPlan::build) times 32-column tiles.
// Launched as the SpMM kernel's programmatic dependent: its blocks are scheduled while the
// SpMM drains and wait for it there, instead of after a kernel-to-kernel gap.
template <class T, class W>
void launch_finalize(const void* slots, long long blocks, const int* split_rows, const int* part_begin,
                     int rows_per_split, const W* ws, long long ws_ld, const TcaArgs& a, cudaStream_t stream) {
  if (blocks > 0x7fffffffLL) throw Error("spmm_tca: too many split rows");  // column tiles: see kSliceColumns
  launch_kernel_after(programmatic_launches(), tca_finalize_kernel<T, W>,
                      dim3(static_cast<unsigned>(blocks), static_cast<unsigned>((a.n + 31) / 32)),
                      dim3(kFinalizeBlockWarps * 32), 0, stream, static_cast<const FinalizeSlot*>(slots), split_rows,
                      part_begin, rows_per_split, ws, ws_ld, static_cast<T*>(a.C), a.c_row_stride, a.c_col_stride,
                      static_cast<int>(a.rows), static_cast<int>(a.n), static_cast<W>(a.alpha),
                      static_cast<W>(a.beta));
}

template <class T, int BN, int CAP, bool SHARED>
void launch_tensor_core(const TcaPlan& plan, const TcaArgs& a, const T* B, long long ldb, int n_load,
                        float* ws, int ws_ld, cudaStream_t stream) {
  using Tile = TcTile<T, BN, CAP, SHARED>;
  const int smem = kBlockWarps * Tile::kWarpSmemBytes;
  const int cluster_blocks = plan.stats().cluster_blocks;
  const auto kernel = cluster_blocks > 1 ? tca_tensor_core_kernel<T, BN, CAP, SHARED, true>
                                         : tca_tensor_core_kernel<T, BN, CAP, SHARED, false>;
  static const char shared_memory_set = 0, clusters_allowed = 0;  // keys, per instantiation
  once_per_device(&shared_memory_set, [&] {
    for (auto k : {tca_tensor_core_kernel<T, BN, CAP, SHARED, true>, tca_tensor_core_kernel<T, BN, CAP, SHARED, false>})
      TESSERA_CUDA_CHECK(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
  });
  if (cluster_blocks > kPortableClusterBlocks)
    once_per_device(&clusters_allowed, [] {
      TESSERA_CUDA_CHECK(cudaFuncSetAttribute(tca_tensor_core_kernel<T, BN, CAP, SHARED, true>,
                                              cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
    });
  const auto blocks = plan.stats().blocks;
  if (blocks == 0) return;
  if (blocks > 0x7fffffffLL) throw Error("spmm_tca: too many work items for one grid");
  // The kernel addresses B's rows with 32-bit byte strides.
  if (ldb * static_cast<long long>(sizeof(T)) > 0xffffffffLL) throw Error("spmm_tca: a row of B spans 4 GiB or more");
  const dim3 grid(static_cast<unsigned>(blocks), static_cast<unsigned>((a.n + BN - 1) / BN));
  // C's rows contiguous, every row start aligned for the epilogue's 4-element stores
  const bool c_vec = a.c_col_stride == 1 && a.c_row_stride % 4 == 0 &&
                     reinterpret_cast<std::uintptr_t>(a.C) % (4 * sizeof(T)) == 0;
  const SharedColumns shared{plan.slot_cols(), plan.slot_rows(), plan.slot_value_begin(), plan.value_perm()};
  launch_clustered(kernel, grid, dim3(kBlockWarps * 32), smem, stream,
                   dim3(static_cast<unsigned>(cluster_blocks)), static_cast<const WorkItem*>(plan.items()), a.pos, a.crd,
                   static_cast<const T*>(a.vals), shared, B, static_cast<unsigned>(ldb * static_cast<long long>(sizeof(T))),
                   static_cast<T*>(a.C), a.c_row_stride, a.c_col_stride, static_cast<int>(a.rows),
                   static_cast<int>(a.n), n_load, static_cast<float>(a.alpha), static_cast<float>(a.beta), ws, ws_ld,
                   c_vec);
}

// Column tile of the tensor-core kernel: 64 (fp16/bf16) or 32 (TF32) where the grid fills the
// GPU (see kNarrowGridBlocksPerSm), twice that for plans of long work items
// (kWideTileSegmentNnz). 128 columns only where they divide N: a part-empty tile still issues
// every copy and MMA.
int tensor_core_tile(const TcaPlan& plan, const TcaArgs& a) {
  const auto& st = plan.stats();
  const auto fills_gpu = [&](long long bn) {
    return st.blocks * ((a.n + bn - 1) / bn) > kNarrowGridBlocksPerSm * st.sm_count;
  };
  const bool long_items = st.segment_nnz >= kWideTileSegmentNnz;
  if (elem_size(a.type) == 2) {
    if (long_items && a.n % 128 == 0 && fills_gpu(128)) return 128;
    return a.n > 32 && fills_gpu(64) ? 64 : 32;
  }
  return long_items && a.n > 32 && fills_gpu(64) ? 64 : 32;
}

// The layout the tensor-core kernel runs: the plan's cluster layout where it has one and the
// grid is small enough (kClusterLaunchBudget), else the plan.
const TcaPlan& tensor_core_layout(const TcaPlan& plan, const TcaArgs& a, int bn) {
  const TcaPlan* cl = plan.cluster_layout();
  const long long grid = plan.stats().blocks * ((a.n + bn - 1) / bn);
  return cl && grid * cl->stats().cluster_blocks <= kClusterLaunchBudget * plan.stats().sm_count ? *cl : plan;
}

template <class T>
void run_tensor_core(const TcaPlan& plan, const TcaArgs& a, cudaStream_t stream) {
  const int bn = tensor_core_tile(plan, a);
  const TcaPlan& layout = tensor_core_layout(plan, a, bn);
  const auto& lst = layout.stats();
  const std::size_t packed_count = packed_b_count<T>(a);
  DeviceBuffer<T> packed(packed_count, stream, packed_count ? workspace_pool() : nullptr);
  long long ldb = 0;
  int n_load = 0;
  const T* B = row_major_b(a, packed, ldb, n_load, stream);
  // Every part of a split window stores its whole tile and the finalize kernel adds the parts,
  // so the workspace needs no zeroing: the cudaMemsetAsync that atomics into one tile per
  // window needed cost 5-15 % of a call on matrices with split windows (H100, r05 / mbeacxc /
  // hangGlider_3, N = 64-256).
  const int ws_ld = static_cast<int>((a.n + 3) / 4 * 4);  // whole quads (the epilogue's float4 stores)
  const std::size_t ws_count = static_cast<std::size_t>(lst.split_parts) * kWindowRows * ws_ld;
  DeviceBuffer<float> ws(ws_count, stream, ws_count ? workspace_pool() : nullptr);
  const bool short_items = lst.max_item_nnz <= kShortItemNnz;
  const bool medium_items = lst.max_item_nnz <= kMediumItemNnz;
  auto launch_shared = [&](auto bn_const, auto shared) {
    constexpr int BN = decltype(bn_const)::value;
    constexpr bool S = decltype(shared)::value;
    if (short_items) launch_tensor_core<T, BN, kShortItemNnz, S>(layout, a, B, ldb, n_load, ws.ptr, ws_ld, stream);
    else if (medium_items) launch_tensor_core<T, BN, kMediumItemNnz, S>(layout, a, B, ldb, n_load, ws.ptr, ws_ld, stream);
    else launch_tensor_core<T, BN, kSegmentNnz, S>(layout, a, B, ldb, n_load, ws.ptr, ws_ld, stream);
  };
  auto launch = [&](auto bn_const) {
    if (lst.shared_columns) launch_shared(bn_const, std::true_type{});
    else launch_shared(bn_const, std::false_type{});
  };
  if constexpr (sizeof(T) == 2) {
    if (bn == 128) launch(std::integral_constant<int, 128>{});
    else if (bn == 64) launch(std::integral_constant<int, 64>{});
    else launch(std::integral_constant<int, 32>{});
  } else {
    if (bn == 64) launch(std::integral_constant<int, 64>{});
    else launch(std::integral_constant<int, 32>{});
  }
  if (ws_count)
    launch_finalize<T, float>(layout.split_finalize_slots(), lst.split_finalize_blocks, layout.split_rows(),
                              layout.split_part_begin(), kWindowRows, ws.ptr, ws_ld, a, stream);
}

// Row-split plans whose non-empty rows average at least this many nonzeros keep 8 gathers per
// lane group in flight instead of 4. On an H100, fp32 (TF32 Auto plans, N = 64-256, against 4):
// MIT8 (mean 78), bcsstk16 (60), EX5 (45), Groebner_id2003_aug (35) ran 1.03-1.12x, while
// matrices of short rows lost to the lower occupancy (cage10 / cage11 (13-14) 0.89-0.97x,
// fv2 (9) 0.89-0.98x, lp_fit2p (17) 0.88x at N = 256). fp64 (all 72 benchmark matrices,
// N = 64-256): 1.02x in geomean, bcsstk13, QSHIP12L_P (5427 rows, 2023 of them non-empty,
// averaging 60), lastfm_user_artists, ex9, bcsstk16 1.20-1.32x, the least syn_long_20k_d128
// 0.93x at N >= 128 (40 k warps or more: the occupancy counts more there). fp16 gained only
// where one lane group spans the warp (N > 128: 1.03x in geomean, many long-row matrices
// 1.16-1.27x), where each warp has one gather stream; with two or four groups per warp it
// already keeps 8-16 gathers in flight (N = 64-128: 1.00x, movielens_small_ratings 0.87x).
constexpr double kDeepGatherMeanRowNnz = 24.0;

// The row split's lane groups are as wide as N needs, up to a warp, unless the launch would then
// hold fewer warps than this fraction of what the GPU keeps resident: narrower groups give each
// item more column tiles, so more warps, each gathering fewer bytes per nonzero. On an H100
// (against the widest groups, all 72 benchmark matrices, N = 32-256): 54 of 432 fp32 and fp16
// runs at N >= 64 changed by more than 3 %, all faster (1.07-1.63x: west0497, lastfm_user_artists,
// bcsstk13, adder_dcop_05, watt_2, citeseer, ...) but ex9 fp16 N = 128 (0.96x). Forcing narrow
// groups everywhere lost up to 0.5x on matrices whose warps already fill the GPU (wave, cage11,
// p2p-Gnutella31); at 0.63 of the resident warps bcsstk13 fp32 N = 256 lost 0.94x with them,
// citeseer at 0.52 gained 1.2-1.4x. fp64 follows the same rule (the widest groups for fp64 lost
// 0.98x in geomean, citeseer, zenios, cora, lastfm_user_artists 0.63-0.83x at N = 64). Only the
// items that gather count: the warps of empty rows return at once.
constexpr double kRowVecMinFill = 0.6;

template <class T>
void run_row_split(const TcaPlan* plan, const TcaArgs& a, cudaStream_t stream) {
  using Acc = typename Elem<T>::acc;
  constexpr int kVec = 16 / int(sizeof(T));
  const std::size_t packed_count = packed_b_count<T>(a);
  DeviceBuffer<T> packed(packed_count, stream, packed_count ? workspace_pool() : nullptr);
  long long ldb = 0;
  int n_load = 0;
  const T* B = row_major_b(a, packed, ldb, n_load, stream);
  // C's rows contiguous, whole kVec-column groups, every group 16-byte aligned: vector stores
  const bool c_vec = a.c_col_stride == 1 && a.c_row_stride % kVec == 0 && a.n % kVec == 0 &&
                     reinterpret_cast<std::uintptr_t>(a.C) % 16 == 0;
  // Without a plan, or with no chunked rows, every row is one work item, in row order.
  const long long n_chunks = plan ? plan->stats().row_chunks : 0;
  const long long n_listed = plan ? plan->stats().row_split_items : 0;
  // One workspace row per chunk, each written whole (no zeroing; see run_tensor_core).
  const std::size_t ws_count = static_cast<std::size_t>(n_chunks * n_load);
  DeviceBuffer<Acc> ws(ws_count, stream, ws_count ? workspace_pool() : nullptr);
  const long long items = n_listed ? n_listed : a.rows;
  // The warps of empty rows return at once: the fill rule below counts those that gather.
  const long long empty_rows = plan ? a.rows - plan->stats().nonempty_rows : 0;
  const auto tiles_at = [&](int lanes) { return (a.n + lanes * kVec - 1) / (lanes * kVec); };
  auto launch = [&](auto lanes, auto unroll) {
    constexpr int L = decltype(lanes)::value, U = decltype(unroll)::value;
    const long long warps = items * tiles_at(L);
    const long long blocks = (warps + 7) / 8;
    if (blocks > 0x7fffffffLL) throw Error("spmm_tca: problem too large for the row-split grid");
    tca_row_vec_kernel<T, L, U><<<static_cast<unsigned>(blocks), 256, 0, stream>>>(
        a.pos, a.crd, static_cast<const T*>(a.vals), B, ldb, static_cast<T*>(a.C), a.c_row_stride, a.c_col_stride,
        static_cast<int>(a.rows), static_cast<int>(a.n), static_cast<Acc>(a.alpha), static_cast<Acc>(a.beta), c_vec,
        n_listed ? static_cast<const RowChunk*>(plan->row_split_items()) : nullptr, static_cast<int>(n_listed),
        ws.ptr, n_load);
    TESSERA_CUDA_CHECK_LAUNCH("tca_row_vec_kernel");
  };
  // Lane groups as wide as N needs (8 lanes cover 8 kVec columns), up to a warp, and narrower
  // while the launch would not fill the GPU (kRowVecMinFill).
  int sms = plan ? plan->stats().sm_count : 0;
  if (sms == 0) {
    int device = 0;
    TESSERA_CUDA_CHECK(cudaGetDevice(&device));
    TESSERA_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  }
  const auto lanes_for = [&](int resident_warps_per_sm) {
    int lanes = a.n <= 8 * kVec ? 8 : a.n <= 16 * kVec ? 16 : 32;
    while (lanes > 8 && (items - empty_rows) * tiles_at(lanes) < kRowVecMinFill * resident_warps_per_sm * sms)
      lanes /= 2;
    return lanes;
  };
  auto launch_lanes = [&](int lanes, auto unroll) {
    if (lanes == 8) launch(std::integral_constant<int, 8>{}, unroll);
    else if (lanes == 16) launch(std::integral_constant<int, 16>{}, unroll);
    else launch(std::integral_constant<int, 32>{}, unroll);
  };
  const std::integral_constant<int, 4> shallow;
  const std::integral_constant<int, 8> deep;
  const int lanes = lanes_for(8 * row_vec_blocks_per_sm(shallow));
  const TcaPlanStats st = plan ? plan->stats() : TcaPlanStats{};
  const bool long_rows = st.nonempty_rows > 0 && st.nnz >= kDeepGatherMeanRowNnz * st.nonempty_rows;
  if (!long_rows) launch_lanes(lanes, shallow);
  else if constexpr (sizeof(T) >= 4) launch_lanes(lanes_for(8 * row_vec_blocks_per_sm(deep)), deep);
  // 2-byte types: only where one lane group spans the warp (kDeepGatherMeanRowNnz says why).
  else if (lanes == 32) launch(std::integral_constant<int, 32>{}, deep);
  else launch_lanes(lanes, shallow);
  if (ws_count)
    launch_finalize<T, Acc>(plan->chunk_finalize_slots(), plan->stats().chunk_finalize_blocks, plan->chunked_row_ids(),
                            plan->chunked_row_first_chunk(), 1, ws.ptr, n_load, a, stream);
}

// nnz / (sum over windows of their distinct columns); 0 where a row holds a column twice (a
// slot's row mask cannot say so). Decides whether a plan shares columns before the slots are
// built: building them sorts each window's nonzeros and searches each one's row, which took
// 10-140 times the rest of a plan, and most plans do not share. Here each column keeps a mark
// of the last window that held it and of that window's rows holding it: one pass. Where the
// column ids span far more than the nonzeros (the marks would outweigh the matrix), each
// window's (column, row) keys are sorted instead.
double window_column_reuse(const int* pos_host, const int* crd_host, std::int64_t rows) {
  const std::int64_t nnz = pos_host[rows];
  const int max_col = *std::max_element(crd_host, crd_host + nnz);
  std::int64_t distinct = 0;
  if (max_col < 4 * nnz + (1 << 20)) {
    std::vector<std::int64_t> mark(static_cast<std::size_t>(max_col) + 1, 0);  // (window + 1) << 8 | row bits
    for (std::int64_t r0 = 0, w = 1; r0 < rows; r0 += kWindowRows, ++w)
      for (std::int64_t r = r0; r < std::min<std::int64_t>(r0 + kWindowRows, rows); ++r) {
        const std::int64_t bit = std::int64_t{1} << (r - r0);
        for (int p = pos_host[r]; p < pos_host[r + 1]; ++p) {
          std::int64_t& m = mark[crd_host[p]];
          if (m >> 8 != w) m = w << 8 | bit, ++distinct;
          else if (m & bit) return 0.0;
          else m |= bit;
        }
      }
  } else {
    std::vector<std::int64_t> keys;  // column x kWindowRows + row in the window
    for (std::int64_t r0 = 0; r0 < rows; r0 += kWindowRows) {
      keys.clear();
      for (std::int64_t r = r0; r < std::min<std::int64_t>(r0 + kWindowRows, rows); ++r)
        for (int p = pos_host[r]; p < pos_host[r + 1]; ++p)
          keys.push_back(static_cast<std::int64_t>(crd_host[p]) * kWindowRows + (r - r0));
      std::sort(keys.begin(), keys.end());
      for (std::size_t i = 0; i < keys.size(); ++i) {
        if (i > 0 && keys[i] == keys[i - 1]) return 0.0;
        distinct += i == 0 || keys[i] / kWindowRows != keys[i - 1] / kWindowRows;
      }
    }
  }
  return distinct > 0 ? static_cast<double>(nnz) / static_cast<double>(distinct) : 0.0;
}

}  // namespace

// ---------------------------------------------------------------------------------
std::shared_ptr<const TcaPlan> TcaPlan::build(const int* pos_host, std::int64_t rows, int segment_nnz,
                                              int row_chunk_nnz, const int* crd_host, double shared_column_min_reuse,
                                              int max_cluster_blocks) {
  auto clustered = build_layout(pos_host, rows, segment_nnz, row_chunk_nnz, crd_host, shared_column_min_reuse,
                                max_cluster_blocks);
  const auto& cs = clustered->stats();
  if (cs.cluster_windows == 0) return clustered;  // the workspace layout: no window fits a cluster
  // Windows in clusters and others in the workspace lost (H100, own time, N = 32-256: BOYD1_A
  // 0.81-0.88x, mbeacxc 0.81-0.98x, movielens_small_ratings 0.73-1.00x), so such plans keep
  // the workspace layout alone.
  auto plan = build_layout(pos_host, rows, segment_nnz, row_chunk_nnz, crd_host, shared_column_min_reuse, 1);
  if (cs.split_parts == 0) plan->cluster_layout_ = std::move(clustered);
  return plan;
}

std::shared_ptr<TcaPlan> TcaPlan::build_layout(const int* pos_host, std::int64_t rows, int segment_nnz,
                                               int row_chunk_nnz, const int* crd_host, double shared_column_min_reuse,
                                               int max_cluster_blocks) {
  auto plan = std::shared_ptr<TcaPlan>(new TcaPlan());
  TcaPlanStats& st = plan->stats_;
  st.rows = rows;
  st.nnz = rows > 0 ? pos_host[rows] : 0;
  int device = 0, sms = 0, major = 0;
  TESSERA_CUDA_CHECK(cudaGetDevice(&device));
  TESSERA_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  TESSERA_CUDA_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
  st.sm_count = sms;
  // Clusters: 16 blocks on compute capability 9.0 (H100, H200), the portable 8 on later GPUs,
  // none before 9.0.
  const int device_cluster_blocks = major == 9 ? kMaxClusterBlocks : major > 9 ? kPortableClusterBlocks : 1;
  if (max_cluster_blocks <= 0 || max_cluster_blocks > device_cluster_blocks) max_cluster_blocks = device_cluster_blocks;
  // Shared columns: each window's distinct columns become its K slots (sorted by column),
  // with a mask of the window rows that hold each and its values listed slot by slot.
  std::vector<int> slot_cols, slot_value_begin, value_perm, window_first_slot;
  std::vector<unsigned char> slot_rows;
  if (crd_host && st.nnz > 0) {
    st.window_column_reuse = window_column_reuse(pos_host, crd_host, rows);
    st.shared_columns = st.window_column_reuse > 0 && st.window_column_reuse >= shared_column_min_reuse;
  }
  if (st.shared_columns) {
    std::vector<std::pair<int, int>> window;  // (column, nonzero index): row order within a column
    for (std::int64_t r0 = 0; r0 < rows; r0 += kWindowRows) {
      const std::int64_t r1 = std::min<std::int64_t>(r0 + kWindowRows, rows);
      window_first_slot.push_back(static_cast<int>(slot_cols.size()));
      window.clear();
      for (std::int64_t r = r0; r < r1; ++r)
        for (int p = pos_host[r]; p < pos_host[r + 1]; ++p) window.emplace_back(crd_host[p], p);
      std::sort(window.begin(), window.end());
      for (std::size_t i = 0; i < window.size(); ++i) {
        const auto in_row = std::upper_bound(pos_host + r0, pos_host + r1 + 1, window[i].second) - (pos_host + r0) - 1;
        const unsigned char row_bit = static_cast<unsigned char>(1u << in_row);
        if (i == 0 || window[i].first != window[i - 1].first) {
          slot_cols.push_back(window[i].first);
          slot_rows.push_back(0);
          slot_value_begin.push_back(static_cast<int>(value_perm.size()));
        }
        slot_rows.back() |= row_bit;  // no row holds a column twice (window_column_reuse > 0)
        value_perm.push_back(window[i].second);
      }
    }
    window_first_slot.push_back(static_cast<int>(slot_cols.size()));
    slot_value_begin.push_back(static_cast<int>(value_perm.size()));
    st.slots = static_cast<std::int64_t>(slot_cols.size());
  }
  // Segments count K units: nonzeros, or slots with shared columns (a slot costs a gather and a
  // K slot of an MMA, as a nonzero does without).
  const long long units = st.shared_columns ? st.slots : st.nnz;
  if (segment_nnz <= 0) {  // auto: about kTargetWarpsPerSm items per SM, so small matrices still fill the GPU
    const long long target = (units + static_cast<long long>(sms) * kTargetWarpsPerSm - 1) /
                             (static_cast<long long>(sms) * kTargetWarpsPerSm);
    segment_nnz = static_cast<int>(std::clamp<long long>((target + kChunkNnz - 1) / kChunkNnz * kChunkNnz,
                                                         kMinSegmentNnz, kSegmentNnz));
  }
  if (segment_nnz % kChunkNnz != 0 || segment_nnz > kSegmentNnz)
    throw Error("TcaPlan: segment_nnz must be a multiple of kChunkNnz and at most kSegmentNnz");
  st.segment_nnz = segment_nnz;
  for (std::int64_t r = 0; r < rows; ++r) {
    st.max_row_nnz = std::max<std::int64_t>(st.max_row_nnz, pos_host[r + 1] - pos_host[r]);
    st.nonempty_rows += pos_host[r + 1] > pos_host[r];
  }
  st.mean_row_nnz = rows > 0 ? static_cast<double>(st.nnz) / rows : 0.0;

  // Row chunks of the vectorised row split: rows longer than row_chunk_nnz are cut into
  // pieces of that size (auto: about kRowChunkWarpsPerSm pieces per SM, so that a small
  // matrix of long rows fills the GPU too, within [kMinRowChunkNnz, kMaxRowChunkNnz]).
  if (row_chunk_nnz <= 0) {
    const long long target = (st.nnz + static_cast<long long>(sms) * kRowChunkWarpsPerSm - 1) /
                             (static_cast<long long>(sms) * kRowChunkWarpsPerSm);
    row_chunk_nnz = static_cast<int>(std::clamp<long long>((target + 31) / 32 * 32, kMinRowChunkNnz, kMaxRowChunkNnz));
    // Even rows are balanced as they are; chunks would only add workspace stores and a finalize pass
    // (ex9, rows of 30-50: 0.72x cuSPARSE at TF32 N = 256 chunked at 32, 0.93x unchunked).
    if (st.max_row_nnz <= kRegularRowSpread * st.mean_row_nnz)
      row_chunk_nnz = static_cast<int>(std::max<std::int64_t>(row_chunk_nnz, st.max_row_nnz));
  }
  st.row_chunk_nnz = row_chunk_nnz;
  std::vector<RowChunk> chunks;
  std::vector<int> chunked_rows, chunked_row_first_chunk;
  for (std::int64_t r = 0; r < rows; ++r) {
    const int b = pos_host[r], e = pos_host[r + 1];
    if (e - b <= row_chunk_nnz) continue;
    chunked_rows.push_back(static_cast<int>(r));
    chunked_row_first_chunk.push_back(static_cast<int>(chunks.size()));
    for (long long cb = b; cb < e; cb += row_chunk_nnz)  // 64-bit: cb + row_chunk_nnz may pass INT_MAX
      chunks.push_back({static_cast<int>(r), static_cast<int>(cb), static_cast<int>(std::min<long long>(e, cb + row_chunk_nnz)),
                        static_cast<int>(chunks.size())});
  }
  chunked_row_first_chunk.push_back(static_cast<int>(chunks.size()));
  st.chunked_rows = static_cast<std::int64_t>(chunked_rows.size());
  st.row_chunks = static_cast<std::int64_t>(chunks.size());
  // With chunked rows the row split runs a list: the chunks and the other rows, longest first
  // (tca_row_vec_kernel says why).
  std::vector<RowChunk> row_split_items;
  if (!chunks.empty()) {
    row_split_items = chunks;
    for (std::int64_t r = 0; r < rows; ++r)
      if (pos_host[r + 1] - pos_host[r] <= row_chunk_nnz)
        row_split_items.push_back({static_cast<int>(r), pos_host[r], pos_host[r + 1], -1});
    // Longest first: the 8 warps of a block then run items of about one length (a block holds its
    // slots until its longest warp is done) and the shortest items fill the last wave. H100, own
    // time of the row split against row order over the 37 benchmark matrices with chunked rows,
    // N = 64-256: 1.081x fp32, 1.093x fp16 (p2p-Gnutella31 1.23-1.41x, soc-Slashdot0902
    // 1.14-1.34x, MIT8 1.17-1.25x; least syn_dense_row_100k 0.93-0.96x at N = 256). Sorting every
    // plan this way lost up to 0.66x on wave (156 k rows, none chunked: neighbouring warps no longer
    // share B rows in L1 / L2), so plans without chunks keep row order.
    std::stable_sort(row_split_items.begin(), row_split_items.end(),
                     [](const RowChunk& x, const RowChunk& y) { return x.end - x.begin > y.end - y.begin; });
  }
  st.row_split_items = static_cast<std::int64_t>(row_split_items.size());

  // A work item is a range of at most a segment's K units (nonzeros, or slots with shared
  // columns) holding at most kSegmentNnz values (what the kernel stages), cut between units.
  const auto value_at = [&](int u) { return st.shared_columns ? slot_value_begin[u] : u; };
  const auto pieces = [&](int ub, int ue, int seg) {  // greedy: each piece as long as the limits allow
    std::vector<std::pair<int, int>> out;
    do {
      int cut = std::min(ue, ub + seg);
      if (st.shared_columns && value_at(cut) - value_at(ub) > kSegmentNnz)
        cut = static_cast<int>(std::upper_bound(slot_value_begin.begin() + ub, slot_value_begin.begin() + cut,
                                                value_at(ub) + kSegmentNnz) - slot_value_begin.begin()) - 1;
      out.emplace_back(ub, cut);
      ub = cut;
    } while (ub < ue);
    return out;
  };
  std::vector<WorkItem> items;  // kBlockWarps slots per block
  std::vector<int> split_rows, split_part_begin;
  // Windows split across at most max_cluster_blocks blocks: (first row, pieces), placed in clusters below.
  std::vector<std::pair<int, std::vector<std::pair<int, int>>>> cluster_windows;
  long long padded = 0;
  const WorkItem idle{0, 0, 0, item_meta(-1, 0, 0)};
  auto open_slots = [&] { return static_cast<int>(kBlockWarps - items.size() % kBlockWarps); };
  auto close_block = [&] {
    while (items.size() % kBlockWarps != 0) items.push_back(idle);
  };
  auto count_item = [&](int ub, int ue) {
    padded += (ue - ub + kChunkNnz - 1) / kChunkNnz * kChunkNnz;
    ++st.work_items;
    st.max_item_nnz = std::max(st.max_item_nnz, value_at(ue) - value_at(ub));
  };
  // The pieces [first, last) of p as one group of consecutive warps of one block (part: its
  // workspace tile if the window is split across blocks, else -1).
  auto add_group = [&](int r0, const std::vector<std::pair<int, int>>& p, std::size_t first, std::size_t last,
                       int part) {
    const int group = static_cast<int>(last - first);
    if (open_slots() < group) close_block();
    for (std::size_t i = first; i < last; ++i) {
      const auto [ub, ue] = p[i];
      items.push_back({r0, ub, ue, item_meta(part, group, static_cast<int>(i - first))});
      count_item(ub, ue);
    }
  };
  auto round_chunk = [](long long x) { return static_cast<int>((x + kChunkNnz - 1) / kChunkNnz * kChunkNnz); };
  for (std::int64_t r0 = 0; r0 < rows; r0 += kWindowRows) {
    const std::int64_t w = r0 / kWindowRows;
    const int b = st.shared_columns ? window_first_slot[w] : pos_host[r0];
    const int e = st.shared_columns ? window_first_slot[w + 1] : pos_host[std::min<std::int64_t>(r0 + kWindowRows, rows)];
    const int cnt = e - b, row0 = static_cast<int>(r0);  // K units
    ++st.windows;
    if (cnt <= segment_nnz && value_at(e) - value_at(b) <= kSegmentNnz) {
      add_group(row0, {{b, e}}, 0, 1, -1);
      continue;
    }
    if (cnt <= kBlockWarps * kSegmentNnz) {
      // Split over the warps of one block: as many segment_nnz pieces as fit, else kBlockWarps
      // (pieces cut short by their values may need more units each to stay within kBlockWarps).
      const int want = std::min((cnt + segment_nnz - 1) / segment_nnz, kBlockWarps);
      auto p = pieces(b, e, round_chunk((cnt + want - 1) / want));
      for (int seg = round_chunk((cnt + want - 1) / want); p.size() > kBlockWarps && seg < kSegmentNnz;)
        p = pieces(b, e, seg += kChunkNnz);
      if (p.size() <= kBlockWarps) {
        add_group(row0, p, 0, p.size(), -1);
        ++st.grouped_windows;
        continue;
      }
    }
    // Split over blocks: kBlockWarps pieces of segment_nnz per block (segment_nnz, not
    // kSegmentNnz: on a small matrix such a window's warps would otherwise run the longest items
    // of the launch). Up to max_cluster_blocks blocks are one cluster's, summed in its shared
    // memory; more leave each block's sum in a workspace tile of its own (a part).
    auto p = pieces(b, e, segment_nnz);
    const int parts = static_cast<int>((p.size() + kBlockWarps - 1) / kBlockWarps);
    if (parts <= max_cluster_blocks && max_cluster_blocks > 1) {
      // The blocks of a cluster wait for each other: give each of them kBlockWarps pieces
      // of about the same length, not segment_nnz pieces and a short rest.
      for (int seg = round_chunk((cnt + parts * kBlockWarps - 1) / (parts * kBlockWarps));; seg += kChunkNnz) {
        auto even = pieces(b, e, seg);
        if (even.size() <= static_cast<std::size_t>(parts) * kBlockWarps) {
          p = std::move(even);
          break;
        }
      }
      cluster_windows.emplace_back(row0, std::move(p));
      continue;
    }
    split_rows.push_back(row0);
    split_part_begin.push_back(static_cast<int>(st.split_parts));
    for (std::size_t i = 0; i < p.size(); i += kBlockWarps, ++st.split_parts) {
      if (st.split_parts >= kMaxParts) throw Error("TcaPlan: too many split windows");
      add_group(row0, p, i, std::min(p.size(), i + kBlockWarps), static_cast<int>(st.split_parts));
    }
  }
  split_part_begin.push_back(static_cast<int>(st.split_parts));
  if (static_cast<long long>(split_rows.size()) * kWindowRows > 0x7fffffffLL) throw Error("TcaPlan: too many split windows");
  close_block();
  // Cluster windows go first (the longest work of the launch starts first), each inside one
  // cluster, placed first-fit in window order; a cluster holds nothing else, so no other block
  // keeps its barrier waiting. Clusters are the smallest power of two that holds the largest
  // such window, and the grid a whole number of them.
  st.cluster_blocks = 1;
  for (const auto& [row0, p] : cluster_windows) {
    const int parts = static_cast<int>((p.size() + kBlockWarps - 1) / kBlockWarps);
    while (st.cluster_blocks < parts) st.cluster_blocks *= 2;
  }
  if (!cluster_windows.empty()) {
    const int cb = st.cluster_blocks;
    std::vector<WorkItem> clustered;
    std::vector<int> used;  // blocks taken per cluster
    for (const auto& [row0, p] : cluster_windows) {
      const int parts = static_cast<int>((p.size() + kBlockWarps - 1) / kBlockWarps);
      std::size_t c = 0;
      while (c < used.size() && used[c] + parts > cb) ++c;
      if (c == used.size()) {
        used.push_back(0);
        clustered.resize(clustered.size() + static_cast<std::size_t>(cb) * kBlockWarps, idle);
      }
      for (std::size_t i = 0; i < p.size(); ++i) {
        const int block = used[c] + static_cast<int>(i / kBlockWarps), slot = static_cast<int>(i % kBlockWarps);
        const int group = static_cast<int>(std::min<std::size_t>(p.size() - i / kBlockWarps * kBlockWarps, kBlockWarps));
        clustered[(c * cb + block) * kBlockWarps + slot] = {row0, p[i].first, p[i].second,
                                                            item_meta_cluster(used[c], parts, group, slot)};
        count_item(p[i].first, p[i].second);
      }
      used[c] += parts;
    }
    items.insert(items.begin(), clustered.begin(), clustered.end());
    while (items.size() / kBlockWarps % cb != 0) items.insert(items.end(), kBlockWarps, idle);
  }
  st.cluster_windows = static_cast<std::int64_t>(cluster_windows.size());
  const auto split_slots = finalize_slots(split_part_begin, split_rows, kWindowRows, rows);
  const auto chunk_slots = finalize_slots(chunked_row_first_chunk, chunked_rows, 1, rows);
  st.split_finalize_blocks = static_cast<std::int64_t>(split_slots.size() / kFinalizeBlockWarps);
  st.chunk_finalize_blocks = static_cast<std::int64_t>(chunk_slots.size() / kFinalizeBlockWarps);
  st.blocks = static_cast<std::int64_t>(items.size() / kBlockWarps);
  st.split_windows = static_cast<std::int64_t>(split_rows.size() + cluster_windows.size());
  st.chunk_fill = padded > 0 ? static_cast<double>(st.shared_columns ? st.slots : st.nnz) / padded : 1.0;
  auto upload = [](const void* src, std::size_t bytes) -> std::shared_ptr<void> {
    if (bytes == 0) return nullptr;
    void* p = nullptr;
    TESSERA_CUDA_CHECK(cudaMalloc(&p, bytes));
    std::shared_ptr<void> owned(p, [](void* q) { cudaFree(q); });
    TESSERA_CUDA_CHECK(cudaMemcpy(p, src, bytes, cudaMemcpyHostToDevice));
    return owned;
  };
  plan->items_ = upload(items.data(), items.size() * sizeof(WorkItem));
  plan->split_rows_ = upload(split_rows.data(), split_rows.size() * sizeof(int));
  plan->split_part_begin_ = upload(split_part_begin.data(), split_part_begin.size() * sizeof(int));
  plan->split_finalize_slots_ = upload(split_slots.data(), split_slots.size() * sizeof(FinalizeSlot));
  plan->chunk_finalize_slots_ = upload(chunk_slots.data(), chunk_slots.size() * sizeof(FinalizeSlot));
  plan->row_split_items_ = upload(row_split_items.data(), row_split_items.size() * sizeof(RowChunk));
  plan->chunked_rows_ = upload(chunked_rows.data(), chunked_rows.size() * sizeof(int));
  plan->chunked_row_first_chunk_ =
      upload(chunked_row_first_chunk.data(), chunked_row_first_chunk.size() * sizeof(int));
  plan->slot_cols_ = upload(slot_cols.data(), slot_cols.size() * sizeof(int));
  plan->slot_rows_ = upload(slot_rows.data(), slot_rows.size());
  plan->slot_value_begin_ = upload(slot_value_begin.data(), slot_value_begin.size() * sizeof(int));
  plan->value_perm_ = upload(value_perm.data(), value_perm.size() * sizeof(int));
  // cudaMemcpy from pageable memory may return before its DMA lands; a kernel on a
  // non-blocking stream would then read a partly written plan.
  TESSERA_CUDA_CHECK(cudaStreamSynchronize(0));
  return plan;
}

std::string TcaPlan::describe() const {
  char buf[896];
  std::snprintf(buf, sizeof(buf),
                "TcaPlan{rows=%lld nnz=%lld windows=%lld work_items=%lld blocks=%lld grouped_windows=%lld "
                "split_windows=%lld cluster_windows=%lld cluster_blocks=%d split_parts=%lld max_row_nnz=%lld mean_row_nnz=%.2f nonempty_rows=%lld chunk_fill=%.3f segment_nnz=%d "
                "max_item_nnz=%d sm_count=%d row_chunk_nnz=%d chunked_rows=%lld row_chunks=%lld row_split_items=%lld "
                "window_column_reuse=%.2f shared_columns=%d slots=%lld cluster_layout={cluster_windows=%lld "
                "cluster_blocks=%d blocks=%lld}}",
                static_cast<long long>(stats_.rows), static_cast<long long>(stats_.nnz),
                static_cast<long long>(stats_.windows), static_cast<long long>(stats_.work_items),
                static_cast<long long>(stats_.blocks), static_cast<long long>(stats_.grouped_windows),
                static_cast<long long>(stats_.split_windows), static_cast<long long>(stats_.cluster_windows),
                stats_.cluster_blocks, static_cast<long long>(stats_.split_parts),
                static_cast<long long>(stats_.max_row_nnz),
                stats_.mean_row_nnz, static_cast<long long>(stats_.nonempty_rows), stats_.chunk_fill, stats_.segment_nnz, stats_.max_item_nnz,
                stats_.sm_count, stats_.row_chunk_nnz, static_cast<long long>(stats_.chunked_rows),
                static_cast<long long>(stats_.row_chunks), static_cast<long long>(stats_.row_split_items),
                stats_.window_column_reuse,
                stats_.shared_columns ? 1 : 0, static_cast<long long>(stats_.slots),
                cluster_layout_ ? static_cast<long long>(cluster_layout_->stats_.cluster_windows) : 0LL,
                cluster_layout_ ? cluster_layout_->stats_.cluster_blocks : 1,
                cluster_layout_ ? static_cast<long long>(cluster_layout_->stats_.blocks) : 0LL);
  return buf;
}

bool tca_has_tensor_core(TcaType type) { return type != TcaType::F64; }

bool tca_runs_clusters(const TcaPlan& plan, TcaKernel kernel, const TcaArgs& args) {
  if (kernel != TcaKernel::TensorCore) return false;
  return tensor_core_layout(plan, args, tensor_core_tile(plan, args)).stats().cluster_blocks > 1;
}

bool tca_b_in_place(const TcaArgs& a) {
  const long long vec = 16 / static_cast<long long>(elem_size(a.type));
  return a.B.col_stride == 1 && a.B.row_stride % vec == 0 && a.n % vec == 0 &&
         reinterpret_cast<std::uintptr_t>(a.B.ptr) % 16 == 0;
}

TcaKernel tca_choose(const TcaPlan& plan, const TcaArgs& a, bool allow_tf32) {
  if (!tca_has_tensor_core(a.type)) return TcaKernel::CudaCoreRowSplit;
  if (a.type == TcaType::F32 && !allow_tf32) return TcaKernel::CudaCoreRowSplit;
  if (a.n < 16 || !tca_b_in_place(a)) return TcaKernel::CudaCoreRowSplit;
  if (a.type != TcaType::F32) return TcaKernel::TensorCore;
  // TF32, read off runs of both kernels on the 72 benchmark matrices (H100, spmm_tca_h100.md).
  // The CUDA-core kernel reads B through L1 at half the tensor-core kernel's cost (see
  // tca_row_vec_kernel); the tensor cores gain where short rows share one MMA. So:
  // - up to kRowVecMaxTensorN columns, the tensor cores: they won on 65 of 72 matrices at
  //   N = 32, even rows and long ones alike (up to 2.5x; the worst loss 0.85x);
  // - rows averaging kVeryLongRowMinMean nonzeros or more, the CUDA cores however few the rows
  //   are (mbeacxc, movielens: 1.09-1.31x at N >= 64): its row chunks spread them;
  // - rows that fill the GPU (rows x column tiles reach kRowVecMinWarpsPerSm warps per SM) and
  //   are even (none over kRegularRowSpread x the mean, at least kRegularRowMinMean nonzeros on
  //   average) or average kLongRowMinMean or more, the CUDA cores;
  // - the rest, the tensor cores.
  const TcaPlanStats& st = plan.stats();
  constexpr long long kRowVecMaxTensorN = 32, kRowVecMinWarpsPerSm = 32;
  constexpr double kRegularRowMinMean = 8, kLongRowMinMean = 24, kVeryLongRowMinMean = 64;
  if (a.n <= kRowVecMaxTensorN) return TcaKernel::TensorCore;
  if (st.mean_row_nnz >= kVeryLongRowMinMean) return TcaKernel::CudaCoreRowSplit;
  const long long row_vec_warps = a.rows * ((a.n + 127) / 128);  // 128 fp32 columns per warp
  const bool even = st.mean_row_nnz >= kRegularRowMinMean && st.max_row_nnz <= kRegularRowSpread * st.mean_row_nnz;
  if (row_vec_warps >= kRowVecMinWarpsPerSm * st.sm_count && (even || st.mean_row_nnz >= kLongRowMinMean))
    return TcaKernel::CudaCoreRowSplit;
  return TcaKernel::TensorCore;
}

TcaKernel tca_tune(const TcaPlan& plan, const TcaArgs& a, bool allow_tf32, cudaStream_t stream, TcaTuneCache cache) {
  const TcaKernel guess = tca_choose(plan, a, allow_tf32);
  const bool tensor_cores = tca_has_tensor_core(a.type) && (a.type != TcaType::F32 || allow_tf32);
  if (!tensor_cores || a.rows == 0 || a.n == 0) return guess;
  require_not_capturing(stream, "tca_tune", "times its candidates");
  // The candidates write a scratch C (beta 0) laid out as the caller's, row- or column-major
  // (their stores cost differently), so the caller's C is neither read nor written.
  DeviceBuffer<unsigned char> scratch(static_cast<std::size_t>(a.rows * a.n) * elem_size(a.type), stream);
  TcaArgs t = a;
  const bool c_row_major = a.c_col_stride == 1;
  t.C = scratch.ptr;
  t.c_row_stride = c_row_major ? a.n : 1;
  t.c_col_stride = c_row_major ? 1 : a.rows;
  t.beta = 0;
  const TcaKernel other = guess == TcaKernel::TensorCore ? TcaKernel::CudaCoreRowSplit : TcaKernel::TensorCore;
  const TcaKernel kernels[2] = {guess, other};
  for (TcaKernel k : kernels) spmm_tca(&plan, k, t, stream);  // warm-up: first launches, pool growth
  // ColdL2: each sample is one call after a write of twice the L2 evicted A and B from it.
  // Timed back to back, with B in L2, the row split came out ahead on matrices where the
  // tensor cores win from a cold L2 (H100 benchmark: 34 of 91 changed picks ran slower than
  // Auto's there, down to 0.82x; from a cold L2 none did), so the state must be the caller's.
  // WarmL2: each sample is one call after a kernel that only waits: A and B stay in L2 from
  // the previous sample, and the call is enqueued while the GPU is busy. Timed right after a
  // host wait, a call of a few microseconds would measure the launch latency and the idle
  // GPU's clock instead (H100: the same kernel 0.4-2.6x apart in two runs).
  // The median of kTuneSamples per kernel, the kernels alternating.
  const bool cold = cache == TcaTuneCache::ColdL2;
  int device = 0, l2_bytes = 0;
  TESSERA_CUDA_CHECK(cudaGetDevice(&device));
  TESSERA_CUDA_CHECK(cudaDeviceGetAttribute(&l2_bytes, cudaDevAttrL2CacheSize, device));
  const std::size_t flush_bytes = cold ? 2 * static_cast<std::size_t>(std::max(l2_bytes, 1 << 20)) : 0;
  DeviceBuffer<unsigned char> flush(flush_bytes, stream);
  constexpr int kTuneSamples = 5;
  std::vector<float> ms[2];
  EventPair ev;
  for (int r = 0; r < kTuneSamples; ++r)
    for (int i = 0; i < 2; ++i) {
      if (cold) TESSERA_CUDA_CHECK(cudaMemsetAsync(flush.ptr, r, flush_bytes, stream));
      else TESSERA_CUDA_CHECK(enqueue_gpu_busy_wait(stream));
      TESSERA_CUDA_CHECK(cudaEventRecord(ev.start, stream));
      spmm_tca(&plan, kernels[i], t, stream);
      TESSERA_CUDA_CHECK(cudaEventRecord(ev.stop, stream));
      TESSERA_CUDA_CHECK(cudaEventSynchronize(ev.stop));
      float elapsed = 0;
      TESSERA_CUDA_CHECK(cudaEventElapsedTime(&elapsed, ev.start, ev.stop));
      ms[i].push_back(elapsed);
    }
  float median[2];
  for (int i = 0; i < 2; ++i) {
    std::sort(ms[i].begin(), ms[i].end());
    median[i] = ms[i][kTuneSamples / 2];
  }
  // Leave the guess only for a clear gain: differences of a few percent are within the
  // spread of such short samples.
  return median[1] < kTuneMinGain * median[0] ? kernels[1] : kernels[0];
}

// The tensor-core kernel, its finalize and the transposing repack of B count 32-column tiles
// in gridDim.y, which holds at most 65535; wider products run as column slices of this many
// columns (a multiple of every column tile, so only the last slice has a partial tile).
constexpr std::int64_t kSliceColumns = 65532LL * 32;

void spmm_tca(const TcaPlan* plan, TcaKernel kernel, const TcaArgs& a, cudaStream_t stream) {
  if (a.rows < 0 || a.cols < 0 || a.n < 0) throw Error("spmm_tca: negative extent");
  if (a.rows > 0x7fffffffLL || a.n > 0x7fffffffLL) throw Error("spmm_tca: extent does not fit int");
  if (a.rows == 0 || a.n == 0) return;
  if (plan && plan->stats().rows != a.rows) throw Error("spmm_tca: plan was built for another matrix");
  if (a.n > kSliceColumns) {
    const auto bytes = static_cast<std::int64_t>(elem_size(a.type));
    for (std::int64_t j = 0; j < a.n; j += kSliceColumns) {
      TcaArgs slice = a;
      slice.n = std::min(kSliceColumns, a.n - j);
      slice.B.ptr = static_cast<const char*>(a.B.ptr) + j * a.B.col_stride * bytes;
      slice.C = static_cast<char*>(a.C) + j * a.c_col_stride * bytes;
      spmm_tca(plan, kernel, slice, stream);
    }
    return;
  }
  if (kernel == TcaKernel::TensorCore) {
    if (!plan) throw Error("spmm_tca: the tensor-core kernel needs a plan");
    switch (a.type) {
      case TcaType::F32: return run_tensor_core<float>(*plan, a, stream);
      case TcaType::F16: return run_tensor_core<__half>(*plan, a, stream);
      case TcaType::BF16: return run_tensor_core<__nv_bfloat16>(*plan, a, stream);
      case TcaType::F64: throw NotCompiled("spmm_tca: fp64 has no tensor-core kernel (use CudaCoreRowSplit)");
    }
  }
  switch (a.type) {
    case TcaType::F32: return run_row_split<float>(plan, a, stream);
    case TcaType::F64: return run_row_split<double>(plan, a, stream);
    case TcaType::F16: return run_row_split<__half>(plan, a, stream);
    case TcaType::BF16: return run_row_split<__nv_bfloat16>(plan, a, stream);
  }
}

}  // namespace tessera::kernels::cuda
