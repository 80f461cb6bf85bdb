// VNM SpMM: the A panel pass, the checks, the launch choice and the launch (see
// tessera/kernels/nm_spmm/cuda/vnm_spmm.hpp for the algorithm, vnm_spmm_kernel.cuh for the
// kernel). Raw pointers only; every CUDA call and launch is checked and turned into
// tessera::CudaError.
#include "tessera/kernels/nm_spmm/cuda/vnm_spmm.hpp"

#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <string>

#include "tessera/core/error.hpp"
#include "tessera/formats/vnm/staging.hpp"
#include "../../common/cuda_support.hpp"
#include "../../common/device_info.hpp"
#include "../../common/grid_dependency.cuh"
#include "../../common/tensor_map.hpp"
#include "vnm_spmm_kernel.cuh"
#include "vnm_tuning.hpp"

namespace tessera::kernels::cuda {
namespace {
using namespace vnm_detail;

// A (m x k) -> column panels (kPanelRows rows each, padded_k columns of kPanelRows floats,
// zeros past m and k). Row-major A goes through 32 x 32 tiles in shared memory so that reads
// run along rows of A and writes along panel columns; column-major A (a packed plan, or columns
// not 16-byte aligned) is copied column by column. The SpMM then stages a column of its rows
// with 16-byte copies of one contiguous run, not 4-byte gathers from BM rows.
// For split-K the pass also zeroes C (c_lines = its rows, or its columns when column-major;
// 0 otherwise), which the SpMM's blocks then add into: one launch fewer than a memset of its
// own; with row_blocks = 0 that is all it does. The SpMM is launched as this pass's dependent
// (see launch_one), so its blocks may start once every block of the pass has.
struct PanelPass {
  const float* A;
  std::int64_t m, k, lda;
  bool a_col_major;
  std::int64_t padded_k, row_blocks;  // row blocks of kTransposeTile rows to rewrite
  float* panels;
  float* C;
  std::int64_t c_lines, c_line_len, ldc;  // C lines (rows or columns) to zero, their length
  bool c_vector;
};
constexpr int kTransposeTile = 32, kTransposeRowsPerPass = 8;
__global__ void __launch_bounds__(kTransposeTile * kTransposeRowsPerPass) vnm_a_panels_kernel(const PanelPass pp) {
  allow_dependent_grid_launch();
  __shared__ float tile[kTransposeTile][kTransposeTile + 1];
  const int tx = threadIdx.x, ty = threadIdx.y;
  if (pp.c_lines > 0) {
    const std::int64_t chunks = (pp.c_line_len + 3) / 4, total = pp.c_lines * chunks;
    const std::int64_t threads = static_cast<std::int64_t>(gridDim.x) * gridDim.y * kTransposeTile * kTransposeRowsPerPass;
    for (std::int64_t i = (static_cast<std::int64_t>(blockIdx.y) * gridDim.x + blockIdx.x) * kTransposeTile *
                              kTransposeRowsPerPass + ty * kTransposeTile + tx;
         i < total; i += threads) {
      float* line = pp.C + (i / chunks) * pp.ldc;
      const std::int64_t c = 4 * (i % chunks);
      if (pp.c_vector && c + 4 <= pp.c_line_len)
        *reinterpret_cast<float4*>(line + c) = make_float4(0.f, 0.f, 0.f, 0.f);
      else
        for (std::int64_t j = c; j < pp.c_line_len && j < c + 4; ++j) line[j] = 0.f;
    }
  }
  const std::int64_t c0 = static_cast<std::int64_t>(blockIdx.x) * kTransposeTile;
  for (std::int64_t rb = blockIdx.y; rb < pp.row_blocks; rb += gridDim.y) {
    const std::int64_t r0 = rb * kTransposeTile;
    auto panel_at = [&](std::int64_t r, std::int64_t c) -> float& {
      return pp.panels[((r / kPanelRows) * pp.padded_k + c) * kPanelRows + r % kPanelRows];
    };
    if (pp.a_col_major) {  // reads and writes both run down columns
      for (int i = ty; i < kTransposeTile; i += kTransposeRowsPerPass) {
        const std::int64_t c = c0 + i, r = r0 + tx;
        if (c < pp.padded_k) panel_at(r, c) = r < pp.m && c < pp.k ? pp.A[c * pp.lda + r] : 0.f;
      }
      continue;
    }
    for (int i = ty; i < kTransposeTile; i += kTransposeRowsPerPass) {
      const std::int64_t r = r0 + i, c = c0 + tx;
      tile[i][tx] = r < pp.m && c < pp.k ? pp.A[r * pp.lda + c] : 0.f;
    }
    __syncthreads();
    for (int i = ty; i < kTransposeTile; i += kTransposeRowsPerPass) {
      const std::int64_t c = c0 + i, r = r0 + tx;
      if (c < pp.padded_k) panel_at(r, c) = tile[tx][i];
    }
    __syncthreads();
  }
}

// What VnmCopier::Auto stands for on device d.
VnmCopier auto_copier(const DeviceInfo& d) {
  return d.sm90a() ? VnmCopier::ProducerWarpgroup : VnmCopier::ComputingWarp;
}

bool aligned(const void* p, std::uintptr_t bytes) { return reinterpret_cast<std::uintptr_t>(p) % bytes == 0; }

// Buffer geometry: A and B of a stage within kVnmStageBytes (the plan keeps them there), then
// the offsets and the record.
struct SmemLayout {
  int buffers_at = 0, o_offset = 0, rec_offset = 0, buffer_bytes = 0;
  std::size_t bytes() const { return buffers_at + static_cast<std::size_t>(kStages) * buffer_bytes; }
};
SmemLayout smem_layout(const VnmSpmmArgs& a, bool row_boxes) {
  auto round_up = [](int x, int to) { return (x + to - 1) / to * to; };
  SmemLayout l;
  l.buffers_at = kBuffersReserve(row_boxes);
  l.o_offset = round_up(kVnmStageBytes, 128);
  l.rec_offset = l.o_offset + round_up(kTileCols / a.L * kOffsetRow, 128);
  l.buffer_bytes = round_up(l.rec_offset + 128, row_boxes ? 1024 : 128);
  return l;
}

// Blocks of BM rows an SM runs at once: kBlocksPerSm unless their shared memory (plus the
// 1 KB the runtime reserves per block) does not fit.
template <int BM>
int resident_blocks(const SmemLayout& l, const DeviceInfo& dev) {
  const std::size_t fit = dev.max_shared_per_sm / (l.bytes() + 1024);
  return static_cast<int>(std::max<std::size_t>(1, std::min<std::size_t>(kBlocksPerSm<BM>, fit)));
}

constexpr const char* kWho = "tessera::kernels::cuda::vnm_spmm";


KernelStatus check_args(const VnmSpmmArgs& a) {
  if (a.m < 0 || a.k < 0 || a.n < 0) return KernelStatus::refused("negative extent");
  if (!(a.N > 0 && a.N < a.M && a.M <= 32) || !(a.L == 4 || a.L == 8 || a.L == 16 || a.L == 32 || a.L == 64))
    return KernelStatus::refused("pattern " + std::to_string(a.N) + ":" + std::to_string(a.M) + " L=" + std::to_string(a.L) +
                   " unsupported");
  const std::int64_t windows = (a.k + a.M - 1) / a.M;
  if (a.stored_rows != windows * a.N || a.padded_cols != (a.n + a.L - 1) / a.L * a.L)
    return KernelStatus::refused("vals extents " + std::to_string(a.stored_rows) + " x " + std::to_string(a.padded_cols) +
                   " do not match k = " + std::to_string(a.k) + ", n = " + std::to_string(a.n));
  if (a.stored_rows > 0 && (!a.tile_stage_pos || !a.stage || !a.offsets || (a.packed && !a.column_list) ||
                            a.offsets_ld % 16 != 0 || a.offsets_ld < kOffsetRow))
    return KernelStatus::refused("incomplete stage plan (build it with formats/vnm/staging.hpp, tile_cols = kVnmTileCols)");
  if (a.lda < (a.a_col_major ? a.m : a.k) || a.ldc < (a.c_col_major ? a.m : a.n))
    return KernelStatus::refused("leading dimension below the " + std::string(a.a_col_major ? "column" : "row") +
                   " length of A or the " + (a.c_col_major ? "column" : "row") + " length of C");
  if (!aligned(a.vals, 16) || !aligned(a.offsets, 16)) return KernelStatus::refused("vals and offsets must be 16-byte aligned");
  if (a.stored_rows >= (std::int64_t(1) << 31)) return KernelStatus::refused("more than 2^31 stored rows");
  return {};
}

// The launch vnm_spmm runs: `forced` (null: vnm_choose_launch's) with its Auto parts chosen.
VnmLaunch resolved(const VnmSpmmArgs& a, const VnmLaunch* forced, const DeviceInfo& dev) {
  VnmLaunch l = forced ? *forced : vnm_choose_launch(a);
  if (l.copier == VnmCopier::Auto) l.copier = auto_copier(dev);
  if (l.a_staging == VnmAStaging::Auto) l.a_staging = vnm_choose_launch(a).a_staging;
  return l;
}

int block_rows(const VnmLaunch& l) { return l.rows == VnmRowTile::Rows128 ? 128 : 64; }

// Where a launch's stages take A from, and the panel workspace that needs.
struct AStaging {
  bool direct;  // plain plan, column-major A with 16-byte aligned columns: boxes straight from A
  bool rows;    // plain plan, row-major A: boxes of its rows (VnmAStaging::RowBoxes)
  std::int64_t padded_k, panels;  // columns of the stages, panels of kPanelRows rows
  bool needs_panels() const { return !direct && !rows; }
  std::size_t panel_floats() const {
    return needs_panels() ? static_cast<std::size_t>(panels * padded_k * kPanelRows) : 0;
  }
};
AStaging a_staging(const VnmSpmmArgs& a, const VnmLaunch& l) {
  return {a.a_col_major && !a.packed && aligned(a.A, 16) && a.lda % 4 == 0,
          l.a_staging == VnmAStaging::RowBoxes && vnm_row_boxes_apply(a), a.stored_rows / a.N * a.M,
          (a.m + kPanelRows - 1) / kPanelRows};
}

// Everything vnm_spmm checks, in its order: the arguments, then what the device and the launch
// it runs (`launch`: `forced` resolved, for m, n > 0) allow.
KernelStatus check_call(const VnmSpmmArgs& a, const VnmLaunch* forced, VnmLaunch& launch) {
  if (KernelStatus r = check_args(a); !r.ok) return r;
  if (a.m == 0 || a.n == 0) return {};
  const DeviceInfo& dev = device_info();
  launch = resolved(a, forced, dev);
  const VnmLaunch& l = launch;
  if (dev.major < 9)
    return KernelStatus::not_runnable("needs compute capability 9.0 or newer (bulk copies), the device has " +
                       std::to_string(dev.major) + ".x");
  if (l.copier == VnmCopier::ProducerWarpgroup && !dev.sm90a())
    return KernelStatus::not_runnable("the producer-warpgroup kernel is built for sm_90a and needs a compute capability 9.0 device, "
                   "the device has " + std::to_string(dev.major) + "." + std::to_string(dev.minor));
  const int bm = block_rows(l);
  if ((a.m + bm - 1) / bm > 65535) return KernelStatus::refused("m = " + std::to_string(a.m) + " needs more than 65535 row tiles");
  if (a.stored_rows == 0) return {};  // k = 0: C = 0, no kernel
  const SmemLayout layout = smem_layout(a, a_staging(a, l).rows);
  if (layout.bytes() > dev.max_shared_per_block)
    return KernelStatus::not_runnable("two stage buffers of " + std::to_string(layout.buffer_bytes) + " bytes exceed the device's " +
                       std::to_string(dev.max_shared_per_block) + " bytes of shared memory per block");
  return {};
}

}  // namespace

// Windows of 32 columns (one box each), steps of four slots within one window (N % 4 == 0),
// one column group per thread (L >= 16), rows that the 3D tensor map covers exactly (m % 4 == 0:
// it cannot bound r / 4 and r % 4 together) and 16-byte aligned rows; plain plans only.
bool vnm_row_boxes_apply(const VnmSpmmArgs& a) {
  return !a.a_col_major && !a.packed && a.M == kRowBoxCols && a.N % 4 == 0 && a.L >= 16 && a.m % 4 == 0 &&
         aligned(a.A, 16) && a.lda % 4 == 0;
}

std::string VnmLaunch::describe() const {
  return std::string(rows == VnmRowTile::Rows128 ? "128" : "64") + "x" + std::to_string(kTileCols) +
         (split_k > 1 ? " split-k " + std::to_string(split_k) : "") +
         (copier == VnmCopier::ProducerWarpgroup ? " producer-wg"
          : copier == VnmCopier::ComputingWarp   ? " warp0-copies"
                                                 : "") +
         (a_staging == VnmAStaging::RowBoxes ? " row-boxes" : "");
}

bool vnm_prefers_packed(int, int, int) {
  // A packed stage copies each of its A columns with a copy of its own, a plain stage all of
  // them with one box, and the copy engine pays per copy more than packed plans save by
  // copying less of A. Plain everywhere.
  return false;
}

VnmLaunch vnm_choose_launch(const VnmSpmmArgs& a) {
  const DeviceInfo& dev = device_info();
  const VnmTuning& tuning = vnm_tuning(dev);
  // Estimated time in stages of an SM (vnm_tuning.hpp): full waves of blocks (an SM runs
  // resident_blocks blocks at a time, at about the same rate) times a block's stages and costs.
  const std::int64_t col_tiles = (a.n + kTileCols - 1) / kTileCols;
  VnmLaunch best;
  best.copier = auto_copier(dev);
  // Row boxes save the panel pass (about 8 bytes of traffic per element of A) and cost six more
  // shared loads per stored row: they pay where each element of A feeds few products.
  const bool few_products = a.n * a.N <= static_cast<std::int64_t>(tuning.row_boxes_max_products) * a.M;
  best.a_staging = vnm_row_boxes_apply(a) && few_products ? VnmAStaging::RowBoxes : VnmAStaging::Panels;
  double best_cost = -1;
  for (const VnmRowTile rows : {VnmRowTile::Rows128, VnmRowTile::Rows64}) {
    const bool tall = rows == VnmRowTile::Rows128;
    const SmemLayout layout = smem_layout(a, best.a_staging == VnmAStaging::RowBoxes);
    const int bm = tall ? 128 : 64, per_sm = tall ? resident_blocks<128>(layout, dev) : resident_blocks<64>(layout, dev);
    const std::int64_t tiles = (a.m + bm - 1) / bm * col_tiles, slots = static_cast<std::int64_t>(dev.sms) * per_sm;
    const std::int64_t max_split =
        std::max<std::int64_t>(1, std::min<std::int64_t>(tuning.max_split_k, a.max_tile_stages / 2));
    for (std::int64_t split = 1; split <= max_split; ++split) {
      const std::int64_t waves = (tiles * split + slots - 1) / slots;
      const double per_block = static_cast<double>((a.max_tile_stages + split - 1) / split) + tuning.fill_stages +
                               (split > 1 ? tuning.split_sum_stages : 0.0);
      const double cost = static_cast<double>(waves) * per_block * (tall ? 1.0 : tuning.rows64_cost);
      if (best_cost < 0 || cost < best_cost) {
        best_cost = cost;
        best.rows = rows;
        best.split_k = static_cast<int>(split);
      }
    }
  }
  return best;
}

KernelStatus vnm_can_implement(const VnmSpmmArgs& a, const VnmLaunch* launch) {
  VnmLaunch resolved_launch;
  return check_call(a, launch, resolved_launch);
}

std::size_t vnm_workspace_bytes(const VnmSpmmArgs& a, const VnmLaunch* launch) {
  require_ok(check_args(a), kWho);
  if (a.m == 0 || a.n == 0 || a.stored_rows == 0) return 0;
  return a_staging(a, resolved(a, launch, device_info())).panel_floats() * sizeof(float);
}

void vnm_spmm(const VnmSpmmArgs& a, cudaStream_t stream, const VnmLaunch* forced) {
  VnmLaunch l;
  require_ok(check_call(a, forced, l), kWho);
  if (a.m == 0 || a.n == 0) return;
  const DeviceInfo& dev = device_info();
  Params p{};
  p.a = a;
  p.groups_per_tile = kTileCols / a.L;
  p.splits = static_cast<int>(std::max<std::int64_t>(1, std::min<std::int64_t>(l.split_k, a.max_tile_stages)));
  p.atomic = p.splits > 1;
  p.c_vector = aligned(a.C, 16) && a.ldc % 4 == 0;
  const int bm = block_rows(l);
  const dim3 grid(static_cast<unsigned>((a.n + kTileCols - 1) / kTileCols), static_cast<unsigned>((a.m + bm - 1) / bm),
                  static_cast<unsigned>(p.splits));
  if (a.stored_rows == 0) {  // k = 0 gives C = 0
    TESSERA_CUDA_CHECK(cudaMemset2DAsync(a.C, a.ldc * sizeof(float), 0, (a.c_col_major ? a.m : a.n) * sizeof(float),
                                         a.c_col_major ? a.n : a.m, stream));
    return;
  }
  // All host work (workspace, tensor maps) comes before the launches, so that the GPU does not
  // wait between them while the host encodes maps.
  const AStaging staging = a_staging(a, l);
  const std::int64_t padded_k = staging.padded_k, panels = staging.panels;
  p.a_direct = staging.direct;
  p.a_rows = staging.rows;
  DeviceBuffer<float> panel_buf(staging.panel_floats(), stream, formats::cuda::device_scratch_pool());
  p.panels = panel_buf.ptr;
  p.panel_floats = padded_k * kPanelRows;
  p.padded_k = padded_k;
  p.plain_cols = vnm_plain_stage_windows(a.N, a.M, kTileCols) * a.M;
  if (p.a_rows)  // (column, row / 4, row % 4): boxes of 32 columns x BM rows in kernel order
    p.a_map = tensor_map_nd<3>(CU_TENSOR_MAP_DATA_TYPE_FLOAT32, a.A, {a.k, a.m / 4, 4},
                               {4 * a.lda * static_cast<std::int64_t>(sizeof(float)),
                                a.lda * static_cast<std::int64_t>(sizeof(float))},
                               {kRowBoxCols, bm / 4, 4}, CU_TENSOR_MAP_SWIZZLE_128B, kWho);
  else if (p.a_direct)  // A's columns of m floats, lda apart; rows past m and columns past k read as zeros
    p.a_map = tensor_map(CU_TENSOR_MAP_DATA_TYPE_FLOAT32, a.A, a.m, a.k,
                         a.lda * static_cast<std::int64_t>(sizeof(float)), bm, p.plain_cols,
                         CU_TENSOR_MAP_SWIZZLE_NONE, kWho);
  else if (!a.packed)
    p.a_map = tensor_map(CU_TENSOR_MAP_DATA_TYPE_FLOAT32, panel_buf.ptr, kPanelRows, panels * padded_k,
                         kPanelRows * sizeof(float), bm, p.plain_cols, CU_TENSOR_MAP_SWIZZLE_NONE, kWho);
  p.b_map = tensor_map(CU_TENSOR_MAP_DATA_TYPE_FLOAT32, a.vals, a.padded_cols, a.stored_rows,
                       a.padded_cols * static_cast<std::int64_t>(sizeof(float)), kTileCols, a.N,
                       CU_TENSOR_MAP_SWIZZLE_NONE, kWho);
  p.o_map = tensor_map(CU_TENSOR_MAP_DATA_TYPE_UINT8, a.offsets, a.offsets_ld, a.padded_cols / a.L, a.offsets_ld,
                       kOffsetRow, p.groups_per_tile, CU_TENSOR_MAP_SWIZZLE_NONE, kWho);
  const SmemLayout layout = smem_layout(a, p.a_rows);  // check_call: within the device's limit
  p.o_offset = layout.o_offset;
  p.rec_offset = layout.rec_offset;
  p.buffer_bytes = layout.buffer_bytes;
  // The pass (without panels to write, only the zeroing of C for split-K, if any) runs first
  // when it has anything to do; the SpMM's blocks wait for the kernel before them
  // (griddepcontrol.wait), whichever it is.
  const std::int64_t row_blocks = staging.needs_panels() ? panels * (kPanelRows / kTransposeTile) : 0;
  const std::int64_t c_lines = !p.atomic ? 0 : a.c_col_major ? a.n : a.m;
  const PanelPass pass{a.A, a.m, a.k, a.lda, a.a_col_major, padded_k, row_blocks, panel_buf.ptr,
                       a.C, c_lines, a.c_col_major ? a.m : a.n, a.ldc, p.c_vector};
  if (row_blocks > 0 || pass.c_lines > 0) {
    constexpr int kPassThreads = kTransposeTile * kTransposeRowsPerPass;
    const dim3 t_grid =
        row_blocks > 0
            ? dim3(static_cast<unsigned>((padded_k + kTransposeTile - 1) / kTransposeTile),
                   static_cast<unsigned>(std::min<std::int64_t>(row_blocks, 65535)))
            : dim3(static_cast<unsigned>(std::min<std::int64_t>(
                  (pass.c_lines * ((pass.c_line_len + 3) / 4) + kPassThreads - 1) / kPassThreads, 4 * dev.sms)));
    vnm_a_panels_kernel<<<t_grid, dim3(kTransposeTile, kTransposeRowsPerPass), 0, stream>>>(pass);
    TESSERA_CUDA_CHECK_LAUNCH("vnm_a_panels_kernel");
  }
  if (l.copier == VnmCopier::ProducerWarpgroup) launch_producer_warpgroup(p, bm, grid, stream, layout.bytes());
  else launch_kernel<VnmCopier::ComputingWarp>(p, bm, grid, stream, layout.bytes());
}

}  // namespace tessera::kernels::cuda
