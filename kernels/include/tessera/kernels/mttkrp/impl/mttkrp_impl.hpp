#pragma once
// The host implementation of tessera::mttkrp (the primary template of MttkrpImpl): fibers of
// the CSF tensor accumulated through the workspace policy. Kokkos::Cuda has its specialization
// in cuda/mttkrp_sparse_cuda.hpp; the primary template refuses other device spaces.
#include <algorithm>
#include <cstdint>
#include <string>
#include <type_traits>

#include <Kokkos_Core.hpp>

#include "tessera/core/tensor.hpp"
#include "tessera/formats/encoding.hpp"
#include "tessera/kernels/common/checks.hpp"
#include "tessera/kernels/common/host_csf.hpp"
#include "tessera/kernels/common/host_rows.hpp"
#include "tessera/kernels/common/profiling_region.hpp"
#include "tessera/kernels/common/row_partition.hpp"
#include "tessera/kernels/common/sorted_chunks.hpp"
#include "tessera/kernels/mttkrp/impl/mttkrp_native.hpp"
#include "tessera/workspace/auto_policy.hpp"
#include "tessera/workspace/policies.hpp"
#include "tessera/workspace/workspace.hpp"

namespace tessera::kernels {

template <class Space, class Policy, class OutEnc, class T, class EncC, class EncD, class Enable = void>
struct MttkrpImpl {
  static Tensor<T, OutEnc, Space> run(const Space& space, const Tensor<T, CSF<3>, Space>& B,
                                      const Tensor<T, EncC, Space>& C, const Tensor<T, EncD, Space>& D,
                                      const workspace::Options& options, workspace::Report* report) {
    static_assert(Kokkos::SpaceAccessibility<Kokkos::HostSpace, typename Space::memory_space>::accessible,
                  "mttkrp runs on host execution spaces (Serial, OpenMP)");
    const std::int64_t I = B.extent(2), J = C.extent(1);
    const auto b = host_csf3(B);
    const auto c = host_rows(C);
    const auto d = host_rows(D);
    workspace::AutoInputs in;
    in.positions = workspace::saturating_product(I, J);
    in.nnz_estimate = B.nnz() * std::min(c.cols, std::int64_t{64});
    in.value_bytes = sizeof(T);
    in.workspaces = host_threads(space);
    in.budget_bytes = options.memory_budget_bytes;
    const bool dense = std::is_same_v<Policy, workspace::Auto> && workspace::auto_prefers_dense(in);
    return workspace::with_policy<Policy>(dense, [&](auto policy) {
      using P = decltype(policy);
      if constexpr (std::is_same_v<P, workspace::Dense>)
        require_dense_workspaces_fit("mttkrp", in.positions, in.workspaces, sizeof(T), options.memory_budget_bytes);
      const ProfilingRegion profiling_region(region_name<T>("mttkrp", std::string("csf/") + workspace::policy_name<P>));
      const auto chunks = impl::mttkrp_native<P, T>(space, b, c, d, I, options.ism, report);
      auto A = assemble<T, OutEnc>(Shape<2>{I, J}, {merge_sorted_chunks(chunks)}, space);
      return A;
    });
  }
};

}  // namespace tessera::kernels
