#pragma once
// tessera::mttkrp<Policy, OutEnc>(B, C, D) — SpMTTKRP on a host execution space:
//   A(i,j) = sum_{k,l} B(k,l,i) * C(k,j) * D(l,j)
// B: CSF<3> (K x L x I, levels k, l, i); C (K x J), D (L x J): CSR-like or Dense<2>.
// A is produced through the workspace `Policy` in OutEnc (CSR or any two-level
// compressed matrix encoding with row order, or COO). For CP-ALS on a tensor X,
// pass X with the target mode moved last.
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

namespace tessera {

template <class Policy = workspace::Auto, class OutEnc = CSR, class T, class EncC, class EncD, class Space>
Tensor<T, OutEnc, Space> mttkrp(const Space& space, const Tensor<T, CSF<3>, Space>& B, const Tensor<T, EncC, Space>& C,
                                const Tensor<T, EncD, Space>& D, const workspace::Options& options = {},
                                workspace::Report* report = nullptr) {
  static_assert(Kokkos::SpaceAccessibility<Kokkos::HostSpace, typename Space::memory_space>::accessible,
                "mttkrp runs on host execution spaces (Serial, OpenMP)");
  static_assert(std::is_same_v<EncC, EncD>, "C and D share one encoding");
  static_assert(OutEnc::order == 2 && OutEnc::mode_order[0] == 0, "OutEnc must be a row-order matrix encoding");
  kernels::require_extent("mttkrp", "C.extent(0)", C.extent(0), B.extent(0));
  kernels::require_extent("mttkrp", "D.extent(0)", D.extent(0), B.extent(1));
  kernels::require_extent("mttkrp", "D.extent(1)", D.extent(1), C.extent(1));
  const std::int64_t I = B.extent(2), J = C.extent(1);
  const auto b = kernels::host_csf3(B);
  const auto c = kernels::host_rows(C);
  const auto d = kernels::host_rows(D);
  workspace::AutoInputs in;
  in.positions = workspace::saturating_product(I, J);
  in.nnz_estimate = B.nnz() * std::min(c.cols, std::int64_t{64});
  in.value_bytes = sizeof(T);
  in.workspaces = kernels::host_threads(space);
  in.budget_bytes = options.memory_budget_bytes;
  const bool dense = std::is_same_v<Policy, workspace::Auto> && workspace::auto_prefers_dense(in);
  return workspace::with_policy<Policy>(dense, [&](auto policy) {
    using P = decltype(policy);
    if constexpr (std::is_same_v<P, workspace::Dense>)
      kernels::require_dense_workspaces_fit("mttkrp", in.positions, in.workspaces, sizeof(T),
                                            options.memory_budget_bytes);
    const kernels::ProfilingRegion profiling_region(std::string("tessera::mttkrp[") + workspace::policy_name<P> + "]");
    const auto chunks = kernels::impl::mttkrp_native<P, T>(space, b, c, d, I, options.ism, report);
    auto A = kernels::assemble<T, OutEnc>(Shape<2>{I, J}, {kernels::merge_sorted_chunks(chunks)}, space);
    return A;
  });
}

template <class Policy = workspace::Auto, class OutEnc = CSR, class T, class EncC, class EncD, class Space>
Tensor<T, OutEnc, Space> mttkrp(const Tensor<T, CSF<3>, Space>& B, const Tensor<T, EncC, Space>& C,
                                const Tensor<T, EncD, Space>& D, const workspace::Options& options = {},
                                workspace::Report* report = nullptr) {
  return mttkrp<Policy, OutEnc>(Space(), B, C, D, options, report);
}

}  // namespace tessera
