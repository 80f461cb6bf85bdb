#pragma once
// The portable implementation of tessera::spmv (the primary template of SpmvImpl): the Kokkos
// kernels of spmv_native.hpp, on every space. cuda/spmv_cuda.hpp specializes SpmvImpl for
// Kokkos::Cuda.
// Both take the tensor's stored arrays as CSR arrays of its major mode: `scatter` is true when
// the product reads them transposed (op = Transpose on CSR, NoTranspose on CSC).
#include <cstdint>
#include <string>

#include <Kokkos_Core.hpp>

#include "tessera/core/error.hpp"
#include "tessera/core/tensor.hpp"
#include "tessera/kernels/common/profiling_region.hpp"
#include "tessera/kernels/common/scale_output.hpp"
#include "tessera/kernels/spmv/impl/spmv_native.hpp"
#include "tessera/kernels/spmv/spmv_handle.hpp"

namespace tessera::kernels {

// Slices of the stored arrays: rows of a CSR tensor, columns of a CSC one.
template <class T, class Enc, class Space>
std::int64_t major_extent(const Tensor<T, Enc, Space>& A) {
  return A.extent(Enc::mode_order[0]);
}

// The Native algorithm, on every space.
template <class Space, class T, class Enc, class XView, class YView>
void spmv_portable(const Space& space, bool scatter, T alpha, const Tensor<T, Enc, Space>& A, const XView& x, T beta,
                   const YView& y) {
  const ProfilingRegion profiling_region(region_name<T>("spmv", scatter ? "Native,scatter" : "Native"));
  const auto& s = A.decompose();
  if (!scatter) return impl::spmv_native(space, alpha, s.levels[1].pos, s.levels[1].crd, s.vals, x, beta, y, major_extent(A));
  scale_output(space, beta, y);
  impl::spmv_native_scatter(space, alpha, s.levels[1].pos, s.levels[1].crd, s.vals, x, y, major_extent(A));
}

// Spaces and types without a specialization run Native; asking them for a CUDA algorithm
// raises NotCompiled.
template <class Space, class T, class Enc, class Enable = void>
struct SpmvImpl {
  static SpmvAlgorithm choose(const SpmvHandle& handle) {
    const SpmvAlgorithm a = handle.options().algorithm;
    return a == SpmvAlgorithm::Auto ? SpmvAlgorithm::Native : a;
  }
  template <class XView, class YView>
  static void run(const Space& space, bool scatter, T alpha, const Tensor<T, Enc, Space>& A, const XView& x, T beta,
                  const YView& y, SpmvHandle& handle) {
    const SpmvAlgorithm a = choose(handle);
    if (a != SpmvAlgorithm::Native)
      throw NotCompiled(std::string("tessera::spmv: algorithm ") + to_string(a) +
                        " needs Kokkos::Cuda with CUDA kernels compiled in (tessera_kernels_cuda), a value type "
                        "float or double, int column ids and int or int64 row offsets");
    spmv_portable(space, scatter, alpha, A, x, beta, y);
  }
};

}  // namespace tessera::kernels
