// VNM SpMM kernels (see tessera/kernels/nm_spmm/cuda/vnm_spmm.hpp for the algorithm).
// Raw pointers only; every CUDA call and launch is checked and turned into tessera::CudaError.
#include "tessera/kernels/nm_spmm/cuda/vnm_spmm.hpp"

#include <cuda_runtime.h>

#include <algorithm>
#include <string>

#include "tessera/core/error.hpp"
#include "tessera/formats/vnm/staging.hpp"
#include "../../common/cuda_support.hpp"
#include "../../common/ptx_bulk_copy.cuh"
#include "../../common/tensor_map.hpp"

namespace tessera::kernels::cuda {
namespace {

constexpr int kTileCols = kVnmTileCols;            // BN
constexpr int kStages = kVnmPipelineStages;
static_assert(kStages == 2, "the stage loop alternates between two buffers");
constexpr int kStageCols = kVnmStageColumns, kOffsetRow = kVnmOffsetRowBytes;
constexpr int kThreadRows = 8, kThreadCols = 16;
constexpr int kWarpRows = 8 * kThreadRows, kWarpCols = 4 * kThreadCols;  // warp tile: 8 x 4 threads
constexpr int kWarpsN = kTileCols / kWarpCols;
static_assert(kWarpRows == 8 * kThreadRows && kWarpCols == 4 * kThreadCols, "warp = 8 x 4 threads");

template <int BM>
constexpr int kThreadsOf = BM / kWarpRows * kWarpsN * 32;
// The 128-row block (8 warps) takes a whole SM so that its threads may hold 128 accumulators
// and double-buffered fragments; two 64-row blocks (4 warps each) would share one by registers,
// but their buffers of full-size stages do not fit twice (resident_blocks).
template <int BM>
constexpr int kBlocksPerSm = BM == 128 ? 1 : 2;

// A is read from column panels: panel t holds rows kPanelRows t .. kPanelRows t + 127 of A
// column by column (windows * M columns of kPanelRows floats, zeros past m and k).
constexpr int kPanelRows = 128;

struct Params {
  CUtensorMap a_map;  // plain plans: panels as 128-float columns, box BM x plain_cols
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
  bool c_vector;        // C rows allow 16-byte stores
  // Shared memory: the mbarriers (kBarrierBytes, padded to 128), then two buffers of
  // buffer_bytes, each A transposed (a stage's columns of BM floats) followed by B (its stored
  // rows of kTileCols floats) within kVnmStageBytes, the offsets at o_offset (a
  // kOffsetRow-byte row per group of the tile) and the stage record at rec_offset.
  int o_offset, rec_offset, buffer_bytes;
};

constexpr int kBarrierBytes = 2 * kStages * 8;  // "full" and "empty" mbarrier of each buffer
static_assert(2 * kVnmStageBytes >= 128 * kTileCols * 4, "two stage buffers hold a C tile for the epilogue");
static_assert(kBarrierBytes <= 128, "buffers start 128-byte aligned");

// Groups: column groups a thread's 16 columns span (1 for L >= 16, 16 / L below).
//
// Pipeline: warp 0 also issues the copies. It bulk-copies stage s into buffer s % 2 once all
// warps arrived on that buffer's "empty" mbarrier (done with stage s - 2); each warp
// waits on the buffer's "full" mbarrier (all bytes landed) before computing the stage. No
// block-wide barrier: a warp starts the next stage as soon as its data is there, so the warps
// of an SM do not all pass the per-stage work at the same time. (The cp.async copies by all
// threads with a barrier per stage that this replaced spent a quarter of the warps' time
// outside the FMA loop at 50% sparsity, perf_tests/results/vnm_h100.md.)
template <int BM, int Groups>
__global__ void __launch_bounds__(kThreadsOf<BM>, kBlocksPerSm<BM>) vnm_spmm_kernel(const __grid_constant__ Params p) {
  constexpr int kThreads = kThreadsOf<BM>, kWarps = kThreads / 32;
  extern __shared__ __align__(128) unsigned char smem[];
  const VnmSpmmArgs& a = p.a;
  std::uint64_t* full = reinterpret_cast<std::uint64_t*>(smem);
  std::uint64_t* empty = full + kStages;
  auto buffer = [&](int b) { return smem + 128 + b * p.buffer_bytes; };
  auto a_buf = [&](int b) { return reinterpret_cast<float*>(buffer(b)); };
  // B follows the stage's A columns: a plain stage's box always brings plain_cols of them.
  auto b_buf = [&](int b, int cols) { return a_buf(b) + (a.packed ? cols : p.plain_cols) * BM; };
  auto o_buf = [&](int b) { return buffer(b) + p.o_offset; };
  auto rec_buf = [&](int b) { return reinterpret_cast<int4*>(buffer(b) + p.rec_offset); };

  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
  const std::int64_t n0 = static_cast<std::int64_t>(blockIdx.x) * kTileCols;
  const std::int64_t m0 = static_cast<std::int64_t>(blockIdx.y) * BM;
  // This block's stages: its tile's (plain plans share one list), split over blockIdx.z.
  const int plan_tile = a.packed ? static_cast<int>(blockIdx.x) : 0;
  const int tile_first = a.tile_stage_pos[plan_tile], tile_count = a.tile_stage_pos[plan_tile + 1] - tile_first;
  const int per_split = (tile_count + p.splits - 1) / p.splits;
  const int first = tile_first + static_cast<int>(blockIdx.z) * per_split;
  const int count = max(0, min(per_split, tile_first + tile_count - first));

  if (tid == 0) {
    for (int b = 0; b < kStages; ++b) {
      mbarrier_init(&full[b], 1);
      mbarrier_init(&empty[b], kWarps);
    }
    mbarrier_init_fence();
  }
  __syncthreads();

  // Warp 0's copies of a stage (record `rec`; packed: staged column lane + 32 j is A column
  // cols_of[j]) into buffer b, few and large, as the copy engine pays per copy: a plain stage's
  // A columns are one box of its panel, a packed stage's one copy per column; B one box per
  // window (its N stored rows, the tile's columns); the offsets one box. Boxes read zeros past
  // the matrix (groups, columns) and may bring columns no offset names. Slots up to the next
  // multiple of 4 (read by the four-slot steps) get zero B rows here.
  const std::int64_t group_first = n0 / a.L, panel_col0 = (m0 / kPanelRows) * p.padded_k;
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
      if (!a.packed)
        tma_load_2d(a_buf(b), &p.a_map, static_cast<int>(m0 % kPanelRows),
                    static_cast<int>(panel_col0 + static_cast<std::int64_t>(row0 / a.N) * a.M), &full[b]);
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
    const float* bs = b_buf(b, rec.z) + tile_col;
    const std::uint8_t* os = o_buf(b) + group0 * kOffsetRow;
    std::uint32_t next[Groups];
#pragma unroll
    for (int g = 0; g < Groups; ++g) next[g] = *reinterpret_cast<const std::uint32_t*>(os + g * kOffsetRow);
    // Two four-slot steps per loop trip: ptxas overlaps a step's shared loads with the FMAs of
    // the step before only inside a trip, and a longer loop body misses the instruction cache
    // (four steps per trip, 2232 instructions, ran 2-4% slower with the copy-engine pipeline;
    // perf_tests/results/vnm_h100.md). The FMA order below is the fastest measured: it decides
    // how ptxas lays the FFMA operands on register banks.
#pragma unroll 2
    for (int s4 = 0; s4 < padded_slots; s4 += 4) {
      // Offsets of the next four slots are fetched before these four are used.
      std::uint32_t word[Groups];
#pragma unroll
      for (int g = 0; g < Groups; ++g) {
        word[g] = next[g];
        if (s4 + 4 < padded_slots) next[g] = *reinterpret_cast<const std::uint32_t*>(os + g * kOffsetRow + s4 + 4);
      }
#pragma unroll
      for (int q = 0; q < 4; ++q) {
        float bv[kThreadCols];
#pragma unroll
        for (int v = 0; v < kThreadCols / 4; ++v) {
          const float4 x = *reinterpret_cast<const float4*>(bs + (s4 + q) * kTileCols + 4 * v);
          bv[4 * v] = x.x, bv[4 * v + 1] = x.y, bv[4 * v + 2] = x.z, bv[4 * v + 3] = x.w;
        }
        float av[Groups][kThreadRows];
#pragma unroll
        for (int g = 0; g < Groups; ++g) {
          const float* col = as + ((word[g] >> (8 * q)) & 0xff) * BM;
          const float4 lo = *reinterpret_cast<const float4*>(col);
          const float4 hi = *reinterpret_cast<const float4*>(col + 32);
          av[g][0] = lo.x, av[g][1] = lo.y, av[g][2] = lo.z, av[g][3] = lo.w;
          av[g][4] = hi.x, av[g][5] = hi.y, av[g][6] = hi.z, av[g][7] = hi.w;
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

  // Warp 0 fetches the record (packed: its lanes' share of the column list) of the next stage
  // to issue one stage ahead, so no copy waits on a global load.
  int4 next_rec = make_int4(0, 0, 0, 0);
  int next_cols[kColsPerLane] = {};
  auto fetch = [&](int s) {
    next_rec = a.stage[first + s];
    if (a.packed) {
#pragma unroll
      for (int j = 0; j < kColsPerLane; ++j) next_cols[j] = a.column_list[(first + s) * kStageCols + lane + 32 * j];
    }
  };
  if (warp == 0) {
    for (int s = 0; s < min(count, kStages); ++s) {
      fetch(s);
      issue(s, next_rec, next_cols);
    }
    if (count > kStages) fetch(kStages);
  }
  for (int t = 0, b = 0, round = 0; t < count; ++t) {  // b = t % kStages, round = t / kStages
    const unsigned phase = round & 1;
    mbarrier_wait(&full[b], phase);
    compute_stage(b);
    __syncwarp();
    if (lane == 0) mbarrier_arrive(&empty[b]);
    if (warp == 0 && t + kStages < count) {
      mbarrier_wait(&empty[b], phase);
      issue(b, next_rec, next_cols);
      if (t + kStages + 1 < count) fetch(t + kStages + 1);
    }
    if (++b == kStages) b = 0, ++round;
  }

  // C through shared memory, so that global stores (or split-K reductions) run along whole
  // rows: written straight from the 8 x 16 thread tiles, each warp instruction would touch 8
  // rows in 64-byte pieces, and the next block of the SM waits for those stores to issue (the
  // stores measured 6-14% of the kernel's time at 4096^3). The tile's rows are kTileCols
  // floats; 16-byte chunk q of row r sits at chunk q ^ ((r / 4) % 8) of its 128-byte group,
  // so the eight rows a quarter-warp writes (4 apart) and the chunks a warp reads along a row
  // fall on different banks.
  __syncthreads();  // every warp is done with the stage buffers
  float* cs = reinterpret_cast<float*>(buffer(0));
  auto c_chunk = [&](int r, int q) { return reinterpret_cast<float4*>(cs + r * kTileCols) + (q ^ ((r >> 2) & 7)); };
#pragma unroll
  for (int i = 0; i < kThreadRows; ++i) {
    const int r = a_row + (i < 4 ? i : 32 + i - 4);
#pragma unroll
    for (int v = 0; v < kThreadCols / 4; ++v)
      *c_chunk(r, tile_col / 4 + v) = make_float4(acc[i][4 * v], acc[i][4 * v + 1], acc[i][4 * v + 2], acc[i][4 * v + 3]);
  }
  __syncthreads();
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

// A (m x k, row-major) -> column panels (kPanelRows rows each, padded_k columns of kPanelRows
// floats, zeros past m and k), through 32 x 32 tiles in shared memory so that reads run along
// rows of A and writes along panel columns. The SpMM then stages a column of its rows with
// 16-byte copies of one contiguous run, not 4-byte gathers from BM rows.
constexpr int kTransposeTile = 32, kTransposeRowsPerPass = 8;
__global__ void __launch_bounds__(kTransposeTile * kTransposeRowsPerPass) vnm_a_panels_kernel(
    const float* A, std::int64_t m, std::int64_t k, std::int64_t lda, std::int64_t padded_k, std::int64_t row_blocks,
    float* panels) {
  __shared__ float tile[kTransposeTile][kTransposeTile + 1];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const std::int64_t c0 = static_cast<std::int64_t>(blockIdx.x) * kTransposeTile;
  for (std::int64_t rb = blockIdx.y; rb < row_blocks; rb += gridDim.y) {
    const std::int64_t r0 = rb * kTransposeTile;
    for (int i = ty; i < kTransposeTile; i += kTransposeRowsPerPass) {
      const std::int64_t r = r0 + i, c = c0 + tx;
      tile[i][tx] = r < m && c < k ? A[r * lda + c] : 0.f;
    }
    __syncthreads();
    for (int i = ty; i < kTransposeTile; i += kTransposeRowsPerPass) {
      const std::int64_t c = c0 + i, r = r0 + tx;
      if (c < padded_k) panels[((r / kPanelRows) * padded_k + c) * kPanelRows + r % kPanelRows] = tile[tx][i];
    }
    __syncthreads();
  }
}

struct DeviceInfo {
  int sms = 0;
  std::size_t max_shared = 0;         // per block
  std::size_t max_shared_per_sm = 0;  // all resident blocks together
  int major = 0;                      // compute capability
};
DeviceInfo device_info() {
  int dev = 0, sms = 0, smem = 0, smem_sm = 0, major = 0;
  TESSERA_CUDA_CHECK(cudaGetDevice(&dev));
  TESSERA_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
  TESSERA_CUDA_CHECK(cudaDeviceGetAttribute(&smem, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev));
  TESSERA_CUDA_CHECK(cudaDeviceGetAttribute(&smem_sm, cudaDevAttrMaxSharedMemoryPerMultiprocessor, dev));
  TESSERA_CUDA_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev));
  return {sms, static_cast<std::size_t>(smem), static_cast<std::size_t>(smem_sm), major};
}

// Buffer geometry: A and B of a stage within kVnmStageBytes (the plan keeps them there), then
// the offsets and the record.
struct SmemLayout {
  int o_offset = 0, rec_offset = 0, buffer_bytes = 0;
  std::size_t bytes() const { return 128 + static_cast<std::size_t>(kStages) * buffer_bytes; }
};
SmemLayout smem_layout(const VnmSpmmArgs& a) {
  auto round128 = [](int x) { return (x + 127) / 128 * 128; };
  SmemLayout l;
  l.o_offset = round128(kVnmStageBytes);
  l.rec_offset = l.o_offset + round128(kTileCols / a.L * kOffsetRow);
  l.buffer_bytes = l.rec_offset + 128;
  return l;
}

// Blocks of BM rows an SM runs at once: kBlocksPerSm unless their shared memory (plus the
// 1 KB the runtime reserves per block) does not fit.
template <int BM>
int resident_blocks(const SmemLayout& l, const DeviceInfo& dev) {
  const std::size_t fit = dev.max_shared_per_sm / (l.bytes() + 1024);
  return static_cast<int>(std::max<std::size_t>(1, std::min<std::size_t>(kBlocksPerSm<BM>, fit)));
}

bool aligned(const void* p, std::uintptr_t bytes) { return reinterpret_cast<std::uintptr_t>(p) % bytes == 0; }

void check_args(const VnmSpmmArgs& a) {
  auto fail = [](const std::string& what) { throw Error("tessera::kernels::cuda::vnm_spmm: " + what); };
  if (a.m < 0 || a.k < 0 || a.n < 0) fail("negative extent");
  if (!(a.N > 0 && a.N < a.M && a.M <= 32) || !(a.L == 4 || a.L == 8 || a.L == 16 || a.L == 32 || a.L == 64))
    fail("pattern " + std::to_string(a.N) + ":" + std::to_string(a.M) + " L=" + std::to_string(a.L) + " unsupported");
  const std::int64_t windows = (a.k + a.M - 1) / a.M;
  if (a.stored_rows != windows * a.N || a.padded_cols != (a.n + a.L - 1) / a.L * a.L)
    fail("vals extents " + std::to_string(a.stored_rows) + " x " + std::to_string(a.padded_cols) +
         " do not match k = " + std::to_string(a.k) + ", n = " + std::to_string(a.n));
  if (a.stored_rows > 0 && (!a.tile_stage_pos || !a.stage || !a.offsets || (a.packed && !a.column_list) ||
                            a.offsets_ld % 16 != 0 || a.offsets_ld < kOffsetRow))
    fail("incomplete stage plan (build it with formats/vnm/staging.hpp, tile_cols = kVnmTileCols)");
  if (a.lda < a.k || a.ldc < a.n) fail("leading dimension below the row length");
  if (!aligned(a.vals, 16) || !aligned(a.offsets, 16)) fail("vals and offsets must be 16-byte aligned");
  if (a.stored_rows >= (std::int64_t(1) << 31)) fail("more than 2^31 stored rows");
}

template <int BM, int G>
void launch_one(const Params& p, dim3 grid, cudaStream_t stream, std::size_t bytes) {
  auto kernel = vnm_spmm_kernel<BM, G>;
  TESSERA_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(bytes)));
  kernel<<<grid, kThreadsOf<BM>, bytes, stream>>>(p);
  TESSERA_CUDA_CHECK(cudaGetLastError());
}

template <int BM>
void launch_rows(const Params& p, dim3 grid, cudaStream_t stream, std::size_t bytes) {
  if (p.a.L == 4) launch_one<BM, 4>(p, grid, stream, bytes);
  else if (p.a.L == 8) launch_one<BM, 2>(p, grid, stream, bytes);
  else launch_one<BM, 1>(p, grid, stream, bytes);
}

}  // namespace

std::string VnmLaunch::describe() const {
  return std::string(rows == VnmRowTile::Rows128 ? "128" : "64") + "x" + std::to_string(kTileCols) +
         (split_k > 1 ? " split-k " + std::to_string(split_k) : "");
}

bool vnm_prefers_packed(int, int, int) {
  // A packed stage copies each of its A columns with a copy of its own, a plain stage all of
  // them with one box, and the copy engine pays per copy: on an H100 at 4096^3 packed plans ran
  // 1.3-1.6x slower than plain ones for 4:32 .. 16:32 at L = 32 and 64 (3.2-3.8x against
  // 4.6x cuBLAS at 4:32), though they copy a third less of A. Plain everywhere.
  return false;
}

VnmLaunch vnm_choose_launch(const VnmSpmmArgs& a) {
  const DeviceInfo dev = device_info();
  // Estimated time in stages of an SM: full waves of blocks (an SM runs resident_blocks blocks
  // at a time, at about the same rate) times a block's stages, plus one stage per block for
  // filling the pipeline and one more for the atomic sums of split-K, each split keeping at
  // least two stages (set for the 128-column, 40-row stages of the cp.async kernel and not
  // refitted since); 64-row blocks pay 5% for copying B twice as often per FMA.
  const std::int64_t col_tiles = (a.n + kTileCols - 1) / kTileCols;
  VnmLaunch best;
  double best_cost = -1;
  for (const VnmRowTile rows : {VnmRowTile::Rows128, VnmRowTile::Rows64}) {
    const bool tall = rows == VnmRowTile::Rows128;
    const SmemLayout layout = smem_layout(a);
    const int bm = tall ? 128 : 64, per_sm = tall ? resident_blocks<128>(layout, dev) : resident_blocks<64>(layout, dev);
    const std::int64_t tiles = (a.m + bm - 1) / bm * col_tiles, slots = static_cast<std::int64_t>(dev.sms) * per_sm;
    const std::int64_t max_split = std::max<std::int64_t>(1, std::min<std::int64_t>(16, a.max_tile_stages / 2));
    for (std::int64_t split = 1; split <= max_split; ++split) {
      const std::int64_t waves = (tiles * split + slots - 1) / slots;
      const double per_block = static_cast<double>((a.max_tile_stages + split - 1) / split) + (split > 1 ? 2 : 1);
      const double cost = static_cast<double>(waves) * per_block * (tall ? 1.0 : 1.05);
      if (best_cost < 0 || cost < best_cost) {
        best_cost = cost;
        best.rows = rows;
        best.split_k = static_cast<int>(split);
      }
    }
  }
  return best;
}

void vnm_spmm(const VnmSpmmArgs& a, cudaStream_t stream, const VnmLaunch* forced) {
  check_args(a);
  if (a.m == 0 || a.n == 0) return;
  const DeviceInfo dev = device_info();
  if (dev.major < 9)
    throw Error("tessera::kernels::cuda::vnm_spmm: needs compute capability 9.0 or newer (bulk copies), the device has " +
                std::to_string(dev.major) + ".x");
  const VnmLaunch l = forced ? *forced : vnm_choose_launch(a);
  Params p{};
  p.a = a;
  p.groups_per_tile = kTileCols / a.L;
  p.splits = static_cast<int>(std::max<std::int64_t>(1, std::min<std::int64_t>(l.split_k, a.max_tile_stages)));
  p.atomic = p.splits > 1;
  p.c_vector = aligned(a.C, 16) && a.ldc % 4 == 0;
  const int bm = l.rows == VnmRowTile::Rows128 ? 128 : 64;
  const dim3 grid(static_cast<unsigned>((a.n + kTileCols - 1) / kTileCols), static_cast<unsigned>((a.m + bm - 1) / bm),
                  static_cast<unsigned>(p.splits));
  if (grid.y > 65535u) throw Error("vnm_spmm: m = " + std::to_string(a.m) + " needs more than 65535 row tiles");
  if (a.stored_rows == 0 || p.atomic)  // k = 0 gives C = 0; split-K adds into zeros
    TESSERA_CUDA_CHECK(cudaMemset2DAsync(a.C, a.ldc * sizeof(float), 0, a.n * sizeof(float), a.m, stream));
  if (a.stored_rows == 0) return;
  const std::int64_t padded_k = a.stored_rows / a.N * a.M, panels = (a.m + kPanelRows - 1) / kPanelRows;
  DeviceBuffer<float> panel_buf(static_cast<std::size_t>(panels * padded_k * kPanelRows), stream, workspace_pool());
  const std::int64_t row_blocks = panels * (kPanelRows / kTransposeTile);
  const dim3 t_grid(static_cast<unsigned>((padded_k + kTransposeTile - 1) / kTransposeTile),
                    static_cast<unsigned>(std::min<std::int64_t>(row_blocks, 65535)));
  vnm_a_panels_kernel<<<t_grid, dim3(kTransposeTile, kTransposeRowsPerPass), 0, stream>>>(
      a.A, a.m, a.k, a.lda, padded_k, row_blocks, panel_buf.ptr);
  TESSERA_CUDA_CHECK(cudaGetLastError());
  p.panels = panel_buf.ptr;
  p.panel_floats = padded_k * kPanelRows;
  p.padded_k = padded_k;
  p.plain_cols = vnm_plain_stage_windows(a.N, a.M, kTileCols) * a.M;
  constexpr const char* kWho = "tessera::kernels::cuda::vnm_spmm";
  if (!a.packed)
    p.a_map = tensor_map(CU_TENSOR_MAP_DATA_TYPE_FLOAT32, panel_buf.ptr, kPanelRows, panels * padded_k,
                         kPanelRows * sizeof(float), bm, p.plain_cols, CU_TENSOR_MAP_SWIZZLE_NONE, kWho);
  p.b_map = tensor_map(CU_TENSOR_MAP_DATA_TYPE_FLOAT32, a.vals, a.padded_cols, a.stored_rows,
                       a.padded_cols * static_cast<std::int64_t>(sizeof(float)), kTileCols, a.N,
                       CU_TENSOR_MAP_SWIZZLE_NONE, kWho);
  p.o_map = tensor_map(CU_TENSOR_MAP_DATA_TYPE_UINT8, a.offsets, a.offsets_ld, a.padded_cols / a.L, a.offsets_ld,
                       kOffsetRow, p.groups_per_tile, CU_TENSOR_MAP_SWIZZLE_NONE, kWho);
  const SmemLayout layout = smem_layout(a);
  if (layout.bytes() > dev.max_shared)
    throw Error("tessera::kernels::cuda::vnm_spmm: two stage buffers of " + std::to_string(layout.buffer_bytes) +
                " bytes exceed the device's " + std::to_string(dev.max_shared) + " bytes of shared memory per block");
  p.o_offset = layout.o_offset;
  p.rec_offset = layout.rec_offset;
  p.buffer_bytes = layout.buffer_bytes;
  if (bm == 128) launch_rows<128>(p, grid, stream, layout.bytes());
  else launch_rows<64>(p, grid, stream, layout.bytes());
}

}  // namespace tessera::kernels::cuda
