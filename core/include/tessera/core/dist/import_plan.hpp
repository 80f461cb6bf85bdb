#pragma once
/// \file
/// ImportPlan: which entries of a row-distributed vector each rank needs from the
/// others (its ghost columns) and which of its own entries it sends. Built once per
/// distributed matrix; the halo exchange (halo.hpp) and the distributed SpGEMM's
/// remote-row fetch both follow it.
#include <mpi.h>

#include <cstdint>
#include <vector>

#include "tessera/core/dist/partition.hpp"

namespace tessera::dist {

/// Who sends which owned entries of x to whom, so that every rank gets its ghost columns.
struct ImportPlan {
  /// Global ids of the ghost columns, ascending (so grouped by owning rank).
  std::vector<std::int64_t> ghost_cols;
  /// Ghosts owned by recv_ranks[k] fill ghost slots [recv_offsets[k], recv_offsets[k+1]).
  std::vector<int> recv_ranks;
  std::vector<std::int64_t> recv_offsets{0};  ///< Ghost slots by source rank: recv_ranks.size() + 1 offsets.
  /// To send_ranks[k] go this rank's entries send_indices[send_offsets[k] .. send_offsets[k+1])
  /// (local ids: global id - cols.begin(rank)).
  std::vector<int> send_ranks;
  std::vector<std::int64_t> send_offsets{0};  ///< Sent entries by destination rank: send_ranks.size() + 1 offsets.
  std::vector<std::int64_t> send_indices;     ///< Local ids of the entries to send, grouped by destination rank.

  /// Number of ghost columns this rank receives.
  std::int64_t ghosts() const { return static_cast<std::int64_t>(ghost_cols.size()); }
  /// Number of entries this rank sends.
  std::int64_t sends() const { return static_cast<std::int64_t>(send_indices.size()); }
};

/// Collective. `ghost_cols`: ascending global ids this rank needs and does not own
/// under `cols`. Every rank learns who needs which of its entries (MPI_Alltoall of
/// counts, then MPI_Alltoallv of the ids).
ImportPlan make_import_plan(MPI_Comm comm, const RowPartition& cols, std::vector<std::int64_t> ghost_cols);

}  // namespace tessera::dist
