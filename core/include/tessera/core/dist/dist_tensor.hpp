#pragma once
/// \file
/// DistTensor<T, Enc, Space>: a sparse matrix whose rows are split across the ranks
/// of an MPI communicator in contiguous blocks (by default balanced by nonzeros).
/// Each rank holds its rows as two local tensors of encoding Enc (CSR-like):
/// \code{.unparsed}
///   diagonal()      (owned rows x owned columns)    columns local to this rank's column block
///   off_diagonal()  (boundary rows x ghosts)        only the rows that have ghost entries
///                                                   (boundary_rows()(r) = their local row),
///                                                   columns numbered by ghost slot
/// \endcode
/// plus the ImportPlan saying which ghost columns come from which rank, and the
/// Halo that exchanges them. The column blocks (cols()) say how the x of y = A x
/// is distributed; the row blocks (rows()) how y is.
///
/// Every function here is collective over comm(); an error on any rank (bad file,
/// bad coordinate, mismatched shape) throws on every rank (collective_error.hpp).
#include <mpi.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include <Kokkos_Core.hpp>

#include "tessera/core/coo.hpp"
#include "tessera/core/dist/collective_error.hpp"
#include "tessera/core/dist/halo.hpp"
#include "tessera/core/dist/import_plan.hpp"
#include "tessera/core/dist/matrix_market.hpp"
#include "tessera/core/dist/mpi_datatype.hpp"
#include "tessera/core/dist/partition.hpp"
#include "tessera/core/dist/redistribute.hpp"
#include "tessera/core/dist/split_owned_rows.hpp"
#include "tessera/core/tensor.hpp"
#include "tessera/formats/convert.hpp"
#include "tessera/formats/encoding.hpp"
#include "tessera/formats/sliced_ell.hpp"

namespace tessera::dist {

/// How DistTensor's builders split the rows and columns across the ranks.
struct DistOptions {
  /// Row blocks as ranks + 1 offsets; empty: balanced by nonzeros (RowPartition::balanced).
  std::vector<std::int64_t> row_offsets;
  /// Column blocks (the distribution of x in y = A x); empty: the row blocks for a
  /// square matrix, equal blocks (RowPartition::uniform) otherwise.
  std::vector<std::int64_t> col_offsets;
};

/// Sparse matrix with its rows split across the ranks of a communicator (see the file's comment).
template <class T, class Enc = CSR, class Space = Kokkos::DefaultExecutionSpace>
class DistTensor {
  static_assert(is_csr_like_v<Enc>, "DistTensor holds CSR-like local tensors ({Dense, Compressed}, row order)");
  static_assert(std::is_same_v<T, float> || std::is_same_v<T, double>, "DistTensor values are float or double");

 public:
  using value_type = T;                        ///< Value type of the entries (float or double).
  using encoding_type = Enc;                   ///< Encoding of the local tensors (CSR-like).
  using execution_space = Space;               ///< Kokkos execution space of the local tensors.
  using local_tensor = Tensor<T, Enc, Space>;  ///< Type of diagonal() and off_diagonal().
  /// Type of boundary_rows(): one local row index per row of off_diagonal().
  using row_view = Kokkos::View<std::int64_t*, Kokkos::Device<Space, typename Space::memory_space>>;

  /// Empty matrix on no communicator.
  DistTensor() = default;

  /// Every rank contributes triplets (global 0-based coordinates) for any rows; the
  /// shapes must agree. Entries go to the ranks owning their rows; duplicates are summed.
  /// The nnz-balanced blocks come from per-row counts summed over all ranks, each rank
  /// counting an equal block of rows (balanced_row_partition); row_offsets skips that.
  static DistTensor from_coo(MPI_Comm comm, const HostCoo<double>& triplets, const DistOptions& options = {}) {
    agree_on_errors(comm, [&] { check_triplets(triplets); });
    require_same_on_all_ranks(comm, triplets.shape[0], "DistTensor::from_coo: row count");
    require_same_on_all_ranks(comm, triplets.shape[1], "DistTensor::from_coo: column count");
    // Offsets given on some ranks only would send the ranks down different collectives.
    require_same_on_all_ranks(comm, options.row_offsets, "DistTensor::from_coo: row_offsets");
    require_same_on_all_ranks(comm, options.col_offsets, "DistTensor::from_coo: col_offsets");
    const std::int64_t rows = triplets.shape[0], cols = triplets.shape[1];
    const int ranks = comm_size(comm);
    RowPartition row_blocks, col_blocks;
    agree_on_errors(comm, [&] {
      if (!options.row_offsets.empty()) row_blocks = checked_partition(options.row_offsets, rows, ranks, "row_offsets");
      if (!options.col_offsets.empty()) col_blocks = checked_partition(options.col_offsets, cols, ranks, "col_offsets");
    });
    if (options.row_offsets.empty()) row_blocks = balanced_row_partition(comm, triplets, rows);
    if (options.col_offsets.empty()) col_blocks = rows == cols ? row_blocks : RowPartition::uniform(cols, ranks);
    return from_owned_rows(comm, row_blocks, col_blocks, redistribute_rows(comm, row_blocks, triplets));
  }

  /// The whole matrix given on `root` (ignored elsewhere) is split across the ranks.
  static DistTensor scatter(MPI_Comm comm, const HostCoo<double>& coo, int root = 0, const DistOptions& options = {}) {
    require_root(comm, root, "DistTensor::scatter");
    const bool is_root = comm_rank(comm) == root;
    agree_on_errors(comm, [&] {
      if (is_root) check_triplets(coo);
    });
    std::int64_t shape[2] = {is_root ? coo.shape[0] : 0, is_root ? coo.shape[1] : 0};
    MPI_Bcast(shape, 2, MPI_INT64_T, root, comm);
    if (is_root) return from_coo(comm, coo, options);
    HostCoo<double> none;
    none.shape = {shape[0], shape[1]};
    return from_coo(comm, none, options);
  }

  /// Parallel read: every rank parses a byte range of the file (dist/matrix_market.hpp).
  static DistTensor read_matrix_market(MPI_Comm comm, const std::string& path, const DistOptions& options = {}) {
    return from_coo(comm, read_matrix_market_part(comm, path), options);
  }

  /// Building block of the others: `owned` holds only rows this rank owns under
  /// `rows` (global coordinates, duplicates summed); `cols` blocks the columns.
  static DistTensor from_owned_rows(MPI_Comm comm, RowPartition rows, RowPartition cols, const HostCoo<double>& owned) {
    const int rank = comm_rank(comm);
    std::vector<std::int64_t> ghosts;
    local_tensor diagonal, off_diagonal;
    row_view boundary_rows;
    agree_on_errors(comm, [&] {
      check_triplets(owned);
      check_blocks(rows, cols, comm_size(comm));
      if (rows.size() != owned.shape[0] || cols.size() != owned.shape[1])
        throw ShapeError("DistTensor: partitions cover " + std::to_string(rows.size()) + " x " +
                         std::to_string(cols.size()) + ", the matrix is " + std::to_string(owned.shape[0]) + " x " +
                         std::to_string(owned.shape[1]));
      const std::int64_t r0 = rows.begin(rank), c0 = cols.begin(rank), c1 = cols.end(rank);
      for (std::int64_t n = 0; n < owned.nnz(); ++n) {
        const std::int64_t i = owned.coords[2 * n], j = owned.coords[2 * n + 1];
        if (i < r0 || i >= rows.end(rank))
          throw IndexError("DistTensor: row " + std::to_string(i) + " is not owned by rank " + std::to_string(rank) +
                           " (rows [" + std::to_string(r0) + ", " + std::to_string(rows.end(rank)) + "))");
        if (j < c0 || j >= c1) ghosts.push_back(j);
      }
      const std::int64_t remote = static_cast<std::int64_t>(ghosts.size());  // off-diagonal entries
      std::sort(ghosts.begin(), ghosts.end());
      ghosts.erase(std::unique(ghosts.begin(), ghosts.end()), ghosts.end());

      // Rows with ghost entries, ascending: the off-diagonal part stores only those
      // (a product over all rows would read and write y once more for nothing).
      std::vector<std::int64_t> boundary;
      for (std::int64_t n = 0; n < owned.nnz(); ++n) {
        const std::int64_t j = owned.coords[2 * n + 1];
        if (j < c0 || j >= c1) boundary.push_back(owned.coords[2 * n] - r0);
      }
      std::sort(boundary.begin(), boundary.end());
      boundary.erase(std::unique(boundary.begin(), boundary.end()), boundary.end());

      HostCoo<double> diag, offd;
      // Sized once: growing arrays of millions of entries would be copied and fault in new pages each time.
      diag.coords.reserve(2 * (owned.nnz() - remote));
      diag.values.reserve(owned.nnz() - remote);
      offd.coords.reserve(2 * remote);
      offd.values.reserve(remote);
      diag.shape = {rows.count(rank), cols.count(rank)};
      offd.shape = {static_cast<std::int64_t>(boundary.size()), static_cast<std::int64_t>(ghosts.size())};
      for (std::int64_t n = 0; n < owned.nnz(); ++n) {
        const std::int64_t i = owned.coords[2 * n] - r0, j = owned.coords[2 * n + 1];
        const auto slot = [](const std::vector<std::int64_t>& sorted, std::int64_t v) {
          return std::lower_bound(sorted.begin(), sorted.end(), v) - sorted.begin();
        };
        const bool local = j >= c0 && j < c1;
        HostCoo<double>& part = local ? diag : offd;
        part.coords.push_back(local ? i : slot(boundary, i));
        part.coords.push_back(local ? j - c0 : slot(ghosts, j));
        part.values.push_back(owned.values[n]);
      }
      boundary_rows = row_view("tessera::DistTensor::boundary_rows", boundary.size());
      auto host_rows = Kokkos::create_mirror_view(boundary_rows);
      for (std::size_t r = 0; r < boundary.size(); ++r) host_rows(r) = boundary[r];
      Kokkos::deep_copy(boundary_rows, host_rows);
      diagonal = tessera::from_coo<T, Enc, Space>(diag);
      off_diagonal = tessera::from_coo<T, Enc, Space>(offd);
    });
    return from_local_blocks(comm, std::move(rows), std::move(cols), std::move(diagonal), std::move(off_diagonal),
                             std::move(boundary_rows), std::move(ghosts));
  }

  /// Building block for kernels whose result rows are in Space already (dist::spgemm): `owned`
  /// holds this rank's rows under `rows` (its row r is global row rows.begin(rank) + r) with
  /// global column ids, each row's columns ascending and distinct. It is split into the two
  /// blocks in Space; only the ghost columns go through the host. On one rank the diagonal block
  /// is `owned` itself (its arrays shared).
  static DistTensor from_owned_block(MPI_Comm comm, RowPartition rows, RowPartition cols, const local_tensor& owned) {
    const int rank = comm_rank(comm);
    detail::SplitRows<local_tensor, row_view> parts;
    agree_on_errors(comm, [&] {
      check_blocks(rows, cols, comm_size(comm));
      if (owned.extent(0) != rows.count(rank) || owned.extent(1) != cols.size())
        throw ShapeError("DistTensor: the owned rows are " + std::to_string(owned.extent(0)) + " x " +
                         std::to_string(owned.extent(1)) + ", this rank's rows are " +
                         std::to_string(rows.count(rank)) + " x " + std::to_string(cols.size()));
      parts = detail::split_owned_rows<local_tensor, row_view>(owned, cols.begin(rank), cols.end(rank));
    });
    return from_local_blocks(comm, std::move(rows), std::move(cols), std::move(parts.diagonal),
                             std::move(parts.off_diagonal), std::move(parts.boundary_rows),
                             std::move(parts.ghost_cols));
  }

  /// Building block for generators that make this rank's parts in Space directly (poisson_3d):
  /// `diagonal` (rows.count(rank) x cols.count(rank), local columns), `off_diagonal` (one row
  /// per entry of `boundary_rows`, the ascending local rows with ghost entries; columns are
  /// slots of `ghost_cols`, the ascending global columns outside this rank's column block).
  /// Shapes and ghost columns are checked; the parts' own arrays are trusted.
  static DistTensor from_local_blocks(MPI_Comm comm, RowPartition rows, RowPartition cols, local_tensor diagonal,
                                      local_tensor off_diagonal, row_view boundary_rows,
                                      std::vector<std::int64_t> ghost_cols) {
    const int rank = comm_rank(comm);
    agree_on_errors(comm, [&] {
      check_blocks(rows, cols, comm_size(comm));
      const auto shape = [](std::int64_t r, std::int64_t c) { return std::to_string(r) + " x " + std::to_string(c); };
      if (diagonal.extent(0) != rows.count(rank) || diagonal.extent(1) != cols.count(rank))
        throw ShapeError("DistTensor: the diagonal block is " + shape(diagonal.extent(0), diagonal.extent(1)) +
                         ", this rank's blocks are " + shape(rows.count(rank), cols.count(rank)));
      const auto boundary = static_cast<std::int64_t>(boundary_rows.extent(0));
      const auto ghosts = static_cast<std::int64_t>(ghost_cols.size());
      if (off_diagonal.extent(0) != boundary || off_diagonal.extent(1) != ghosts)
        throw ShapeError("DistTensor: the off-diagonal block is " +
                         shape(off_diagonal.extent(0), off_diagonal.extent(1)) + " for " + shape(boundary, ghosts) +
                         " boundary rows and ghost columns");
      for (std::int64_t g = 0; g < ghosts; ++g) {
        const std::int64_t j = ghost_cols[g];
        if (j < 0 || j >= cols.size() || (j >= cols.begin(rank) && j < cols.end(rank)) ||
            (g > 0 && j <= ghost_cols[g - 1]))
          throw IndexError("DistTensor: ghost column " + std::to_string(j) + " (slot " + std::to_string(g) +
                           ") is not an ascending column outside this rank's block");
      }
    });
    DistTensor A;
    A.comm_ = comm;
    A.shape_ = {rows.size(), cols.size()};
    A.diag_ = std::move(diagonal);
    A.offd_ = std::move(off_diagonal);
    A.boundary_rows_ = std::move(boundary_rows);
    A.plan_ = std::make_shared<const ImportPlan>(make_import_plan(comm, cols, std::move(ghost_cols)));
    A.rows_ = std::move(rows);
    A.cols_ = std::move(cols);
    const std::int64_t local_nnz = A.diag_.nnz() + A.offd_.nnz();
    MPI_Allreduce(&local_nnz, &A.nnz_, 1, MPI_INT64_T, MPI_SUM, comm);
    return A;
  }

  /// This rank's rows with global coordinates (diagonal part first, then off-diagonal).
  HostCoo<double> owned_coo() const {
    const int rank = comm_rank(comm_);
    HostCoo<double> out;
    out.shape = {shape_[0], shape_[1]};
    const HostCoo<T> diag = tessera::to_coo(diag_);
    for (std::int64_t n = 0; n < diag.nnz(); ++n) {
      out.coords.push_back(diag.coords[2 * n] + rows_.begin(rank));
      out.coords.push_back(diag.coords[2 * n + 1] + cols_.begin(rank));
      out.values.push_back(static_cast<double>(diag.values[n]));
    }
    const auto boundary = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), boundary_rows_);
    const HostCoo<T> offd = tessera::to_coo(offd_);
    for (std::int64_t n = 0; n < offd.nnz(); ++n) {
      out.coords.push_back(boundary(offd.coords[2 * n]) + rows_.begin(rank));
      out.coords.push_back(plan_->ghost_cols[offd.coords[2 * n + 1]]);
      out.values.push_back(static_cast<double>(offd.values[n]));
    }
    return out;
  }

  /// The whole matrix on `root` (entries in rank order), an empty one of the same shape elsewhere.
  HostCoo<double> gather(int root = 0) const { return gather_coo(comm_, owned_coo(), root); }

  /// The communicator the matrix is distributed over.
  MPI_Comm comm() const { return comm_; }
  /// Global shape (rows, columns).
  const Shape<2>& shape() const { return shape_; }
  /// Global extent of `mode` (0: rows, 1: columns).
  std::int64_t extent(int mode) const { return shape_.at(mode); }
  std::int64_t nnz() const { return nnz_; }  ///< stored entries over all ranks
  /// Row blocks: how the rows (and the y of y = A x) are split across the ranks.
  const RowPartition& rows() const { return rows_; }
  /// Column blocks: how the x of y = A x is split across the ranks.
  const RowPartition& cols() const { return cols_; }
  /// This rank's rows restricted to its own column block, columns local to that block.
  const local_tensor& diagonal() const { return diag_; }
  /// This rank's rows that have ghost entries, columns numbered by ghost slot.
  const local_tensor& off_diagonal() const { return offd_; }
  /// Local row of each row of off_diagonal(), ascending.
  const row_view& boundary_rows() const { return boundary_rows_; }
  /// Which ghost columns come from which rank, and which entries go where.
  const ImportPlan& import_plan() const { return *plan_; }
  /// The ghost exchange; kernels start and finish it (shared by copies of this tensor). Set up
  /// by the first call, which is collective (every rank makes it): a tensor that no kernel
  /// exchanges for, such as a product on its way into the next product, never pays for it.
  Halo<T, Space>& halo() const {
    if (!halo_->exchange) halo_->exchange = std::make_unique<Halo<T, Space>>(comm_, plan_);
    return *halo_->exchange;
  }
  /// diagonal() as a sliced ELLPACK copy (host spaces): the layout of dist::spmv's local
  /// product there. Built on the first call and kept, shared by copies of this tensor:
  /// it costs about as much memory again as the diagonal block's indices and values.
  const SlicedEll<T>& diagonal_sliced_ell() const {
    if (!diag_sliced_->built) {
      diag_sliced_->ell = make_sliced_ell(diag_);
      diag_sliced_->built = true;
    }
    return diag_sliced_->ell;
  }

 private:
  static void check_triplets(const HostCoo<double>& coo) {
    if (coo.order() != 2) throw ShapeError("DistTensor: expected a matrix (2 modes), got " + std::to_string(coo.order()));
    if (coo.shape[0] < 0 || coo.shape[1] < 0)
      throw ShapeError("DistTensor: negative shape " + std::to_string(coo.shape[0]) + " x " +
                       std::to_string(coo.shape[1]));
    if (coo.coords.size() != 2 * coo.values.size())
      throw ShapeError("DistTensor: " + std::to_string(coo.coords.size()) + " coordinates for " +
                       std::to_string(coo.values.size()) + " values (expected 2 per value)");
    for (std::int64_t n = 0; n < coo.nnz(); ++n) {
      const std::int64_t i = coo.coords[2 * n], j = coo.coords[2 * n + 1];
      if (i < 0 || i >= coo.shape[0] || j < 0 || j >= coo.shape[1])
        throw IndexError("DistTensor: entry " + std::to_string(n) + " at (" + std::to_string(i) + ", " +
                         std::to_string(j) + ") is outside the " + std::to_string(coo.shape[0]) + " x " +
                         std::to_string(coo.shape[1]) + " shape");
    }
  }

  static void check_blocks(const RowPartition& rows, const RowPartition& cols, int ranks) {
    if (rows.parts() != ranks || cols.parts() != ranks)
      throw ShapeError("DistTensor: partitions have " + std::to_string(rows.parts()) + " row and " +
                       std::to_string(cols.parts()) + " column blocks for " + std::to_string(ranks) + " ranks");
  }

  static RowPartition checked_partition(const std::vector<std::int64_t>& offsets, std::int64_t extent, int ranks,
                                        const char* what) {
    RowPartition p(offsets);
    if (p.parts() != ranks || p.size() != extent)
      throw ShapeError(std::string("DistOptions::") + what + ": " + std::to_string(p.parts()) + " blocks covering " +
                       std::to_string(p.size()) + ", expected " + std::to_string(ranks) + " blocks covering " +
                       std::to_string(extent));
    return p;
  }

  MPI_Comm comm_ = MPI_COMM_NULL;
  Shape<2> shape_{0, 0};
  std::int64_t nnz_ = 0;
  RowPartition rows_, cols_;
  local_tensor diag_, offd_;
  row_view boundary_rows_;
  std::shared_ptr<const ImportPlan> plan_;
  struct LazyHalo {
    std::unique_ptr<Halo<T, Space>> exchange;
  };
  std::shared_ptr<LazyHalo> halo_ = std::make_shared<LazyHalo>();
  struct LazySlicedEll {
    bool built = false;
    SlicedEll<T> ell;
  };
  std::shared_ptr<LazySlicedEll> diag_sliced_ = std::make_shared<LazySlicedEll>();
};

}  // namespace tessera::dist
