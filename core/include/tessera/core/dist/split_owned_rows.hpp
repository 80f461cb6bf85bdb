#pragma once
/// \file
/// A rank's rows held in Space with global column ids, split into DistTensor's diagonal and
/// off-diagonal blocks without leaving Space (dist::spgemm's local product is such rows).
#include <algorithm>
#include <cstdint>
#include <vector>

#include <Kokkos_Core.hpp>

#include "tessera/core/allocation.hpp"
#include "tessera/formats/assembly/parallel.hpp"
#include "tessera/formats/host_transfer.hpp"

namespace tessera::dist::detail {

template <class Local, class RowView>
struct SplitRows {
  Local diagonal, off_diagonal;
  RowView boundary_rows;                // local rows with ghost entries, ascending
  std::vector<std::int64_t> ghost_cols;  // ascending global columns outside [c0, c1)
};

// `owned`: CSR-like rows whose columns are ascending and distinct. Columns in [c0, c1) go to
// the diagonal block (shifted by c0), the others to the off-diagonal block (by ghost slot), whose
// rows are the rows with such columns. The off-diagonal entries keep their order, so a row's
// entries in that block start where the ghost entries of the rows before it end.
template <class Local, class RowView>
SplitRows<Local, RowView> split_owned_rows(const Local& owned, std::int64_t c0, std::int64_t c1) {
  using Space = typename Local::execution_space;
  using Offset = typename Local::offset_type;
  using Ordinal = typename Local::ordinal_type;
  using tessera::detail::offsets_of;
  using tessera::detail::range;
  using tessera::detail::total_of;
  using tessera::detail::uninitialized_view;
  const auto& s = owned.decompose();
  const auto pos = s.levels[1].pos;
  const auto crd = s.levels[1].crd;
  const auto vals = s.vals;
  const std::int64_t rows = owned.extent(0);
  const auto ghosts_in = KOKKOS_LAMBDA(std::int64_t r) {
    std::int64_t g = 0;
    for (Offset e = pos(r); e < pos(r + 1); ++e) g += crd(e) < c0 || crd(e) >= c1;
    return g;
  };
  const auto ghost_at = offsets_of<std::int64_t, Space>("tessera::DistTensor ghost entries", rows, ghosts_in);
  const auto diag_pos = offsets_of<Offset, Space>(
      "tessera::DistTensor diagonal pos", rows,
      KOKKOS_LAMBDA(std::int64_t r) { return (pos(r + 1) - pos(r)) - (ghost_at(r + 1) - ghost_at(r)); });
  const auto boundary_at = offsets_of<std::int64_t, Space>(
      "tessera::DistTensor boundary", rows, KOKKOS_LAMBDA(std::int64_t r) { return ghost_at(r + 1) > ghost_at(r); });
  const std::int64_t remote = total_of(ghost_at), boundary = total_of(boundary_at), local = total_of(diag_pos);

  SplitRows<Local, RowView> out;
  out.boundary_rows = uninitialized_view<RowView>("tessera::DistTensor::boundary_rows", boundary);
  typename Local::Storage offd;
  offd.levels[1].pos = uninitialized_view<typename Local::pos_view>("tessera::DistTensor off-diagonal pos", boundary + 1);
  offd.levels[1].crd = uninitialized_view<typename Local::crd_view>("tessera::DistTensor off-diagonal crd", remote);
  offd.vals = uninitialized_view<typename Local::vals_view>("tessera::DistTensor off-diagonal vals", remote);
  {
    const auto rows_out = out.boundary_rows;
    const auto offd_pos = offd.levels[1].pos;
    const auto offd_crd = offd.levels[1].crd;  // global columns first, ghost slots below
    Kokkos::parallel_for(
        "tessera::DistTensor[boundary rows]", range<Space>(rows), KOKKOS_LAMBDA(const std::int64_t r) {
          if (boundary_at(r + 1) > boundary_at(r)) {
            rows_out(boundary_at(r)) = r;
            offd_pos(boundary_at(r)) = static_cast<Offset>(ghost_at(r));
          }
          if (r == rows - 1) offd_pos(boundary) = static_cast<Offset>(remote);
          std::int64_t g = ghost_at(r);
          for (Offset e = pos(r); e < pos(r + 1); ++e)
            if (crd(e) < c0 || crd(e) >= c1) offd_crd(g++) = crd(e);
        });
    if (rows == 0) Kokkos::deep_copy(offd_pos, Offset{0});
  }
  // The ghost columns, ascending and distinct, on the host (the import plan is built there).
  {
    const auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), offd.levels[1].crd);
    out.ghost_cols.assign(host.data(), host.data() + remote);  // widened from the encoding's ordinals
    std::sort(out.ghost_cols.begin(), out.ghost_cols.end());
    out.ghost_cols.erase(std::unique(out.ghost_cols.begin(), out.ghost_cols.end()), out.ghost_cols.end());
  }
  const auto ghost_view = tessera::detail::upload_array<Kokkos::View<std::int64_t*, typename Local::device_type>>(
      "tessera::DistTensor ghost columns", out.ghost_cols);
  const std::int64_t ghosts = static_cast<std::int64_t>(out.ghost_cols.size());

  typename Local::Storage diag;
  diag.levels[1].pos = diag_pos;
  diag.levels[1].crd = uninitialized_view<typename Local::crd_view>("tessera::DistTensor diagonal crd", local);
  diag.vals = uninitialized_view<typename Local::vals_view>("tessera::DistTensor diagonal vals", local);
  {
    const auto diag_crd = diag.levels[1].crd;
    const auto diag_vals = diag.vals;
    const auto offd_crd = offd.levels[1].crd;
    const auto offd_vals = offd.vals;
    Kokkos::parallel_for(
        "tessera::DistTensor[split rows]", range<Space>(rows), KOKKOS_LAMBDA(const std::int64_t r) {
          Offset d = diag_pos(r);
          std::int64_t g = ghost_at(r);
          for (Offset e = pos(r); e < pos(r + 1); ++e) {
            const std::int64_t j = crd(e);
            if (j >= c0 && j < c1) {
              diag_crd(d) = static_cast<Ordinal>(j - c0);
              diag_vals(d++) = vals(e);
            } else {
              std::int64_t lo = 0, hi = ghosts;  // the slot of j among the ghost columns
              while (lo < hi) {
                const std::int64_t mid = (lo + hi) / 2;
                if (ghost_view(mid) < j)
                  lo = mid + 1;
                else
                  hi = mid;
              }
              offd_crd(g) = static_cast<Ordinal>(lo);
              offd_vals(g++) = vals(e);
            }
          }
        });
  }
  out.diagonal = Local({rows, c1 - c0}, std::move(diag));
  out.off_diagonal = Local({boundary, ghosts}, std::move(offd));
  return out;
}

}  // namespace tessera::dist::detail
