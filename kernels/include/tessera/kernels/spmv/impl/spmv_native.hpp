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
  std::int64_t rows, chunks;
  PosView pos;
  CrdView crd;
  ValView vals;
  XView x;
  YView y;
  T alpha, beta;

  void operator()(std::int64_t chunk) const {
    const std::int64_t end = first_row_of_chunk(pos, rows, chunk + 1, chunks);
    for (std::int64_t i = first_row_of_chunk(pos, rows, chunk, chunks); i < end; ++i) {
      // Four partial sums: independent FMA chains instead of one latency-bound chain.
      const auto row_end = pos(i + 1);
      auto q = pos(i);
      T s0 = 0, s1 = 0, s2 = 0, s3 = 0;
      for (; q + 4 <= row_end; q += 4) {
        s0 += vals(q) * x(crd(q));
        s1 += vals(q + 1) * x(crd(q + 1));
        s2 += vals(q + 2) * x(crd(q + 2));
        s3 += vals(q + 3) * x(crd(q + 3));
      }
      for (; q < row_end; ++q) s0 += vals(q) * x(crd(q));
      const T sum = (s0 + s1) + (s2 + s3);
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
    const std::int64_t chunks = one_chunk_per_thread(space, rows);
    const SpmvRowChunks<PosView, CrdView, ValView, XView, YView> functor{rows, chunks, pos, crd, vals, x, y, alpha, beta};
    Kokkos::parallel_for("tessera::spmv[native]",
                         Kokkos::RangePolicy<Space, Kokkos::Schedule<Kokkos::Static>>(space, 0, chunks),
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
