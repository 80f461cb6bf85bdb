#pragma once
// Tessera's own CSR SpMV, y = alpha*A*x + beta*y, portable Kokkos code.
// Host spaces: nnz-balanced row chunks, one sequential dot product per row, the
// matrix arrays prefetched ahead of the rows.
// Device spaces: one row per team thread, its nonzeros spread over vector lanes.
// With beta == 0, y is written without being read (NaNs in y do not propagate).
#include <cstdint>

#include <Kokkos_Core.hpp>

#include "tessera/kernels/common/row_partition.hpp"

namespace tessera::kernels::impl {

template <class PosView, class CrdView, class ValView, class XView, class YView>
struct SpmvRowChunks {
  using T = typename YView::non_const_value_type;
  // The matrix arrays are streamed once per call, and one thread does not keep enough
  // loads in flight to reach memory bandwidth on them: each row requests the line
  // 512 bytes ahead of its first entry in vals (and in crd), with the no-reuse hint so
  // the lines do not evict entries of x that later rows gather again. One request per
  // row, no loop: a variable-trip prefetch loop mispredicted enough to cost more than
  // it saved, and requests further ahead with the no-reuse hint arrived evicted.
  static constexpr std::int64_t kValsAhead = 512 / sizeof(typename ValView::non_const_value_type);
  static constexpr std::int64_t kCrdAhead = 512 / sizeof(typename CrdView::non_const_value_type);
  static constexpr std::int64_t kLongRow = 16;
  std::int64_t rows, chunks;
  PosView pos;
  CrdView crd;
  ValView vals;
  XView x;
  YView y;
  T alpha, beta;

  void operator()(std::int64_t chunk) const {
    const std::int64_t first = first_row_of_chunk(pos, rows, chunk, chunks);
    const std::int64_t end = first_row_of_chunk(pos, rows, chunk + 1, chunks);
    const std::int64_t chunk_nnz_end = static_cast<std::int64_t>(pos(end));
    for (std::int64_t i = first; i < end; ++i) {
      const auto row_begin = pos(i), row_end = pos(i + 1);
      prefetch(vals, static_cast<std::int64_t>(row_begin) + kValsAhead, chunk_nnz_end);
      prefetch(crd, static_cast<std::int64_t>(row_begin) + kCrdAhead, chunk_nnz_end);
      const T sum = row_end - row_begin < kLongRow ? short_row_dot(row_begin, row_end) : long_row_dot(row_begin, row_end);
      y(i) = beta == T(0) ? alpha * sum : alpha * sum + beta * y(i);
    }
  }

  // Short rows: one FMA chain (splitting it costs more in loop overhead than it saves).
  template <class Offset>
  T short_row_dot(const Offset begin, const Offset end) const {
    T sum = 0;
    for (auto q = begin; q < end; ++q) sum += vals(q) * x(crd(q));
    return sum;
  }

  // Long rows: four independent FMA chains instead of one latency-bound chain.
  template <class Offset>
  T long_row_dot(const Offset begin, const Offset end) const {
    T s0 = 0, s1 = 0, s2 = 0, s3 = 0;
    auto q = begin;
    for (; q + 4 <= end; q += 4) {
      s0 += vals(q) * x(crd(q));
      s1 += vals(q + 1) * x(crd(q + 1));
      s2 += vals(q + 2) * x(crd(q + 2));
      s3 += vals(q + 3) * x(crd(q + 3));
    }
    for (; q < end; ++q) s0 += vals(q) * x(crd(q));
    return (s0 + s1) + (s2 + s3);
  }

  template <class View>
  static void prefetch(const View& v, std::int64_t q, std::int64_t end) {
#if defined(__GNUC__)
    if (q < end) __builtin_prefetch(&v(q), 0, 0);
#else
    (void)v, (void)q, (void)end;
#endif
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
