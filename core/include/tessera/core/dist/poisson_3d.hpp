#pragma once
/// \file
/// The 3-D Poisson matrix (7-point Laplacian on an n x n x n grid: 6 on the diagonal, -1
/// to each grid neighbour), built in parallel: each rank generates the rows of its equal
/// block (with its host threads, poisson_3d_triplets.hpp), then DistTensor::from_coo moves them
/// to the row blocks balanced by nonzeros.
/// A standard SPD test and benchmark matrix (n^3 rows, about 7 n^3 nonzeros).
#include <mpi.h>

#include <cstdint>
#include <string>

#include "tessera/core/checked_count.hpp"
#include "tessera/core/coo.hpp"
#include "tessera/core/error.hpp"
#include "tessera/core/dist/partition.hpp"
#include "tessera/core/poisson_3d_triplets.hpp"

namespace tessera::dist {

/// Collective: the n^3-row Poisson matrix as a Matrix (e.g. a DistTensor).
template <class Matrix>
Matrix poisson_3d(MPI_Comm comm, std::int64_t n) {
  if (n < 0) throw ShapeError("poisson_3d: grid size " + std::to_string(n));
  const std::int64_t rows =
      tessera::detail::checked_count_product(tessera::detail::checked_count_product(n, n, "poisson_3d: the grid"), n,
                                             "poisson_3d: the grid");
  const auto blocks = RowPartition::uniform(rows, comm_size(comm));
  const int rank = comm_rank(comm);
  const HostCoo<double> mine = poisson_3d_triplets(n, blocks.begin(rank), blocks.end(rank));
  return Matrix::from_coo(comm, mine);
}

}  // namespace tessera::dist
