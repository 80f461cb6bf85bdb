#pragma once
// The portable implementation of tessera::spmv (the primary template of SpmvImpl): the Kokkos
// kernels of spmv_native.hpp, on every space. A CUDA specialization would go in
// cuda/spmv_cuda.hpp (see docs/design.md).
#include <Kokkos_Core.hpp>

#include "tessera/core/tensor.hpp"
#include "tessera/kernels/common/profiling_region.hpp"
#include "tessera/kernels/spmv/impl/spmv_native.hpp"

namespace tessera::kernels {

template <class Space, class T, class Enc, class Enable = void>
struct SpmvImpl {
  template <class XView, class YView>
  static void run(const Space& space, T alpha, const Tensor<T, Enc, Space>& A, const XView& x, T beta,
                  const YView& y) {
    const ProfilingRegion profiling_region(region_name<T>("spmv", "Native"));
    const auto& s = A.decompose();
    impl::spmv_native(space, alpha, s.levels[1].pos, s.levels[1].crd, s.vals, x, beta, y, A.extent(0));
  }
};

}  // namespace tessera::kernels
