#pragma once
/// \file
/// tessera::mttkrp<Policy, OutEnc>(B, C, D) — SpMTTKRP with a sparse result:
/// \code{.unparsed}
///   A(i,j) = sum_{k,l} B(k,l,i) * C(k,j) * D(l,j)
/// \endcode
/// B: CSF<3> (K x L x I, levels k, l, i); C (K x J), D (L x J): CSR-like or Dense<2>.
/// A is produced through the workspace `Policy` in OutEnc (CSR or any two-level
/// compressed matrix encoding with row order, or COO). For CP-ALS on a tensor X,
/// pass X with the target mode moved last. Host spaces walk B's fibers with per-thread
/// workspaces; Kokkos::Cuda meets the factor rows of each fiber and multiplies by SpGEMM's device
/// workspaces (cuda/mttkrp_sparse_cuda.hpp; policies Auto, Hash, Dense). For dense factors and a
/// dense result see mttkrp_dense.hpp.
#include <type_traits>

#include <Kokkos_Core.hpp>

#include "tessera/core/tensor.hpp"
#include "tessera/formats/encoding.hpp"
#include "tessera/kernels/common/checks.hpp"
#include "tessera/kernels/mttkrp/cuda/mttkrp_sparse_cuda.hpp"
#include "tessera/kernels/mttkrp/impl/mttkrp_impl.hpp"
#include "tessera/workspace/policies.hpp"

namespace tessera {

/// A(i,j) = sum_{k,l} B(k,l,i) * C(k,j) * D(l,j) on `space`, through workspace Policy, into OutEnc.
template <class Policy = workspace::Auto, class OutEnc = CSR, class T, class EncC, class EncD, class Space>
Tensor<T, OutEnc, Space> mttkrp(const Space& space, const Tensor<T, CSF<3>, Space>& B, const Tensor<T, EncC, Space>& C,
                                const Tensor<T, EncD, Space>& D, const workspace::Options& options = {},
                                workspace::Report* report = nullptr) {
  static_assert(std::is_same_v<EncC, EncD>, "C and D share one encoding");
  static_assert(OutEnc::order == 2 && OutEnc::mode_order[0] == 0, "OutEnc must be a row-order matrix encoding");
  kernels::require_extent("mttkrp", "C.extent(0)", C.extent(0), B.extent(0));
  kernels::require_extent("mttkrp", "D.extent(0)", D.extent(0), B.extent(1));
  kernels::require_extent("mttkrp", "D.extent(1)", D.extent(1), C.extent(1));
  return kernels::MttkrpImpl<Space, Policy, OutEnc, T, EncC, EncD>::run(space, B, C, D, options, report);
}

/// Runs on a default-constructed instance of the operands' execution space.
template <class Policy = workspace::Auto, class OutEnc = CSR, class T, class EncC, class EncD, class Space>
Tensor<T, OutEnc, Space> mttkrp(const Tensor<T, CSF<3>, Space>& B, const Tensor<T, EncC, Space>& C,
                                const Tensor<T, EncD, Space>& D, const workspace::Options& options = {},
                                workspace::Report* report = nullptr) {
  return mttkrp<Policy, OutEnc>(Space(), B, C, D, options, report);
}

}  // namespace tessera
