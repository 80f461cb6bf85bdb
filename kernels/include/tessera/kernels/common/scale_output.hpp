#pragma once
// What spmv and spmm do when alpha is zero, as BLAS does: the output becomes beta times
// itself (zeros where beta is zero, whatever it held), and neither A nor the input is read,
// so a NaN or an Inf in them does not reach the output through 0 x NaN.
#include <cstdint>

#include <Kokkos_Core.hpp>

namespace tessera::kernels {

template <class Space, class View>
void scale_output(const Space& space, typename View::non_const_value_type beta, const View& out) {
  using T = typename View::non_const_value_type;
  static_assert(View::rank == 1 || View::rank == 2, "rank-1 or rank-2 outputs");
  const bool zero = static_cast<double>(beta) == 0.0;
  if constexpr (View::rank == 1) {
    Kokkos::parallel_for(
        "tessera::scale_output", Kokkos::RangePolicy<Space>(space, 0, out.extent(0)),
        KOKKOS_LAMBDA(const std::int64_t i) { out(i) = zero ? T(0) : T(beta * out(i)); });
  } else {
    Kokkos::parallel_for(
        "tessera::scale_output",
        Kokkos::MDRangePolicy<Space, Kokkos::Rank<2>>(space, {0, 0}, {static_cast<std::int64_t>(out.extent(0)),
                                                                      static_cast<std::int64_t>(out.extent(1))}),
        KOKKOS_LAMBDA(const std::int64_t i, const std::int64_t j) { out(i, j) = zero ? T(0) : T(beta * out(i, j)); });
  }
}

}  // namespace tessera::kernels
