#pragma once
// What the TCA-SpMM sources share: the work lists the plan builds and the kernels read, and the
// host rules that more than one of them applies (tile width, launch layout, workspace sizes).
// Private to kernels/src/spmm/cuda; not installed.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "tessera/kernels/spmm/cuda/spmm_tca.hpp"

namespace tessera::kernels::cuda::tca_detail {

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
constexpr int kItemMaxClusterBlocks = 32;          // what its cluster fields hold (5 bits each)

// One warp's share of the finalize kernel: C row split_row of the splits (split *
// rows_per_split + row within the split), the parts rank, rank + group, ... of it (group:
// consecutive warps of one block; 0: idle slot).
struct FinalizeSlot {
  int split_row;
  short group, rank;
};
constexpr int kFinalizeBlockWarps = 32;

// A work item of the vectorised row split: nonzeros [begin, end) of `row`, the whole row or a
// piece of it (a chunk), whose sum goes to workspace row `ws_row` (-1: a whole row, straight to C).
struct alignas(16) RowChunk {
  int row, begin, end, ws_row;
};

// Rows are "even" when none holds more than this many times the mean: a warp per row is then
// balanced as it is (tca_choose, and no row chunks in an automatic plan).
constexpr double kRegularRowSpread = 2.5;

// Shared columns (spmm_tca_plan_columns.cu): each window's distinct columns become its K slots
// (sorted by column), with a mask of the window rows that hold each and its values listed slot
// by slot; the TcaPlan accessors of the same names say more.
struct WindowSlots {
  std::vector<int> cols, value_begin, value_perm;
  std::vector<unsigned char> rows;
  std::vector<int> window_first_slot;  // windows + 1 entries
};
double window_column_reuse(const int* pos_host, const int* crd_host, std::int64_t rows);
// For a pattern where no row holds a column twice (window_column_reuse > 0).
WindowSlots window_slots(const int* pos_host, const int* crd_host, std::int64_t rows);

// The tensor-core kernel, its finalize and the transposing repack of B count 32-column tiles
// in gridDim.y, which holds at most 65535; wider products run as column slices of this many
// columns (a multiple of every column tile, so only the last slice has a partial tile).
constexpr std::int64_t kSliceColumns = 65532LL * 32;
// Columns [j, j + kSliceColumns) of the product (fewer in the last slice).
TcaArgs column_slice(const TcaArgs& a, std::int64_t j);

std::size_t elem_size(TcaType t);

// Column tile of the tensor-core kernel for these arguments (32, 64 or 128 columns).
int tensor_core_tile(const TcaPlan& plan, const TcaArgs& a);
// The layout the tensor-core kernel runs with column tile bn: the plan's cluster layout where
// it has one and the grid is small enough, else the plan.
const TcaPlan& tensor_core_layout(const TcaPlan& plan, const TcaArgs& a, int bn);

// Temporaries spmm_tca takes from formats::cuda::device_scratch_pool(), per column slice. The launchers allocate
// these sizes and tca_workspace_bytes adds them up, so the two agree.
// Elements of the row-major copy of B the kernels read where B is not usable in place (0 where it is).
std::size_t packed_b_elems(const TcaArgs& a);
// Columns of each row of B as the kernels load it: n, or n padded to 16 bytes where packed.
int b_load_width(const TcaArgs& a);
// Row length of the tensor-core kernel's fp32 workspace: whole quads (the epilogue's float4 stores).
int tensor_core_ws_ld(const TcaArgs& a);
// fp32 elements of the tensor-core kernel's workspace: one tile per part of a split window.
std::size_t tensor_core_ws_elems(const TcaPlan& layout, const TcaArgs& a);
// Accumulator elements (fp32, fp64 for fp64) of the row split's workspace: one row per chunk.
std::size_t row_split_ws_elems(const TcaPlan* plan, const TcaArgs& a);

}  // namespace tessera::kernels::cuda::tca_detail
