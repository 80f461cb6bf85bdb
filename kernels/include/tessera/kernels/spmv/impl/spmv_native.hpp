#pragma once
// Tessera's own CSR SpMV, y = alpha*A*x + beta*y, portable Kokkos code.
// Host spaces: nnz-balanced row chunks, one sequential dot product per row.
// Device spaces: one row per team thread, its nonzeros spread over vector lanes.
// With beta == 0, y is written without being read (NaNs in y do not propagate).
#include <cstdint>

#include <Kokkos_Core.hpp>

#include "tessera/kernels/common/row_partition.hpp"

namespace tessera::kernels::impl {

template <class PosView, class CrdView, class ValView, class XView, class YView>
struct SpmvRowChunks {
  using T = typename YView::non_const_value_type;
  Kokkos::View<const std::int64_t*, Kokkos::HostSpace> bounds;
  PosView pos;
  CrdView crd;
  ValView vals;
  XView x;
  YView y;
  T alpha, beta;

  void operator()(std::int64_t chunk) const {
    for (std::int64_t i = bounds(chunk); i < bounds(chunk + 1); ++i) {
      T sum = 0;
      for (auto q = pos(i); q < pos(i + 1); ++q) sum += vals(q) * x(crd(q));
      y(i) = beta == T(0) ? alpha * sum : alpha * sum + beta * y(i);
    }
  }
};

template <class Space, class PosView, class CrdView, class ValView, class XView, class YView>
struct SpmvTeamRows {
  using T = typename YView::non_const_value_type;
  using member_type = typename Kokkos::TeamPolicy<Space>::member_type;
  PosView pos;
  CrdView crd;
  ValView vals;
  XView x;
  YView y;
  T alpha, beta;
  std::int64_t rows;

  KOKKOS_INLINE_FUNCTION void operator()(const member_type& team) const {
    const std::int64_t i = static_cast<std::int64_t>(team.league_rank()) * team.team_size() + team.team_rank();
    if (i >= rows) return;
    T sum = 0;
    Kokkos::parallel_reduce(
        Kokkos::ThreadVectorRange(team, pos(i), pos(i + 1)),
        [&](const typename PosView::non_const_value_type q, T& partial) { partial += vals(q) * x(crd(q)); }, sum);
    Kokkos::single(Kokkos::PerThread(team), [&]() { y(i) = beta == T(0) ? alpha * sum : alpha * sum + beta * y(i); });
  }
};

template <class Space, class PosView, class CrdView, class ValView, class XView, class YView>
void spmv_native(const Space& space, typename YView::non_const_value_type alpha, const PosView& pos,
                 const CrdView& crd, const ValView& vals, const XView& x, typename YView::non_const_value_type beta,
                 const YView& y, std::int64_t rows) {
  if (rows == 0) return;
  if constexpr (Kokkos::SpaceAccessibility<Kokkos::HostSpace, typename Space::memory_space>::accessible) {
    const auto bounds = balanced_row_chunks(pos, rows, host_chunk_count(space));
    const SpmvRowChunks<PosView, CrdView, ValView, XView, YView> functor{bounds, pos, crd, vals, x, y, alpha, beta};
    Kokkos::parallel_for("tessera::spmv[native]",
                         Kokkos::RangePolicy<Space, Kokkos::Schedule<Kokkos::Dynamic>>(space, 0, bounds.extent(0) - 1),
                         functor);
  } else {
    constexpr int rows_per_team = 8, vector_length = 16;
    const SpmvTeamRows<Space, PosView, CrdView, ValView, XView, YView> functor{pos, crd, vals, x, y, alpha, beta, rows};
    const auto league = static_cast<int>((rows + rows_per_team - 1) / rows_per_team);
    Kokkos::parallel_for("tessera::spmv[native]", Kokkos::TeamPolicy<Space>(space, league, rows_per_team, vector_length),
                         functor);
  }
}

}  // namespace tessera::kernels::impl
