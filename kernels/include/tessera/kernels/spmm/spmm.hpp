#pragma once
/// \file
/// tessera::spmm — C = alpha * op(A) * B + beta * C for a CSR- or CSC-like tensor A and dense
/// B (K x N), C (M x N) Views of any layout, op NoTranspose (the default) or Transpose. As in
/// BLAS, C is not read where beta is zero, and neither A nor B where alpha is zero (C = beta *
/// C; no algorithm is chosen or run).
/// \code{.unparsed}
///   spmm(space, op, alpha, A, B, beta, C, handle)   reuses what the handle keeps for A
///   spmm(space, op, alpha, A, B, beta, C, options)  builds what it needs for this call alone
/// \endcode
/// and the same without `op` (NoTranspose) and without `space` (the default instance of A's
/// space). A CSC tensor is the transposed view of the CSR arrays it stores: op(A) = A^T on it
/// runs the row kernels below on those arrays; A on it (and A^T on CSR) runs Native's scatter,
/// which adds into C with atomic adds (last bits can vary from call to call).
/// Algorithms (SpmmOptions::algorithm):
/// \code{.unparsed}
///   Native            portable Kokkos kernel (impl/spmm_impl.hpp), every space;
///   TensorCore        TCA-SpMM (cuda/spmm_tca.hpp), Kokkos::Cuda, float (TF32), half_t;
///   CudaCoreRowSplit  CUDA-core warp-per-row kernel, Kokkos::Cuda, float/double/half_t;
///   Auto              Kokkos::Cuda: what spmm_choose_algorithm() says; other spaces: Native.
/// \endcode
/// Asking a space or type without them for a CUDA algorithm throws NotCompiled. On host
/// spaces, Native runs an AVX-512 row loop for float and double with row-major B and C on x86-64
/// CPUs that have it, the portable loop otherwise (SpmmOptions::host_loop, \::output_stores).
#include <Kokkos_Core.hpp>

#include "tessera/core/tensor.hpp"
#include "tessera/formats/encoding.hpp"
#include "tessera/kernels/common/bind_handle.hpp"
#include "tessera/kernels/common/checks.hpp"
#include "tessera/kernels/common/op.hpp"
#include "tessera/kernels/common/profiling_region.hpp"
#include "tessera/kernels/common/scale_output.hpp"
#include "tessera/kernels/spmm/cuda/spmm_cuda.hpp"
#include "tessera/kernels/spmm/impl/spmm_impl.hpp"
#include "tessera/kernels/spmm/spmm_handle.hpp"

namespace tessera {

namespace kernels::detail {

// What spmm requires of its operands; spmm_choose_algorithm checks the same, as with tune it
// runs the CUDA kernels on B.
template <class T, class Enc, class Space, class BView, class CView>
void check_spmm_operands(Op op, const Tensor<T, Enc, Space>& A, const BView& B, const CView& C) {
  static_assert(is_csr_like_v<Enc> || is_csc_like_v<Enc>,
                "spmm needs a CSR- or CSC-like tensor (levels {Dense, Compressed}, row or column order)");
  static_assert(Kokkos::is_view<BView>::value && BView::rank == 2, "B must be a rank-2 Kokkos::View");
  static_assert(Kokkos::is_view<CView>::value && CView::rank == 2, "C must be a rank-2 Kokkos::View");
  static_assert(std::is_same_v<typename CView::value_type, T>, "C must be a non-const View of A's value type");
  static_assert(std::is_same_v<typename BView::non_const_value_type, T>, "B must hold A's value type");
  static_assert(Kokkos::SpaceAccessibility<Space, typename BView::memory_space>::accessible &&
                    Kokkos::SpaceAccessibility<Space, typename CView::memory_space>::accessible,
                "B and C must be accessible from A's execution space");
  const bool transposed = op == Op::Transpose;
  kernels::require_extent("spmm", "B.extent(0)", B.extent(0), A.extent(transposed ? 0 : 1));
  kernels::require_extent("spmm", "C.extent(0)", C.extent(0), A.extent(transposed ? 1 : 0));
  kernels::require_extent("spmm", "C.extent(1)", C.extent(1), B.extent(1));
}

template <class T, class Enc, class Space>
void bind_spmm_handle(const Space& space, SpmmHandle& handle, const Tensor<T, Enc, Space>& A) {
  const auto& s = A.decompose();
  kernels::bind_handle(space, "tessera::spmm", handle, {A.extent(0), A.extent(1)}, A.nnz(), s.levels[1].pos,
                       s.levels[1].crd);
}

// The stored arrays are CSR arrays of A (CSR) or of A^T (CSC); they are read transposed
// (scattered) when op and the storage order disagree.
template <class Enc>
bool spmm_scatters(Op op) {
  return (op == Op::Transpose) != is_csc_like_v<Enc>;
}

}  // namespace kernels::detail

/// The algorithm spmm(space, op, alpha, A, B, beta, C, handle) will run (Auto resolved), without
/// running it; with options().tune, the first query for a shape times the CUDA kernels on
/// space's stream and the handle keeps the pick.
template <class T, class Enc, class Space, class BView, class CView>
SpmmAlgorithm spmm_choose_algorithm(const Space& space, Op op, const Tensor<T, Enc, Space>& A, const BView& B,
                                    const CView& C, SpmmHandle& handle) {
  kernels::detail::check_spmm_operands(op, A, B, C);
  kernels::detail::bind_spmm_handle(space, handle, A);
  return kernels::SpmmImpl<Space, T, Enc>::choose(space, kernels::detail::spmm_scatters<Enc>(op), A, B, C, handle);
}

/// The same for op = NoTranspose.
template <class T, class Enc, class Space, class BView, class CView>
SpmmAlgorithm spmm_choose_algorithm(const Space& space, const Tensor<T, Enc, Space>& A, const BView& B,
                                    const CView& C, SpmmHandle& handle) {
  return spmm_choose_algorithm(space, Op::NoTranspose, A, B, C, handle);
}

/// Builds what it needs for this query alone.
template <class T, class Enc, class Space, class BView, class CView>
SpmmAlgorithm spmm_choose_algorithm(const Space& space, const Tensor<T, Enc, Space>& A, const BView& B,
                                    const CView& C, const SpmmOptions& opts = {}) {
  SpmmHandle handle(opts);
  handle.binding().serve_single_call();
  return spmm_choose_algorithm(space, A, B, C, handle);
}

/// Runs on a default-constructed instance of A's execution space.
template <class T, class Enc, class Space, class BView, class CView>
SpmmAlgorithm spmm_choose_algorithm(const Tensor<T, Enc, Space>& A, const BView& B, const CView& C,
                                    SpmmHandle& handle) {
  return spmm_choose_algorithm(Space(), A, B, C, handle);
}

/// Runs on a default-constructed instance of A's execution space, for this query alone.
template <class T, class Enc, class Space, class BView, class CView>
SpmmAlgorithm spmm_choose_algorithm(const Tensor<T, Enc, Space>& A, const BView& B, const CView& C,
                                    const SpmmOptions& opts = {}) {
  return spmm_choose_algorithm(Space(), A, B, C, opts);
}

/// C = alpha * op(A) * B + beta * C, reusing what `handle` keeps for A.
template <class T, class Enc, class Space, class BView, class CView>
void spmm(const Space& space, Op op, typename Tensor<T, Enc, Space>::value_type alpha, const Tensor<T, Enc, Space>& A,
          const BView& B, typename Tensor<T, Enc, Space>::value_type beta, const CView& C, SpmmHandle& handle) {
  kernels::detail::check_spmm_operands(op, A, B, C);
  kernels::require_disjoint("spmm", "C", C, "B", B);
  if (static_cast<double>(alpha) == 0.0) {  // BLAS: neither A nor B is read, no algorithm runs
    const kernels::ProfilingRegion profiling_region(kernels::region_name<T>("spmm", "alpha=0"));
    kernels::scale_output(space, beta, C);
    return;
  }
  kernels::detail::bind_spmm_handle(space, handle, A);
  kernels::SpmmImpl<Space, T, Enc>::run(space, kernels::detail::spmm_scatters<Enc>(op), alpha, A, B, beta, C, handle);
}

/// C = alpha * op(A) * B + beta * C, building what it needs for this call alone.
template <class T, class Enc, class Space, class BView, class CView>
void spmm(const Space& space, Op op, typename Tensor<T, Enc, Space>::value_type alpha, const Tensor<T, Enc, Space>& A,
          const BView& B, typename Tensor<T, Enc, Space>::value_type beta, const CView& C,
          const SpmmOptions& opts = {}) {
  SpmmHandle handle(opts);
  handle.binding().serve_single_call();
  spmm(space, op, alpha, A, B, beta, C, handle);
}

/// C = alpha * A * B + beta * C, reusing what `handle` keeps for A.
template <class T, class Enc, class Space, class BView, class CView>
void spmm(const Space& space, typename Tensor<T, Enc, Space>::value_type alpha, const Tensor<T, Enc, Space>& A,
          const BView& B, typename Tensor<T, Enc, Space>::value_type beta, const CView& C, SpmmHandle& handle) {
  spmm(space, Op::NoTranspose, alpha, A, B, beta, C, handle);
}

/// C = alpha * A * B + beta * C, building what it needs for this call alone.
template <class T, class Enc, class Space, class BView, class CView>
void spmm(const Space& space, typename Tensor<T, Enc, Space>::value_type alpha, const Tensor<T, Enc, Space>& A,
          const BView& B, typename Tensor<T, Enc, Space>::value_type beta, const CView& C,
          const SpmmOptions& opts = {}) {
  spmm(space, Op::NoTranspose, alpha, A, B, beta, C, opts);
}

/// C = alpha * op(A) * B + beta * C on a default-constructed instance of A's execution space.
template <class T, class Enc, class Space, class BView, class CView>
void spmm(Op op, typename Tensor<T, Enc, Space>::value_type alpha, const Tensor<T, Enc, Space>& A, const BView& B,
          typename Tensor<T, Enc, Space>::value_type beta, const CView& C, const SpmmOptions& opts = {}) {
  spmm(Space(), op, alpha, A, B, beta, C, opts);
}

/// Runs on a default-constructed instance of A's execution space.
template <class T, class Enc, class Space, class BView, class CView>
void spmm(typename Tensor<T, Enc, Space>::value_type alpha, const Tensor<T, Enc, Space>& A, const BView& B,
          typename Tensor<T, Enc, Space>::value_type beta, const CView& C, SpmmHandle& handle) {
  spmm(Space(), alpha, A, B, beta, C, handle);
}

/// Runs on a default-constructed instance of A's execution space, for this call alone.
template <class T, class Enc, class Space, class BView, class CView>
void spmm(typename Tensor<T, Enc, Space>::value_type alpha, const Tensor<T, Enc, Space>& A, const BView& B,
          typename Tensor<T, Enc, Space>::value_type beta, const CView& C, const SpmmOptions& opts = {}) {
  spmm(Space(), alpha, A, B, beta, C, opts);
}

}  // namespace tessera
