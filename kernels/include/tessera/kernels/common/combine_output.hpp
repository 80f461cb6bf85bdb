#pragma once
/// \file
/// out = alpha * result + beta * out, out not read where beta is zero (BLAS): for kernels that
/// compute a plain product into a temporary when the caller asks for other alpha and beta.
#include <cstdint>

#include <Kokkos_Core.hpp>

namespace tessera::kernels {

/// out = alpha * result + beta * out (out not read where beta is zero).
template <class Space, class ResultView, class OutView>
void combine_output(const Space& space, typename OutView::non_const_value_type alpha, const ResultView& result,
                    typename OutView::non_const_value_type beta, const OutView& out) {
  using T = typename OutView::non_const_value_type;
  static_assert(OutView::rank == 2 && ResultView::rank == 2, "rank-2 outputs");
  // In double: the 16-bit value types (half_t, bf16_t) convert to and from it, not all of them
  // have arithmetic of their own.
  const double a = static_cast<double>(alpha), b = static_cast<double>(beta);
  const bool read_out = b != 0.0;
  Kokkos::parallel_for(
      "tessera::combine_output",
      Kokkos::MDRangePolicy<Space, Kokkos::Rank<2>, Kokkos::IndexType<std::int64_t>>(
          space, {0, 0}, {static_cast<std::int64_t>(out.extent(0)), static_cast<std::int64_t>(out.extent(1))}),
      KOKKOS_LAMBDA(const std::int64_t i, const std::int64_t j) {
        const double r = a * static_cast<double>(result(i, j));
        out(i, j) = T(read_out ? r + b * static_cast<double>(out(i, j)) : r);
      });
}

}  // namespace tessera::kernels
