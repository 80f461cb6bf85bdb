#pragma once
/// \file
/// Triplets of the 3-D Poisson matrix (7-point Laplacian on an n x n x n grid: 6 on the
/// diagonal, -1 to each grid neighbour), generated in parallel on the host: a standard SPD test
/// and benchmark matrix of n^3 rows and 7 n^3 - 6 n^2 nonzeros.
#include <cstdint>
#include <string>
#include <vector>

#include <Kokkos_Core.hpp>

#include "tessera/core/allocation.hpp"
#include "tessera/core/checked_count.hpp"
#include "tessera/core/coo.hpp"
#include "tessera/core/error.hpp"

namespace tessera {

/// Visits (column, value) of row `row` of the n^3 x n^3 Poisson matrix, columns ascending: the
/// row's grid neighbours (-1) and itself (6). Callable on a device.
template <class Visit>
KOKKOS_INLINE_FUNCTION void poisson_3d_stencil(std::int64_t n, std::int64_t row, Visit&& visit) {
  const std::int64_t x = row % n, y = row / n % n, z = row / (n * n);
  if (z > 0) visit(row - n * n, -1.0);
  if (y > 0) visit(row - n, -1.0);
  if (x > 0) visit(row - 1, -1.0);
  visit(row, 6.0);
  if (x + 1 < n) visit(row + 1, -1.0);
  if (y + 1 < n) visit(row + n, -1.0);
  if (z + 1 < n) visit(row + n * n, -1.0);
}

/// Rows [row_begin, row_end) of the n^3 x n^3 Poisson matrix, row by row, columns ascending:
/// sorted triplets, which from_coo builds without a sort.
inline HostCoo<double> poisson_3d_triplets(std::int64_t n, std::int64_t row_begin, std::int64_t row_end) {
  if (n < 0) throw ShapeError("poisson_3d: grid size " + std::to_string(n));
  const std::int64_t rows = detail::checked_count_product(detail::checked_count_product(n, n, "poisson_3d: the grid"),
                                                          n, "poisson_3d: the grid");
  if (row_begin < 0 || row_begin > row_end || row_end > rows)
    throw IndexError("poisson_3d: rows [" + std::to_string(row_begin) + ", " + std::to_string(row_end) +
                     ") of a matrix of " + std::to_string(rows));
  using Space = Kokkos::DefaultHostExecutionSpace;
  using Policy = Kokkos::RangePolicy<Space, Kokkos::IndexType<std::int64_t>>;
  const std::int64_t count = row_end - row_begin;
  const auto neighbours = [n](std::int64_t row, auto&& visit) { poisson_3d_stencil(n, row, visit); };
  // Where each row's entries start: a scan of the rows' entry counts.
  std::vector<std::int64_t> start = detail::host_vector<std::int64_t>("tessera::poisson row starts", count + 1);
  std::int64_t* const at = start.data();
  Kokkos::parallel_scan("tessera::poisson_3d[count]", Policy(0, count),
                        [=](const std::int64_t r, std::int64_t& offset, const bool final) {
                          if (final) at[r] = offset;
                          neighbours(row_begin + r, [&](std::int64_t, double) { ++offset; });
                          if (final && r == count - 1) at[count] = offset;
                        });
  HostCoo<double> coo;
  coo.shape = {rows, rows};
  const std::int64_t nnz = count == 0 ? 0 : start[count];
  coo.coords = detail::host_vector<std::int64_t>("tessera::poisson coordinates", 2 * nnz);
  coo.values = detail::host_vector<double>("tessera::poisson values", nnz);
  std::int64_t* const coords = coo.coords.data();
  double* const values = coo.values.data();
  Kokkos::parallel_for("tessera::poisson_3d", Policy(0, count), [=](const std::int64_t r) {
    const std::int64_t row = row_begin + r;
    std::int64_t e = at[r];
    neighbours(row, [&](std::int64_t col, double v) {
      coords[2 * e] = row;
      coords[2 * e + 1] = col;
      values[e] = v;
      ++e;
    });
  });
  return coo;
}

}  // namespace tessera
