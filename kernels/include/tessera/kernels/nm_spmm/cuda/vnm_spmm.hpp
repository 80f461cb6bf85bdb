#pragma once
/// \file
/// VNM SpMM on CUDA cores (fp32): C (m x n) = A (m x k, dense, row-major) * B (k x n, VNM).
/// Raw-pointer interface (no Kokkos): the Kokkos front end (tessera::nm_spmm) and the
/// stand-alone programs in perf_tests/vnm call the same code.
///
/// Algorithm (kernels/src/nm_spmm/cuda/vnm_spmm.cu):
///   * hierarchy: a thread block computes a (BM x kVnmTileCols) tile of C, BM = 128 (8 warps, one
///     block per SM) or 64 (4 warps) by shape; each warp a 64 x 64 tile (8 x 4 threads); each
///     thread 8 rows x 16 adjacent columns (one column group for L >= 16, 16 / L below), so each
///     shared-memory load feeds 32 FMAs or more;
///   * A is first rewritten into column panels (a stream-ordered workspace of about m x k floats:
///     per 128 rows, each column of A contiguous, zeros past m and k), one pass over A; a
///     column-major A (a_col_major, 16-byte aligned columns) already has its columns contiguous,
///     and plain plans copy their boxes from it directly (no pass, no workspace); a row-major A
///     may instead be staged as boxes of its own rows (VnmAStaging::RowBoxes: no pass, but eight
///     4-byte shared loads per stored row where the panels take two 16-byte ones), which pays
///     where each element of A feeds few products;
///   * k is walked in the stages of a stage plan (formats/vnm/staging.hpp): per stage, A columns
///     (transposed: one column contiguous, as in the panels), the stored rows of B and their
///     offsets go to shared memory by the copy engine (bulk tensor copies: a plain stage's A
///     columns as one box, B one box per window, the offsets one box), in two buffers
///     (kVnmPipelineStages) with a "full" and an "empty" mbarrier each: a copying warp issues a
///     stage's copies once every computing warp is done with the buffer's previous stage, and
///     each warp starts a stage as soon as its bytes landed (no block-wide barrier); on compute
///     capability 9.0 the copies come from a producer warpgroup that does nothing else (its
///     registers go to the computing warps, sm_90a's setmaxnreg), elsewhere from warp 0
///     between its own stages (VnmCopier);
///   * per stored row, a thread reads its groups' offsets (four at a time, the next four
///     prefetched into a register), loads its 8 A values of each group's column (two 16-byte
///     shared loads per group), its 16 B values (four 16-byte loads) and does 128 FMAs;
///   * plain plans stage whole windows; packed plans stage only the A columns the tile's groups
///     use (one copy per column), so a stage spans more windows and less of A is read, but the
///     copy engine's cost per copy makes them slower than plain ones (vnm_prefers_packed);
///   * the C tile goes back through shared memory (bank-swizzled) and is stored along whole rows
///     (c_col_major: whole columns);
///   * split-K over a tile's stages (C zeroed, 16-byte atomic adds along rows) when the tiles
///     cannot fill the GPU.
#include <cstddef>
#include <cstdint>
#include <string>

#include <cuda_runtime_api.h>
#include <vector_types.h>

#include "tessera/kernels/common/cuda/kernel_status.hpp"

namespace tessera::kernels::cuda {

inline constexpr int kVnmTileCols = 256;      ///< columns of C per thread block (multiple of every L)
inline constexpr int kVnmPipelineStages = 2;  ///< shared-memory buffers of the copy pipeline

/// Everything is raw device memory; the stage plan is formats/vnm/staging.hpp's VnmStagePlan,
/// built with tile_cols = kVnmTileCols, its arrays copied to the device.
struct VnmSpmmArgs {
  /// \var m
  /// Rows of A and C.
  /// \var k
  /// Columns of A, rows of B.
  std::int64_t m = 0, k = 0, n = 0;  ///< A m x k, B k x n, C m x n
  /// \var N
  /// Vectors kept per window.
  /// \var M
  /// Window length.
  int N = 0, M = 0, L = 0;            ///< pattern
  const float* A = nullptr;           ///< (m x k), row stride lda (column stride when a_col_major)
  std::int64_t lda = 0;               ///< elements between rows of A, or between its columns when a_col_major
  bool a_col_major = false;           ///< then plain plans read A's columns directly: no panel pass
  const float* vals = nullptr;        ///< (stored_rows x padded_cols)
  /// stored rows of B (w)
  std::int64_t stored_rows = 0, padded_cols = 0;  ///< padded columns of B (n_pad)
  bool packed = false;                          ///< plan layout: packed (per tile) or plain (shared)
  const std::int32_t* tile_stage_pos = nullptr;  ///< (tiles + 1), tiles = 1 when plain
  const int4* stage = nullptr;                   ///< (stages) {row, slots, cols, base}: VnmStage
  const std::int32_t* column_list = nullptr;     ///< (stages x kVnmStageColumns), packed only
  const std::uint8_t* offsets = nullptr;         ///< (groups x offsets_ld), kVnmOffsetRowBytes bytes of slack
  std::int64_t offsets_ld = 0;  ///< bytes per group row of offsets
  std::int64_t max_tile_stages = 0;              ///< most stages of any tile (host value)
  float* C = nullptr;  ///< (m x n), row stride ldc (column stride when c_col_major)
  std::int64_t ldc = 0;      ///< elements between rows of C, or between its columns when c_col_major
  bool c_col_major = false;  ///< C is column-major
};

/// Rows of C per thread block: 128 or 64.
enum class VnmRowTile : int { Rows128 = 0, Rows64 = 1 };
/// Who issues the copies: an extra producer warpgroup (the sm_90a build: compute capability
/// 9.0 devices only) or warp 0 of the computing warps (any device of compute capability 9.0
/// or newer); Auto: the producer warpgroup where the device runs it.
enum class VnmCopier : int { Auto = 0, ProducerWarpgroup = 1, ComputingWarp = 2 };

/// Where a plain plan's stages take a row-major A from: the column panels, or boxes of A's
/// rows. RowBoxes applies to M = 32, N % 4 == 0, L >= 16, m % 4 == 0 and 16-byte aligned rows
/// of A (elsewhere, or for packed plans and column-major A, the request falls back to what runs
/// without it). Auto: RowBoxes where it applies and each element of A feeds few products
/// (n * N / M at most a threshold measured per compute capability: the panel pass they save
/// costs less than their extra shared loads only there).
enum class VnmAStaging : int { Auto = 0, Panels = 1, RowBoxes = 2 };

/// How vnm_spmm runs: the block tile, K splits, who copies, and where A is staged from.
struct VnmLaunch {
  VnmRowTile rows = VnmRowTile::Rows128;      ///< rows of C per block
  int split_k = 1;                            ///< stage ranges run by different blocks, summed with atomics
  VnmCopier copier = VnmCopier::Auto;         ///< who issues the copies
  VnmAStaging a_staging = VnmAStaging::Auto;  ///< where a plain plan's stages take A from
  std::string describe() const;               ///< the launch as text
};

/// Whether VnmAStaging::RowBoxes applies to these arguments (see VnmAStaging).
bool vnm_row_boxes_apply(const VnmSpmmArgs& args);
/// Whether the packed layout pays for a pattern (few of a stage's columns used per tile).
bool vnm_prefers_packed(int N, int M, int L);
/// The launch vnm_spmm picks for these arguments on the current device: estimated on every
/// call (a little host arithmetic) and kept nowhere.
VnmLaunch vnm_choose_launch(const VnmSpmmArgs& args);
/// Whether vnm_spmm runs these arguments with `launch` (null: vnm_choose_launch's) on the current
/// device: `reason` is the message of the tessera::ShapeError or tessera::NotCompiled that
/// vnm_spmm would throw.
KernelStatus vnm_can_implement(const VnmSpmmArgs& args, const VnmLaunch* launch = nullptr);
/// Bytes that the run takes from the stream-ordered workspace pool: the column panels of A
/// (about m x k floats) where its stages do not read A itself. Throws tessera::ShapeError on
/// inconsistent arguments.
std::size_t vnm_workspace_bytes(const VnmSpmmArgs& args, const VnmLaunch* launch = nullptr);
/// Runs on `stream`; `launch` null: vnm_choose_launch. Throws tessera::ShapeError on
/// inconsistent arguments, tessera::NotCompiled where the device cannot run the launch,
/// tessera::CudaError on CUDA failures.
void vnm_spmm(const VnmSpmmArgs& args, cudaStream_t stream, const VnmLaunch* launch = nullptr);

}  // namespace tessera::kernels::cuda
