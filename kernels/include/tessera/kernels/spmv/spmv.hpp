#pragma once
/// \file
/// tessera::spmv — y = alpha * A * x + beta * y for a CSR-like tensor A. As in BLAS, y is
/// not read where beta is zero, and neither A nor x where alpha is zero.
/// Front end: static checks on types and spaces, run-time checks on shapes, then
/// kernels::SpmvImpl for A's execution space (impl/spmv_impl.hpp).
#include <string>
#include <type_traits>

#include <Kokkos_Core.hpp>

#include "tessera/core/tensor.hpp"
#include "tessera/formats/encoding.hpp"
#include "tessera/kernels/common/checks.hpp"
#include "tessera/kernels/common/profiling_region.hpp"
#include "tessera/kernels/common/scale_output.hpp"
#include "tessera/kernels/spmv/impl/spmv_impl.hpp"

namespace tessera {

/// y = alpha * A * x + beta * y on `space`.
template <class T, class Enc, class Space, class XView, class YView>
void spmv(const Space& space, typename Tensor<T, Enc, Space>::value_type alpha, const Tensor<T, Enc, Space>& A,
          const XView& x, typename Tensor<T, Enc, Space>::value_type beta, const YView& y) {
  static_assert(is_csr_like_v<Enc>, "spmv needs a CSR-like tensor (levels {Dense, Compressed}, row order)");
  static_assert(Kokkos::is_view<XView>::value && XView::rank == 1, "x must be a rank-1 Kokkos::View");
  static_assert(Kokkos::is_view<YView>::value && YView::rank == 1, "y must be a rank-1 Kokkos::View");
  static_assert(std::is_same_v<typename YView::value_type, T>, "y must be a non-const View of A's value type");
  static_assert(std::is_same_v<typename XView::non_const_value_type, T>, "x must hold A's value type");
  static_assert(Kokkos::SpaceAccessibility<Space, typename XView::memory_space>::accessible &&
                    Kokkos::SpaceAccessibility<Space, typename YView::memory_space>::accessible,
                "x and y must be accessible from A's execution space");
  kernels::require_extent("spmv", "x.extent(0)", x.extent(0), A.extent(1));
  kernels::require_extent("spmv", "y.extent(0)", y.extent(0), A.extent(0));
  kernels::require_disjoint("spmv", "y", y, "x", x);
  if (static_cast<double>(alpha) == 0.0) {  // BLAS: neither A nor x is read
    const kernels::ProfilingRegion profiling_region(kernels::region_name<T>("spmv", "alpha=0"));
    kernels::scale_output(space, beta, y);
    return;
  }
  kernels::SpmvImpl<Space, T, Enc>::run(space, alpha, A, x, beta, y);
}

/// Runs on a default-constructed instance of A's execution space.
template <class T, class Enc, class Space, class XView, class YView>
void spmv(typename Tensor<T, Enc, Space>::value_type alpha, const Tensor<T, Enc, Space>& A, const XView& x,
          typename Tensor<T, Enc, Space>::value_type beta, const YView& y) {
  spmv(Space(), alpha, A, x, beta, y);
}

}  // namespace tessera
