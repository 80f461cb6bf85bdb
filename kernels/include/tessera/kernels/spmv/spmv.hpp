#pragma once
/// \file
/// tessera::spmv — y = alpha * op(A) * x + beta * y for a CSR- or CSC-like tensor A, op
/// NoTranspose (the default) or Transpose. As in BLAS, y is not read where beta is zero, and
/// neither A nor x where alpha is zero.
/// \code{.unparsed}
///   spmv(space, op, alpha, A, x, beta, y, handle)   reuses what the handle keeps for A
///   spmv(space, op, alpha, A, x, beta, y, options)  builds what it needs for this call alone
/// \endcode
/// and the same without `op` (NoTranspose) and without `space` (the default instance of A's
/// space). A CSC tensor is the transposed view of the CSR arrays it stores: A x on it runs the
/// kernel of A^T x on CSR, and the other way round.
/// Algorithms (SpmvOptions::algorithm):
/// \code{.unparsed}
///   Native         portable Kokkos kernel (impl/spmv_impl.hpp), every space;
///   CudaRowBlocks  row-block kernels (cuda/spmv_csr.hpp), Kokkos::Cuda, float and double,
///                  int column ids, int or int64 row offsets, unit-stride x and y;
///   Auto           CudaRowBlocks where it applies, Native otherwise.
/// \endcode
/// Products that read the stored arrays transposed (A^T x on CSR, A x on CSC) add into y with
/// atomic adds, so their last bits can vary from call to call; the others give the same bits
/// every call.
#include <string>
#include <type_traits>

#include <Kokkos_Core.hpp>

#include "tessera/core/tensor.hpp"
#include "tessera/formats/encoding.hpp"
#include "tessera/kernels/common/bind_handle.hpp"
#include "tessera/kernels/common/checks.hpp"
#include "tessera/kernels/common/op.hpp"
#include "tessera/kernels/common/profiling_region.hpp"
#include "tessera/kernels/common/scale_output.hpp"
#include "tessera/kernels/spmv/cuda/spmv_cuda.hpp"
#include "tessera/kernels/spmv/impl/spmv_impl.hpp"
#include "tessera/kernels/spmv/spmv_handle.hpp"

namespace tessera {

/// y = alpha * op(A) * x + beta * y on `space`, reusing what `handle` keeps for A.
template <class T, class Enc, class Space, class XView, class YView>
void spmv(const Space& space, Op op, typename Tensor<T, Enc, Space>::value_type alpha, const Tensor<T, Enc, Space>& A,
          const XView& x, typename Tensor<T, Enc, Space>::value_type beta, const YView& y, SpmvHandle& handle) {
  static_assert(is_csr_like_v<Enc> || is_csc_like_v<Enc>,
                "spmv needs a CSR- or CSC-like tensor (levels {Dense, Compressed}, row or column order)");
  static_assert(Kokkos::is_view<XView>::value && XView::rank == 1, "x must be a rank-1 Kokkos::View");
  static_assert(Kokkos::is_view<YView>::value && YView::rank == 1, "y must be a rank-1 Kokkos::View");
  static_assert(std::is_same_v<typename YView::value_type, T>, "y must be a non-const View of A's value type");
  static_assert(std::is_same_v<typename XView::non_const_value_type, T>, "x must hold A's value type");
  static_assert(Kokkos::SpaceAccessibility<Space, typename XView::memory_space>::accessible &&
                    Kokkos::SpaceAccessibility<Space, typename YView::memory_space>::accessible,
                "x and y must be accessible from A's execution space");
  const bool transposed = op == Op::Transpose;
  kernels::require_extent("spmv", "x.extent(0)", x.extent(0), A.extent(transposed ? 0 : 1));
  kernels::require_extent("spmv", "y.extent(0)", y.extent(0), A.extent(transposed ? 1 : 0));
  kernels::require_disjoint("spmv", "y", y, "x", x);
  if (static_cast<double>(alpha) == 0.0) {  // BLAS: neither A nor x is read
    const kernels::ProfilingRegion profiling_region(kernels::region_name<T>("spmv", "alpha=0"));
    kernels::scale_output(space, beta, y);
    return;
  }
  const auto& s = A.decompose();
  kernels::bind_handle(space, "tessera::spmv", handle, {A.extent(0), A.extent(1)}, A.nnz(), s.levels[1].pos,
                       s.levels[1].crd);
  // The stored arrays are CSR arrays of A (CSR) or of A^T (CSC); they are read transposed
  // (scattered) when op and the storage order disagree.
  const bool scatter = transposed != is_csc_like_v<Enc>;
  kernels::SpmvImpl<Space, T, Enc>::run(space, scatter, alpha, A, x, beta, y, handle);
}

/// Builds what it needs for this call alone.
template <class T, class Enc, class Space, class XView, class YView>
void spmv(const Space& space, Op op, typename Tensor<T, Enc, Space>::value_type alpha, const Tensor<T, Enc, Space>& A,
          const XView& x, typename Tensor<T, Enc, Space>::value_type beta, const YView& y,
          const SpmvOptions& opts = {}) {
  SpmvHandle handle(opts);
  handle.binding().serve_single_call();
  spmv(space, op, alpha, A, x, beta, y, handle);
}

/// y = alpha * A * x + beta * y on `space`, reusing what `handle` keeps for A.
template <class T, class Enc, class Space, class XView, class YView>
void spmv(const Space& space, typename Tensor<T, Enc, Space>::value_type alpha, const Tensor<T, Enc, Space>& A,
          const XView& x, typename Tensor<T, Enc, Space>::value_type beta, const YView& y, SpmvHandle& handle) {
  spmv(space, Op::NoTranspose, alpha, A, x, beta, y, handle);
}

/// y = alpha * A * x + beta * y on `space`, for this call alone.
template <class T, class Enc, class Space, class XView, class YView>
void spmv(const Space& space, typename Tensor<T, Enc, Space>::value_type alpha, const Tensor<T, Enc, Space>& A,
          const XView& x, typename Tensor<T, Enc, Space>::value_type beta, const YView& y,
          const SpmvOptions& opts = {}) {
  spmv(space, Op::NoTranspose, alpha, A, x, beta, y, opts);
}

/// Runs on a default-constructed instance of A's execution space.
template <class T, class Enc, class Space, class XView, class YView>
void spmv(Op op, typename Tensor<T, Enc, Space>::value_type alpha, const Tensor<T, Enc, Space>& A, const XView& x,
          typename Tensor<T, Enc, Space>::value_type beta, const YView& y, SpmvHandle& handle) {
  spmv(Space(), op, alpha, A, x, beta, y, handle);
}

/// Runs on a default-constructed instance of A's execution space, for this call alone.
template <class T, class Enc, class Space, class XView, class YView>
void spmv(Op op, typename Tensor<T, Enc, Space>::value_type alpha, const Tensor<T, Enc, Space>& A, const XView& x,
          typename Tensor<T, Enc, Space>::value_type beta, const YView& y, const SpmvOptions& opts = {}) {
  spmv(Space(), op, alpha, A, x, beta, y, opts);
}

/// y = alpha * A * x + beta * y on a default-constructed instance of A's execution space.
template <class T, class Enc, class Space, class XView, class YView>
void spmv(typename Tensor<T, Enc, Space>::value_type alpha, const Tensor<T, Enc, Space>& A, const XView& x,
          typename Tensor<T, Enc, Space>::value_type beta, const YView& y, SpmvHandle& handle) {
  spmv(Space(), Op::NoTranspose, alpha, A, x, beta, y, handle);
}

/// y = alpha * A * x + beta * y on a default-constructed instance of A's execution space, for
/// this call alone.
template <class T, class Enc, class Space, class XView, class YView>
void spmv(typename Tensor<T, Enc, Space>::value_type alpha, const Tensor<T, Enc, Space>& A, const XView& x,
          typename Tensor<T, Enc, Space>::value_type beta, const YView& y, const SpmvOptions& opts = {}) {
  spmv(Space(), Op::NoTranspose, alpha, A, x, beta, y, opts);
}

}  // namespace tessera
