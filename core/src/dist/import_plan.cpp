// Import plan: ghosts are grouped by owner, owners learn the requests through
// MPI_Alltoall (counts) and MPI_Alltoallv (global ids).
#include "tessera/core/dist/import_plan.hpp"

#include "tessera/core/dist/mpi_datatype.hpp"

namespace tessera::dist {

ImportPlan make_import_plan(MPI_Comm comm, const RowPartition& cols, std::vector<std::int64_t> ghost_cols) {
  const int ranks = comm_size(comm);
  const int rank = comm_rank(comm);
  ImportPlan plan;
  plan.ghost_cols = std::move(ghost_cols);

  // Ascending ids: each owner's ghosts are one run.
  std::vector<int> want(ranks, 0);
  for (std::size_t g = 0; g < plan.ghost_cols.size();) {
    const int owner = cols.owner(plan.ghost_cols[g]);
    std::size_t end = g;
    while (end < plan.ghost_cols.size() && plan.ghost_cols[end] < cols.end(owner)) ++end;
    want[owner] = mpi_count(static_cast<std::int64_t>(end - g), "import plan");
    plan.recv_ranks.push_back(owner);
    plan.recv_offsets.push_back(static_cast<std::int64_t>(end));
    g = end;
  }

  std::vector<int> give(ranks, 0);
  MPI_Alltoall(want.data(), 1, MPI_INT, give.data(), 1, MPI_INT, comm);
  std::vector<int> want_displs(ranks, 0), give_displs(ranks, 0);
  std::int64_t total_give = 0;
  for (int q = 0; q < ranks; ++q) {
    if (q > 0) want_displs[q] = want_displs[q - 1] + want[q - 1];
    give_displs[q] = mpi_count(total_give, "import plan");
    total_give += give[q];
  }
  plan.send_indices.resize(static_cast<std::size_t>(total_give));
  MPI_Alltoallv(plan.ghost_cols.data(), want.data(), want_displs.data(), MPI_INT64_T, plan.send_indices.data(),
                give.data(), give_displs.data(), MPI_INT64_T, comm);
  for (auto& id : plan.send_indices) id -= cols.begin(rank);
  for (int q = 0; q < ranks; ++q) {
    if (give[q] == 0) continue;
    plan.send_ranks.push_back(q);
    plan.send_offsets.push_back(give_displs[q] + give[q]);
  }
  return plan;
}

}  // namespace tessera::dist
