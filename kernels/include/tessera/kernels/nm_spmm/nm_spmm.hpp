#pragma once
/// \file
/// tessera::nm_spmm — C = alpha * A * B + beta * C with A (m x k) and C (m x n) dense Views and
/// B (k x n) an N:M structured-sparse weight, the product of a linear layer with a pruned weight:
/// \code{.unparsed}
///   Tensor<T, VNM, Space>   vector-wise N:M (formats/vnm.hpp): the tiled CUDA-core kernel on
///                           Kokkos::Cuda for float with LayoutRight or LayoutLeft A and C;
///   Nv24Tensor<T, Space>    2:4 in the mma.sp layout (formats/nv24.hpp): the sparse-tensor-core
///                           kernel on Kokkos::Cuda for half_t and bf16_t, fp32 accumulation;
/// \endcode
/// the portable Kokkos kernel everywhere else (NmSpmmAlgorithm). As in BLAS, C is not read where
/// beta is zero, and neither A nor B where alpha is zero; alpha = 1, beta = 0 writes the product
/// straight into C, other values go through a temporary of C's size.
/// \code{.unparsed}
///   nm_spmm(space, alpha, A, B, beta, C, handle)   reuses what the handle keeps for B
///   nm_spmm(space, alpha, A, B, beta, C, options)  builds what it needs for this call alone
/// \endcode
/// and the same without `space` (the default instance of B's space).
#include <cstdint>
#include <type_traits>

#include <Kokkos_Core.hpp>

#include "tessera/formats/nv24.hpp"
#include "tessera/formats/vnm.hpp"
#include "tessera/kernels/common/bind_handle.hpp"
#include "tessera/kernels/common/combine_output.hpp"
#include "tessera/kernels/common/profiling_region.hpp"
#include "tessera/kernels/common/scale_output.hpp"
#include "tessera/kernels/nm_spmm/cuda/nm_spmm_cuda.hpp"
#include "tessera/kernels/nm_spmm/impl/nm_spmm_impl.hpp"
#include "tessera/kernels/nm_spmm/nm_spmm_handle.hpp"
#include "tessera/kernels/nm_spmm/weight_product_checks.hpp"

namespace tessera {

namespace kernels::detail {

template <class T, class Space>
void bind_nm_spmm_handle(const Space& space, NmSpmmHandle& handle, const Tensor<T, VNM, Space>& B) {
  const auto& e = B.extents();
  const auto& p = B.pattern();
  kernels::bind_handle(space, "tessera::nm_spmm", handle, {e.rows, e.cols, p.n, p.m, p.l},
                       static_cast<std::int64_t>(B.values().span()), B.meta());
}

template <class T, class Space>
void bind_nm_spmm_handle(const Space& space, NmSpmmHandle& handle, const Nv24Tensor<T, Space>& B) {
  const auto& s = B.decompose();
  kernels::bind_handle(space, "tessera::nm_spmm", handle, {B.extent(0), B.extent(1)},
                       static_cast<std::int64_t>(s.vals.span()), s.meta);
}

template <class Space, class Weight, class AView, class CView>
void nm_spmm(const Space& space, typename Weight::value_type alpha, const AView& A, const Weight& B,
             typename Weight::value_type beta, const CView& C, NmSpmmHandle& handle) {
  using T = typename Weight::value_type;
  kernels::require_weight_product<T, Space>(A, B.extent(0), B.extent(1), C);
  if (static_cast<double>(alpha) == 0.0) {  // BLAS: neither A nor B is read
    const kernels::ProfilingRegion profiling_region(kernels::region_name<T>("nm_spmm", "alpha=0"));
    kernels::scale_output(space, beta, C);
    return;
  }
  bind_nm_spmm_handle(space, handle, B);
  using Impl = kernels::NmSpmmImpl<Space, Weight>;
  if (static_cast<double>(alpha) == 1.0 && static_cast<double>(beta) == 0.0) return Impl::run(space, A, B, C, handle);
  const Kokkos::View<T**, Kokkos::LayoutRight, typename Space::memory_space> product(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "tessera::nm_spmm_product"), C.extent(0), C.extent(1));
  Impl::run(space, A, B, product, handle);
  kernels::combine_output(space, alpha, product, beta, C);
}

template <class Weight>
struct is_nm_weight : std::false_type {};
template <class T, class Space>
struct is_nm_weight<Tensor<T, VNM, Space>> : std::true_type {};
template <class T, class Space>
struct is_nm_weight<Tensor<T, NV24, Space>> : std::true_type {};

}  // namespace kernels::detail

template <class Space, class AView, class Weight, class CView,
          std::enable_if_t<kernels::detail::is_nm_weight<Weight>::value, int> = 0>
/// C = alpha * A * B + beta * C, reusing what `handle` keeps for B.
void nm_spmm(const Space& space, typename Weight::value_type alpha, const AView& A, const Weight& B,
             typename Weight::value_type beta, const CView& C, NmSpmmHandle& handle) {
  static_assert(std::is_same_v<Space, typename Weight::execution_space>, "B must live in the space the call runs on");
  kernels::detail::nm_spmm(space, alpha, A, B, beta, C, handle);
}

template <class Space, class AView, class Weight, class CView,
          std::enable_if_t<kernels::detail::is_nm_weight<Weight>::value, int> = 0>
/// Builds what it needs for this call alone.
void nm_spmm(const Space& space, typename Weight::value_type alpha, const AView& A, const Weight& B,
             typename Weight::value_type beta, const CView& C, const NmSpmmOptions& opts = {}) {
  NmSpmmHandle handle(opts);
  handle.binding().serve_single_call();
  nm_spmm(space, alpha, A, B, beta, C, handle);
}

template <class AView, class Weight, class CView,
          std::enable_if_t<kernels::detail::is_nm_weight<Weight>::value, int> = 0>
/// Runs on the default instance of B's execution space.
void nm_spmm(typename Weight::value_type alpha, const AView& A, const Weight& B, typename Weight::value_type beta,
             const CView& C, NmSpmmHandle& handle) {
  nm_spmm(typename Weight::execution_space(), alpha, A, B, beta, C, handle);
}

template <class AView, class Weight, class CView,
          std::enable_if_t<kernels::detail::is_nm_weight<Weight>::value, int> = 0>
/// Runs on the default instance of B's execution space, for this call alone.
void nm_spmm(typename Weight::value_type alpha, const AView& A, const Weight& B, typename Weight::value_type beta,
             const CView& C, const NmSpmmOptions& opts = {}) {
  nm_spmm(typename Weight::execution_space(), alpha, A, B, beta, C, opts);
}

/// The algorithm nm_spmm runs with Auto for Weight (with LayoutRight or LayoutLeft A and C).
template <class Weight>
constexpr NmSpmmAlgorithm nm_spmm_default_algorithm() {
  using T = typename Weight::value_type;
  if constexpr (!kernels::runs_cuda_kernels_v<typename Weight::execution_space>)
    return NmSpmmAlgorithm::Native;
  else if constexpr (std::is_same_v<typename Weight::encoding_type, VNM>)
    return std::is_same_v<T, float> ? NmSpmmAlgorithm::CudaTiled : NmSpmmAlgorithm::Native;
  else
    return kernels::is_nv24_tensor_core_value_v<T> ? NmSpmmAlgorithm::SparseTensorCore : NmSpmmAlgorithm::Native;
}

}  // namespace tessera
