#pragma once
// tessera::spmm — C = alpha * A * B + beta * C for a CSR-like tensor A and dense
// B (K x N), C (M x N) Views of any layout.
#include <type_traits>

#include <Kokkos_Core.hpp>

#include "tessera/core/tensor.hpp"
#include "tessera/formats/encoding.hpp"
#include "tessera/kernels/common/checks.hpp"
#include "tessera/kernels/spmm/impl/spmm_native.hpp"

namespace tessera {

template <class T, class Enc, class Space, class BView, class CView>
void spmm(const Space& space, typename Tensor<T, Enc, Space>::value_type alpha, const Tensor<T, Enc, Space>& A,
          const BView& B, typename Tensor<T, Enc, Space>::value_type beta, const CView& C) {
  static_assert(is_csr_like_v<Enc>, "spmm needs a CSR-like tensor (levels {Dense, Compressed}, row order)");
  static_assert(Kokkos::is_view<BView>::value && BView::rank == 2, "B must be a rank-2 Kokkos::View");
  static_assert(Kokkos::is_view<CView>::value && CView::rank == 2, "C must be a rank-2 Kokkos::View");
  static_assert(std::is_same_v<typename CView::value_type, T>, "C must be a non-const View of A's value type");
  static_assert(std::is_same_v<typename BView::non_const_value_type, T>, "B must hold A's value type");
  static_assert(Kokkos::SpaceAccessibility<Space, typename BView::memory_space>::accessible &&
                    Kokkos::SpaceAccessibility<Space, typename CView::memory_space>::accessible,
                "B and C must be accessible from A's execution space");
  kernels::require_extent("spmm", "B.extent(0)", B.extent(0), A.extent(1));
  kernels::require_extent("spmm", "C.extent(0)", C.extent(0), A.extent(0));
  kernels::require_extent("spmm", "C.extent(1)", C.extent(1), B.extent(1));
  const auto& s = A.decompose();
  Kokkos::Profiling::pushRegion("tessera::spmm[native]");
  kernels::impl::spmm_native(space, alpha, s.levels[1].pos, s.levels[1].crd, s.vals, B, beta, C, A.extent(0));
  Kokkos::Profiling::popRegion();
}

template <class T, class Enc, class Space, class BView, class CView>
void spmm(typename Tensor<T, Enc, Space>::value_type alpha, const Tensor<T, Enc, Space>& A, const BView& B,
          typename Tensor<T, Enc, Space>::value_type beta, const CView& C) {
  spmm(Space(), alpha, A, B, beta, C);
}

}  // namespace tessera
