#pragma once
/// \file
/// Sparse tensor-times-matrix, B in CSF<3> (K x I x J), on host execution spaces and, with a
/// Dense<2> C of float or double, on Kokkos::Cuda (cuda/ttm_cuda.hpp: a dense row per fiber):
/// \code{.unparsed}
///   tessera::ttm<Policy, OutEnc>(B, C)    A(i,j,l) = sum_k B(k,i,j) * C(k,l)   C: K x L
///   tessera::ttm_i<Policy, OutEnc>(B, C)  A(k,j,l) = sum_i B(k,i,j) * C(i,l)   C: I x L
/// \endcode
/// C is CSR-like or Dense<2>. A is produced through the workspace `Policy` in OutEnc,
/// an order-3 encoding in natural mode order (CSF<3>, COOTensor<3>). The result's structure
/// is the same for every thread count, and so are its values bit for bit with the Dense,
/// Bucket, Hash and Map policies (and Auto, which picks Dense or Hash); Coord and SortOnce
/// sum an entry's products in the order their sort leaves equal keys, which moves with the
/// chunking, so their values may differ in the last bits (a sort that keeps insertion order
/// costs more than it is worth). On Kokkos::Cuda every kept fiber holds L entries (C is dense),
/// their sums run in chunks with atomic adds (last bits may vary between calls), and the policy
/// has nothing to choose.
///
/// Any mode of an order-3 B of any encoding, with a TtmHandle that keeps B arranged for each mode:
/// \code{.unparsed}
///   tessera::ttm<Policy, OutEnc>([space,] B, mode, C[, handle])
///     A(the other two modes of B in their order, l) = sum over i_mode of B(...) * C(i_mode, l)
/// \endcode
/// mode 0 is ttm and mode 1 is ttm_i of a CSF<3>.
#include <string>
#include <utility>

#include <Kokkos_Core.hpp>

#include "tessera/core/error.hpp"
#include "tessera/core/tensor.hpp"
#include "tessera/formats/encoding.hpp"
#include "tessera/kernels/common/checks.hpp"
#include "tessera/kernels/ttm/cuda/ttm_cuda.hpp"
#include "tessera/kernels/ttm/impl/ttm_arranged.hpp"
#include "tessera/kernels/ttm/impl/ttm_impl.hpp"
#include "tessera/kernels/ttm/ttm_handle.hpp"
#include "tessera/workspace/policies.hpp"

namespace tessera {

/// A(i,j,l) = sum_k B(k,i,j) * C(k,l) on `space`, through workspace Policy, into OutEnc.
template <class Policy = workspace::Auto, class OutEnc = CSF<3>, class T, class EncC, class Space>
Tensor<T, OutEnc, Space> ttm(const Space& space, const Tensor<T, CSF<3>, Space>& B, const Tensor<T, EncC, Space>& C,
                             const workspace::Options& options = {}, workspace::Report* report = nullptr) {
  kernels::require_extent("ttm", "C.extent(0)", C.extent(0), B.extent(0));
  return kernels::TtmImpl<Space, Policy, OutEnc, T, EncC>::ttm(space, B, C, options, report);
}

/// A(k,j,l) = sum_i B(k,i,j) * C(i,l) on `space`, through workspace Policy, into OutEnc.
template <class Policy = workspace::Auto, class OutEnc = CSF<3>, class T, class EncC, class Space>
Tensor<T, OutEnc, Space> ttm_i(const Space& space, const Tensor<T, CSF<3>, Space>& B, const Tensor<T, EncC, Space>& C,
                               const workspace::Options& options = {}, workspace::Report* report = nullptr) {
  kernels::require_extent("ttm_i", "C.extent(0)", C.extent(0), B.extent(1));
  return kernels::TtmImpl<Space, Policy, OutEnc, T, EncC>::ttm_i(space, B, C, options, report);
}

/// Run on a default-constructed instance of the operands' execution space.
template <class Policy = workspace::Auto, class OutEnc = CSF<3>, class T, class EncC, class Space>
Tensor<T, OutEnc, Space> ttm(const Tensor<T, CSF<3>, Space>& B, const Tensor<T, EncC, Space>& C,
                             const workspace::Options& options = {}, workspace::Report* report = nullptr) {
  return ttm<Policy, OutEnc>(Space(), B, C, options, report);
}
/// ttm_i on a default-constructed instance of the operands' execution space.
template <class Policy = workspace::Auto, class OutEnc = CSF<3>, class T, class EncC, class Space>
Tensor<T, OutEnc, Space> ttm_i(const Tensor<T, CSF<3>, Space>& B, const Tensor<T, EncC, Space>& C,
                               const workspace::Options& options = {}, workspace::Report* report = nullptr) {
  return ttm_i<Policy, OutEnc>(Space(), B, C, options, report);
}

/// A = B contracted along `mode` with C (see the file's comment); B arranged for the mode is kept
/// in `handle` for later calls, whose workspace options are handle.options().
template <class Policy = workspace::Auto, class OutEnc = CSF<3>, class T, class EncB, class EncC, class Space>
Tensor<T, OutEnc, Space> ttm(const Space& space, const Tensor<T, EncB, Space>& B, int mode,
                             const Tensor<T, EncC, Space>& C, TtmHandle& handle, workspace::Report* report = nullptr) {
  static_assert(EncB::order == 3, "ttm with a mode argument takes a tensor of order 3");
  if (mode < 0 || mode > 2) throw IndexError("ttm: mode " + std::to_string(mode) + " of a tensor of order 3");
  kernels::require_extent("ttm", "C.extent(0)", C.extent(0), B.extent(mode));
  using Impl = kernels::TtmImpl<Space, Policy, OutEnc, T, EncC>;
  auto& arranged = kernels::ttm_arranged<Impl::kContractedLevel>(space, handle, B, mode);
  return Impl::contract(space, arranged, C, handle.options(), report);
}

/// The same for one call: B is arranged for `mode` on every call (not where it already is).
template <class Policy = workspace::Auto, class OutEnc = CSF<3>, class T, class EncB, class EncC, class Space>
Tensor<T, OutEnc, Space> ttm(const Space& space, const Tensor<T, EncB, Space>& B, int mode,
                             const Tensor<T, EncC, Space>& C, const workspace::Options& options = {},
                             workspace::Report* report = nullptr) {
  TtmHandle handle(options);
  handle.binding().serve_single_call();
  return ttm<Policy, OutEnc>(space, B, mode, C, handle, report);
}

/// ttm with a mode argument on a default-constructed instance of the operands' execution space.
template <class Policy = workspace::Auto, class OutEnc = CSF<3>, class T, class EncB, class EncC, class Space,
          class HandleOrOptions = workspace::Options>
Tensor<T, OutEnc, Space> ttm(const Tensor<T, EncB, Space>& B, int mode, const Tensor<T, EncC, Space>& C,
                             HandleOrOptions&& handle_or_options = {}, workspace::Report* report = nullptr) {
  return ttm<Policy, OutEnc>(Space(), B, mode, C, std::forward<HandleOrOptions>(handle_or_options), report);
}

}  // namespace tessera
