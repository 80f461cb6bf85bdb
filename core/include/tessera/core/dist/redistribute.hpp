#pragma once
// Moving COO triplets between ranks: every rank may hold entries of any row; the
// functions here count rows globally and send each entry to the rank owning its row.
#include <mpi.h>

#include <cstdint>
#include <vector>

#include "tessera/core/coo.hpp"
#include "tessera/core/dist/partition.hpp"

namespace tessera::dist {

// Collective: entries per row over all ranks' `coo` (every rank gets the whole
// vector). Coordinates must already be checked against the shape.
std::vector<std::int64_t> global_row_counts(MPI_Comm comm, const HostCoo<double>& coo, std::int64_t rows);

// Collective: sends each entry of `coo` (a matrix with in-range coordinates) to the
// owner of its row under `rows`; returns the entries this rank receives, in rank order.
HostCoo<double> redistribute_rows(MPI_Comm comm, const RowPartition& rows, const HostCoo<double>& coo);

// Collective: every rank's entries on `root` (rank order), empty elsewhere; the shape is copied.
HostCoo<double> gather_coo(MPI_Comm comm, const HostCoo<double>& coo, int root);

}  // namespace tessera::dist
