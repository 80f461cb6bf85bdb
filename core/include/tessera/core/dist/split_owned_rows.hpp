#pragma once
/// \file
/// A rank's rows held in Space, made into DistTensor's diagonal and off-diagonal blocks without
/// leaving Space: rows with global column ids split by column block, or rows whose entries are
/// outside the block already (dist::spgemm's local products) kept where they have entries. The
/// blocks' arrays come from the device pool of results on CUDA, the temporaries from the pool of
/// temporaries (result_arrays.hpp): no cudaMalloc, and no cudaFree waiting for the device, per split.
#include <algorithm>
#include <cstdint>
#include <vector>

#include <Kokkos_Core.hpp>

#include "tessera/core/allocation.hpp"
#include "tessera/core/dist/ghost_bitmap.hpp"
#include "tessera/formats/assembly/parallel.hpp"
#include "tessera/formats/assembly/result_arrays.hpp"
#include "tessera/formats/host_transfer.hpp"

namespace tessera::dist::detail {

template <class Local, class RowView>
struct SplitRows {
  Local diagonal, off_diagonal;
  RowView boundary_rows;                // local rows with ghost entries, ascending
  std::vector<std::int64_t> ghost_cols;  // ascending global columns outside [c0, c1)
};

// Rows over a team's threads, a row's entries over its vector lanes: on a device a warp reads
// one row's entries together (a thread per row touches a cache line per row at every step,
// more lines than the cache keeps for long rows).
template <class Space>
struct RowLanes {
  static constexpr bool device =
      !Kokkos::SpaceAccessibility<Kokkos::HostSpace, typename Space::memory_space>::accessible;
  static constexpr int lanes = device ? 32 : 1;
  static constexpr std::int64_t rows_per_team = device ? 8 : 256;
  using Policy = Kokkos::TeamPolicy<Space>;
  using Member = typename Policy::member_type;

  static Policy policy(std::int64_t rows) {
    return Policy(static_cast<int>((rows + rows_per_team - 1) / rows_per_team), device ? rows_per_team : 1, lanes);
  }
  KOKKOS_INLINE_FUNCTION static std::int64_t first_row(const Member& team) {
    return static_cast<std::int64_t>(team.league_rank()) * rows_per_team;
  }
  KOKKOS_INLINE_FUNCTION static std::int64_t end_row(const Member& team, std::int64_t rows) {
    return first_row(team) + rows_per_team < rows ? first_row(team) + rows_per_team : rows;
  }
};

// An off-diagonal block without rows or ghost columns (a rank whose rows name no ghost column).
template <class Local>
Local empty_off_diagonal() {
  typename Local::Storage offd;
  offd.levels[1].pos = typename Local::pos_view("tessera::DistTensor off-diagonal pos", 1);
  offd.levels[1].crd = typename Local::crd_view("tessera::DistTensor off-diagonal crd", 0);
  offd.vals = typename Local::vals_view("tessera::DistTensor off-diagonal vals", 0);
  return Local({0, 0}, std::move(offd));
}

// `owned`: CSR-like rows whose columns are ascending and distinct. Columns in [c0, c1) go to
// the diagonal block (shifted by c0), the others to the off-diagonal block (by ghost slot), whose
// rows are the rows with such columns. The off-diagonal entries keep their order, so a row's
// entries in that block start where the ghost entries of the rows before it end. Where [c0, c1)
// holds every column (one rank) the diagonal block is `owned` itself.
template <class Local, class RowView>
SplitRows<Local, RowView> split_owned_rows(const Local& owned, std::int64_t c0, std::int64_t c1) {
  using Space = typename Local::execution_space;
  using Offset = typename Local::offset_type;
  using Ordinal = typename Local::ordinal_type;
  using Lanes = RowLanes<Space>;
  using Member = typename Lanes::Member;
  using Index = Kokkos::View<std::int64_t*, tessera::detail::DeviceOf<Space>>;
  using tessera::detail::offsets_into;
  using tessera::detail::range;
  using tessera::detail::total_of;
  using tessera::detail::uninitialized_view;
  const auto& s = owned.decompose();
  const auto pos = s.levels[1].pos;
  const auto crd = s.levels[1].crd;
  const auto vals = s.vals;
  const std::int64_t rows = owned.extent(0);

  SplitRows<Local, RowView> out;
  if (c0 == 0 && c1 == owned.extent(1)) {  // one rank: the rows are the diagonal block
    out.diagonal = owned;
    out.boundary_rows = RowView("tessera::DistTensor::boundary_rows", 0);
    out.off_diagonal = empty_off_diagonal<Local>();
    return out;
  }

  const Space space;
  tessera::detail::ResultArrays<Space> arrays(space);   // the blocks'
  tessera::detail::ResultArrays<Space> scratch(space, tessera::detail::call_scoped);  // this split's

  // Each row's ghost entries counted, their columns marked.
  GhostBitmap<Space> ghosts_of = empty_ghost_bitmap<Space>(owned.extent(1), scratch);
  const auto row_ghosts = scratch.template take<Index>("tessera::DistTensor ghost entries", rows + 1);
  Kokkos::parallel_for(
      "tessera::DistTensor[mark ghosts]", Lanes::policy(rows), KOKKOS_LAMBDA(const Member& team) {
        const std::int64_t first = Lanes::first_row(team), last = Lanes::end_row(team, rows);
        Kokkos::parallel_for(Kokkos::TeamThreadRange(team, first, last), [&](const std::int64_t r) {
          const std::int64_t length = static_cast<std::int64_t>(pos(r + 1) - pos(r));
          // Columns ascend: a row whose first and last columns are owned has no ghost entries.
          if (length == 0 || (crd(pos(r)) >= c0 && crd(pos(r) + length - 1) < c1)) {
            Kokkos::single(Kokkos::PerThread(team), [&] { row_ghosts(r) = 0; });
            return;
          }
          std::int64_t g = 0;
          Kokkos::parallel_reduce(
              Kokkos::ThreadVectorRange(team, length),
              [&](const std::int64_t k, std::int64_t& count) {
                const std::int64_t j = crd(pos(r) + k);
                if (j >= c0 && j < c1) return;
                ghosts_of.mark(j);
                ++count;
              },
              g);
          Kokkos::single(Kokkos::PerThread(team), [&] { row_ghosts(r) = g; });
        });
      });
  tessera::detail::counts_to_offsets(space, row_ghosts, rows);
  const auto ghost_at = row_ghosts;  // now each row's first ghost entry
  const std::int64_t remote = total_of(ghost_at);

  // The ghost columns, ascending: the bitmap's set bits in order.
  const std::int64_t ghosts = number_slots(ghosts_of, scratch);
  out.ghost_cols = tessera::detail::download_array<std::int64_t>(marked_columns(ghosts_of, ghosts, scratch));

  const auto diag_pos = arrays.template take<typename Local::pos_view>("tessera::DistTensor diagonal pos", rows + 1);
  offsets_into<Offset, Space>(
      diag_pos, rows,
      KOKKOS_LAMBDA(std::int64_t r) { return (pos(r + 1) - pos(r)) - (ghost_at(r + 1) - ghost_at(r)); },
      "tessera::DistTensor diagonal pos");
  const auto boundary_at = scratch.template take<Index>("tessera::DistTensor boundary", rows + 1);
  offsets_into<std::int64_t, Space>(
      boundary_at, rows, KOKKOS_LAMBDA(std::int64_t r) { return ghost_at(r + 1) > ghost_at(r); },
      "tessera::DistTensor boundary");
  const std::int64_t boundary = total_of(boundary_at), local = total_of(diag_pos);

  out.boundary_rows = uninitialized_view<RowView>("tessera::DistTensor::boundary_rows", boundary);
  typename Local::Storage diag, offd;
  diag.levels[1].pos = diag_pos;
  diag.levels[1].crd = arrays.template take<typename Local::crd_view>("tessera::DistTensor diagonal crd", local);
  diag.vals = arrays.template take<typename Local::vals_view>("tessera::DistTensor diagonal vals", local);
  offd.levels[1].pos =
      arrays.template take<typename Local::pos_view>("tessera::DistTensor off-diagonal pos", boundary + 1);
  offd.levels[1].crd = arrays.template take<typename Local::crd_view>("tessera::DistTensor off-diagonal crd", remote);
  offd.vals = arrays.template take<typename Local::vals_view>("tessera::DistTensor off-diagonal vals", remote);
  {
    const auto rows_out = out.boundary_rows;
    const auto diag_crd = diag.levels[1].crd;
    const auto diag_vals = diag.vals;
    const auto offd_pos = offd.levels[1].pos;
    const auto offd_crd = offd.levels[1].crd;
    const auto offd_vals = offd.vals;
    Kokkos::parallel_for(
        "tessera::DistTensor[split rows]", Lanes::policy(rows), KOKKOS_LAMBDA(const Member& team) {
          const std::int64_t first = Lanes::first_row(team), last = Lanes::end_row(team, rows);
          Kokkos::parallel_for(Kokkos::TeamThreadRange(team, first, last), [&](const std::int64_t r) {
            Kokkos::single(Kokkos::PerThread(team), [&] {
              if (boundary_at(r + 1) > boundary_at(r)) {
                rows_out(boundary_at(r)) = r;
                offd_pos(boundary_at(r)) = static_cast<Offset>(ghost_at(r));
              }
              if (r == rows - 1) offd_pos(boundary) = static_cast<Offset>(remote);
            });
            // A row's entries in order: the ghost entries before an entry give its place in both blocks.
            const Offset p = pos(r);
            Kokkos::parallel_scan(Kokkos::ThreadVectorRange(team, static_cast<std::int64_t>(pos(r + 1) - p)),
                                  [&](const std::int64_t k, std::int64_t& ghosts_before, const bool final) {
                                    const std::int64_t j = crd(p + k);
                                    const bool ghost = j < c0 || j >= c1;
                                    if (final && ghost) {
                                      offd_crd(ghost_at(r) + ghosts_before) = static_cast<Ordinal>(ghosts_of.slot(j));
                                      offd_vals(ghost_at(r) + ghosts_before) = vals(p + k);
                                    } else if (final) {
                                      diag_crd(diag_pos(r) + k - ghosts_before) = static_cast<Ordinal>(j - c0);
                                      diag_vals(diag_pos(r) + k - ghosts_before) = vals(p + k);
                                    }
                                    ghosts_before += ghost;
                                  });
          });
        });
    if (rows == 0) Kokkos::deep_copy(space, offd_pos, Offset{0});
  }
  out.diagonal = Local({rows, c1 - c0}, std::move(diag), arrays.owner());
  out.off_diagonal = Local({boundary, ghosts}, std::move(offd), arrays.owner());
  return out;
}

// A rank's off-diagonal block with its boundary rows and ghost columns.
template <class Local, class RowView>
struct OffDiagonalRows {
  Local block = empty_off_diagonal<Local>();
  RowView boundary_rows = RowView("tessera::DistTensor::boundary_rows", 0);
  std::vector<std::int64_t> ghost_cols;
};

// `ghost_rows`: each of a rank's rows with its entries outside the column block only, columns by
// slot of `slot_cols` (ascending global columns in Space). The rows with entries become the
// off-diagonal block, and the slots they use its ghost columns. The block takes ghost_rows'
// column and value arrays (its columns renumbered in place where some slot is unused).
template <class Local, class RowView, class SlotCols>
OffDiagonalRows<Local, RowView> off_diagonal_of(const Local& ghost_rows, const SlotCols& slot_cols) {
  using Space = typename Local::execution_space;
  using Offset = typename Local::offset_type;
  using Ordinal = typename Local::ordinal_type;
  using Index = Kokkos::View<std::int64_t*, tessera::detail::DeviceOf<Space>>;
  using tessera::detail::range;
  OffDiagonalRows<Local, RowView> out;
  if (ghost_rows.nnz() == 0) return out;
  const auto& s = ghost_rows.decompose();
  const auto pos = s.levels[1].pos;
  const auto crd = s.levels[1].crd;
  const std::int64_t rows = ghost_rows.extent(0), nnz = ghost_rows.nnz();
  const Space space;
  tessera::detail::ResultArrays<Space> arrays(space);
  tessera::detail::ResultArrays<Space> scratch(space, tessera::detail::call_scoped);

  // The slots in use, renumbered in order.
  GhostBitmap<Space> used = empty_ghost_bitmap<Space>(static_cast<std::int64_t>(slot_cols.extent(0)), scratch);
  Kokkos::parallel_for(
      "tessera::DistTensor[mark used ghosts]", range<Space>(nnz), KOKKOS_LAMBDA(const std::int64_t e) {
        used.mark(crd(e));
      });
  const std::int64_t ghosts = number_slots(used, scratch);
  const auto used_slots = marked_columns(used, ghosts, scratch);
  if (ghosts < static_cast<std::int64_t>(slot_cols.extent(0)))
    Kokkos::parallel_for(
        "tessera::DistTensor[renumber ghosts]", range<Space>(nnz),
        KOKKOS_LAMBDA(const std::int64_t e) { crd(e) = static_cast<Ordinal>(used.slot(crd(e))); });
  const auto columns = scratch.template take<Index>("tessera::DistTensor ghost columns", ghosts);
  Kokkos::parallel_for(
      "tessera::DistTensor[ghost columns]", range<Space>(ghosts),
      KOKKOS_LAMBDA(const std::int64_t g) { columns(g) = slot_cols(used_slots(g)); });
  out.ghost_cols = tessera::detail::download_array<std::int64_t>(columns);

  // The rows with entries; theirs keep their places in the arrays.
  const auto boundary_at = scratch.template take<Index>("tessera::DistTensor boundary", rows + 1);
  tessera::detail::offsets_into<std::int64_t, Space>(
      boundary_at, rows, KOKKOS_LAMBDA(std::int64_t r) { return pos(r + 1) > pos(r); },
      "tessera::DistTensor boundary");
  const std::int64_t boundary = tessera::detail::total_of(boundary_at);
  const auto boundary_rows =
      tessera::detail::uninitialized_view<RowView>("tessera::DistTensor::boundary_rows", boundary);
  typename Local::Storage offd;
  offd.levels[1].pos =
      arrays.template take<typename Local::pos_view>("tessera::DistTensor off-diagonal pos", boundary + 1);
  offd.levels[1].crd = crd;
  offd.vals = s.vals;
  const auto offd_pos = offd.levels[1].pos;
  Kokkos::parallel_for(
      "tessera::DistTensor[boundary rows]", range<Space>(rows), KOKKOS_LAMBDA(const std::int64_t r) {
        if (boundary_at(r + 1) > boundary_at(r)) {
          boundary_rows(boundary_at(r)) = r;
          offd_pos(boundary_at(r)) = pos(r);
        }
        if (r == rows - 1) offd_pos(boundary) = static_cast<Offset>(nnz);
      });
  arrays.share_arrays_of(ghost_rows);
  out.block = Local({boundary, ghosts}, std::move(offd), arrays.owner());
  out.boundary_rows = boundary_rows;
  return out;
}

}  // namespace tessera::dist::detail
