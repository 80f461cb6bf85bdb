#pragma once
// Tessera's own CSR x dense SpMM, C = alpha*A*B + beta*C, portable Kokkos code,
// B (K x N) and C (M x N) in any layout.
// Host spaces: nnz-balanced row chunks; each row walks its nonzeros once per tile
// of kTile columns, accumulating in a local array the compiler keeps in vector
// registers; or, for float and double with row-major B and C when the caller asks,
// the same walk in AVX-512 (spmm_rows_avx512.hpp). Device spaces: one row per team,
// columns over the team's threads.
// With beta == 0, C is written without being read.
#include <cstdint>
#include <type_traits>

#include <Kokkos_Core.hpp>

#include "tessera/kernels/common/row_partition.hpp"
#include "tessera/kernels/spmm/impl/spmm_rows_avx512.hpp"

namespace tessera::kernels::impl {

template <class T>
inline constexpr bool spmm_avx512_value_v =
#ifdef TESSERA_HOST_AVX512
    std::is_same_v<T, double> || std::is_same_v<T, float>;
#else
    false;
#endif

// The host loop spmm resolved (tessera::spmm from SpmmOptions): avx512 only where
// spmm_avx512_value_v and the CPU allow; streaming only with beta == 0.
struct SpmmHostLoopChoice {
  bool avx512 = false;
  bool streaming = false;
};

template <class PosView, class CrdView, class ValView, class BView, class CView>
struct SpmmRowChunks {
  using T = typename CView::non_const_value_type;
  static constexpr std::int64_t kTile = 16;
  std::int64_t rows, chunks;
  PosView pos;
  CrdView crd;
  ValView vals;
  BView B;
  CView C;
  T alpha, beta;
  SpmmHostLoopChoice loop;

  // Row-major B and C take a raw-pointer path (row_times_row_major) so that the tile
  // loop vectorizes and the accumulators stay in registers; through the View
  // accessors GCC spills them.
  static constexpr bool kRowMajor = std::is_same_v<typename BView::array_layout, Kokkos::LayoutRight> &&
                                    std::is_same_v<typename CView::array_layout, Kokkos::LayoutRight>;

  template <std::int64_t Width>
  void row_tile(std::int64_t i, std::int64_t j0, std::int64_t width) const {
    if constexpr (kRowMajor) {
      row_times_row_major<Width>(pos(i), pos(i + 1), vals.data(), crd.data(), B.data() + j0,
                                 static_cast<std::int64_t>(B.stride(0)),
                                 C.data() + i * static_cast<std::int64_t>(C.stride(0)) + j0, width, alpha, beta);
    } else {
      T acc[kTile] = {};
      const std::int64_t w = Width > 0 ? Width : width;  // compile-time width on the fast path
      for (auto q = pos(i); q < pos(i + 1); ++q) {
        const T a = vals(q);
        const auto k = crd(q);
        for (std::int64_t jj = 0; jj < w; ++jj) acc[jj] += a * B(k, j0 + jj);
      }
      if (beta == T(0))
        for (std::int64_t jj = 0; jj < w; ++jj) C(i, j0 + jj) = alpha * acc[jj];
      else
        for (std::int64_t jj = 0; jj < w; ++jj) C(i, j0 + jj) = alpha * acc[jj] + beta * C(i, j0 + jj);
    }
  }

  // c[0, w) = alpha * sum_q vals[q] * b[crd[q] * ldb + (0, w)] + beta * c[0, w); w = Width when Width > 0.
  template <std::int64_t Width, class Offset, class Ordinal, class Value>
  static void row_times_row_major(const Offset begin, const Offset end, const Value* vals, const Ordinal* crd,
                                  const T* b, const std::int64_t ldb, T* c, const std::int64_t width, const T alpha,
                                  const T beta) {
    const std::int64_t w = Width > 0 ? Width : width;
    T acc[kTile] = {};
    for (Offset q = begin; q < end; ++q) {
      const T a = vals[q];
      const T* const b_row = b + static_cast<std::int64_t>(crd[q]) * ldb;
      if constexpr (Width > 0)
        for (std::int64_t jj = 0; jj < Width; ++jj) acc[jj] += a * b_row[jj];
      else
        for (std::int64_t jj = 0; jj < w; ++jj) acc[jj] += a * b_row[jj];
    }
    // Scale in acc, then copy out: with alpha/beta applied in the store loop GCC stops
    // keeping acc in vector registers inside the q loop above.
    if (beta == T(0))
      for (std::int64_t jj = 0; jj < w; ++jj) acc[jj] = alpha * acc[jj];
    else
      for (std::int64_t jj = 0; jj < w; ++jj) acc[jj] = alpha * acc[jj] + beta * c[jj];
    for (std::int64_t jj = 0; jj < w; ++jj) c[jj] = acc[jj];
  }

  void operator()(std::int64_t chunk) const {
    const std::int64_t n = static_cast<std::int64_t>(C.extent(1));
    const std::int64_t first = first_row_of_chunk(pos, rows, chunk, chunks);
    const std::int64_t end = first_row_of_chunk(pos, rows, chunk + 1, chunks);
#ifdef TESSERA_HOST_AVX512
    if constexpr (kRowMajor && spmm_avx512_value_v<T>) {
      if (loop.avx512) {
        const SpmmRowsArgs<T, typename PosView::non_const_value_type, typename CrdView::non_const_value_type> args{
            pos.data(), crd.data(), vals.data(), B.data(), static_cast<std::int64_t>(B.stride(0)), C.data(),
            static_cast<std::int64_t>(C.stride(0)), n, alpha, beta, loop.streaming};
        spmm_rows_avx512(args, first, end);
        return;
      }
    }
#endif
    for (std::int64_t i = first; i < end; ++i) {
      std::int64_t j0 = 0;
      for (; j0 + kTile <= n; j0 += kTile) row_tile<kTile>(i, j0, kTile);
      if (j0 < n) row_tile<0>(i, j0, n - j0);
    }
  }
};

template <class Space, class PosView, class CrdView, class ValView, class BView, class CView>
struct SpmmTeamRows {
  using T = typename CView::non_const_value_type;
  using member_type = typename Kokkos::TeamPolicy<Space>::member_type;
  PosView pos;
  CrdView crd;
  ValView vals;
  BView B;
  CView C;
  T alpha, beta;

  KOKKOS_INLINE_FUNCTION void operator()(const member_type& team) const {
    const std::int64_t i = team.league_rank();
    const auto begin = pos(i), end = pos(i + 1);
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, static_cast<std::int64_t>(C.extent(1))), [&](const std::int64_t j) {
      T acc = 0;
      for (auto q = begin; q < end; ++q) acc += vals(q) * B(crd(q), j);
      C(i, j) = beta == T(0) ? alpha * acc : alpha * acc + beta * C(i, j);
    });
  }
};

template <class Space, class PosView, class CrdView, class ValView, class BView, class CView>
void spmm_native(const Space& space, typename CView::non_const_value_type alpha, const PosView& pos,
                 const CrdView& crd, const ValView& vals, const BView& B, typename CView::non_const_value_type beta,
                 const CView& C, std::int64_t rows, const SpmmHostLoopChoice& loop) {
  if (rows == 0 || C.extent(1) == 0) return;
  if constexpr (Kokkos::SpaceAccessibility<Kokkos::HostSpace, typename Space::memory_space>::accessible) {
    const std::int64_t chunks = one_chunk_per_thread(space, rows);
    const SpmmRowChunks<PosView, CrdView, ValView, BView, CView> functor{
        rows, chunks, pos, crd, vals, B, C, alpha, beta, loop};
    Kokkos::parallel_for("tessera::spmm[native]",
                         Kokkos::RangePolicy<Space, Kokkos::Schedule<Kokkos::Static>>(space, 0, chunks),
                         functor);
  } else {
    const SpmmTeamRows<Space, PosView, CrdView, ValView, BView, CView> functor{pos, crd, vals, B, C, alpha, beta};
    Kokkos::parallel_for("tessera::spmm[native]",
                         Kokkos::TeamPolicy<Space>(space, static_cast<int>(rows), Kokkos::AUTO), functor);
  }
}

// C += alpha * A^T * B for A in CSR arrays of `rows` rows: row i adds alpha * a_ij * B(i, :) to
// C(j, :). One team per row, columns over its threads; rows run in parallel, so the adds are
// atomic. Kokkos has no atomic add for 16-bit types: those run the rows one after the other in
// a single work item. The caller has scaled C by beta.
template <class Space, class PosView, class CrdView, class ValView, class BView, class CView>
void spmm_native_scatter(const Space& space, typename CView::non_const_value_type alpha, const PosView& pos,
                         const CrdView& crd, const ValView& vals, const BView& B, const CView& C, std::int64_t rows) {
  using T = typename CView::non_const_value_type;
  using member_type = typename Kokkos::TeamPolicy<Space>::member_type;
  const std::int64_t n = static_cast<std::int64_t>(C.extent(1));
  if (rows == 0 || n == 0) return;
  if constexpr (sizeof(T) < 4) {
    Kokkos::parallel_for(
        "tessera::spmm[native,scatter]", Kokkos::RangePolicy<Space>(space, 0, 1), KOKKOS_LAMBDA(const int) {
          for (std::int64_t i = 0; i < rows; ++i)
            for (auto q = pos(i); q < pos(i + 1); ++q)
              for (std::int64_t col = 0; col < n; ++col) C(crd(q), col) += T(alpha * vals(q)) * B(i, col);
        });
  } else {
    Kokkos::parallel_for(
        "tessera::spmm[native,scatter]", Kokkos::TeamPolicy<Space>(space, static_cast<int>(rows), Kokkos::AUTO),
        KOKKOS_LAMBDA(const member_type& team) {
          const std::int64_t i = team.league_rank();
          for (auto q = pos(i); q < pos(i + 1); ++q) {
            const T a = alpha * vals(q);
            const auto j = crd(q);
            Kokkos::parallel_for(Kokkos::TeamThreadRange(team, n),
                                 [&](const std::int64_t col) { Kokkos::atomic_add(&C(j, col), a * B(i, col)); });
          }
        });
  }
}

}  // namespace tessera::kernels::impl
