#pragma once
/// \file
/// Dense row-distributed vectors and multivectors: rank r holds rows
/// [rows.begin(r), rows.end(r)) of a global (n) vector or (n x k) multivector in a
/// Kokkos View of Space's memory. They are the x and y of the distributed kernels:
/// x follows the column blocks of the matrix (A.cols()), y its row blocks (A.rows()).
/// scatter/gather move whole vectors between one rank (row-major doubles) and all.
#include <mpi.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <Kokkos_Core.hpp>

#include "tessera/core/dist/collective_error.hpp"
#include "tessera/core/dist/mpi_datatype.hpp"
#include "tessera/core/dist/partition.hpp"
#include "tessera/core/error.hpp"

namespace tessera::dist {
namespace detail {

// Counts and displacements, in elements, of each rank's rows of a row-major (n x k) array.
inline void row_block_layout(const RowPartition& rows, std::int64_t k, std::vector<int>& counts,
                             std::vector<int>& displs) {
  counts.resize(rows.parts());
  displs.resize(rows.parts());
  for (int r = 0; r < rows.parts(); ++r) {
    counts[r] = mpi_count(rows.count(r) * k, "row-distributed vector");
    displs[r] = mpi_count(rows.begin(r) * k, "row-distributed vector");
  }
}

// Collective: `rows` as the blocks of a vector over `comm`: one block per rank (with fewer, a
// rank would have no block; with more, some rows would belong to no rank), the same blocks
// on every rank (a rank holding others sent and awaited other rows: wrong values, a
// truncated message or a hang in the next collective).
inline RowPartition checked_blocks(MPI_Comm comm, RowPartition rows, const char* what) {
  agree_on_errors(comm, [&] {
    if (rows.parts() != comm_size(comm))
      throw ShapeError(std::string(what) + ": partition has " + std::to_string(rows.parts()) + " blocks for " +
                       std::to_string(comm_size(comm)) + " ranks");
  });
  require_same_on_all_ranks(comm, rows.offsets(), std::string(what) + ": row blocks");
  return rows;
}

// Collective: the column count, non-negative and the same on every rank (halo messages are
// sized by it).
inline std::int64_t checked_columns(MPI_Comm comm, std::int64_t k) {
  agree_on_errors(comm, [&] {
    if (k < 0) throw ShapeError("DistMultiVector: " + std::to_string(k) + " columns");
  });
  require_same_on_all_ranks(comm, k, "DistMultiVector: column count");
  return k;
}

// Collective: rank r receives rows [rows.begin(r), rows.end(r)) of `global` (row-major
// n x k, read on `root` only; its size is checked there and the error shared).
inline std::vector<double> scatter_rows(MPI_Comm comm, const RowPartition& rows, std::int64_t k,
                                        const std::vector<double>& global, int root) {
  require_root(comm, root, "scatter");
  const int rank = comm_rank(comm);
  checked_blocks(comm, rows, "scatter");
  agree_on_errors(comm, [&] {
    if (rank == root && static_cast<std::int64_t>(global.size()) != rows.size() * k)
      throw ShapeError("scatter: " + std::to_string(global.size()) + " values for " + std::to_string(rows.size()) +
                       " x " + std::to_string(k));
  });
  std::vector<int> counts, displs;
  row_block_layout(rows, k, counts, displs);
  std::vector<double> local(static_cast<std::size_t>(rows.count(rank) * k));
  MPI_Scatterv(global.data(), counts.data(), displs.data(), MPI_DOUBLE, local.data(), counts[rank], MPI_DOUBLE, root,
               comm);
  return local;
}

// Collective inverse of scatter_rows: the whole row-major array on `root`, empty elsewhere.
inline std::vector<double> gather_rows(MPI_Comm comm, const RowPartition& rows, std::int64_t k,
                                       const std::vector<double>& local, int root) {
  require_root(comm, root, "gather");
  const int rank = comm_rank(comm);
  std::vector<int> counts, displs;
  row_block_layout(rows, k, counts, displs);
  std::vector<double> global(rank == root ? static_cast<std::size_t>(rows.size() * k) : 0);
  MPI_Gatherv(local.data(), counts[rank], MPI_DOUBLE, global.data(), counts.data(), displs.data(), MPI_DOUBLE, root,
              comm);
  return global;
}

}  // namespace detail

/// Dense (n x k) multivector with its rows split across the ranks (see the file's comment).
template <class T, class Space = Kokkos::DefaultExecutionSpace>
class DistMultiVector {
 public:
  /// Kokkos device (execution and memory space) of the local block.
  using device_type = Kokkos::Device<Space, typename Space::memory_space>;
  using view_type = Kokkos::View<T**, Kokkos::LayoutRight, device_type>;  ///< (local rows, k)

  /// Empty multivector on no communicator.
  DistMultiVector() = default;
  /// Zero-filled (rows.size() x k), this rank's block allocated.
  DistMultiVector(MPI_Comm comm, RowPartition rows, std::int64_t k)
      : comm_(comm),
        rows_(detail::checked_blocks(comm, std::move(rows), "DistMultiVector")),
        local_("tessera::DistMultiVector", rows_.count(comm_rank(comm)), detail::checked_columns(comm, k)) {}

  /// Collective: `global` (row-major rows.size() x k) given on `root` is split by `rows`.
  static DistMultiVector scatter(MPI_Comm comm, RowPartition rows, std::int64_t k, const std::vector<double>& global,
                                 int root = 0) {
    const std::vector<double> mine = detail::scatter_rows(comm, rows, k, global, root);
    DistMultiVector v(comm, std::move(rows), k);
    auto host = Kokkos::create_mirror_view(v.local_);
    for (std::size_t e = 0; e < mine.size(); ++e) host.data()[e] = static_cast<T>(mine[e]);
    Kokkos::deep_copy(v.local_, host);
    return v;
  }

  /// Collective: the whole multivector (row-major) on `root`, empty elsewhere.
  std::vector<double> gather(int root = 0) const {
    auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), local_);
    std::vector<double> mine(host.data(), host.data() + host.size());
    return detail::gather_rows(comm_, rows_, columns(), mine, root);
  }

  /// The communicator the multivector is distributed over.
  MPI_Comm comm() const { return comm_; }
  /// How the rows are split across the ranks.
  const RowPartition& rows() const { return rows_; }
  /// Number of columns (k).
  std::int64_t columns() const { return static_cast<std::int64_t>(local_.extent(1)); }
  /// This rank's rows.
  const view_type& local() const { return local_; }
  /// This multivector or a copy of it: the same answer on every rank, also on ranks that own
  /// no rows, where the local Views are empty and cannot tell (the kernels' alias check).
  bool shares_storage_with(const DistMultiVector& other) const { return storage_ == other.storage_; }

 private:
  MPI_Comm comm_ = MPI_COMM_NULL;
  RowPartition rows_;
  view_type local_;
  std::shared_ptr<const char> storage_ = std::make_shared<char>();  ///< identity, shared by copies
};

/// Dense (n) vector with its rows split across the ranks (see the file's comment).
template <class T, class Space = Kokkos::DefaultExecutionSpace>
class DistVector {
 public:
  /// Kokkos device (execution and memory space) of the local block.
  using device_type = Kokkos::Device<Space, typename Space::memory_space>;
  using view_type = Kokkos::View<T*, device_type>;  ///< (local rows), contiguous

  /// Empty vector on no communicator.
  DistVector() = default;
  /// Zero-filled, this rank's block allocated.
  DistVector(MPI_Comm comm, RowPartition rows)
      : comm_(comm),
        rows_(detail::checked_blocks(comm, std::move(rows), "DistVector")),
        local_("tessera::DistVector", rows_.count(comm_rank(comm))) {}

  /// Collective: `global` (rows.size() values) given on `root` is split by `rows`.
  static DistVector scatter(MPI_Comm comm, RowPartition rows, const std::vector<double>& global, int root = 0) {
    const std::vector<double> mine = detail::scatter_rows(comm, rows, 1, global, root);
    DistVector v(comm, std::move(rows));
    auto host = Kokkos::create_mirror_view(v.local_);
    for (std::size_t e = 0; e < mine.size(); ++e) host(e) = static_cast<T>(mine[e]);
    Kokkos::deep_copy(v.local_, host);
    return v;
  }

  /// Collective: the whole vector on `root`, empty elsewhere.
  std::vector<double> gather(int root = 0) const {
    auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), local_);
    std::vector<double> mine(host.data(), host.data() + host.size());
    return detail::gather_rows(comm_, rows_, 1, mine, root);
  }

  /// The communicator the vector is distributed over.
  MPI_Comm comm() const { return comm_; }
  /// How the rows are split across the ranks.
  const RowPartition& rows() const { return rows_; }
  /// This rank's rows.
  const view_type& local() const { return local_; }
  /// This vector or a copy of it (DistMultiVector::shares_storage_with says why).
  bool shares_storage_with(const DistVector& other) const { return storage_ == other.storage_; }

 private:
  MPI_Comm comm_ = MPI_COMM_NULL;
  RowPartition rows_;
  view_type local_;
  std::shared_ptr<const char> storage_ = std::make_shared<char>();  ///< identity, shared by copies
};

}  // namespace tessera::dist
