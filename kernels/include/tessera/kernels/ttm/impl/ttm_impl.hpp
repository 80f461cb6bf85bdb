#pragma once
// The host implementation of tessera::ttm and ttm_i (the primary template of TtmImpl): fibers
// of the CSF tensor accumulated through the workspace policy, assembled in OutEnc; the call with
// a mode argument contracts mode 0 of B arranged with that mode first. Kokkos::Cuda has a
// specialization for Dense<2> factors (cuda/ttm_cuda.hpp); the primary template refuses device
// spaces.
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
#include "tessera/kernels/ttm/impl/ttm_arranged.hpp"
#include "tessera/kernels/ttm/impl/ttm_i_native.hpp"
#include "tessera/kernels/ttm/impl/ttm_native.hpp"
#include "tessera/workspace/auto_policy.hpp"
#include "tessera/workspace/policies.hpp"
#include "tessera/workspace/workspace.hpp"

namespace tessera::kernels {

namespace detail {

template <class Enc>
inline constexpr bool is_natural_order3_v =
    is_encoding_v<Enc> && Enc::order == 3 && Enc::mode_order[0] == 0 && Enc::mode_order[1] == 1 &&
    Enc::mode_order[2] == 2;

// Resolves Auto from the size of one workspace (`positions`, one per thread), the
// entries one accumulation sees and the products of the whole call, refuses a Dense workspace over the memory budget,
// and assembles what kernel(PolicyTag) returns.
template <class Policy, class OutEnc, class T, class Space, class Kernel>
Tensor<T, OutEnc, Space> run_ttm(const Space& space, const char* name, const Shape<3>& shape, std::int64_t positions,
                                 std::int64_t nnz_estimate, std::int64_t products, const workspace::Options& options,
                                 Kernel&& kernel) {
  static_assert(Kokkos::SpaceAccessibility<Kokkos::HostSpace, typename Space::memory_space>::accessible,
                "ttm runs on host execution spaces (Serial, OpenMP)");
  static_assert(is_natural_order3_v<OutEnc>, "OutEnc must be an order-3 encoding in natural mode order");
  const std::int64_t threads = host_threads(space);
  workspace::AutoInputs in;
  in.positions = positions;
  in.nnz_estimate = nnz_estimate;
  in.products = products / threads;  // a thread's workspace serves all its chunks
  in.value_bytes = sizeof(T);
  in.workspaces = threads;
  in.budget_bytes = options.memory_budget_bytes;
  const bool dense = std::is_same_v<Policy, workspace::Auto> && workspace::auto_prefers_dense(in);
  return workspace::with_policy<Policy>(dense, [&](auto policy) {
    using P = decltype(policy);
    if constexpr (std::is_same_v<P, workspace::Dense>)
      require_dense_workspaces_fit(name, positions, threads, sizeof(T), options.memory_budget_bytes);
    const ProfilingRegion profiling_region(region_name<T>(name, std::string("csf/") + workspace::policy_name<P>));
    auto A = assemble<T, OutEnc>(shape, kernel(policy), space);
    return A;
  });
}

}  // namespace detail

template <class Space, class Policy, class OutEnc, class T, class EncC, class Enable = void>
struct TtmImpl {
  static_assert(Kokkos::SpaceAccessibility<Kokkos::HostSpace, typename Space::memory_space>::accessible,
                "ttm and ttm_i run on host execution spaces (Serial, OpenMP), and on Kokkos::Cuda with a "
                "Dense<2> factor of float or double");
  /// Where ttm(space, B, mode, C) puts the contracted mode of B.
  static constexpr ContractedLevel kContractedLevel = ContractedLevel::First;

  /// A(the other modes of B, l) = sum over the contracted mode of B(...) * C(that mode, l)
  static Tensor<T, OutEnc, Space> contract(const Space& space, TtmArranged<T, Space>& arranged,
                                           const Tensor<T, EncC, Space>& C, const workspace::Options& options,
                                           workspace::Report* report) {
    return ttm(space, arranged.B, C, options, report);
  }
  // A(i,j,l) = sum_k B(k,i,j) * C(k,l)
  static Tensor<T, OutEnc, Space> ttm(const Space& space, const Tensor<T, CSF<3>, Space>& B,
                                      const Tensor<T, EncC, Space>& C, const workspace::Options& options,
                                      workspace::Report* report) {
    const auto b = host_csf3(B);
    const auto c = host_rows(C);
    const std::int64_t I = B.extent(1), J = B.extent(2), L = C.extent(1);
    const auto plan = impl::ttm_plan(b, c, I, host_chunk_count(space));
    const std::int64_t flops = plan.prefix(I);
    return detail::run_ttm<Policy, OutEnc, T>(
        space, "ttm", {I, J, L}, workspace::saturating_product(workspace::saturating_product(plan.max_chunk_rows, J), L),
        flops / std::max<std::int64_t>(plan.chunks, 1), flops, options, [&](auto policy) {
          return impl::ttm_native<decltype(policy), T>(space, b, c, plan, J, options.ism, report);
        });
  }
  // A(k,j,l) = sum_i B(k,i,j) * C(i,l)
  static Tensor<T, OutEnc, Space> ttm_i(const Space& space, const Tensor<T, CSF<3>, Space>& B,
                                        const Tensor<T, EncC, Space>& C, const workspace::Options& options,
                                        workspace::Report* report) {
    const auto b = host_csf3(B);
    const auto c = host_rows(C);
    const std::int64_t K = B.extent(0), J = B.extent(2), L = C.extent(1);
    const auto plan = impl::ttm_i_plan(b, c, host_chunk_count(space));
    const std::int64_t fibers = static_cast<std::int64_t>(plan.prefix.extent(0)) - 1;
    const std::int64_t flops = plan.prefix(fibers);
    return detail::run_ttm<Policy, OutEnc, T>(
        space, "ttm_i", {K, J, L}, workspace::saturating_product(J, L), flops / std::max<std::int64_t>(fibers, 1),
        flops, options, [&](auto policy) {
          return impl::ttm_i_native<decltype(policy), T>(space, b, c, plan, J, options.ism, report);
        });
  }
};

}  // namespace tessera::kernels
