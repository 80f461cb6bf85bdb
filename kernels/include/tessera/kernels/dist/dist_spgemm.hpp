#pragma once
/// \file
/// tessera::dist::spgemm<Policy>(A, B) — C = A * B, 1D row-wise, on every space of tessera::spgemm.
/// Rank r owns rows of A, B and C. Its rows of A name columns j of A = rows j of B;
/// the rows it does not own are exactly A's ghost columns, so A's import plan says
/// which rows of B to fetch and from whom. After one exchange (row lengths, then
/// column ids and values, MPI_Alltoallv), the local product
/// \code{.unparsed}
///   C_r = [A_diag | A_offd] * [B owned rows ; fetched rows]
/// \endcode
/// is tessera::spgemm<Policy> (the workspace kernel) on local tensors, and C keeps
/// A's row blocks and B's column blocks. The exchanged rows and the local operands are
/// assembled on the host, then built in Space (on Kokkos::Cuda the local product runs on the
/// device); C_r is split into C's blocks in Space. Collective over A.comm().
#include <cstdint>
#include <vector>

#include <Kokkos_Core.hpp>

#include "tessera/core/dist/dist_tensor.hpp"
#include "tessera/core/dist/mpi_datatype.hpp"
#include "tessera/kernels/common/profiling_region.hpp"
#include "tessera/kernels/dist/dist_spmv.hpp"
#include "tessera/kernels/spgemm/spgemm.hpp"

namespace tessera::dist {
namespace detail {

// Rows of a matrix on the host, global column ids: rows [begin[i], begin[i+1]).
struct HostRows {
  std::vector<std::int64_t> begin{0}, cols;
  std::vector<double> vals;
};

// Owned rows of B grouped by local row (owned_coo() is in storage order per part,
// not per row), by counting sort.
template <class T, class Enc, class Space>
HostRows owned_rows(const DistTensor<T, Enc, Space>& B) {
  const HostCoo<double> coo = B.owned_coo();
  const std::int64_t r0 = B.rows().begin(comm_rank(B.comm()));
  const std::int64_t rows = B.rows().count(comm_rank(B.comm()));
  HostRows out;
  out.begin.assign(rows + 1, 0);
  for (std::int64_t n = 0; n < coo.nnz(); ++n) ++out.begin[coo.coords[2 * n] - r0 + 1];
  for (std::int64_t i = 0; i < rows; ++i) out.begin[i + 1] += out.begin[i];
  out.cols.resize(coo.nnz());
  out.vals.resize(coo.nnz());
  std::vector<std::int64_t> next(out.begin.begin(), out.begin.end() - 1);
  for (std::int64_t n = 0; n < coo.nnz(); ++n) {
    const std::int64_t slot = next[coo.coords[2 * n] - r0]++;
    out.cols[slot] = coo.coords[2 * n + 1];
    out.vals[slot] = coo.values[n];
  }
  return out;
}

// Per-rank counts (and displacements) of a plan's runs, each item weighing `weight(item)`.
template <class Weight>
void run_layout(int ranks, const std::vector<int>& run_ranks, const std::vector<std::int64_t>& run_offsets,
                Weight weight, std::vector<int>& counts, std::vector<int>& displs) {
  counts.assign(ranks, 0);
  displs.assign(ranks, 0);
  std::int64_t sum = 0;
  for (std::size_t k = 0; k < run_ranks.size(); ++k) {
    std::int64_t c = 0;
    for (std::int64_t e = run_offsets[k]; e < run_offsets[k + 1]; ++e) c += weight(e);
    counts[run_ranks[k]] = mpi_count(c, "dist::spgemm");
  }
  for (int q = 0; q < ranks; ++q) {
    displs[q] = mpi_count(sum, "dist::spgemm");
    sum += counts[q];
  }
}

}  // namespace detail

/// Collective: C = A * B for row-distributed A and B, with the local products through workspace Policy.
template <class Policy = workspace::Auto, class T, class Enc, class Space>
DistTensor<T, Enc, Space> spgemm(const Space& space, const DistTensor<T, Enc, Space>& A,
                                 const DistTensor<T, Enc, Space>& B, const workspace::Options& options = {}) {
  detail::require_same_blocks("dist::spgemm", "B's rows", B.rows(), A.cols());
  MPI_Comm comm = A.comm();
  const int ranks = comm_size(comm), rank = comm_rank(comm);
  const ImportPlan& plan = A.import_plan();
  const kernels::ProfilingRegion profiling_region(kernels::region_name<T>("dist::spgemm", "row import"));

  // 1. Fetch the rows of B that A's ghost columns name: lengths, then entries.
  const detail::HostRows mine = detail::owned_rows(B);
  const auto sent_row = [&](std::int64_t e) { return plan.send_indices[e]; };
  std::vector<std::int64_t> send_lengths(plan.sends()), recv_lengths(plan.ghosts());
  for (std::int64_t e = 0; e < plan.sends(); ++e)
    send_lengths[e] = mine.begin[sent_row(e) + 1] - mine.begin[sent_row(e)];
  std::vector<int> sc, sd, rc, rd;
  detail::run_layout(ranks, plan.send_ranks, plan.send_offsets, [](std::int64_t) { return 1; }, sc, sd);
  detail::run_layout(ranks, plan.recv_ranks, plan.recv_offsets, [](std::int64_t) { return 1; }, rc, rd);
  MPI_Alltoallv(send_lengths.data(), sc.data(), sd.data(), MPI_INT64_T, recv_lengths.data(), rc.data(), rd.data(),
                MPI_INT64_T, comm);

  std::vector<std::int64_t> send_cols;
  std::vector<double> send_vals;
  for (std::int64_t e = 0; e < plan.sends(); ++e)
    for (std::int64_t q = mine.begin[sent_row(e)]; q < mine.begin[sent_row(e) + 1]; ++q) {
      send_cols.push_back(mine.cols[q]);
      send_vals.push_back(mine.vals[q]);
    }
  detail::run_layout(ranks, plan.send_ranks, plan.send_offsets, [&](std::int64_t e) { return send_lengths[e]; }, sc,
                     sd);
  detail::run_layout(ranks, plan.recv_ranks, plan.recv_offsets, [&](std::int64_t g) { return recv_lengths[g]; }, rc,
                     rd);
  const std::size_t received = static_cast<std::size_t>(rd.empty() ? 0 : rd.back() + rc.back());
  std::vector<std::int64_t> recv_cols(received);
  std::vector<double> recv_vals(received);
  MPI_Alltoallv(send_cols.data(), sc.data(), sd.data(), MPI_INT64_T, recv_cols.data(), rc.data(), rd.data(),
                MPI_INT64_T, comm);
  MPI_Alltoallv(send_vals.data(), sc.data(), sd.data(), MPI_DOUBLE, recv_vals.data(), rc.data(), rd.data(), MPI_DOUBLE,
                comm);

  // 2. Local operands: A's columns = [owned | ghost slots]; B's rows in the same order.
  const std::int64_t owned = A.cols().count(rank);
  const HostCoo<T> diag = to_coo(A.diagonal()), offd = to_coo(A.off_diagonal());
  HostCoo<double> a_local, b_local;  // widened: A and B may hold float
  a_local.coords = diag.coords;
  a_local.values.assign(diag.values.begin(), diag.values.end());
  a_local.shape = {A.rows().count(rank), owned + plan.ghosts()};
  const auto boundary = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), A.boundary_rows());
  for (std::int64_t n = 0; n < offd.nnz(); ++n) {
    a_local.coords.push_back(boundary(offd.coords[2 * n]));
    a_local.coords.push_back(owned + offd.coords[2 * n + 1]);
    a_local.values.push_back(offd.values[n]);
  }
  b_local.shape = {owned + plan.ghosts(), B.extent(1)};
  for (std::int64_t i = 0; i < owned; ++i)
    for (std::int64_t q = mine.begin[i]; q < mine.begin[i + 1]; ++q) {
      b_local.coords.push_back(i);
      b_local.coords.push_back(mine.cols[q]);
      b_local.values.push_back(mine.vals[q]);
    }
  std::size_t q = 0;
  for (std::int64_t g = 0; g < plan.ghosts(); ++g)
    for (std::int64_t k = 0; k < recv_lengths[g]; ++k, ++q) {
      b_local.coords.push_back(owned + g);
      b_local.coords.push_back(recv_cols[q]);
      b_local.values.push_back(recv_vals[q]);
    }

  // 3. The local workspace kernel; its rows, with B's global columns, are C's on this rank.
  typename DistTensor<T, Enc, Space>::local_tensor c_local;
  agree_on_errors(comm, [&] {
    const auto a = from_coo<T, Enc, Space>(a_local);
    const auto b = from_coo<T, Enc, Space>(b_local);
    c_local = tessera::spgemm<Policy, Enc>(space, a, b, options);
  });
  return DistTensor<T, Enc, Space>::from_owned_block(comm, A.rows(), B.cols(), c_local);
}

/// Runs on a default-constructed instance of the operands' execution space.
template <class Policy = workspace::Auto, class T, class Enc, class Space>
DistTensor<T, Enc, Space> spgemm(const DistTensor<T, Enc, Space>& A, const DistTensor<T, Enc, Space>& B,
                                 const workspace::Options& options = {}) {
  return spgemm<Policy>(Space(), A, B, options);
}

}  // namespace tessera::dist
