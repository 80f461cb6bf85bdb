#pragma once
/// \file
/// Tessera's CUDA SpGEMM on CSR arrays, C = A * B, fp32 and fp64, int column ids, int or int64
/// row offsets. Raw-pointer interface (no Kokkos), called by tessera::spgemm on Kokkos::Cuda.
///
/// Algorithm (kernels/src/spgemm/cuda/): row-wise (Gustavson), in two phases, rows binned by size,
/// every bin run by its own launch, the hash-table bins of a phase side by side on side streams.
///   * symbolic (SpgemmPlan::build): each row's product count bounds its length. A hash table of
///     column ids in shared memory per row (32 to 16384 slots; a group of 8, 16 or 32 lanes per row
///     for the small tables, a block per row for the large ones) counts its distinct columns; rows
///     past the largest table mark a bitmap in global memory (a block per row). The lengths are
///     scanned into C's row offsets and the rows binned again by their exact length;
///   * numeric (spgemm_numeric): a hash table of (column, value) in shared memory per row, at most
///     two thirds full, then the row is written out in column order: a table with a slot per column
///     (the identity as hash) is in order already; a group's small table is compacted and each entry
///     placed by the count of smaller columns; a block's table is sorted in place (bitonic). Rows too
///     long for shared memory, and large tables whose bitmap would be short, accumulate in a dense
///     array of values and a bitmap in global memory (a block per row, as many rows at a time as the
///     memory budget allows), read out in order by a scan of the bitmap between the row's lowest and
///     highest column;
///   * rows of many products (more than 2^16, or more than 512 per lane of their table's group:
///     short rows of C with few columns) are split in both phases: blocks take pieces of the
///     row of A and share the row's bitmap (and dense array) in global memory; a block per row
///     then counts (writes out) the row, so that a few long rows do not keep one block busy
///     long after the rest of the device is idle;
///   * a warp's group of lanes takes as many of A's entries at once as its row has (up to one lane
///     each), the lanes of each walking one row of B; a block's row spreads its products over its
///     warps in equal runs (a scan of the lengths of its rows of B), so that hub rows of B do not
///     keep a few lanes busy after the rest of the block is done;
///   * into a known pattern (an SpgemmHandle's later products), the dense-accumulator and split
///     rows add into a dense array without a bitmap and gather it at the pattern's columns; when
///     C's columns fit shared memory (two blocks per multiprocessor), a block keeps that array
///     there and runs those rows and the bins of large block tables through it;
///   * values are added with atomic adds, so the last bits of an entry may differ between calls;
///     entries whose products cancel stay in the pattern as explicit zeros, as on the host.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include <cuda_runtime_api.h>

#include "tessera/kernels/common/cuda/kernel_status.hpp"

namespace tessera::formats::cuda {
class DeviceScratch;
}  // namespace tessera::formats::cuda

namespace tessera::kernels::cuda {

/// Value types of the SpGEMM kernels.
enum class SpgemmType : int { F32 = 0, F64 = 1 };
/// Which accumulator the rows use: Auto (hash tables in shared memory, the dense accumulator
/// for rows past them), Hash (the same; named for the workspace policy), Dense (every row through
/// the dense accumulator).
enum class SpgemmAccumulator : int { Auto = 0, Hash = 1, Dense = 2 };

/// C = A * B, A rows x inner, B inner x cols, CSR arrays in device memory.
struct SpgemmArgs {
  SpgemmType type = SpgemmType::F64;                      ///< of the values of A, B and C
  bool a_wide = false;                                    ///< A's row offsets are int64 (else int)
  bool b_wide = false;                                    ///< B's row offsets are int64 (else int)
  bool c_wide = false;                                    ///< C's row offsets are int64 (else int)
  SpgemmAccumulator accumulator = SpgemmAccumulator::Auto;  ///< see SpgemmAccumulator
  std::int64_t rows = 0;                                  ///< A's and C's rows
  std::int64_t inner = 0;                                 ///< A's columns, B's rows
  std::int64_t cols = 0;                                  ///< B's and C's columns
  const void* a_pos = nullptr;                            ///< rows + 1 row offsets of A
  const int* a_crd = nullptr;                             ///< A's column ids
  const void* a_vals = nullptr;                           ///< A's values
  const void* b_pos = nullptr;                            ///< inner + 1 row offsets of B
  const int* b_crd = nullptr;                             ///< B's column ids
  const void* b_vals = nullptr;                           ///< B's values
  /// About B's mean row length (a power of two, 1 to 32). Below 32, a warp of a block's row takes
  /// products of several rows of B at once, which may share columns (add_to_column).
  int b_lanes = 1;
  /// Most device memory the dense accumulators of the long rows take together (at least one row's).
  std::size_t dense_budget_bytes = std::size_t{256} << 20;
};

/// Whether the SpGEMM kernels run these arguments (and why not).
KernelStatus spgemm_can_implement(const SpgemmArgs& args);

/// The symbolic phase's result for one pair of patterns: C's length and its rows binned for the
/// numeric phase. Keeps device memory (a row list, from the scratch pool on the stream of its
/// build) until destroyed.
class SpgemmPlan {
 public:
  /// Runs the symbolic phase on `stream` and writes C's rows + 1 row offsets to `c_pos` (device
  /// memory, args.c_wide's type). Synchronizes the stream (it reads bin sizes and C's length).
  /// Throws what spgemm_can_implement refuses, OverflowError when C's length does not fit int
  /// offsets (nothing of C's arrays allocated yet), CudaError.
  static std::shared_ptr<const SpgemmPlan> build(const SpgemmArgs& args, void* c_pos, cudaStream_t stream);
  ~SpgemmPlan();
  SpgemmPlan(const SpgemmPlan&) = delete;
  SpgemmPlan& operator=(const SpgemmPlan&) = delete;

  std::int64_t rows() const { return rows_; }          ///< C's rows
  std::int64_t nnz() const { return nnz_; }            ///< C's stored entries
  std::int64_t products() const { return products_; }  ///< multiply-adds of the product
  /// Peak device bytes of the symbolic phase's temporaries (the plan's row list included).
  std::size_t symbolic_bytes() const { return symbolic_bytes_; }
  /// Device bytes the plan keeps.
  std::size_t kept_bytes() const { return static_cast<std::size_t>(rows_) * sizeof(int); }
  /// Device: the rows, grouped by numeric bin.
  const int* binned_rows() const { return rows_by_bin_; }
  /// Host: where each numeric bin starts in binned_rows(), then rows().
  const std::vector<std::int64_t>& bin_starts() const { return bin_starts_; }
  /// The most blocks a row of the last bin (rows split over several blocks) takes.
  int split_pieces() const { return split_pieces_; }

 private:
  SpgemmPlan() = default;
  std::int64_t rows_ = 0, nnz_ = 0, products_ = 0;
  std::size_t symbolic_bytes_ = 0;
  int split_pieces_ = 0;
  std::unique_ptr<formats::cuda::DeviceScratch> rows_storage_;  // returned to the pool in stream order
  int* rows_by_bin_ = nullptr;
  std::vector<std::int64_t> bin_starts_;
};

/// The numeric phase: C's column ids and values, `c_pos` as written by the plan's build; with
/// `write_crd` false, C's values alone for the column ids `c_crd` of an earlier product of
/// operands with the same patterns (rows in tables find their entries by binary search). Throws what
/// spgemm_can_implement refuses, OutOfMemoryError for the dense accumulators, CudaError. Returns
/// the device bytes of its temporaries.
std::size_t spgemm_numeric(const SpgemmPlan& plan, const SpgemmArgs& args, const void* c_pos, int* c_crd,
                           void* c_vals, bool write_crd, cudaStream_t stream);

}  // namespace tessera::kernels::cuda
