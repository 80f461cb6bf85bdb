#pragma once
// The VNM SpMM kernel template (see tessera/kernels/nm_spmm/cuda/vnm_spmm.hpp for the
// algorithm), shared by vnm_spmm.cu (any sm_90+ target: warp 0 issues the copies) and
// vnm_spmm_sm90a.cu (sm_90a: a producer warpgroup issues them). Not installed.
#include <cuda.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <map>
#include <mutex>
#include <type_traits>

#include "tessera/formats/vnm/staging.hpp"
#include "tessera/kernels/nm_spmm/cuda/vnm_spmm.hpp"
#include "../../common/cuda_support.hpp"
#include "../../common/ptx_bulk_copy.cuh"
#include "../../common/grid_dependency.cuh"

namespace tessera::kernels::cuda::vnm_detail {

constexpr int kTileCols = kVnmTileCols;            // BN
constexpr int kStages = kVnmPipelineStages;
static_assert(kStages == 2, "the stage loop alternates between two buffers");
constexpr int kStageCols = kVnmStageColumns, kOffsetRow = kVnmOffsetRowBytes;
constexpr int kThreadRows = 8, kThreadCols = 16;
constexpr int kWarpRows = 8 * kThreadRows, kWarpCols = 4 * kThreadCols;  // warp tile: 8 x 4 threads
constexpr int kWarpsN = kTileCols / kWarpCols;
static_assert(kWarpRows == 8 * kThreadRows && kWarpCols == 4 * kThreadCols, "warp = 8 x 4 threads");

template <int BM>
constexpr int kComputeThreadsOf = BM / kWarpRows * kWarpsN * 32;

// Who issues a stage's copies (VnmCopier):
//   * ComputingWarp: warp 0, between its own stages (any sm_90+ target);
//   * ProducerWarpgroup: an extra warpgroup that only copies (one of its warps issues), its
//     registers handed to the computing warps with setmaxnreg (sm_90a only,
//     vnm_spmm_sm90a.cu). A single extra warp would not do: the registers of an SM are split
//     among its four schedulers, so a ninth warp caps every thread at 168 (spills). With the
//     copies off the computing warps, the copy of a stage starts as soon as the last warp is
//     done with its buffer.
template <int BM, VnmCopier C>
constexpr int kThreadsOf = kComputeThreadsOf<BM> + (C == VnmCopier::ProducerWarpgroup ? 128 : 0);
// The 128-row block (8 warps) takes a whole SM so that its threads may hold 128 accumulators
// and double-buffered fragments; two 64-row blocks (4 warps each) would share one by registers,
// but their buffers of full-size stages do not fit twice (resident_blocks).
template <int BM>
constexpr int kBlocksPerSm = BM == 128 ? 1 : 2;
// Registers per thread after setmaxnreg (multiples of 8). The block starts with what the
// launch bounds give every thread (65536 / 384 -> 168 for BM = 128, 65536 / (2 x 256) = 128
// for BM = 64) and setmaxnreg only moves them between its warpgroups: an increase that the
// pool cannot serve waits forever. 4 x 24 + 8 x 240 also fits, but the producer spills.
template <int BM>
constexpr int kProducerRegs = BM == 128 ? 40 : 32;
template <int BM>
constexpr int kComputeRegs = BM == 128 ? 232 : 224;
template <int BM>
constexpr bool kRegisterSplitFits = 4 * kProducerRegs<BM> + (kComputeThreadsOf<BM> / 32) * kComputeRegs<BM> <=
                                    (kThreadsOf<BM, VnmCopier::ProducerWarpgroup> / 32) *
                                        (65536 / (kThreadsOf<BM, VnmCopier::ProducerWarpgroup> * kBlocksPerSm<BM>) / 8 * 8);
static_assert(kRegisterSplitFits<128> && kRegisterSplitFits<64>, "setmaxnreg cannot hand out more than the block has");

// A is read from column panels: panel t holds rows kPanelRows t .. kPanelRows t + 127 of A
// column by column (windows * M columns of kPanelRows floats, zeros past m and k).
constexpr int kPanelRows = 128;

struct Params {
  CUtensorMap a_map;  // plain plans: panels as 128-float columns (a_direct: A's), box BM x plain_cols
  CUtensorMap b_map;  // vals, box kTileCols x N: one window's stored rows of a column tile
  CUtensorMap o_map;  // offsets bytes, box kOffsetRow x groups_per_tile: one stage's offsets of a tile
  VnmSpmmArgs a;
  const float* panels;        // A as column panels (vnm_a_panels_kernel)
  std::int64_t panel_floats;  // floats per panel: padded k * kPanelRows
  std::int64_t padded_k;      // stored_rows / N * M
  int plain_cols;       // A columns of a plain plan's stage (the a_map box)
  int groups_per_tile;  // kTileCols / L
  int splits;           // split-K factor: blockIdx.z runs its share of the tile's stages
  bool atomic;          // split-K: accumulate into zeroed C
  bool a_direct;        // plain plan, column-major A: its boxes come from A itself (no panels)
  bool a_rows;          // plain plan, row-major A: boxes of its rows (kernel instance RowBoxes, below)
  bool c_vector;        // C rows (c_col_major: columns) allow 16-byte stores
  // Shared memory: the mbarriers (kBarrierBytes), then (kBuffersReserve) two buffers of
  // buffer_bytes, each A transposed (a stage's columns of BM floats; RowBoxes: its boxes of
  // rows) followed by B (its stored rows of kTileCols floats) within kVnmStageBytes, the
  // offsets at o_offset (a kOffsetRow-byte row per group of the tile) and the stage record at
  // rec_offset.
  int o_offset, rec_offset, buffer_bytes;
};

constexpr int kBarrierBytes = 2 * kStages * 8;  // "full" and "empty" mbarrier of each buffer
static_assert(2 * kVnmStageBytes >= 128 * kTileCols * 4, "two stage buffers hold a C tile for the epilogue");
// Where the buffers start: 128 bytes in (past the mbarriers), or, for the swizzled boxes of
// row-major A, at the first 1024-byte aligned shared address past that (the copy engine's
// 128-byte swizzle repeats every 1024 bytes and wants its boxes aligned so); shared memory
// reserves kBuffersReserve bytes for it (dynamic shared memory is 128-byte aligned).
__host__ __device__ constexpr int kBuffersReserve(bool row_boxes) { return row_boxes ? 128 + 1024 : 128; }
static_assert(kBarrierBytes <= 128, "the mbarriers fit before the buffers");

// Row-major A (RowBoxes): a stage's A arrives as boxes of 32 columns (one M = 32 window) by BM
// rows, each row of the box 128 bytes with 16-byte chunk q at q ^ (row % 8) (the copy
// engine's 128-byte swizzle), and the rows in the order s = (r % 4) * (BM / 4) + r / 4 (a 3D
// tensor map over (column, r / 4, r % 4)). A thread's eight rows a_row + {0..3, 32..35}
// (a_row a multiple of 4) are then box rows s0 + i * BM / 4 and s0 + 8 + i * BM / 4 with
// s0 = a_row / 4, all with s % 8 = ty: the eight threads that read different rows of one
// column hit eight different chunks, so each 4-byte load is one shared-memory wavefront, and
// one address per slot serves all eight (immediate offsets).
constexpr int kRowBoxCols = 32;
template <int BM>
constexpr int kRowBoxBytes = BM * kRowBoxCols * 4;

// setmaxnreg: this warpgroup's registers per thread become REGS (Increase: taken from the
// pool the other warpgroup released). sm_90a only (only vnm_spmm_sm90a.cu instantiates the
// producer-warpgroup kernel); every warp of the warpgroup runs it.
template <int REGS, bool Increase>
__device__ __forceinline__ void set_max_registers() {
  if constexpr (Increase) asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;\n" ::"n"(REGS));
  else asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;\n" ::"n"(REGS));
}

// Barrier of the computing warps alone (named barrier 1): the producer warpgroup has left.
template <int THREADS>
__device__ __forceinline__ void computing_warps_sync() {
  asm volatile("bar.sync 1, %0;\n" ::"n"(THREADS) : "memory");
}

// Groups: column groups a thread's 16 columns span (1 for L >= 16, 16 / L below).
//
// Pipeline: the copying warp (warp 0, or the producer warpgroup's first warp) bulk-copies
// stage s into buffer s % 2 once all computing warps arrived on that buffer's "empty"
// mbarrier (done with stage s - 2); each computing warp waits on the buffer's "full"
// mbarrier (all bytes landed) before computing the stage. No block-wide barrier: a warp
// starts the next stage as soon as its data is there, so the warps of an SM do not all pass
// the per-stage work at the same time.
template <int BM, int Groups, VnmCopier Copier, bool RowBoxes>
__global__ void __launch_bounds__(kThreadsOf<BM, Copier>, kBlocksPerSm<BM>)
    vnm_spmm_kernel(const __grid_constant__ Params p) {
  static_assert(!RowBoxes || Groups == 1, "row boxes serve one column group per thread (L >= 16)");
  constexpr bool kProducer = Copier == VnmCopier::ProducerWarpgroup;
  constexpr int kThreads = kComputeThreadsOf<BM>, kWarps = kThreads / 32;  // computing warps
  extern __shared__ __align__(128) unsigned char smem[];
  const VnmSpmmArgs& a = p.a;
  std::uint64_t* full = reinterpret_cast<std::uint64_t*>(smem);
  std::uint64_t* empty = full + kStages;
  const unsigned buffers_at = RowBoxes ? ((smem_addr(smem) + 128u + 1023u) & ~1023u) - smem_addr(smem) : 128u;
  auto buffer = [&](int b) { return smem + buffers_at + b * p.buffer_bytes; };
  auto a_buf = [&](int b) { return reinterpret_cast<float*>(buffer(b)); };
  // B follows the stage's A columns: a plain stage's box always brings plain_cols of them.
  auto b_buf = [&](int b, int cols) { return a_buf(b) + (a.packed ? cols : p.plain_cols) * BM; };
  auto o_buf = [&](int b) { return buffer(b) + p.o_offset; };
  auto rec_buf = [&](int b) { return reinterpret_cast<int4*>(buffer(b) + p.rec_offset); };

  // The producer warpgroup (if any) is threads 0-127; tid and warp number the computing
  // threads from 0 either way.
  const bool producer = kProducer && threadIdx.x < 128;
  const int tid = kProducer && !producer ? threadIdx.x - 128 : threadIdx.x, lane = tid & 31, warp = tid >> 5;
  const std::int64_t n0 = static_cast<std::int64_t>(blockIdx.x) * kTileCols;
  const std::int64_t m0 = static_cast<std::int64_t>(blockIdx.y) * BM;
  // This block's stages: its tile's (plain plans share one list), split over blockIdx.z.
  const int plan_tile = a.packed ? static_cast<int>(blockIdx.x) : 0;
  const int tile_first = a.tile_stage_pos[plan_tile], tile_count = a.tile_stage_pos[plan_tile + 1] - tile_first;
  const int per_split = (tile_count + p.splits - 1) / p.splits;
  const int first = tile_first + static_cast<int>(blockIdx.z) * per_split;
  const int count = max(0, min(per_split, tile_first + tile_count - first));

  if (threadIdx.x == 0) {
    for (int b = 0; b < kStages; ++b) {
      mbarrier_init(&full[b], 1);
      mbarrier_init(&empty[b], kWarps);
    }
    mbarrier_init_fence();
  }
  __syncthreads();
  // Launched as the dependent of the A panel pass (which zeroes C for split-K; with a column-
  // major A there may be no pass, and this waits for whatever kernel came before): the block
  // may have started while that kernel drained; the panels, A and C are ready past this point.
  wait_for_prerequisite_grid();

  // The copying warp's copies of a stage (record `rec`; packed: staged column lane + 32 j is A column
  // cols_of[j]) into buffer b, few and large, as the copy engine pays per copy: a plain stage's
  // A columns are one box of its panel, a packed stage's one copy per column; B one box per
  // window (its N stored rows, the tile's columns); the offsets one box. Boxes read zeros past
  // the matrix (groups, columns) and may bring columns no offset names. Slots up to the next
  // multiple of 4 (read by the four-slot steps) get zero B rows here. The A box goes first:
  // issued after B's boxes it made the products slower.
  const std::int64_t group_first = n0 / a.L;
  const int a_row0 = static_cast<int>(p.a_direct ? m0 : m0 % kPanelRows);       // the A boxes' first row
  const std::int64_t a_col0 = p.a_direct ? 0 : (m0 / kPanelRows) * p.padded_k;  // and column, less the stage's
  const float* a_block = p.panels + (m0 / kPanelRows) * p.panel_floats + m0 % kPanelRows;
  constexpr int kColsPerLane = kStageCols / 32;
  auto issue = [&](int b, const int4& rec, const int (&cols_of)[kColsPerLane]) {
    const int row0 = rec.x, slots = rec.y, cols = rec.z, base = rec.w;
    const int padded_slots = (slots + 3) & ~3;
    float* bs = b_buf(b, cols);
    if (padded_slots > slots) {
      float4* pad = reinterpret_cast<float4*>(bs + slots * kTileCols);
      for (int i = lane; i < (padded_slots - slots) * kTileCols / 4; i += 32) pad[i] = make_float4(0.f, 0.f, 0.f, 0.f);
      fence_proxy_async();  // these rows held bulk-copied B before
    }
    __syncwarp();
    if (lane == 0) {
      *rec_buf(b) = rec;
      const int windows = slots / a.N;
      const unsigned a_bytes = (a.packed ? cols : p.plain_cols) * BM * 4;
      mbarrier_arrive_expect_tx(&full[b], a_bytes + static_cast<unsigned>(windows * a.N * kTileCols * 4 +
                                                                          p.groups_per_tile * kOffsetRow));
      if constexpr (RowBoxes) {
        for (int w = 0; w < p.plain_cols / kRowBoxCols; ++w)
          tma_load_3d(a_buf(b) + w * (kRowBoxBytes<BM> / 4), &p.a_map, (row0 / a.N) * a.M + w * kRowBoxCols,
                      static_cast<int>(m0 / 4), 0, &full[b]);
      } else if (!a.packed) {
        tma_load_2d(a_buf(b), &p.a_map, a_row0, static_cast<int>(a_col0 + static_cast<std::int64_t>(row0 / a.N) * a.M),
                    &full[b]);
      }
      for (int w = 0; w < windows; ++w)
        tma_load_2d(bs + w * a.N * kTileCols, &p.b_map, static_cast<int>(n0), row0 + w * a.N, &full[b]);
      tma_load_2d(o_buf(b), &p.o_map, base, static_cast<int>(group_first), &full[b]);
    }
    __syncwarp();
    if (a.packed) {
#pragma unroll
      for (int j = 0; j < kColsPerLane; ++j) {
        const int c = lane + 32 * j;
        if (c >= cols) break;
        bulk_copy_g2s(a_buf(b) + c * BM, a_block + static_cast<std::int64_t>(cols_of[j]) * kPanelRows, BM * 4,
                      &full[b]);
      }
    }
  };

  // (8 x 16) accumulators: rows ty * 4 + {0..3} and 32 + ty * 4 + {0..3} of the warp tile,
  // columns tx * 16 + {0..15}. Lanes 8 tx .. 8 tx + 7 share their columns: each quarter-warp
  // phase of a 16-byte shared load reads one B chunk (broadcast) and 8 adjacent A chunks.
  const int warp_m = warp / kWarpsN, warp_n = warp % kWarpsN;
  const int ty = lane % 8, tx = lane / 8;
  const int tile_col = warp_n * kWarpCols + tx * kThreadCols;  // first column of this thread in the tile
  const int group0 = tile_col / a.L;                           // its first column group in the tile
  const int a_row = warp_m * kWarpRows + ty * 4;
  constexpr int kColsPerGroup = kThreadCols / Groups;
  float acc[kThreadRows][kThreadCols];
#pragma unroll
  for (int i = 0; i < kThreadRows; ++i)
#pragma unroll
    for (int j = 0; j < kThreadCols; ++j) acc[i][j] = 0.f;

  auto compute_stage = [&](int b) {
    const int4 rec = *rec_buf(b);
    const int padded_slots = (rec.y + 3) & ~3;
    const float* as = a_buf(b) + a_row;
    const unsigned a_rows_off =
        RowBoxes ? static_cast<unsigned>(buffer(b) - smem) + (a_row / 4) * (kRowBoxCols * 4) + (ty << 4) : 0u;
    const float* bs = b_buf(b, rec.z) + tile_col;
    const std::uint8_t* os = o_buf(b) + group0 * kOffsetRow;
    std::uint32_t next[Groups];
#pragma unroll
    for (int g = 0; g < Groups; ++g) next[g] = *reinterpret_cast<const std::uint32_t*>(os + g * kOffsetRow);
    // Two four-slot steps per loop trip: ptxas overlaps a step's shared loads with the FMAs of
    // the step before only inside a trip, and a longer loop body (four steps per trip) misses
    // the instruction cache. The FMA order below is the fastest one tried: it decides how ptxas
    // lays the FFMA operands on register banks.
#pragma unroll 2
    for (int s4 = 0; s4 < padded_slots; s4 += 4) {
      // Offsets of the next four slots are fetched before these four are used.
      std::uint32_t word[Groups];
#pragma unroll
      for (int g = 0; g < Groups; ++g) {
        word[g] = next[g];
        if (s4 + 4 < padded_slots) next[g] = *reinterpret_cast<const std::uint32_t*>(os + g * kOffsetRow + s4 + 4);
      }
      // RowBoxes: the box of the step's window ((c / 32) * kRowBoxBytes, from its first slot).
      const unsigned box_off = RowBoxes ? (word[0] & 0xe0u) * (kRowBoxBytes<BM> / 32) : 0u;
#pragma unroll
      for (int q = 0; q < 4; ++q) {
        float bv[kThreadCols];
#pragma unroll
        for (int v = 0; v < kThreadCols / 4; ++v) {
          const float4 x = *reinterpret_cast<const float4*>(bs + (s4 + q) * kTileCols + 4 * v);
          bv[4 * v] = x.x, bv[4 * v + 1] = x.y, bv[4 * v + 2] = x.z, bv[4 * v + 3] = x.w;
        }
        float av[Groups][kThreadRows];
        if constexpr (RowBoxes) {
          // Staged column c (its byte in the offsets) is column c % 32 of box c / 32; a step's
          // four slots share a window (N % 4 == 0), so box_off is per step. (c % 32) * 4 XOR
          // (ty << 4) is the swizzled byte within the row; a_rows_off has ty << 4 in bits 4-6,
          // which the box and row offsets leave zero, so the XOR lands it.
          const unsigned x = (q == 0 ? word[0] << 2 : word[0] >> (8 * q - 2)) & 0x7cu;
          const float* col = reinterpret_cast<const float*>(smem + ((a_rows_off + box_off) ^ x));
#pragma unroll
          for (int i = 0; i < 4; ++i) {
            av[0][i] = col[i * (BM / 4) * kRowBoxCols];
            av[0][4 + i] = col[(8 + i * (BM / 4)) * kRowBoxCols];
          }
        } else {
#pragma unroll
          for (int g = 0; g < Groups; ++g) {
            const float* col = as + ((word[g] >> (8 * q)) & 0xff) * BM;
            const float4 lo = *reinterpret_cast<const float4*>(col);
            const float4 hi = *reinterpret_cast<const float4*>(col + 32);
            av[g][0] = lo.x, av[g][1] = lo.y, av[g][2] = lo.z, av[g][3] = lo.w;
            av[g][4] = hi.x, av[g][5] = hi.y, av[g][6] = hi.z, av[g][7] = hi.w;
          }
        }
        // Row by row, odd rows walking the columns backwards (the B value at a row change is
        // the one just used).
#pragma unroll
        for (int i = 0; i < kThreadRows; ++i)
#pragma unroll
          for (int jj = 0; jj < kThreadCols; ++jj) {
            const int j = i % 2 ? kThreadCols - 1 - jj : jj;
            acc[i][j] = fmaf(av[j / kColsPerGroup][i], bv[j], acc[i][j]);
          }
      }
    }
  };

  // The copying warp fetches the record (packed: its lanes' share of the column list) of a
  // stage before it waits for the stage's buffer; warp 0 one stage ahead, as it computes too.
  int4 next_rec = make_int4(0, 0, 0, 0);
  int next_cols[kColsPerLane] = {};
  auto fetch = [&](int s) {
    next_rec = a.stage[first + s];
    if (a.packed) {
#pragma unroll
      for (int j = 0; j < kColsPerLane; ++j) next_cols[j] = a.column_list[(first + s) * kStageCols + lane + 32 * j];
    }
  };
  if constexpr (kProducer) {
    if (producer) {
      set_max_registers<kProducerRegs<BM>, false>();
      if (warp != 0) return;
      for (int t = 0, b = 0, round = 0; t < count; ++t) {  // b = t % kStages, round = t / kStages
        fetch(t);
        if (t >= kStages) mbarrier_wait(&empty[b], (round - 1) & 1);
        issue(b, next_rec, next_cols);
        if (++b == kStages) b = 0, ++round;
      }
      return;
    }
    set_max_registers<kComputeRegs<BM>, true>();
  } else if (warp == 0) {
    for (int s = 0; s < min(count, kStages); ++s) {
      fetch(s);
      issue(s, next_rec, next_cols);
    }
    if (count > kStages) fetch(kStages);
  }
  for (int t = 0, b = 0, round = 0; t < count; ++t) {
    const unsigned phase = round & 1;
    mbarrier_wait(&full[b], phase);
    compute_stage(b);
    // One arrival per warp: the __syncwarp orders every lane's loads of the buffer before lane
    // 0's arrival, which releases them (as lane 0's arrival on "full" releases the zero B rows
    // all lanes of the copying warp stored). compute-sanitizer's racecheck credits an arrival
    // to the arriving thread only, so it reports the next copies into the buffer (and the
    // loads after the zero rows) as hazards. Every thread arriving on both barriers silences
    // it but slows the kernel down; copying the zero rows and the record instead does not
    // silence it (racecheck follows bulk copies too).
    __syncwarp();
    if (lane == 0) mbarrier_arrive(&empty[b]);
    if (!kProducer && warp == 0 && t + kStages < count) {
      mbarrier_wait(&empty[b], phase);
      issue(b, next_rec, next_cols);
      if (t + kStages + 1 < count) fetch(t + kStages + 1);
    }
    if (++b == kStages) b = 0, ++round;
  }

  // C through shared memory, so that global stores (or split-K reductions) run along whole
  // rows (column-major C: down whole columns): written straight from the 8 x 16 thread tiles,
  // each warp instruction would touch 8 rows in 64-byte pieces, and the next block of the SM
  // waits for those stores to issue. The tile's rows are kTileCols floats; 16-byte chunk q of row r sits at chunk
  // q ^ ((r / 4) % 8) of its 128-byte group, so the eight rows a quarter-warp writes (4 apart)
  // and the chunks a warp reads along a row fall on different banks.
  computing_warps_sync<kThreads>();  // every warp is done with the stage buffers
  float* cs = reinterpret_cast<float*>(buffer(0));
  auto c_chunk = [&](int r, int q) { return reinterpret_cast<float4*>(cs + r * kTileCols) + (q ^ ((r >> 2) & 7)); };
#pragma unroll
  for (int i = 0; i < kThreadRows; ++i) {
    const int r = a_row + (i < 4 ? i : 32 + i - 4);
#pragma unroll
    for (int v = 0; v < kThreadCols / 4; ++v)
      *c_chunk(r, tile_col / 4 + v) = make_float4(acc[i][4 * v], acc[i][4 * v + 1], acc[i][4 * v + 2], acc[i][4 * v + 3]);
  }
  computing_warps_sync<kThreads>();
  if (a.c_col_major) {
    // Column-major C: a warp takes 32 rows x 4 columns (one chunk) at a time. Lane l reads row
    // 4 (l % 8) + l / 8 of them (a quarter-warp's eight rows are 4 apart: different banks) and
    // stores its four values down the four columns; each warp store covers 32 rows, 128
    // contiguous bytes. (The tile is written above as for row-major C: the FMA loop's register
    // allocation, and with it its speed, depends on that code.)
    const int lane_row = 4 * (lane % 8) + lane / 8;
    for (int t = warp; t < BM / 32 * kTileCols / 4; t += kWarps) {
      const int r = t % (BM / 32) * 32 + lane_row, q = t / (BM / 32);
      const std::int64_t row = m0 + r, col = n0 + 4 * q;
      if (row >= a.m) continue;
      const float4 x = *c_chunk(r, q);
      const float xs[4] = {x.x, x.y, x.z, x.w};
      for (int j = 0; j < 4 && col + j < a.n; ++j) {
        float* c = a.C + (col + j) * a.ldc + row;
        if (p.atomic) atomicAdd(c, xs[j]);
        else *c = xs[j];
      }
    }
    return;
  }
  constexpr int kRowChunks = kTileCols / 4;
  for (int r = warp; r < BM; r += kWarps) {
    const std::int64_t row = m0 + r;
    if (row >= a.m) break;
    float* c_row = a.C + row * a.ldc;
#pragma unroll
    for (int q = lane; q < kRowChunks; q += 32) {
      const float4 x = *c_chunk(r, q);
      const std::int64_t col = n0 + 4 * q;
      if (p.c_vector && col + 4 <= a.n) {
        float4* c = reinterpret_cast<float4*>(c_row + col);
        if (p.atomic) atomicAdd(c, x);  // one 16-byte reduction instead of four
        else *c = x;
      } else {
        const float xs[4] = {x.x, x.y, x.z, x.w};
        for (int j = 0; j < 4 && col + j < a.n; ++j) {
          if (p.atomic) atomicAdd(c_row + col + j, xs[j]);
          else c_row[col + j] = xs[j];
        }
      }
    }
  }
}


// Launched with programmatic stream serialization: the kernel's blocks may start (and set up
// their barriers) while the A panel pass before it drains, instead of after a full
// kernel-to-kernel gap. The shared-memory opt-in is only raised when a launch needs more than
// the device's kernel was given before, so that after the first call no host call sits between
// the pass's launch and this one.
template <int BM, int G, VnmCopier C, bool RowBoxes>
void launch_one(const Params& p, dim3 grid, cudaStream_t stream, std::size_t bytes) {
  auto kernel = vnm_spmm_kernel<BM, G, C, RowBoxes>;
  static std::mutex mutex;
  static std::map<int, std::size_t> opted_in;  // device -> bytes the kernel may use there
  int device = 0;
  TESSERA_CUDA_CHECK(cudaGetDevice(&device));
  {
    std::lock_guard<std::mutex> lock(mutex);
    std::size_t& allowed = opted_in[device];
    if (allowed < bytes) {
      TESSERA_CUDA_CHECK(
          cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(bytes)));
      allowed = bytes;
    }
  }
  launch_kernel_after(true, kernel, grid, dim3(kThreadsOf<BM, C>), bytes, stream, p);
}

// The kernel for the block's rows and the plan's L (column groups per thread).
template <VnmCopier C>
void launch_kernel(const Params& p, int bm, dim3 grid, cudaStream_t stream, std::size_t bytes) {
  auto with_rows = [&](auto rows) {
    constexpr int BM = decltype(rows)::value;
    if (p.a_rows) launch_one<BM, 1, C, true>(p, grid, stream, bytes);  // L >= 16 (vnm_spmm checks)
    else if (p.a.L == 4) launch_one<BM, 4, C, false>(p, grid, stream, bytes);
    else if (p.a.L == 8) launch_one<BM, 2, C, false>(p, grid, stream, bytes);
    else launch_one<BM, 1, C, false>(p, grid, stream, bytes);
  };
  if (bm == 128) with_rows(std::integral_constant<int, 128>());
  else with_rows(std::integral_constant<int, 64>());
}

// launch_kernel<VnmCopier::ProducerWarpgroup>, compiled for sm_90a (vnm_spmm_sm90a.cu).
void launch_producer_warpgroup(const Params& p, int bm, dim3 grid, cudaStream_t stream, std::size_t bytes);

}  // namespace tessera::kernels::cuda::vnm_detail
