// VNM SpMM kernels (see tessera/kernels/nm_spmm/cuda/vnm_spmm.hpp for the algorithm).
// Raw pointers only; every CUDA call and launch is checked and turned into tessera::CudaError.
#include "tessera/kernels/nm_spmm/cuda/vnm_spmm.hpp"

#include <cuda_runtime.h>

#include <algorithm>
#include <string>

#include "tessera/core/error.hpp"
#include "tessera/formats/vnm/staging.hpp"
#include "../../common/cuda_support.hpp"
#include "../../common/ptx_copy.cuh"

namespace tessera::kernels::cuda {
namespace {

constexpr int kTileCols = kVnmTileCols;            // BN
constexpr int kStages = kVnmPipelineStages;
constexpr int kStageCols = kVnmStageColumns, kStageSlots = kVnmStageSlots;
constexpr int kThreadRows = 8, kThreadCols = 16;
constexpr int kWarpRows = 8 * kThreadRows, kWarpCols = 4 * kThreadCols;  // warp tile: 8 x 4 threads
constexpr int kWarpsN = kTileCols / kWarpCols;
static_assert(kWarpRows == 8 * kThreadRows && kWarpCols == 4 * kThreadCols, "warp = 8 x 4 threads");

template <int BM>
constexpr int kThreadsOf = BM / kWarpRows * kWarpsN * 32;
// The 128-row block (8 warps) takes a whole SM so that its threads may hold 128 accumulators
// and double-buffered fragments; two 64-row blocks (4 warps each) would share one by registers,
// but their buffers for full-size stages do not fit twice (resident_blocks).
template <int BM>
constexpr int kBlocksPerSm = BM == 128 ? 1 : 2;

// A is read from column panels: panel t holds rows kPanelRows t .. kPanelRows t + 127 of A
// column by column (windows * M columns of kPanelRows floats, zeros past m and k).
constexpr int kPanelRows = 128;

struct Params {
  VnmSpmmArgs a;
  const float* panels;         // A as column panels (vnm_a_panels_kernel)
  std::int64_t panel_floats;   // floats per panel: padded k * kPanelRows
  int groups_per_tile;  // kTileCols / L
  int splits;           // split-K factor: blockIdx.z runs its share of the tile's stages
  bool atomic;          // split-K: accumulate into zeroed C
  bool c_vector;        // C rows allow 16-byte stores
};

// One pipeline buffer: the stage record, A transposed (kStageCols x (BM + 4) floats: the 4-float
// pad puts the 8 columns of a copy instruction on different bank quads), B (kStageSlots x
// kTileCols floats), offsets (groups_per_tile x kStageSlots bytes).
template <int BM>
struct Buffer {
  static constexpr int record_bytes = 16;
  static constexpr int a_stride = BM + 4;
  static constexpr int a_floats = kStageCols * a_stride;
  static constexpr int b_floats = kStageSlots * kTileCols;
  static constexpr int offset_bytes = kTileCols / 4 * kStageSlots;  // most groups a tile holds (L = 4)
  static constexpr int bytes = record_bytes + (a_floats + b_floats) * 4 + offset_bytes;
  static_assert(bytes % 16 == 0, "buffers stay 16-byte aligned");
};

// Groups: column groups a thread's 16 columns span (1 for L >= 16, 16 / L below).
template <int BM, int Groups>
__global__ void __launch_bounds__(kThreadsOf<BM>, kBlocksPerSm<BM>) vnm_spmm_kernel(const Params p) {
  using Buf = Buffer<BM>;
  constexpr int kThreads = kThreadsOf<BM>;
  extern __shared__ __align__(16) unsigned char smem[];
  const VnmSpmmArgs& a = p.a;
  auto rec_buf = [&](int b) { return reinterpret_cast<int4*>(smem + b * Buf::bytes); };
  auto a_buf = [&](int b) { return reinterpret_cast<float*>(smem + b * Buf::bytes + Buf::record_bytes); };
  auto b_buf = [&](int b) { return a_buf(b) + Buf::a_floats; };
  auto o_buf = [&](int b) { return reinterpret_cast<std::uint8_t*>(b_buf(b) + Buf::b_floats); };

  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
  const std::int64_t n0 = static_cast<std::int64_t>(blockIdx.x) * kTileCols;
  const std::int64_t m0 = static_cast<std::int64_t>(blockIdx.y) * BM;
  // This block's stages: its tile's (plain plans share one list), split over blockIdx.z.
  const int plan_tile = a.packed ? static_cast<int>(blockIdx.x) : 0;
  const int tile_first = a.tile_stage_pos[plan_tile], tile_count = a.tile_stage_pos[plan_tile + 1] - tile_first;
  const int per_split = (tile_count + p.splits - 1) / p.splits;
  const int first = tile_first + static_cast<int>(blockIdx.z) * per_split;
  const int count = max(0, min(per_split, tile_first + tile_count - first));

  // Per-thread constants of the copies (kept small: the accumulators take half the registers).
  // A comes from its column panels (vnm_a_panels_kernel): a staged column is BM contiguous
  // floats there, so this thread copies 16-byte chunk a_chunk of staged columns
  // copy_col + kColsPerPass j (a warp copies whole columns: full 128-byte lines).
  constexpr int kAChunks = BM / 4, kColsPerPass = kThreads / kAChunks;
  static_assert(kStageCols % kColsPerPass == 0, "whole passes of staged columns");
  constexpr int kColsPerThread = kStageCols / kColsPerPass;
  const int a_chunk = tid % kAChunks, copy_col = tid / kAChunks;
  const float* a_thread = p.panels + (m0 / kPanelRows) * p.panel_floats + m0 % kPanelRows + 4 * a_chunk;
  // B: this thread copies 16-byte chunk b_chunk of stored rows b_row + kBRowsPerPass j.
  constexpr int kBChunks = kTileCols / 4, kBRowsPerPass = kThreads / kBChunks;
  const int b_chunk = tid % kBChunks, b_row = tid / kBChunks;
  const bool b_col_ok = n0 + 4 * b_chunk < a.padded_cols;
  const float* b_thread = a.vals + (b_col_ok ? n0 + 4 * b_chunk : 0);
  const std::int64_t groups = a.padded_cols / a.L;

  // A columns of a stage into `as`; column_of(j, c) gives the A column of staged column c =
  // copy_col + kColsPerPass j. Panels are zero past m and k, so no copy needs a predicate.
  auto copy_a = [&](float* as, int cols, auto column_of) {
#pragma unroll
    for (int j = 0; j < kColsPerThread; ++j) {
      const int c = copy_col + kColsPerPass * j;
      if (c >= cols) break;
      cp_async_16(as + c * Buf::a_stride + 4 * a_chunk, a_thread + column_of(j, c) * kPanelRows, 16);
    }
  };

  // Global -> shared copies of stage record `rec` (packed: its A columns `cols_of`, this
  // thread's share) into buffer `b`; nothing waits here.
  auto load_stage = [&](const int4& rec, const int (&cols_of)[kColsPerThread], int b) {
    const int row0 = rec.x, slots = rec.y, cols = rec.z, base = rec.w;
    if (tid == 0) *rec_buf(b) = rec;
    const int padded_slots = (slots + 3) & ~3;
    float* bs = b_buf(b) + 4 * b_chunk;
    const float* src = b_thread + static_cast<std::int64_t>(row0 + b_row) * a.padded_cols;
    const std::int64_t b_step = kBRowsPerPass * a.padded_cols;
    for (int j = b_row; j < padded_slots; j += kBRowsPerPass, src += b_step) {
      const bool ok = b_col_ok && j < slots;
      cp_async_16(bs + j * kTileCols, ok ? src : a.vals, ok ? 16 : 0);
    }
    std::uint8_t* os = o_buf(b);
    constexpr int kWords = kStageSlots / 4;  // a full stage's offsets (rows end with that much slack)
    for (int c = tid; c < p.groups_per_tile * kWords; c += kThreads) {
      const int gl = c / kWords, q = c % kWords;
      const std::int64_t g = n0 / a.L + gl;
      const bool ok = g < groups;
      cp_async_4(os + gl * kStageSlots + q * 4, ok ? a.offsets + g * a.offsets_ld + base + q * 4 : a.offsets,
                 ok ? 4 : 0);
    }
    float* as = a_buf(b);
    const std::int64_t plain_col0 = static_cast<std::int64_t>(row0 / a.N) * a.M;
    if (a.packed) copy_a(as, cols, [&](int j, int) { return static_cast<std::int64_t>(cols_of[j]); });
    else copy_a(as, cols, [&](int, int c) { return plain_col0 + c; });
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
    const int padded_slots = (rec_buf(b)->y + 3) & ~3;
    const float* as = a_buf(b) + a_row;
    const float* bs = b_buf(b) + tile_col;
    const std::uint8_t* os = o_buf(b) + group0 * kStageSlots;
    std::uint32_t next[Groups];
#pragma unroll
    for (int g = 0; g < Groups; ++g) next[g] = *reinterpret_cast<const std::uint32_t*>(os + g * kStageSlots);
    // Four four-slot steps per loop trip: ptxas overlaps a step's shared loads with the FMAs of
    // the step before only inside a trip. Unroll depth and FMA order below are the fastest pair
    // measured (perf_tests/results/vnm_h100.md): they decide how ptxas lays the FFMA operands
    // on register banks.
#pragma unroll 4
    for (int s4 = 0; s4 < padded_slots; s4 += 4) {
      // Offsets of the next four slots are fetched before these four are used.
      std::uint32_t word[Groups];
#pragma unroll
      for (int g = 0; g < Groups; ++g) {
        word[g] = next[g];
        if (s4 + 4 < padded_slots) next[g] = *reinterpret_cast<const std::uint32_t*>(os + g * kStageSlots + s4 + 4);
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
          const float* col = as + ((word[g] >> (8 * q)) & 0xff) * Buf::a_stride;
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

  // kStages-deep pipeline: stage t is computed while t + 1 .. t + kStages - 1 are in flight; the
  // record (and packed: this thread's A columns) of the next stage to load is fetched one
  // stage ahead, so no copy waits on a global load.
  int4 next_rec = make_int4(0, 0, 0, 0);
  int next_cols[kColsPerThread] = {};
  auto fetch = [&](int s) {
    next_rec = a.stage[first + s];
    if (a.packed) {
#pragma unroll
      for (int j = 0; j < kColsPerThread; ++j)
        next_cols[j] = a.column_list[(first + s) * kStageCols + copy_col + kColsPerPass * j];
    }
  };
  auto issue = [&](int s) {  // copies stage s into its buffer, fetches stage s + 1's record
    const int4 rec = next_rec;
    int cols[kColsPerThread];
#pragma unroll
    for (int j = 0; j < kColsPerThread; ++j) cols[j] = next_cols[j];
    if (s + 1 < count) fetch(s + 1);
    load_stage(rec, cols, s % kStages);
  };
  if (count > 0) fetch(0);
#pragma unroll
  for (int s = 0; s < kStages - 1; ++s) {
    if (s < count) issue(s);
    cp_async_commit();
  }
  for (int t = 0; t < count; ++t) {
    cp_async_wait<kStages - 2>();
    __syncthreads();  // stage t visible to all; buffer (t - 1) % kStages no longer read
    if (t + kStages - 1 < count) issue(t + kStages - 1);
    cp_async_commit();
    compute_stage(t % kStages);
  }

  const std::int64_t col = n0 + tile_col;
#pragma unroll
  for (int i = 0; i < kThreadRows; ++i) {
    const std::int64_t row = m0 + a_row + (i < 4 ? i : 32 + i - 4);
    if (row >= a.m) continue;
    float* c = a.C + row * a.ldc + col;
    if (p.atomic && p.c_vector && col + kThreadCols <= a.n) {
#pragma unroll
      for (int v = 0; v < kThreadCols / 4; ++v)  // one 16-byte reduction instead of four
        atomicAdd(reinterpret_cast<float4*>(c) + v,
                  make_float4(acc[i][4 * v], acc[i][4 * v + 1], acc[i][4 * v + 2], acc[i][4 * v + 3]));
    } else if (p.atomic) {
#pragma unroll
      for (int j = 0; j < kThreadCols; ++j)
        if (col + j < a.n) atomicAdd(c + j, acc[i][j]);
    } else if (p.c_vector && col + kThreadCols <= a.n) {
#pragma unroll
      for (int v = 0; v < kThreadCols / 4; ++v)
        reinterpret_cast<float4*>(c)[v] = make_float4(acc[i][4 * v], acc[i][4 * v + 1], acc[i][4 * v + 2], acc[i][4 * v + 3]);
    } else {
#pragma unroll
      for (int j = 0; j < kThreadCols; ++j)
        if (col + j < a.n) c[j] = acc[i][j];
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
};
DeviceInfo device_info() {
  int dev = 0, sms = 0, smem = 0, smem_sm = 0;
  TESSERA_CUDA_CHECK(cudaGetDevice(&dev));
  TESSERA_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
  TESSERA_CUDA_CHECK(cudaDeviceGetAttribute(&smem, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev));
  TESSERA_CUDA_CHECK(cudaDeviceGetAttribute(&smem_sm, cudaDevAttrMaxSharedMemoryPerMultiprocessor, dev));
  return {sms, static_cast<std::size_t>(smem), static_cast<std::size_t>(smem_sm)};
}

template <int BM>
constexpr std::size_t kSharedBytes = kStages * static_cast<std::size_t>(Buffer<BM>::bytes);

// Blocks of BM rows an SM runs at once: kBlocksPerSm unless their shared memory (plus the
// 1 KB the runtime reserves per block) does not fit.
template <int BM>
int resident_blocks(const DeviceInfo& dev) {
  const std::size_t fit = dev.max_shared_per_sm / (kSharedBytes<BM> + 1024);
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
                            a.offsets_ld % 4 != 0 || a.offsets_ld < kStageSlots))
    fail("incomplete stage plan (build it with formats/vnm/staging.hpp, tile_cols = kVnmTileCols)");
  if (a.lda < a.k || a.ldc < a.n) fail("leading dimension below the row length");
  if (!aligned(a.vals, 16) || !aligned(a.offsets, 4))
    fail("vals must be 16-byte aligned, offsets 4-byte aligned");
  if (a.stored_rows >= (std::int64_t(1) << 31)) fail("more than 2^31 stored rows");
}

template <int BM, int G>
void launch_one(const Params& p, dim3 grid, cudaStream_t stream, const DeviceInfo& dev) {
  constexpr std::size_t bytes = kSharedBytes<BM>;
  if (bytes > dev.max_shared)
    throw Error("vnm_spmm: " + std::to_string(bytes) + " bytes of shared memory exceed the device's " +
                std::to_string(dev.max_shared));
  auto kernel = vnm_spmm_kernel<BM, G>;
  TESSERA_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(bytes)));
  kernel<<<grid, kThreadsOf<BM>, bytes, stream>>>(p);
  TESSERA_CUDA_CHECK(cudaGetLastError());
}

template <int BM>
void launch_rows(const Params& p, dim3 grid, cudaStream_t stream, const DeviceInfo& dev) {
  if (p.a.L == 4) launch_one<BM, 4>(p, grid, stream, dev);
  else if (p.a.L == 8) launch_one<BM, 2>(p, grid, stream, dev);
  else launch_one<BM, 1>(p, grid, stream, dev);
}

}  // namespace

std::string VnmLaunch::describe() const {
  return std::string(rows == VnmRowTile::Rows128 ? "128" : "64") + "x" + std::to_string(kTileCols) +
         (split_k > 1 ? " split-k " + std::to_string(split_k) : "");
}

bool vnm_prefers_packed(int N, int M, int L) {
  // A tile holds kTileCols / L groups; random patterns use about M (1 - (1 - N/M)^groups) of a
  // window's M columns. Packing pays once that union leaves a good part of A behind.
  const int groups = kTileCols / L;
  double unused = 1.0;
  for (int g = 0; g < groups; ++g) unused *= 1.0 - static_cast<double>(N) / M;
  return unused > 0.25;
}

VnmLaunch vnm_choose_launch(const VnmSpmmArgs& a) {
  const DeviceInfo dev = device_info();
  // Estimated time in stages of an SM: full waves of blocks (an SM runs resident_blocks blocks
  // at a time, at about the same rate) times a block's stages, plus one stage per block for
  // filling the pipeline and one more for the atomic sums of split-K, each split keeping at
  // least two stages (set for stages of up to 128 columns and 40 rows, about twice the work of
  // the former 64 x 32 ones at 62.5-87.5%); 64-row blocks pay 5% for copying B twice as often
  // per FMA.
  const std::int64_t col_tiles = (a.n + kTileCols - 1) / kTileCols;
  VnmLaunch best;
  double best_cost = -1;
  for (const VnmRowTile rows : {VnmRowTile::Rows128, VnmRowTile::Rows64}) {
    const bool tall = rows == VnmRowTile::Rows128;
    const int bm = tall ? 128 : 64, per_sm = tall ? resident_blocks<128>(dev) : resident_blocks<64>(dev);
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
  if (bm == 128) launch_rows<128>(p, grid, stream, dev);
  else launch_rows<64>(p, grid, stream, dev);
}

}  // namespace tessera::kernels::cuda
