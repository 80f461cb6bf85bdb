#pragma once
/// \file
/// Workspace policies: the type a kernel takes to decide how it accumulates the
/// entries it scatters into a compressed result (insert-sort-merge, ISM).
/// \code{.unparsed}
///   Dense     flag array over the whole output range (Gustavson).
///   Bucket    accumulation array of L = extent of the first output level buckets, h = i.
///   Hash      open-addressing table of L = 2^ceil(log2 nnz) slots, h = (i*J + j) mod L.
///   Coord     append-only coordinate list, lexicographic sort of accumulation ids when full.
///   Map       one sorted array, kept sorted on every insert (single-array extreme).
///   SortOnce  one unsorted array, sorted once at the end (single-array extreme).
///   Auto      Dense or Hash per call, from shapes, an nnz estimate and a memory budget.
/// \endcode
#include <cstdint>

namespace tessera::workspace {

/// Flag array over the whole output range (Gustavson).
struct Dense {};
/// Accumulation array of L = extent of the first output level buckets, h = i.
struct Bucket {};
/// Open-addressing table of L = 2^ceil(log2 nnz) slots, h = (i*J + j) mod L.
struct Hash {};
/// Append-only coordinate list, lexicographic sort of accumulation ids when full.
struct Coord {};
/// One sorted array, kept sorted on every insert (single-array extreme).
struct Map {};
/// One unsorted array, sorted once at the end (single-array extreme).
struct SortOnce {};
/// Dense or Hash per call, from shapes, an nnz estimate and a memory budget.
struct Auto {};

/// Run-time switches of the sparse (ISM) policies, so that an ablation can measure each.
struct IsmOptions {
  /// Entries the accumulation array holds before it is sorted and merged into the all
  /// array; 0 = sized from the kernel's nnz estimate (capped by max_accumulation).
  std::int64_t accumulation_capacity = 0;
  std::int64_t max_accumulation = std::int64_t{1} << 20;  ///< cap of a sized-from-estimate accumulation array
  /// Sort+merge a full accumulation array on a helper thread while insertion goes on
  /// into a second one.
  bool pipelining = false;
  /// Merge into a retained second all array and swap, instead of a fresh allocation per merge.
  bool double_buffer = true;
};

/// How a row-wise kernel with a Dense workspace places its output rows.
/// \code{.unparsed}
///   Buffered: each row is computed into its chunk's buffers, which are then copied
///             into the result;
///   Symbolic: a counting pass sizes every row first, then rows are computed straight
///             into the result (no buffers, no copy, but a second pass over the products);
///   Auto:     Symbolic when a sample of rows makes more than
///             kSymbolicMinOutputPerProduct output entries per unit of counting work
///             (a product, or a block of 32 columns where B's rows fold into blocks).
/// \endcode
enum class RowOutput { Auto, Buffered, Symbolic };
inline constexpr double kSymbolicMinOutputPerProduct = 0.3;  ///< threshold of RowOutput::Auto

/// Per-call choices and what the kernel reports back.
struct Options {
  IsmOptions ism;                          ///< switches of the sparse policies
  RowOutput row_output = RowOutput::Auto;  ///< output placement of row-wise kernels
  /// Upper bound for Dense workspaces (all threads together) when the policy is Auto.
  std::int64_t memory_budget_bytes = std::int64_t{1} << 30;
};

/// What a kernel reports about its workspaces.
struct Report {
  std::int64_t peak_bytes = 0;  ///< workspace bytes allocated at peak, all threads together
  const char* policy = "";      ///< the policy that ran (Auto's choice)
};

/// Name of a policy tag, for reports.
template <class Policy>
inline constexpr const char* policy_name = "?";
/// Name of Dense.
template <> inline constexpr const char* policy_name<Dense> = "dense";
/// Name of Bucket.
template <> inline constexpr const char* policy_name<Bucket> = "bucket";
/// Name of Hash.
template <> inline constexpr const char* policy_name<Hash> = "hash";
/// Name of Coord.
template <> inline constexpr const char* policy_name<Coord> = "coord";
/// Name of Map.
template <> inline constexpr const char* policy_name<Map> = "map";
/// Name of SortOnce.
template <> inline constexpr const char* policy_name<SortOnce> = "sortonce";
/// Name of Auto.
template <> inline constexpr const char* policy_name<Auto> = "auto";

}  // namespace tessera::workspace
