#pragma once
/// \file
/// The 3-D Poisson matrix (7-point Laplacian on an n x n x n grid: 6 on the diagonal, -1
/// to each grid neighbour), built in parallel in the matrix's own space: each rank generates
/// the diagonal and off-diagonal blocks of its equal block of rows directly (no triplets, no
/// exchange of entries), its ghost columns from the stencil, and the import plan from those.
/// A standard SPD test and benchmark matrix (n^3 rows, about 7 n^3 nonzeros).
#include <mpi.h>

#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include <Kokkos_Core.hpp>

#include "tessera/core/checked_count.hpp"
#include "tessera/core/dist/collective_error.hpp"
#include "tessera/core/dist/partition.hpp"
#include "tessera/core/error.hpp"
#include "tessera/core/poisson_3d_triplets.hpp"
#include "tessera/formats/assembly/parallel.hpp"

namespace tessera::dist {
namespace detail {

/// One rank's parts of the Poisson matrix (DistTensor::from_local_blocks' arguments).
template <class Local, class RowView>
struct PoissonBlock {
  Local diagonal, off_diagonal;
  RowView boundary_rows;
  std::vector<std::int64_t> ghost_cols;
};

/// The ghost columns of rows [r0, r1) of the n^3-row Poisson matrix, ascending, and the slot of
/// each. They lie within n^2 of the block, and a column is a ghost exactly when one of its grid
/// neighbours is a row of the block (the stencil is symmetric): found without any entry.
template <class Space>
struct PoissonGhosts {
  using view = Kokkos::View<std::int64_t*, Kokkos::Device<Space, typename Space::memory_space>>;
  view cols;  ///< ghost columns, ascending
  view slot;  ///< slot(c): ghosts among the candidates before c; candidates [low, r0), then [r1, high)
  std::int64_t low = 0, below = 0, r0 = 0, r1 = 0;

  /// Slot of the ghost column j (on the device).
  KOKKOS_INLINE_FUNCTION std::int64_t slot_of(std::int64_t j) const { return j < r0 ? slot(j - low) : slot(below + j - r1); }
};

template <class Space>
PoissonGhosts<Space> poisson_3d_ghosts(std::int64_t n, std::int64_t r0, std::int64_t r1) {
  using tessera::detail::range;
  const std::int64_t plane = n * n, grid = plane * n;
  PoissonGhosts<Space> g;
  g.r0 = r0;
  g.r1 = r1;
  g.low = r0 - plane > 0 ? r0 - plane : 0;
  g.below = r1 > r0 ? r0 - g.low : 0;
  const std::int64_t above = r1 > r0 ? (r1 + plane < grid ? r1 + plane : grid) - r1 : 0;
  const std::int64_t low = g.low, below = g.below;
  const auto candidate = KOKKOS_LAMBDA(std::int64_t c) { return c < below ? low + c : r1 + (c - below); };
  const auto near_block = KOKKOS_LAMBDA(std::int64_t c) {
    bool near = false;
    poisson_3d_stencil(n, candidate(c), [&](std::int64_t i, double) { near = near || (i >= r0 && i < r1); });
    return near;
  };
  g.slot = tessera::detail::offsets_of<std::int64_t, Space>("tessera::poisson_3d ghost slots", below + above,
                                                            near_block);
  const std::int64_t ghosts = tessera::detail::total_of(g.slot);
  g.cols = typename PoissonGhosts<Space>::view(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "tessera::poisson_3d ghost columns"), ghosts);
  const auto slot = g.slot;
  const auto cols = g.cols;
  Kokkos::parallel_for(
      "tessera::poisson_3d[ghosts]", range<Space>(below + above), KOKKOS_LAMBDA(const std::int64_t c) {
        if (slot(c + 1) > slot(c)) cols(slot(c)) = candidate(c);
      });
  return g;
}

/// Rows [r0, r1) of the n^3-row Poisson matrix as a diagonal block (columns [r0, r1)) and an
/// off-diagonal block over the rows with neighbours outside it, its columns the slots of
/// poisson_3d_ghosts.
template <class Local, class RowView>
PoissonBlock<Local, RowView> poisson_3d_block(std::int64_t n, std::int64_t r0, std::int64_t r1) {
  using Space = typename Local::execution_space;
  using T = typename Local::value_type;
  using Offset = typename Local::offset_type;
  using Ordinal = typename Local::ordinal_type;
  using tessera::detail::offsets_of;
  using tessera::detail::range;
  using tessera::detail::total_of;
  const std::int64_t rows = r1 - r0, plane = n * n;
  // Entries per block stay within 7 per row; ghosts within 2 n^2.
  if (rows > 0 && (rows - 1 > std::numeric_limits<Ordinal>::max() ||
                   7 * rows > static_cast<std::int64_t>(std::numeric_limits<Offset>::max()) ||
                   2 * plane > static_cast<std::int64_t>(std::numeric_limits<Ordinal>::max())))
    throw OverflowError("poisson_3d: " + std::to_string(rows) + " rows per rank of an " + std::to_string(n) +
                        "^3 grid pass the encoding's index types; use more ranks or 64-bit indices");
  const auto inside = KOKKOS_LAMBDA(std::int64_t j) { return j >= r0 && j < r1; };
  const auto count_inside = KOKKOS_LAMBDA(std::int64_t i, bool in) {
    std::int64_t c = 0;
    poisson_3d_stencil(n, i, [&](std::int64_t j, double) { c += inside(j) == in; });
    return c;
  };

  PoissonBlock<Local, RowView> out;
  typename Local::Storage diag;
  diag.levels[1].pos = offsets_of<Offset, Space>(
      "tessera::poisson_3d diagonal pos", rows, KOKKOS_LAMBDA(std::int64_t r) { return count_inside(r0 + r, true); });
  const std::int64_t diag_nnz = total_of(diag.levels[1].pos);
  diag.levels[1].crd = tessera::detail::uninitialized_view<typename Local::crd_view>("tessera::poisson_3d diagonal crd",
                                                                                     diag_nnz);
  diag.vals = tessera::detail::uninitialized_view<typename Local::vals_view>("tessera::poisson_3d diagonal vals",
                                                                             diag_nnz);
  {
    const auto pos = diag.levels[1].pos;
    const auto crd = diag.levels[1].crd;
    const auto vals = diag.vals;
    Kokkos::parallel_for(
        "tessera::poisson_3d[diagonal]", range<Space>(rows), KOKKOS_LAMBDA(const std::int64_t r) {
          std::int64_t e = pos(r);
          poisson_3d_stencil(n, r0 + r, [&](std::int64_t j, double v) {
            if (!inside(j)) return;
            crd(e) = static_cast<Ordinal>(j - r0);
            vals(e) = static_cast<T>(v);
            ++e;
          });
        });
  }
  out.diagonal = Local({rows, rows}, std::move(diag));

  // Boundary rows: those with a neighbour outside the block.
  const auto boundary_at = offsets_of<std::int64_t, Space>(
      "tessera::poisson_3d boundary", rows, KOKKOS_LAMBDA(std::int64_t r) { return count_inside(r0 + r, false) > 0; });
  const std::int64_t boundary = total_of(boundary_at);
  out.boundary_rows = tessera::detail::uninitialized_view<RowView>("tessera::DistTensor::boundary_rows", boundary);
  {
    const auto rows_out = out.boundary_rows;
    Kokkos::parallel_for(
        "tessera::poisson_3d[boundary rows]", range<Space>(rows), KOKKOS_LAMBDA(const std::int64_t r) {
          if (boundary_at(r + 1) > boundary_at(r)) rows_out(boundary_at(r)) = r;
        });
  }

  const PoissonGhosts<Space> ghost = poisson_3d_ghosts<Space>(n, r0, r1);
  const std::int64_t ghosts = static_cast<std::int64_t>(ghost.cols.extent(0));
  out.ghost_cols.resize(ghosts);
  Kokkos::deep_copy(Kokkos::View<std::int64_t*, Kokkos::HostSpace>(out.ghost_cols.data(), ghosts), ghost.cols);

  typename Local::Storage offd;
  const auto boundary_rows = out.boundary_rows;
  offd.levels[1].pos = offsets_of<Offset, Space>(
      "tessera::poisson_3d off-diagonal pos", boundary,
      KOKKOS_LAMBDA(std::int64_t b) { return count_inside(r0 + boundary_rows(b), false); });
  const std::int64_t offd_nnz = total_of(offd.levels[1].pos);
  offd.levels[1].crd = tessera::detail::uninitialized_view<typename Local::crd_view>(
      "tessera::poisson_3d off-diagonal crd", offd_nnz);
  offd.vals = tessera::detail::uninitialized_view<typename Local::vals_view>("tessera::poisson_3d off-diagonal vals",
                                                                             offd_nnz);
  {
    const auto pos = offd.levels[1].pos;
    const auto crd = offd.levels[1].crd;
    const auto vals = offd.vals;
    Kokkos::parallel_for(
        "tessera::poisson_3d[off-diagonal]", range<Space>(boundary), KOKKOS_LAMBDA(const std::int64_t b) {
          std::int64_t e = pos(b);
          poisson_3d_stencil(n, r0 + boundary_rows(b), [&](std::int64_t j, double v) {
            if (inside(j)) return;
            crd(e) = static_cast<Ordinal>(ghost.slot_of(j));
            vals(e) = static_cast<T>(v);
            ++e;
          });
        });
  }
  out.off_diagonal = Local({boundary, ghosts}, std::move(offd));
  return out;
}

}  // namespace detail

/// Collective: the n^3-row Poisson matrix as a Matrix (a DistTensor), rows in equal blocks.
template <class Matrix>
Matrix poisson_3d(MPI_Comm comm, std::int64_t n) {
  if (n < 0) throw ShapeError("poisson_3d: grid size " + std::to_string(n));
  const std::int64_t rows =
      tessera::detail::checked_count_product(tessera::detail::checked_count_product(n, n, "poisson_3d: the grid"), n,
                                             "poisson_3d: the grid");
  const auto blocks = RowPartition::uniform(rows, comm_size(comm));
  const int rank = comm_rank(comm);
  detail::PoissonBlock<typename Matrix::local_tensor, typename Matrix::row_view> part;
  agree_on_errors(comm, [&] {
    part = detail::poisson_3d_block<typename Matrix::local_tensor, typename Matrix::row_view>(n, blocks.begin(rank),
                                                                                            blocks.end(rank));
  });
  return Matrix::from_local_blocks(comm, blocks, blocks, std::move(part.diagonal), std::move(part.off_diagonal),
                                   std::move(part.boundary_rows), std::move(part.ghost_cols));
}

}  // namespace tessera::dist
