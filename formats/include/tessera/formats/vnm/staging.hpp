#pragma once
/// \file
/// Offline preprocessing of VNM meta for tiled kernels (no Kokkos; see vnm/pattern.hpp).
///
/// A tiled kernel computes C in column tiles of tile_cols columns (a multiple of L) and walks k
/// in stages. A stage is a run of consecutive windows: the kernel copies the stage's stored rows
/// of B (at most kVnmStageSlots) and the columns of A they multiply (at most kVnmStageColumns)
/// into shared memory, A transposed so that one column is contiguous.
///  * plain layout: every stage holds vnm_plain_stage_windows whole windows (the stage limits
///    below) and all their M columns of A; the same stages serve every column tile;
///  * packed layout (high sparsity): the column info of a tile, (tiles x windows) uint32 with
///    bit d set iff some group of the tile keeps position d of the window, says which A columns
///    the tile needs at all; the tile's stages then hold only those columns (the column list),
///    and as many windows as fit the stage limits, so sparse
///    tiles get long stages and copy a fraction of A (on-line packing by column info).
/// Offsets (groups x offsets_ld bytes, group-major): for each stored row, the position inside
/// its stage's staged A columns of the column it multiplies. A stage's offsets start at a
/// multiple of 16 (VnmStage::base) and offsets_ld is one too, so a kernel copies a stage's
/// offsets of a group as one 16-byte-aligned run of kVnmOffsetRowBytes and reads them four at a
/// time; padding bytes are 0, and every row ends with that much slack.
#include <algorithm>
#include <cstdint>
#include <vector>

#include "tessera/formats/vnm/pattern.hpp"

namespace tessera {

/// \name Stage limits
/// Stage limits. A stage ends before a window that would take it past kVnmStageColumns A
/// columns, kVnmStageSlots stored rows, or kVnmStageBytes of A (128 rows) and B (tile_cols
/// columns, its rows rounded up to a multiple of 4, as the kernel reads four at a time) in
/// fp32: two such buffers, with the offsets and records, fit the 227 KiB of shared
/// memory a Hopper block may use, and the longer the stage the less often the CUDA kernel pays
/// its per-stage costs (waits, record, copy issue). Offsets are bytes, so columns stay below 256.
///@{
inline constexpr int kVnmStageColumns = 160;           ///< A columns staged at once
inline constexpr int kVnmStageSlots = 48;              ///< stored rows of B staged at once
inline constexpr int kVnmStageBytes = 110 * 1024;      ///< A and B bytes of a stage
inline constexpr int kVnmStageColumnRows = 128;        ///< rows of an A column, as the bytes count them
/// True when a stage of `cols` A columns and `slots` stored rows fits the stage limits.
inline bool vnm_stage_fits(int cols, int slots, int tile_cols) {
  return cols <= kVnmStageColumns && slots <= kVnmStageSlots &&
         static_cast<std::int64_t>(cols) * kVnmStageColumnRows * 4 +
                 static_cast<std::int64_t>((slots + 3) / 4 * 4) * tile_cols * 4 <=
             kVnmStageBytes;
}
///@}
/// Windows in every stage of a plain plan but the last, which may hold fewer.
inline int vnm_plain_stage_windows(int n, int m, int tile_cols) {
  int w = 1;
  while (vnm_stage_fits((w + 1) * m, (w + 1) * n, tile_cols)) ++w;
  return w;
}
/// A stage's offsets of one group, rounded up to whole 16-byte pieces.
inline constexpr int kVnmOffsetRowBytes = (kVnmStageSlots + 15) / 16 * 16;

/// One stage, 16 bytes so that a kernel fetches it with one load.
struct VnmStage {
  std::int32_t row = 0;    ///< first stored row (window * N)
  std::int32_t slots = 0;  ///< stored rows (windows * N), <= kVnmStageSlots
  std::int32_t cols = 0;   ///< A columns staged, <= kVnmStageColumns
  std::int32_t base = 0;   ///< first offset byte in a group row, multiple of 16
};
static_assert(sizeof(VnmStage) == 16, "one 16-byte load per stage");

/// Stages of a tiled kernel over one VNM matrix (see the file's comment).
struct VnmStagePlan {
  int tile_cols = 0;                          ///< columns of a tile (a multiple of L)
  bool packed = false;                        ///< packed layout (column list per tile)
  std::int64_t tiles = 0;                     ///< column tiles (packed) or 1 (plain: shared by all tiles)
  std::vector<std::int32_t> tile_stage_pos;   ///< (tiles + 1): stages of tile t are [pos[t], pos[t + 1])
  std::vector<VnmStage> stage;                ///< (stages)
  std::vector<std::int32_t> column_list;      ///< (stages x kVnmStageColumns) A columns, packed only
  std::vector<std::uint32_t> column_info;     ///< (tiles x windows), packed only
  std::int64_t offsets_ld = 0;                ///< bytes per group row, multiple of 16 (slack included)
  std::vector<std::uint8_t> offsets;          ///< (groups x offsets_ld)
  /// Number of stages.
  std::int64_t stages() const { return static_cast<std::int64_t>(stage.size()); }
};

/// Column tiles of tile_cols columns over the padded columns.
inline std::int64_t vnm_column_tiles(const VnmExtents& e, int tile_cols) {
  return (e.padded_cols + tile_cols - 1) / tile_cols;
}

/// Column info alone: (tiles x windows) masks of the positions some group of the tile keeps.
inline std::vector<std::uint32_t> vnm_column_info(const std::uint8_t* meta, const VnmExtents& e, const VnmPattern& p,
                                                  int tile_cols) {
  const std::int64_t tiles = vnm_column_tiles(e, tile_cols), groups_per_tile = tile_cols / p.l;
  std::vector<std::uint32_t> info(tiles * e.windows, 0u);
  for (std::int64_t r = 0; r < e.stored_rows; ++r)
    for (std::int64_t g = 0; g < e.groups; ++g)
      info[(g / groups_per_tile) * e.windows + r / p.n] |= 1u << meta[r * e.groups + g];
  return info;
}

/// The stage plan of a matrix's meta for column tiles of `tile_cols` columns, plain or packed.
inline VnmStagePlan vnm_stage_plan(const std::uint8_t* meta, const VnmExtents& e, const VnmPattern& p, int tile_cols,
                                   bool packed) {
  check_vnm_pattern(p);
  if (tile_cols <= 0 || tile_cols % p.l != 0)
    throw ShapeError("VNM column tile of " + std::to_string(tile_cols) + " columns is not a multiple of L = " +
                     std::to_string(p.l));
  VnmStagePlan plan;
  plan.tile_cols = tile_cols;
  plan.packed = packed;
  plan.tiles = packed ? vnm_column_tiles(e, tile_cols) : 1;
  if (packed) plan.column_info = vnm_column_info(meta, e, p, tile_cols);
  // Stage boundaries: whole windows while columns and rows fit.
  std::vector<std::int64_t> window_stage(plan.tiles * e.windows);
  std::vector<int> window_col(plan.tiles * e.windows);  // first staged column of the window in its stage
  plan.tile_stage_pos.push_back(0);
  std::int64_t slot_space = 0;  // largest offset row needed by a tile
  for (std::int64_t t = 0; t < plan.tiles; ++t) {
    std::int64_t used_bytes = 0;
    int cols = kVnmStageColumns + 1, slots = 0;
    for (std::int64_t w = 0; w < e.windows; ++w) {
      const int need = packed ? __builtin_popcount(plan.column_info[t * e.windows + w]) : p.m;
      if (!vnm_stage_fits(cols + need, slots + p.n, tile_cols)) {  // open a new stage
        if (plan.stages() > plan.tile_stage_pos.back()) used_bytes += (plan.stage.back().slots + 15) / 16 * 16;
        plan.stage.push_back({static_cast<std::int32_t>(w * p.n), 0, 0, static_cast<std::int32_t>(used_bytes)});
        if (packed) plan.column_list.resize(plan.column_list.size() + kVnmStageColumns, 0);
        cols = slots = 0;
      }
      const std::int64_t s = plan.stages() - 1;
      window_stage[t * e.windows + w] = s;
      window_col[t * e.windows + w] = cols;
      if (packed) {
        const std::uint32_t used = plan.column_info[t * e.windows + w];
        for (int d = 0, c = cols; d < p.m; ++d)
          if (used >> d & 1u) plan.column_list[s * kVnmStageColumns + c++] = static_cast<std::int32_t>(w * p.m + d);
      }
      cols += need;
      slots += p.n;
      plan.stage[s].cols = cols;
      plan.stage[s].slots = slots;
    }
    if (plan.stages() > plan.tile_stage_pos.back()) used_bytes += (plan.stage.back().slots + 15) / 16 * 16;
    slot_space = std::max(slot_space, used_bytes);
    plan.tile_stage_pos.push_back(static_cast<std::int32_t>(plan.stages()));
  }
  plan.offsets_ld = slot_space + kVnmOffsetRowBytes;
  plan.offsets.assign(e.groups * plan.offsets_ld, 0);
  const std::int64_t groups_per_tile = tile_cols / p.l;
  for (std::int64_t r = 0; r < e.stored_rows; ++r) {
    const std::int64_t w = r / p.n;
    for (std::int64_t g = 0; g < e.groups; ++g) {
      const std::int64_t t = packed ? g / groups_per_tile : 0, s = window_stage[t * e.windows + w];
      const int d = meta[r * e.groups + g];
      const int rank = packed ? __builtin_popcount(plan.column_info[t * e.windows + w] & ((1u << d) - 1u)) : d;
      plan.offsets[g * plan.offsets_ld + plan.stage[s].base + (r - plan.stage[s].row)] =
          static_cast<std::uint8_t>(window_col[t * e.windows + w] + rank);
    }
  }
  return plan;
}

}  // namespace tessera
