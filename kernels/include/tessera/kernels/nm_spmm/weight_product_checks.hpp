#pragma once
/// \file
/// Checks shared by the nm_spmm front ends: C (m x n) = A (m x k) * B, B a k x n weight of
/// value type T held in Space. Types are checked at compile time, extents at run time.
#include <cstdint>
#include <type_traits>

#include <Kokkos_Core.hpp>

#include "tessera/kernels/common/checks.hpp"

namespace tessera::kernels {

/// Checks C (m x n) = A (m x k) * B for a k x n weight B of value type T held in Space.
template <class T, class Space, class AView, class CView>
void require_weight_product(const AView& A, std::int64_t k, std::int64_t n, const CView& C) {
  static_assert(Kokkos::is_view<AView>::value && AView::rank == 2, "A must be a rank-2 Kokkos::View (m x k)");
  static_assert(Kokkos::is_view<CView>::value && CView::rank == 2, "C must be a rank-2 Kokkos::View (m x n)");
  static_assert(std::is_same_v<typename AView::non_const_value_type, T>, "A must hold B's value type");
  static_assert(std::is_same_v<typename CView::value_type, T>, "C must be a non-const View of B's value type");
  static_assert(Kokkos::SpaceAccessibility<Space, typename AView::memory_space>::accessible &&
                    Kokkos::SpaceAccessibility<Space, typename CView::memory_space>::accessible,
                "A and C must be accessible from B's execution space");
  require_extent("nm_spmm", "A.extent(1)", static_cast<std::int64_t>(A.extent(1)), k);
  require_extent("nm_spmm", "C.extent(0)", static_cast<std::int64_t>(C.extent(0)), static_cast<std::int64_t>(A.extent(0)));
  require_extent("nm_spmm", "C.extent(1)", static_cast<std::int64_t>(C.extent(1)), n);
  require_disjoint("nm_spmm", "C", C, "A", A);
}

}  // namespace tessera::kernels
