#pragma once
/// \file
/// What spmv and spmm do when alpha is zero, as BLAS does: the output becomes beta times
/// itself (zeros where beta is zero, whatever it held), and neither A nor the input is read,
/// so a NaN or an Inf in them does not reach the output through 0 x NaN.
#include <cstdint>

#include <Kokkos_Core.hpp>

namespace tessera::kernels {

/// out = beta * out, zeros where beta is zero (what alpha = 0 leaves).
template <class Space, class View>
void scale_output(const Space& space, typename View::non_const_value_type beta, const View& out) {
  using T = typename View::non_const_value_type;
  static_assert(View::rank == 1 || View::rank == 2, "rank-1 or rank-2 outputs");
  // In double: the 16-bit value types (half_t, bf16_t) convert to and from it, not all of them
  // have arithmetic of their own.
  const double b = static_cast<double>(beta);
  const bool zero = b == 0.0;
  if constexpr (View::rank == 1) {
    Kokkos::parallel_for(
        "tessera::scale_output", Kokkos::RangePolicy<Space>(space, 0, out.extent(0)),
        KOKKOS_LAMBDA(const std::int64_t i) { out(i) = zero ? T(0.0) : T(b * static_cast<double>(out(i))); });
  } else {
    Kokkos::parallel_for(
        "tessera::scale_output",
        Kokkos::MDRangePolicy<Space, Kokkos::Rank<2>>(space, {0, 0}, {static_cast<std::int64_t>(out.extent(0)),
                                                                      static_cast<std::int64_t>(out.extent(1))}),
        KOKKOS_LAMBDA(const std::int64_t i, const std::int64_t j) { out(i, j) = zero ? T(0.0) : T(b * static_cast<double>(out(i, j))); });
  }
}

}  // namespace tessera::kernels
