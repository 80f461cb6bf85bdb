#pragma once
// The portable implementation of tessera::nm_spmm (the primary template of NmSpmmImpl):
// C = A * B with C overwritten, for VNM and NV24 weights B. cuda/nm_spmm_cuda.hpp specializes
// NmSpmmImpl for Kokkos::Cuda.
#include <string>
#include <type_traits>

#include <Kokkos_Core.hpp>

#include "tessera/core/error.hpp"
#include "tessera/formats/nv24.hpp"
#include "tessera/formats/vnm.hpp"
#include "tessera/kernels/common/profiling_region.hpp"
#include "tessera/kernels/nm_spmm/impl/nv24_spmm_native.hpp"
#include "tessera/kernels/nm_spmm/impl/vnm_spmm_native.hpp"
#include "tessera/kernels/nm_spmm/nm_spmm_handle.hpp"

namespace tessera::kernels {

// Value types of the NV24 sparse-tensor-core kernel.
template <class T>
constexpr bool is_nv24_tensor_core_value_v = std::is_same_v<T, Kokkos::Experimental::half_t> ||
                                             std::is_same_v<T, bf16_t>;

template <class Space, class AView, class T, class CView>
void nm_spmm_portable(const Space& space, const AView& A, const Tensor<T, VNM, Space>& B, const CView& C) {
  const ProfilingRegion profiling_region(region_name<T>("nm_spmm", "vnm/Native"));
  const auto& s = B.decompose();
  impl::vnm_spmm_native(space, A, s.vals, s.meta, B.pattern(), B.extents(), C);
}

template <class Space, class AView, class T, class CView>
void nm_spmm_portable(const Space& space, const AView& A, const Nv24Tensor<T, Space>& B, const CView& C) {
  const ProfilingRegion profiling_region(region_name<T>("nm_spmm", "nv24/Native"));
  const auto& s = B.decompose();
  impl::nv24_spmm_native(space, A, s.vals, s.meta, C, B.extent(0), B.k_padded());
}

// Weight: Tensor<T, VNM, Space> or Nv24Tensor<T, Space>. Spaces and types without a
// specialization run Native; asking them for a CUDA algorithm raises NotCompiled.
template <class Space, class Weight, class Enable = void>
struct NmSpmmImpl {
  static NmSpmmAlgorithm choose(const NmSpmmHandle& handle) {
    const NmSpmmAlgorithm a = handle.options().algorithm;
    return a == NmSpmmAlgorithm::Auto ? NmSpmmAlgorithm::Native : a;
  }
  template <class AView, class CView>
  static void run(const Space& space, const AView& A, const Weight& B, const CView& C, NmSpmmHandle& handle) {
    const NmSpmmAlgorithm a = choose(handle);
    if (a != NmSpmmAlgorithm::Native)
      throw NotCompiled(std::string("tessera::nm_spmm: algorithm ") + to_string(a) +
                        " needs Kokkos::Cuda with CUDA kernels compiled in (tessera_kernels_cuda) and, for "
                        "CudaTiled, a float VNM weight with LayoutRight or LayoutLeft A and C, for SparseTensorCore "
                        "an NV24 weight of Kokkos::Experimental::half_t or tessera::bf16_t");
    nm_spmm_portable(space, A, B, C);
  }
};

}  // namespace tessera::kernels
