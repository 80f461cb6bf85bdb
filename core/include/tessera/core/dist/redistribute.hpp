#pragma once
/// \file
/// Moving COO triplets between ranks: every rank may hold entries of any row; the
/// functions here balance rows by their global entry counts and send each entry to the
/// rank owning its row.
#include <mpi.h>

#include <cstdint>
#include <vector>

#include "tessera/core/coo.hpp"
#include "tessera/core/dist/partition.hpp"

namespace tessera::dist {

/// Collective: RowPartition::balanced over the ranks of the rows' entry counts summed over
/// all ranks' `coo` (coordinates already checked against `rows`), without a vector of all
/// rows on any rank: each rank counts the rows of one equal block (the others send it their
/// entries' rows as (row, count) runs), finds the boundaries that fall in its block's prefix
/// weights, and the ranks share them. Memory per rank: its entries plus rows / ranks.
RowPartition balanced_row_partition(MPI_Comm comm, const HostCoo<double>& coo, std::int64_t rows);

/// Collective: sends each entry of `coo` (a matrix with in-range coordinates) to the
/// owner of its row under `rows`; returns the entries this rank receives, in rank order.
HostCoo<double> redistribute_rows(MPI_Comm comm, const RowPartition& rows, const HostCoo<double>& coo);

/// Collective: every rank's entries on `root` (rank order), empty elsewhere; the shape is copied.
HostCoo<double> gather_coo(MPI_Comm comm, const HostCoo<double>& coo, int root);

}  // namespace tessera::dist
