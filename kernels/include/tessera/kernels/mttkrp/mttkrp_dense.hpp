#pragma once
/// \file
/// tessera::mttkrp(space, X, mode, factors, out[, handle]) — the MTTKRP of CP decompositions,
/// with dense factor matrices and a dense result, for any mode of a tensor of order N:
/// \code{.unparsed}
///   out(i, r) = sum over the nonzeros x(i_0, ..., i_{N-1}) with i_mode = i of x * prod_{m != mode} factors[m](i_m, r)
/// \endcode
/// X: any sparse encoding of order N >= 2 (CSF, COO, ...). factors: N rank-2 Views in X's space,
/// factors[m] of X.extent(m) rows and R columns, rows contiguous (LayoutRight); factors[mode] is
/// not read (it may be empty). out: X.extent(mode) x R, LayoutRight, overwritten.
///
/// The kernels read X as a CSF rooted at `mode` (the CSF factorization: one factor row per fiber,
/// not per nonzero). The handle keeps that rearranged copy per mode, built on the mode's first
/// call in X's space, so a CP-ALS loop pays for it once; the call without a handle builds it
/// every time (none for a mode X is already rooted at). Host spaces: one slice per team, every
/// row written once (the same bits for every thread count). Kokkos::Cuda, float and double,
/// orders up to 5: the nonzeros cut into equal chunks, one per group of lanes, rows of slices
/// spanning several chunks added with atomics (their last bits vary between calls).
///
/// For sparse factor matrices or a sparse result, use mttkrp(B, C, D) of mttkrp.hpp.
#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>

#include <Kokkos_Core.hpp>

#include "tessera/core/error.hpp"
#include "tessera/core/tensor.hpp"
#include "tessera/kernels/common/checks.hpp"
#include "tessera/kernels/mttkrp/cuda/mttkrp_dense_cuda.hpp"
#include "tessera/kernels/mttkrp/impl/mode_rooted_csf.hpp"
#include "tessera/kernels/mttkrp/impl/mttkrp_dense_impl.hpp"
#include "tessera/kernels/mttkrp/mttkrp_handle.hpp"

namespace tessera {

namespace detail {

template <class View, class T, class Space>
constexpr bool is_matrix_view_of_v = [] {
  if constexpr (!Kokkos::is_view<View>::value) return false;
  else
    return View::rank == 2 && std::is_same_v<typename View::non_const_value_type, T> &&
           Kokkos::SpaceAccessibility<Space, typename View::memory_space>::accessible;
}();

template <class View>
void require_contiguous_rows(const char* what, const View& v) {
  if (v.extent(0) > 0 && v.extent(1) > 1 && v.stride(1) != 1)
    throw ShapeError(std::string("mttkrp: ") + what + " must have contiguous rows (LayoutRight)");
}

}  // namespace detail

/// out = the MTTKRP of X for `mode` with the dense `factors` (see the file's comment); the
/// mode's rearranged X is kept in `handle` for later calls.
template <class T, class Enc, class Space, class FactorView, std::size_t N, class OutView>
void mttkrp(const Space& space, const Tensor<T, Enc, Space>& X, int mode, const std::array<FactorView, N>& factors,
            const OutView& out, MttkrpHandle& handle) {
  static_assert(static_cast<int>(N) == Enc::order, "one factor per mode of X");
  static_assert(Enc::order >= 2, "mttkrp needs a tensor of order 2 or more");
  static_assert(detail::is_matrix_view_of_v<FactorView, T, Space>,
                "factors: rank-2 Kokkos Views of X's value type that X's space can read");
  static_assert(detail::is_matrix_view_of_v<OutView, T, Space> &&
                    !std::is_const_v<typename OutView::value_type>,
                "out: a writable rank-2 Kokkos View of X's value type that X's space can write");
  constexpr int order = Enc::order;
  if (mode < 0 || mode >= order)
    throw IndexError("mttkrp: mode " + std::to_string(mode) + " of a tensor of order " + std::to_string(order));
  const std::int64_t R = static_cast<std::int64_t>(out.extent(1));
  kernels::require_extent("mttkrp", "out.extent(0)", static_cast<std::int64_t>(out.extent(0)), X.extent(mode));
  detail::require_contiguous_rows("out", out);
  for (int m = 0; m < order; ++m) {
    if (m == mode) continue;
    const std::string name = "factors[" + std::to_string(m) + "]";
    kernels::require_extent("mttkrp", (name + ".extent(0)").c_str(), static_cast<std::int64_t>(factors[m].extent(0)),
                            X.extent(m));
    kernels::require_extent("mttkrp", (name + ".extent(1)").c_str(), static_cast<std::int64_t>(factors[m].extent(1)), R);
    detail::require_contiguous_rows(name.c_str(), factors[m]);
    kernels::require_disjoint("mttkrp", "out", out, name.c_str(), factors[m]);
  }
  const auto& rooted = kernels::mode_rooted_csf(space, handle, X, mode);
  kernels::DenseFactors<T, order> f;
  for (int l = 1; l < order; ++l) {
    const auto& factor = factors[rooted.modes[l]];
    f.factor[l] = factor.data();
    f.stride[l] = factor.extent(1) > 1 ? static_cast<std::int64_t>(factor.stride(0)) : R;
  }
  f.out = out.data();
  f.out_rows = static_cast<std::int64_t>(out.extent(0));
  f.out_stride = out.extent(1) > 1 ? static_cast<std::int64_t>(out.stride(0)) : R;
  f.rank = R;
  kernels::MttkrpDenseImpl<Space, T, order>::run(space, rooted, f);
}

/// The same without a handle: X is rearranged for `mode` on every call.
template <class T, class Enc, class Space, class FactorView, std::size_t N, class OutView>
void mttkrp(const Space& space, const Tensor<T, Enc, Space>& X, int mode, const std::array<FactorView, N>& factors,
            const OutView& out) {
  MttkrpHandle handle;
  handle.binding().serve_single_call();
  mttkrp(space, X, mode, factors, out, handle);
}

/// On a default-constructed instance of X's execution space, with a handle.
template <class T, class Enc, class Space, class FactorView, std::size_t N, class OutView>
void mttkrp(const Tensor<T, Enc, Space>& X, int mode, const std::array<FactorView, N>& factors, const OutView& out,
            MttkrpHandle& handle) {
  mttkrp(Space(), X, mode, factors, out, handle);
}

/// On a default-constructed instance of X's execution space, without a handle.
template <class T, class Enc, class Space, class FactorView, std::size_t N, class OutView>
void mttkrp(const Tensor<T, Enc, Space>& X, int mode, const std::array<FactorView, N>& factors, const OutView& out) {
  mttkrp(Space(), X, mode, factors, out);
}

}  // namespace tessera
