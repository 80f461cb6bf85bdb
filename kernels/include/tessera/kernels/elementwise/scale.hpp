#pragma once
/// \file
/// Diagonal scaling and diagonal matrices, in the tensor's own space:
/// \code
///   tessera::scale_rows(space, d, A);      // A = diag(d) A, in place (A's values)
///   tessera::scale_columns(space, A, d);   // A = A diag(d), in place
///   auto D = tessera::diagonal<CSR>(space, d);            // n x n, d on the diagonal
///   auto I = tessera::identity<double, CSR>(space, n);    // n x n identity
/// \endcode
/// d is a rank-1 Kokkos View the space can read, of A's row (column) count. A is CSR- or
/// CSC-like; its pattern is unchanged (entries scaled to zero stay stored).
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>

#include <Kokkos_Core.hpp>

#include "tessera/core/allocation.hpp"
#include "tessera/core/error.hpp"
#include "tessera/core/tensor.hpp"
#include "tessera/formats/encoding.hpp"
#include "tessera/kernels/common/checks.hpp"

namespace tessera {
namespace kernels::detail {

// A's values times d of each entry's row (mode 0) or column (mode 1).
template <class T, class Enc, class Space, class DView>
void scale_mode(const Space& space, const char* kernel, int mode, const Tensor<T, Enc, Space>& A, const DView& d) {
  static_assert(is_csr_like_v<Enc> || is_csc_like_v<Enc>, "scaling takes CSR- or CSC-like encodings");
  static_assert(Kokkos::SpaceAccessibility<Space, typename DView::memory_space>::accessible,
                "d must be a View the tensor's space can read");
  require_extent(kernel, "d.extent(0)", static_cast<std::int64_t>(d.extent(0)), A.extent(mode));
  const auto& s = A.decompose();
  const auto pos = s.levels[1].pos;
  const auto crd = s.levels[1].crd;
  const auto vals = s.vals;
  using Policy = Kokkos::RangePolicy<Space, Kokkos::IndexType<std::int64_t>>;
  if (Enc::mode_order[0] == mode) {  // the scaled mode is the slices': one factor per slice
    Kokkos::parallel_for(
        kernel, Policy(space, 0, A.extent(mode)), KOKKOS_LAMBDA(const std::int64_t i) {
          const T f = static_cast<T>(d(i));
          for (auto p = pos(i); p < pos(i + 1); ++p) vals(p) *= f;
        });
  } else {
    Kokkos::parallel_for(
        kernel, Policy(space, 0, A.nnz()),
        KOKKOS_LAMBDA(const std::int64_t p) { vals(p) *= static_cast<T>(d(crd(p))); });
  }
}

}  // namespace kernels::detail

/// A = diag(d) A: row i of A times d(i), in place.
template <class T, class Enc, class Space, class DView>
void scale_rows(const Space& space, const DView& d, const Tensor<T, Enc, Space>& A) {
  kernels::detail::scale_mode(space, "tessera::scale_rows", 0, A, d);
}

/// A = A diag(d): column j of A times d(j), in place.
template <class T, class Enc, class Space, class DView>
void scale_columns(const Space& space, const Tensor<T, Enc, Space>& A, const DView& d) {
  kernels::detail::scale_mode(space, "tessera::scale_columns", 1, A, d);
}

/// The n x n matrix with d (n values, a View the space can read) on its diagonal, every
/// diagonal entry stored (zeros included).
template <class Enc = CSR, class Space, class DView>
Tensor<typename DView::non_const_value_type, Enc, Space> diagonal(const Space& space, const DView& d) {
  using T = typename DView::non_const_value_type;
  using Tens = Tensor<T, Enc, Space>;
  static_assert(is_csr_like_v<Enc> || is_csc_like_v<Enc>, "diagonal makes CSR- or CSC-like encodings");
  static_assert(Kokkos::SpaceAccessibility<Space, typename DView::memory_space>::accessible,
                "d must be a View the space can read");
  const std::int64_t n = static_cast<std::int64_t>(d.extent(0));
  if (n > static_cast<std::int64_t>(std::numeric_limits<typename Enc::ordinal_type>::max()))
    throw OverflowError("tessera::diagonal: " + std::to_string(n) + " rows pass the encoding's index types");
  typename Tens::Storage s;
  s.levels[1].pos = detail::uninitialized_view<typename Tens::pos_view>("tessera::diagonal pos", n + 1);
  s.levels[1].crd = detail::uninitialized_view<typename Tens::crd_view>("tessera::diagonal crd", n);
  s.vals = detail::uninitialized_view<typename Tens::vals_view>("tessera::diagonal vals", n);
  const auto pos = s.levels[1].pos;
  const auto crd = s.levels[1].crd;
  const auto vals = s.vals;
  using Offset = typename Enc::offset_type;
  using Ordinal = typename Enc::ordinal_type;
  Kokkos::parallel_for(
      "tessera::diagonal", Kokkos::RangePolicy<Space, Kokkos::IndexType<std::int64_t>>(space, 0, n + 1),
      KOKKOS_LAMBDA(const std::int64_t i) {
        pos(i) = static_cast<Offset>(i);
        if (i == n) return;
        crd(i) = static_cast<Ordinal>(i);
        vals(i) = d(i);
      });
  return Tens({n, n}, std::move(s));
}

/// The n x n identity.
template <class T, class Enc = CSR, class Space>
Tensor<T, Enc, Space> identity(const Space& space, std::int64_t n) {
  if (n < 0) throw ShapeError("tessera::identity: size " + std::to_string(n));
  Kokkos::View<T*, typename Space::memory_space> ones(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "tessera::identity ones"), n);
  Kokkos::deep_copy(space, ones, T(1));
  return diagonal<Enc>(space, ones);
}

}  // namespace tessera
