#pragma once
// Tessera's own CSR SpMV, y = alpha*A*x + beta*y, portable Kokkos code.
// Host spaces: nnz-balanced row chunks, one sequential dot product per row, the
// matrix arrays prefetched ahead of the rows.
// Device spaces: one row per team thread, its nonzeros spread over vector lanes.
// With beta == 0, y is written without being read (NaNs in y do not propagate).
// spmv_native_scatter: y += alpha*A^T*x on the same arrays, rows in parallel, atomic adds.
#include <cstdint>
#include <type_traits>

#include <Kokkos_Core.hpp>

#include "tessera/kernels/common/prefetch.hpp"
#include "tessera/kernels/common/row_partition.hpp"

namespace tessera::kernels::impl {

// A rank-1 View whose entries are adjacent in memory (raw-pointer access is valid).
template <class View>
inline constexpr bool is_contiguous_vector_v = std::is_same_v<typename View::array_layout, Kokkos::LayoutRight> ||
                                               std::is_same_v<typename View::array_layout, Kokkos::LayoutLeft>;

template <class PosView, class CrdView, class ValView, class XView, class YView>
struct SpmvRowChunks {
  using T = typename YView::non_const_value_type;
  static_assert(is_contiguous_vector_v<PosView> && is_contiguous_vector_v<CrdView> && is_contiguous_vector_v<ValView>,
                "the tensor's level arrays are contiguous");
  // The matrix arrays are streamed once per call (common/prefetch.hpp): each row
  // requests the line 512 bytes ahead of its first entry in vals (and in crd). One
  // request per row, no loop: in stand-alone measurements a variable-trip prefetch loop
  // cost more than it saved.
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

  // The row loop runs on raw pointers where x and y are contiguous: through the View
  // accessors GCC reloads each array's address from the functor on every row.
  // y = A x (alpha 1, beta 0, the common call) gets its own copy of the loop without
  // the per-row scaling.
  void operator()(std::int64_t chunk) const {
    if (alpha == T(1) && beta == T(0))
      on_accessors<false>(chunk);
    else
      on_accessors<true>(chunk);
  }

  template <bool Scaled>
  void on_accessors(std::int64_t chunk) const {
    if constexpr (is_contiguous_vector_v<XView> && is_contiguous_vector_v<YView>)
      rows_of_chunk<Scaled>(chunk, x.data(), y.data());
    else
      rows_of_chunk<Scaled>(chunk, x, y);
  }

  template <bool Scaled, class XAccess, class YAccess>
  void rows_of_chunk(std::int64_t chunk, const XAccess x_at, const YAccess y_at) const {
    const std::int64_t first = first_row_of_chunk(pos, rows, chunk, chunks);
    const std::int64_t end = first_row_of_chunk(pos, rows, chunk + 1, chunks);
    const auto* const p = pos.data();
    const auto* const c = crd.data();
    const auto* const v = vals.data();
    const T a = alpha, b = beta;
    const std::int64_t chunk_nnz_end = static_cast<std::int64_t>(p[end]);
    for (std::int64_t i = first; i < end; ++i) {
      const std::int64_t row_begin = p[i], row_end = p[i + 1];
      prefetch_for_read(v, row_begin + kValsAhead, chunk_nnz_end);
      prefetch_for_read(c, row_begin + kCrdAhead, chunk_nnz_end);
      T sum;
      if (row_end - row_begin < kLongRow) {  // one FMA chain: splitting short rows costs more than it saves
        sum = 0;
        for (auto q = row_begin; q < row_end; ++q) sum += v[q] * x_at[c[q]];
      } else {  // four independent FMA chains instead of one latency-bound chain
        T s0 = 0, s1 = 0, s2 = 0, s3 = 0;
        auto q = row_begin;
        for (; q + 4 <= row_end; q += 4) {
          s0 += v[q] * x_at[c[q]];
          s1 += v[q + 1] * x_at[c[q + 1]];
          s2 += v[q + 2] * x_at[c[q + 2]];
          s3 += v[q + 3] * x_at[c[q + 3]];
        }
        for (; q < row_end; ++q) s0 += v[q] * x_at[c[q]];
        sum = (s0 + s1) + (s2 + s3);
      }
      if constexpr (Scaled)
        y_at[i] = b == T(0) ? a * sum : a * sum + b * y_at[i];
      else
        y_at[i] = sum;
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

// y += alpha * A^T * x for A in CSR arrays of `rows` rows: row i adds alpha * a_ij * x_i to
// y_j. Rows run in parallel, so the adds are atomic (their order, hence the last bits of y,
// can vary between calls). Kokkos has no atomic add for 16-bit types: those run the rows one
// after the other in a single work item. The caller has scaled y by beta.
template <class Space, class PosView, class CrdView, class ValView, class XView, class YView>
void spmv_native_scatter(const Space& space, typename YView::non_const_value_type alpha, const PosView& pos,
                         const CrdView& crd, const ValView& vals, const XView& x, const YView& y,
                         std::int64_t rows) {
  using T = typename YView::non_const_value_type;
  if (rows == 0) return;
  if constexpr (sizeof(T) < 4) {
    Kokkos::parallel_for(
        "tessera::spmv[native,scatter]", Kokkos::RangePolicy<Space>(space, 0, 1), KOKKOS_LAMBDA(const int) {
          for (std::int64_t i = 0; i < rows; ++i)
            for (auto q = pos(i); q < pos(i + 1); ++q) y(crd(q)) += T(alpha * x(i)) * vals(q);
        });
  } else {
    Kokkos::parallel_for(
        "tessera::spmv[native,scatter]", Kokkos::RangePolicy<Space>(space, 0, rows), KOKKOS_LAMBDA(const std::int64_t i) {
          const T ax = alpha * x(i);
          for (auto q = pos(i); q < pos(i + 1); ++q) Kokkos::atomic_add(&y(crd(q)), ax * vals(q));
        });
  }
}

}  // namespace tessera::kernels::impl
