#pragma once
/// \file
/// TCA-SpMM: Tessera's tensor-core CSR x dense SpMM for CUDA, C = alpha*A*B + beta*C.
/// Raw-pointer interface (no Kokkos): the Kokkos front end (tessera::spmm) and the
/// stand-alone perf/check programs in perf_tests/spmm_tca call the same code.
///
/// Algorithm (kernels/src/spmm/cuda/spmm_tca_*.cu, the kernels in spmm_tca_*_kernel.cuh):
///   * rows are grouped in windows of kWindowRows = 8 consecutive rows; the nonzeros
///     of a window are contiguous in CSR, and are walked in chunks of kChunkNnz = 16;
///   * one MMA computes a (16 B-columns) x (8 window rows) output tile:
///       MMA-A (16 x 16, M x K) = the chunk's 16 gathered rows of B, restricted to 16
///                                 columns (staged in shared memory with 16-byte
///                                 cp.async loads, read back with ldmatrix.trans);
///       MMA-B (16 x 8,  K x N) = the chunk's values, value k placed in column n
///                                 iff nonzero k belongs to window row n (one-hot);
///     so every K slot of every MMA carries a real nonzero whatever the row lengths
///     (only the window's last chunk is padded), and short rows share MMAs;
///   * fp16/bf16: mma.m16n8k16 with fp32 accumulation; fp32: TF32 mma.m16n8k8 (two
///     per chunk); fp64, fp32 without TF32 and any case tca_choose rejects (among them fp32
///     plans of even or long rows, where it reads B at half the L1 cost): the CUDA-core row
///     split, a warp per row and column tile, 16-byte lane reads of B (read in place, or
///     packed row-major first as for the tensor cores); rows longer than the plan's row
///     chunk are cut into chunks run by
///     separate warps, each chunk's sum stored in a workspace row of its own and added up
///     by a finalize kernel in a fixed order (so one long row no longer holds up the launch,
///     and results are the same bits from call to call);
///   * column tiles of B, one grid row per tile: fp16/bf16 64 columns (32 where n <= 32 or
///     the 64-column grid would not fill the GPU; 128 where they divide n and the plan's
///     segments are long), TF32 32 columns (64 where n > 32 and the segments are long);
///   * each warp stages its work item's column ids and values in shared memory with one
///     burst of loads, so the chunk loop waits only on the B gathers;
///   * load balance: a window with more nonzeros than the plan's segment size is split into
///     up to kBlockWarps segments run by consecutive warps of ONE thread block, whose partial
///     tiles are summed in shared memory (no workspace). Only a window with more than
///     kBlockWarps * kSegmentNnz nonzeros is split across blocks, cut into items of the plan's
///     segment size like every other window. Where its blocks fit one thread-block cluster
///     (16 on compute capability 9.0) and the grid is small, they are one cluster's (the window
///     then cut into equal items, kBlockWarps per block): each leaves its sum in its shared
///     memory and, after the cluster barrier, each adds up a share of the window's tile over
///     all of them (reading the others' shared memory) and writes C. Otherwise each block stores
///     its sum in an fp32 workspace tile of its own and a finalize kernel adds the
///     tiles and writes C (alpha, beta there). Both add the blocks in a fixed order.
///     The segment size follows nnz and the multiprocessor count, so small matrices with
///     long rows still fill the GPU.
///   * shared columns (the "compressed RHS buffer"): where the rows of a window use the same
///     columns often enough (plans built with the column ids, window column reuse at least
///     the plan's threshold), a window's K slots are its distinct columns instead of its
///     nonzeros: each column's B row is gathered once per window and one MMA K slot carries
///     all the window's values in that column (up to 8, one per window row, read through a
///     per-slot row mask). Gathers and MMAs drop by the reuse.
/// The plan (per matrix, depends on the row offsets, the column ids where given, and the device)
/// holds the work items.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include <cuda_runtime_api.h>

#include "tessera/kernels/common/cuda/kernel_status.hpp"

namespace tessera::kernels::cuda {

/// Rows of a window (the tensor-core kernel's MMA M).
inline constexpr int kWindowRows = 8;
/// Nonzeros of a chunk (the MMA K).
inline constexpr int kChunkNnz = 16;
inline constexpr int kSegmentNnz = 256;       ///< largest work item (nonzeros), staged in shared memory
inline constexpr int kMinSegmentNnz = 32;     ///< smallest segment the automatic choice picks
inline constexpr int kBlockWarps = 4;         ///< warps per block of the tensor-core kernel
inline constexpr int kTargetWarpsPerSm = 16;  ///< automatic segment size aims at this many items per SM
/// Row chunks of the CUDA-core row split (automatic size: about kRowChunkWarpsPerSm chunks' worth
/// of nonzeros per SM, within [kMinRowChunkNnz, kMaxRowChunkNnz]).
inline constexpr int kMinRowChunkNnz = 32;
inline constexpr int kMaxRowChunkNnz = 256;     ///< largest automatic row chunk
inline constexpr int kRowChunkWarpsPerSm = 32;  ///< row chunks per SM the automatic size aims at

/// The two kernels: tensor cores over row windows, or CUDA cores with a warp per row (chunk).
enum class TcaKernel : int { TensorCore = 0, CudaCoreRowSplit = 1 };

/// Name of a kernel, e.g. "TensorCore".
inline const char* to_string(TcaKernel k) {
  return k == TcaKernel::TensorCore ? "TensorCore" : "CudaCoreRowSplit";
}

/// Element types of the raw interface: float, double, __half, __nv_bfloat16 (passed
/// as these tags so this header needs no CUDA half headers).
enum class TcaType : int { F32 = 0, F64 = 1, F16 = 2, BF16 = 3 };

/// What a TcaPlan holds: sizes and statistics of its work items.
struct TcaPlanStats {
  /// rows of the matrix
  std::int64_t rows = 0, nnz = 0;          ///< nonzeros of the matrix
  std::int64_t windows = 0;                ///< ceil(rows / kWindowRows)
  std::int64_t work_items = 0;             ///< segments (one warp each); windows + extra segments
  std::int64_t blocks = 0;                 ///< thread blocks of kBlockWarps warp slots (some slots idle)
  std::int64_t grouped_windows = 0;        ///< windows split across the warps of one block
  std::int64_t split_windows = 0;          ///< windows split across blocks
  std::int64_t cluster_windows = 0;        ///< of them, those summed in a cluster's shared memory (a cluster layout's)
  int cluster_blocks = 1;                  ///< blocks per cluster of this layout's launch (1: no clusters)
  std::int64_t split_parts = 0;            ///< blocks of the others: one workspace tile of kWindowRows x N floats each
  std::int64_t split_finalize_blocks = 0;  ///< blocks of the kernel adding up the parts (x 32-column tiles)
  std::int64_t max_row_nnz = 0;            ///< nonzeros of the longest row
  double mean_row_nnz = 0;                 ///< nonzeros per row, on average
  std::int64_t nonempty_rows = 0;          ///< rows with a nonzero (the CUDA-core row split's warps that work)
  /// Fraction of MMA K slots that hold a real nonzero (padding of the last chunk of
  /// each work item is the waste).
  double chunk_fill = 0;
  int segment_nnz = 0;   ///< target nonzeros per work item
  int max_item_nnz = 0;  ///< largest work item (picks the kernel's shared-memory staging size)
  int sm_count = 0;      ///< multiprocessors of the device the plan was built on (picks the tile width)
  /// CUDA-core row split: rows with more than row_chunk_nnz nonzeros are cut into row_chunks
  /// pieces of at most that many, one workspace row of N each.
  int row_chunk_nnz = 0;
  /// rows cut into chunks
  std::int64_t chunked_rows = 0, row_chunks = 0;  ///< pieces of the chunked rows
  std::int64_t row_split_items = 0;  ///< work items the row split lists (0: none chunked, one per row in order)
  std::int64_t chunk_finalize_blocks = 0;  ///< blocks of the kernel adding up the chunks (x 32-column tiles)
  /// Window column reuse: nnz / (sum over windows of their distinct columns); 0 where the plan
  /// was built without column ids or a row holds a column twice. shared_columns: the tensor-core kernel's K slots are the
  /// windows' distinct columns (`slots` of them; work items then count slots, not nonzeros).
  double window_column_reuse = 0;
  bool shared_columns = false;  ///< the K slots are shared columns
  std::int64_t slots = 0;       ///< shared-column slots
};

/// Plans built with column ids share a window's columns when their reuse reaches this. Below it
/// the row mask lookup per value and the value permutation cost more than the removed gathers
/// save (perf_tests/results/spmm_tca_h100.md has the measurements).
inline constexpr double kSharedColumnMinReuse = 3.0;

/// Per-matrix plan: kBlockWarps work items per block (int4 {first row, nnz begin, nnz end (slot
/// begin, end with shared columns), packed part id / group size / rank}) and the split windows, in device memory.
class TcaPlan {
 public:
  /// pos_host: rows + 1 row offsets (host memory). segment_nnz: target nonzeros per work
  /// item, a multiple of kChunkNnz in [kChunkNnz, kSegmentNnz]; <= 0 (default) picks it
  /// from nnz and the current device's multiprocessor count (about kTargetWarpsPerSm items
  /// per SM, within [kMinSegmentNnz, kSegmentNnz]). Synchronous; throws CudaError.
  /// row_chunk_nnz: longest row the row split runs as one piece (>= 1); <= 0 (default) picks
  /// it from nnz and the multiprocessor count (kRowChunkWarpsPerSm and the bounds above), and
  /// cuts no row where none holds more than 2.5x the mean.
  /// crd_host (nnz column ids, host memory, optional): lets the plan share columns within
  /// windows where window_column_reuse >= shared_column_min_reuse (0 forces it on every matrix
  /// without duplicate entries in a row; a plan with shared columns depends on the column ids
  /// too, and is only valid for the pattern it was built from).
  /// The plan sums split windows in a workspace. Where every split window's blocks fit one
  /// cluster of at most max_cluster_blocks (<= 0, the default, or more than the device allows:
  /// the device's limit, 16 on compute capability 9.0, 8 after, none before; 1: no clusters),
  /// it also holds a cluster layout (cluster_layout()), which spmm_tca runs where the grid is
  /// small (about one wave).
  static std::shared_ptr<const TcaPlan> build(const int* pos_host, std::int64_t rows, int segment_nnz = 0,
                                              int row_chunk_nnz = 0, const int* crd_host = nullptr,
                                              double shared_column_min_reuse = kSharedColumnMinReuse,
                                              int max_cluster_blocks = 0);

  /// Sizes and statistics of the plan.
  const TcaPlanStats& stats() const noexcept { return stats_; }
  /// The same windows with every split window in one cluster (the first blocks of the grid,
  /// cut into kBlockWarps equal items per block; no workspace, no finalize kernel), or null. A
  /// plan of its own: passed to spmm_tca directly it always runs in clusters.
  const TcaPlan* cluster_layout() const noexcept { return cluster_layout_.get(); }
  /// Work items in device memory, kBlockWarps per block (int4 each).
  const void* items() const noexcept { return items_.get(); }
  /// Split windows summed in the workspace: first row of each, and the first of its parts
  /// (split_windows - cluster_windows + 1 entries).
  const int* split_rows() const noexcept { return static_cast<const int*>(split_rows_.get()); }
  /// First part of each split window (see split_rows()).
  const int* split_part_begin() const noexcept { return static_cast<const int*>(split_part_begin_.get()); }
  /// Work of the kernel that adds up the parts of split windows / the chunks of chunked rows
  /// (spmm_tca_internal.cuh's FinalizeSlot, one per warp).
  const void* split_finalize_slots() const noexcept { return split_finalize_slots_.get(); }
  /// Work of the kernel that adds up the chunks of chunked rows.
  const void* chunk_finalize_slots() const noexcept { return chunk_finalize_slots_.get(); }
  /// Row split: its work items ({row, nnz begin, nnz end, workspace row or -1}, 16 bytes each:
  /// the chunks and the unchunked rows, longest first; null without chunked rows), the chunked
  /// rows, and the first chunk (workspace row) of each (chunked_rows + 1 entries).
  const void* row_split_items() const noexcept { return row_split_items_.get(); }
  /// Chunked rows (see row_split_items()).
  const int* chunked_row_ids() const noexcept { return static_cast<const int*>(chunked_rows_.get()); }
  /// First chunk (workspace row) of each chunked row (chunked_rows + 1 entries).
  const int* chunked_row_first_chunk() const noexcept { return static_cast<const int*>(chunked_row_first_chunk_.get()); }
  /// Shared columns (null otherwise): per slot its column, the window rows holding it (bit r:
  /// row r of the window) and the index of its first value in value_perm (slots + 1 entries);
  /// value_perm lists the CSR value indices slot by slot, by row within a slot.
  const int* slot_cols() const noexcept { return static_cast<const int*>(slot_cols_.get()); }
  /// Window rows holding each slot's column (bit r: row r of the window).
  const unsigned char* slot_rows() const noexcept { return static_cast<const unsigned char*>(slot_rows_.get()); }
  /// Index of each slot's first value in value_perm (slots + 1 entries).
  const int* slot_value_begin() const noexcept { return static_cast<const int*>(slot_value_begin_.get()); }
  /// CSR value indices slot by slot, by row within a slot.
  const int* value_perm() const noexcept { return static_cast<const int*>(value_perm_.get()); }
  /// The plan's statistics as text.
  std::string describe() const;

 private:
  static std::shared_ptr<TcaPlan> build_layout(const int* pos_host, std::int64_t rows, int segment_nnz,
                                               int row_chunk_nnz, const int* crd_host, double shared_column_min_reuse,
                                               int max_cluster_blocks);
  TcaPlanStats stats_;
  std::shared_ptr<const TcaPlan> cluster_layout_;
  std::shared_ptr<void> items_, split_rows_, split_part_begin_, row_split_items_, chunked_rows_, chunked_row_first_chunk_;
  std::shared_ptr<void> split_finalize_slots_, chunk_finalize_slots_;
  std::shared_ptr<void> slot_cols_, slot_rows_, slot_value_begin_, value_perm_;
};

/// Dense operand: element (i, j) at ptr[i*row_stride + j*col_stride].
struct DenseRef {
  const void* ptr;  ///< element (0, 0)
  /// elements between rows
  std::int64_t row_stride, col_stride;  ///< elements between columns
};

/// Raw arguments of spmm_tca: C = alpha * A * B + beta * C, A in CSR arrays.
struct TcaArgs {
  TcaType type;  ///< element type of A, B and C
  /// \var rows
  /// Rows of A and C.
  /// \var cols
  /// Columns of A, rows of B.
  std::int64_t rows, cols, n;   ///< A is rows x cols, B cols x n, C rows x n
  const int* pos;               ///< (rows + 1)
  const int* crd;               ///< (nnz)
  const void* vals;             ///< (nnz)
  DenseRef B;                   ///< (cols x n)
  void* C;                      ///< (rows x n), strides below
  /// Strides of C, in elements.
  std::int64_t c_row_stride, c_col_stride;  ///< elements between columns of C
  /// scale of the product
  double alpha, beta;           ///< beta == 0: C is not read
};

/// True when the kernels can read B in place (row-major, 16-byte aligned rows and base, N a
/// multiple of 16 bytes); otherwise spmm_tca packs B into a row-major temporary first.
bool tca_b_in_place(const TcaArgs& args);
/// Whether the element type has a tensor-core kernel (fp64 does not).
bool tca_has_tensor_core(TcaType type);
/// The kernel Auto picks: TensorCore when the type has one (fp32 only with allow_tf32),
/// B is usable in place and n >= 16, except fp32 at n > 32 where the rows average 64 nonzeros
/// or more, or fill the GPU and are even or average 24 or more (CUDA cores read B through L1
/// at half the cost there); CudaCoreRowSplit otherwise.
TcaKernel tca_choose(const TcaPlan& plan, const TcaArgs& args, bool allow_tf32);

/// Where tca_tune's samples find A and B. The faster kernel can differ: with B in L2 the
/// row split's 16-byte reads through L1 gain on matrices where, with B read from DRAM, the
/// tensor cores win (perf_tests/results/spmm_tca_h100.md).
enum class TcaTuneCache {
  ColdL2,  ///< each sample after a write of twice the L2: A and B come from DRAM, as for
           ///< operands produced long before the call or larger than the L2
  WarmL2,  ///< A and B left in L2 by the previous call, as for a B produced just before the
           ///< call (a GNN layer's features) or multiplied again and again while it fits
};

/// \fn TcaKernel tca_tune(const TcaPlan&, const TcaArgs&, bool, cudaStream_t, TcaTuneCache)
/// Measures instead of guessing: times both kernels on these arguments (after a warm-up call,
/// five calls each, alternating, on `stream`, from the L2 state `cache` names, into a scratch
/// C of its own in args.C's layout: args.C is neither read nor written) and returns the
/// faster. It keeps tca_choose's pick unless the other kernel's median time is less than
/// kTuneMinGain of its own. Synchronous, allocates rows x n elements (and, for ColdL2, twice
/// the L2 size) while it runs, and throws tessera::Error while `stream` is being captured into
/// a graph. Only types with a tensor-core kernel (fp32 with allow_tf32) have a choice to make;
/// the others return tca_choose at once. Meant for a matrix multiplied many times with one N
/// (iterative solvers, GNN training): the caller keeps the result.
inline constexpr float kTuneMinGain = 0.97f;  ///< least gain for tca_tune to leave tca_choose's pick
TcaKernel tca_tune(const TcaPlan& plan, const TcaArgs& args, bool allow_tf32, cudaStream_t stream,
                   TcaTuneCache cache = TcaTuneCache::ColdL2);

/// Whether spmm_tca(&plan, kernel, args, ...) sums split windows in clusters (the plan's cluster
/// layout on a small enough grid, or a cluster layout passed as the plan).
bool tca_runs_clusters(const TcaPlan& plan, TcaKernel kernel, const TcaArgs& args);

/// Whether spmm_tca accepts a call, answered without running it (as CUTLASS's can_implement):
/// ok, or the message spmm_tca would throw, as tessera::NotCompiled where no kernel exists for
/// the type (not_compiled) and as tessera::ShapeError for bad arguments. A call with rows or n
/// zero is accepted whatever else it holds: it does nothing.
/// The checks of the arguments alone; crd and vals are not checked (whether they may be null
/// depends on nnz, which the plan knows).
KernelStatus tca_can_implement(const TcaArgs& args, TcaKernel kernel);
/// Every check spmm_tca(plan, kernel, args, ...) makes before it enqueues anything.
KernelStatus tca_can_implement(const TcaPlan* plan, TcaKernel kernel, const TcaArgs& args);

/// Bytes spmm_tca(plan, kernel, args, ...) holds at once from its stream-ordered workspace pool
/// (kept by the library between calls): the packed copy of B where tca_b_in_place is false, and
/// the workspace of split windows (TensorCore) or of row chunks (CudaCoreRowSplit). 0 for calls
/// tca_can_implement rejects. tca_tune's scratch and L2 flush buffers are not from this pool.
std::size_t tca_workspace_bytes(const TcaPlan* plan, TcaKernel kernel, const TcaArgs& args);

/// Runs the chosen kernel on `stream`. `plan` may be null for CudaCoreRowSplit, which then runs
/// every row as one piece (a warp per row: slow where a few rows are long).
/// Throws tessera::CudaError on any CUDA failure, what tca_can_implement reports (as
/// tessera::NotCompiled or tessera::Error), and tessera::Error where a launch would pass a grid limit.
void spmm_tca(const TcaPlan* plan, TcaKernel kernel, const TcaArgs& args, cudaStream_t stream);

}  // namespace tessera::kernels::cuda
