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
/// A's row blocks and B's column blocks. The local operands are built in Space and C_r is split
/// into C's blocks there (spgemm_local_operands.hpp, DistTensor::from_owned_block); the rows
/// sent and fetched pass through the host in the MPI buffers. Collective over A.comm().
#include <cstdint>
#include <vector>

#include <Kokkos_Core.hpp>

#include "tessera/core/dist/dist_tensor.hpp"
#include "tessera/core/dist/mpi_datatype.hpp"
#include "tessera/kernels/common/profiling_region.hpp"
#include "tessera/kernels/dist/dist_spmv.hpp"
#include "tessera/kernels/dist/spgemm_local_operands.hpp"
#include "tessera/kernels/spgemm/spgemm.hpp"

namespace tessera::dist {
namespace detail {

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
  const int ranks = comm_size(comm);
  const ImportPlan& plan = A.import_plan();
  const kernels::ProfilingRegion profiling_region(kernels::region_name<T>("dist::spgemm", "row import"));

  // 1. In Space: A's rows over [owned | ghost] columns, and the rows of B (global columns) that
  // the other ranks' ghost columns name.
  using Local = typename DistTensor<T, Enc, Space>::local_tensor;
  Local a;
  detail::HostRows<T> sent;
  agree_on_errors(comm, [&] {
    a = detail::rows_with_ghost_slots(A);
    sent = detail::gather_rows(B, plan.send_indices);
  });

  // 2. Fetch the rows of B that A's ghost columns name: lengths, then entries.
  std::vector<int> sc, sd, rc, rd;
  detail::run_layout(ranks, plan.send_ranks, plan.send_offsets, [](std::int64_t) { return 1; }, sc, sd);
  detail::run_layout(ranks, plan.recv_ranks, plan.recv_offsets, [](std::int64_t) { return 1; }, rc, rd);
  detail::HostRows<T> fetched;
  fetched.lengths.resize(plan.ghosts());
  MPI_Alltoallv(sent.lengths.data(), sc.data(), sd.data(), MPI_INT64_T, fetched.lengths.data(), rc.data(), rd.data(),
                MPI_INT64_T, comm);
  detail::run_layout(ranks, plan.send_ranks, plan.send_offsets, [&](std::int64_t e) { return sent.lengths[e]; }, sc,
                     sd);
  detail::run_layout(ranks, plan.recv_ranks, plan.recv_offsets, [&](std::int64_t g) { return fetched.lengths[g]; },
                     rc, rd);
  const std::size_t received = static_cast<std::size_t>(rd.empty() ? 0 : rd.back() + rc.back());
  fetched.cols.resize(received);
  fetched.vals.resize(received);
  MPI_Alltoallv(sent.cols.data(), sc.data(), sd.data(), MPI_INT64_T, fetched.cols.data(), rc.data(), rd.data(),
                MPI_INT64_T, comm);
  MPI_Alltoallv(sent.vals.data(), sc.data(), sd.data(), mpi_datatype<T>(), fetched.vals.data(), rc.data(), rd.data(),
                mpi_datatype<T>(), comm);

  // 3. The local workspace kernel on [B's owned rows ; the fetched rows]; its rows, with B's
  // global columns, are C's on this rank.
  Local c_local;
  agree_on_errors(comm, [&] {
    c_local = tessera::spgemm<Policy, Enc>(space, a, detail::stacked_rows(B, fetched), options);
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
