#pragma once
/// \file
/// tessera::mttkrp (the sparse result) on Kokkos::Cuda: the factor rows of each fiber met on the
/// device, then SpGEMM with its device workspaces (impl/mttkrp_by_spgemm.hpp); workspace
/// policies Auto, Hash and Dense, as SpGEMM on the device takes.
#include <string>
#include <type_traits>

#include "tessera/kernels/common/cuda_config.hpp"
#include "tessera/kernels/mttkrp/impl/mttkrp_impl.hpp"

#if TESSERA_CUDA_KERNELS
#include "tessera/kernels/common/profiling_region.hpp"
#include "tessera/kernels/mttkrp/impl/mttkrp_by_spgemm.hpp"
#include "tessera/kernels/spgemm/cuda/spgemm_cuda.hpp"

namespace tessera::kernels {

/// Sparse-result MTTKRP on Kokkos::Cuda, for the value types SpGEMM takes on the device.
template <class Policy, class OutEnc, class T, class EncC, class EncD>
struct MttkrpImpl<Kokkos::Cuda, Policy, OutEnc, T, EncC, EncD, std::enable_if_t<has_cuda_spgemm_v<T, CSR, CSR, CSR>>> {
  static_assert(std::is_same_v<Policy, workspace::Auto> || std::is_same_v<Policy, workspace::Hash> ||
                    std::is_same_v<Policy, workspace::Dense>,
                "mttkrp on Kokkos::Cuda takes the workspace policies Auto, Hash and Dense");

  /// A(i, j) = sum_{k,l} B(k, l, i) C(k, j) D(l, j), a sparse result in OutEnc.
  static Tensor<T, OutEnc, Kokkos::Cuda> run(const Kokkos::Cuda& space, const Tensor<T, CSF<3>, Kokkos::Cuda>& B,
                                             const Tensor<T, EncC, Kokkos::Cuda>& C,
                                             const Tensor<T, EncD, Kokkos::Cuda>& D, const workspace::Options& options,
                                             workspace::Report* report) {
    const ProfilingRegion profiling_region(
        region_name<T>("mttkrp", std::string("fiber-rows/spgemm/") + workspace::policy_name<Policy>));
    return impl::mttkrp_by_spgemm<Policy, OutEnc>(space, B, C, D, options, report);
  }
};

}  // namespace tessera::kernels
#endif
