#pragma once
/// \file
/// tessera::spmv on a SlicedEll (formats/sliced_ell.hpp), host spaces only:
/// y = alpha * A * x + beta * y, x and y contiguous host Views of A's value type.
/// For a matrix multiplied many times on the host, make_sliced_ell(A) once and this
/// instead of the CSR spmv (impl/sliced_ell_spmv.hpp says by how much).
#include <cstdint>
#include <type_traits>

#include <Kokkos_Core.hpp>

#include "tessera/formats/sliced_ell.hpp"
#include "tessera/kernels/common/checks.hpp"
#include "tessera/kernels/common/profiling_region.hpp"
#include "tessera/kernels/common/row_partition.hpp"
#include "tessera/kernels/common/scale_output.hpp"
#include "tessera/kernels/spmv/impl/sliced_ell_spmv.hpp"
#include "tessera/kernels/spmv/impl/spmv_native.hpp"

namespace tessera {

/// Auto: the AVX-512 loop where the CPU and value type allow it, else the portable one.
enum class SlicedEllKernel { Auto, Portable };

/// y = alpha * A * x + beta * y on a host space; `kernel` picks the loop.
template <class Space, class T, class XView, class YView>
void spmv(const Space& space, typename SlicedEll<T>::value_type alpha, const SlicedEll<T>& A, const XView& x,
          typename SlicedEll<T>::value_type beta, const YView& y,
          SlicedEllKernel kernel = SlicedEllKernel::Auto) {
  static_assert(Kokkos::is_execution_space<Space>::value, "the first argument is a Kokkos execution space");
  static_assert(Kokkos::SpaceAccessibility<Space, Kokkos::HostSpace>::accessible,
                "a SlicedEll lives in host memory: run it on a host execution space");
  static_assert(Kokkos::is_view<XView>::value && XView::rank == 1, "x must be a rank-1 Kokkos::View");
  static_assert(Kokkos::is_view<YView>::value && YView::rank == 1, "y must be a rank-1 Kokkos::View");
  static_assert(std::is_same_v<typename YView::value_type, T>, "y must be a non-const View of A's value type");
  static_assert(std::is_same_v<typename XView::non_const_value_type, T>, "x must hold A's value type");
  static_assert(kernels::impl::is_contiguous_vector_v<XView> && kernels::impl::is_contiguous_vector_v<YView>,
                "x and y must be contiguous (LayoutRight or LayoutLeft)");
  static_assert(Kokkos::SpaceAccessibility<Space, typename XView::memory_space>::accessible &&
                    Kokkos::SpaceAccessibility<Space, typename YView::memory_space>::accessible,
                "x and y must be accessible from the execution space");
  kernels::require_extent("spmv(SlicedEll)", "x.extent(0)", x.extent(0), A.cols);
  kernels::require_extent("spmv(SlicedEll)", "y.extent(0)", y.extent(0), A.rows);
  kernels::require_disjoint("spmv(SlicedEll)", "y", y, "x", x);
  if (static_cast<double>(alpha) == 0.0) {  // BLAS: neither A nor x is read
    const kernels::ProfilingRegion profiling_region(kernels::region_name<T>("spmv", "alpha=0"));
    kernels::scale_output(space, beta, y);
    return;
  }
  const std::int64_t slices = A.slices();
  if (slices == 0) return;
  const kernels::ProfilingRegion profiling_region(kernels::region_name<T>("spmv", "sliced_ell/Native"));
  const kernels::impl::SlicedEllArrays<T> arrays(A);
  const bool vectorised = kernel == SlicedEllKernel::Auto && kernels::impl::sliced_ell_vectorised<T>();
  const std::int64_t chunks = kernels::one_chunk_per_thread(space, slices);
  const auto start = A.start;
  const T* const xs = x.data();
  T* const ys = y.data();
  Kokkos::parallel_for(
      "tessera::spmv[sliced_ell]", Kokkos::RangePolicy<Space>(space, 0, chunks), [=](const std::int64_t c) {
        // Chunks balanced by stored entries plus slices, as the CSR loop balances rows.
        const std::int64_t first = kernels::first_row_of_chunk(start, slices, c, chunks);
        const std::int64_t last = kernels::first_row_of_chunk(start, slices, c + 1, chunks);
        kernels::impl::sliced_ell_slices(vectorised, arrays, first, last, xs, alpha, beta, ys);
      });
}

/// Runs on a default-constructed instance of the default host execution space.
template <class T, class XView, class YView>
void spmv(typename SlicedEll<T>::value_type alpha, const SlicedEll<T>& A, const XView& x,
          typename SlicedEll<T>::value_type beta, const YView& y,
          SlicedEllKernel kernel = SlicedEllKernel::Auto) {
  spmv(Kokkos::DefaultHostExecutionSpace(), alpha, A, x, beta, y, kernel);
}

}  // namespace tessera
