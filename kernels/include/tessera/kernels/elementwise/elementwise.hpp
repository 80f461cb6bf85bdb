#pragma once
/// \file
/// Element-wise operations on sparse matrices of one CSR- or CSC-like encoding, in the operands'
/// own space (Serial, OpenMP, Cuda):
/// \code
///   C = tessera::add(space, alpha, A, beta, B[, handle_or_options]);        // alpha A + beta B, union pattern
///   C = tessera::multiply_elementwise(space, A, B[, handle_or_options]);   // A .* B, intersection pattern
/// \endcode
/// C is sorted and free of duplicates, with the operands' shape and encoding. Explicit zeros of
/// the result are kept unless ElementwiseOptions::drop_zeros. Through an ElementwiseHandle the
/// first call computes C and keeps its pattern; later calls with operands of the same patterns
/// compute only the values (ShapeError for other patterns).
#include <string>
#include <type_traits>
#include <utility>

#include <Kokkos_Core.hpp>

#include "tessera/core/tensor.hpp"
#include "tessera/formats/encoding.hpp"
#include "tessera/kernels/common/bind_handle.hpp"
#include "tessera/kernels/common/checks.hpp"
#include "tessera/kernels/common/profiling_region.hpp"
#include "tessera/kernels/elementwise/elementwise_handle.hpp"
#include "tessera/kernels/elementwise/impl/merge_slices.hpp"
#include "tessera/kernels/elementwise/impl/value_sources.hpp"

namespace tessera {
namespace kernels::detail {

template <class Enc>
inline constexpr bool elementwise_encoding_v = is_csr_like_v<Enc> || is_csc_like_v<Enc>;

template <class T, class Enc, class Space>
void require_same_shape(const char* kernel, const Tensor<T, Enc, Space>& A, const Tensor<T, Enc, Space>& B) {
  if (A.shape() != B.shape())
    throw ShapeError(std::string(kernel) + ": A is " + std::to_string(A.extent(0)) + " x " +
                     std::to_string(A.extent(1)) + ", B is " + std::to_string(B.extent(0)) + " x " +
                     std::to_string(B.extent(1)));
}

// One call of an element-wise operation through `handle`: the kept pattern where there is one.
template <impl::MergeKind Kind, class T, class Enc, class Space, class Combine>
Tensor<T, Enc, Space> run_elementwise(const char* family, const char* variant, const Space& space,
                                      const Tensor<T, Enc, Space>& A, const Tensor<T, Enc, Space>& B,
                                      const Combine& combine, ElementwiseHandle& handle) {
  static_assert(elementwise_encoding_v<Enc>, "element-wise operations take CSR- or CSC-like encodings");
  const std::string who = std::string("tessera::") + family;
  const char* const kernel = who.c_str();
  require_same_shape(kernel, A, B);
  const auto& a = A.decompose();
  const auto& b = B.decompose();
  bind_handle(space, kernel, handle, {A.extent(0), A.extent(1)}, A.nnz() + B.nnz(), a.levels[1].pos,
              a.levels[1].crd, b.levels[1].pos, b.levels[1].crd);
  using Sources = impl::ValueSources<T, Enc, Space>;
  const bool drop = handle.options().drop_zeros;
  const ProfilingRegion profiling_region(region_name<T>(family, variant));
  if (const Sources* kept = drop ? nullptr : handle.state().get<Sources>())
    return impl::gather_values(space, A, B, combine, *kept);
  Tensor<T, Enc, Space> C = impl::merge_slices<Kind>(space, A, B, combine, drop);
  if (!drop && !handle.binding().single_call()) handle.state().emplace(impl::value_sources(space, A, B, C));
  return C;
}

}  // namespace kernels::detail

/// C = alpha * A + beta * B with the union of A's and B's patterns (see the file's comment).
template <class T, class Enc, class Space>
Tensor<T, Enc, Space> add(const Space& space, typename Tensor<T, Enc, Space>::value_type alpha,
                          const Tensor<T, Enc, Space>& A, typename Tensor<T, Enc, Space>::value_type beta,
                          const Tensor<T, Enc, Space>& B, ElementwiseHandle& handle) {
  const auto combine = KOKKOS_LAMBDA(T a, T b) { return alpha * a + beta * b; };
  return kernels::detail::run_elementwise<kernels::impl::MergeKind::Union>("add", "union", space, A, B,
                                                                            combine, handle);
}

/// The same for one call.
template <class T, class Enc, class Space>
Tensor<T, Enc, Space> add(const Space& space, typename Tensor<T, Enc, Space>::value_type alpha,
                          const Tensor<T, Enc, Space>& A, typename Tensor<T, Enc, Space>::value_type beta,
                          const Tensor<T, Enc, Space>& B, const ElementwiseOptions& options = {}) {
  ElementwiseHandle handle(options);
  handle.binding().serve_single_call();
  return add(space, alpha, A, beta, B, handle);
}

/// add on a default-constructed instance of the operands' space.
template <class T, class Enc, class Space, class HandleOrOptions = ElementwiseOptions>
Tensor<T, Enc, Space> add(typename Tensor<T, Enc, Space>::value_type alpha, const Tensor<T, Enc, Space>& A,
                          typename Tensor<T, Enc, Space>::value_type beta, const Tensor<T, Enc, Space>& B,
                          HandleOrOptions&& handle_or_options = {}) {
  return add(Space(), alpha, A, beta, B, std::forward<HandleOrOptions>(handle_or_options));
}

/// C = A .* B (the Hadamard product) with the intersection of A's and B's patterns: also A
/// masked by B's pattern where B holds ones (see the file's comment).
template <class T, class Enc, class Space>
Tensor<T, Enc, Space> multiply_elementwise(const Space& space, const Tensor<T, Enc, Space>& A,
                                           const Tensor<T, Enc, Space>& B, ElementwiseHandle& handle) {
  const auto combine = KOKKOS_LAMBDA(T a, T b) { return a * b; };
  return kernels::detail::run_elementwise<kernels::impl::MergeKind::Intersection>(
      "multiply_elementwise", "intersection", space, A, B, combine, handle);
}

/// The same for one call.
template <class T, class Enc, class Space>
Tensor<T, Enc, Space> multiply_elementwise(const Space& space, const Tensor<T, Enc, Space>& A,
                                           const Tensor<T, Enc, Space>& B, const ElementwiseOptions& options = {}) {
  ElementwiseHandle handle(options);
  handle.binding().serve_single_call();
  return multiply_elementwise(space, A, B, handle);
}

/// multiply_elementwise on a default-constructed instance of the operands' space.
template <class T, class Enc, class Space, class HandleOrOptions = ElementwiseOptions>
Tensor<T, Enc, Space> multiply_elementwise(const Tensor<T, Enc, Space>& A, const Tensor<T, Enc, Space>& B,
                                           HandleOrOptions&& handle_or_options = {}) {
  return multiply_elementwise(Space(), A, B, std::forward<HandleOrOptions>(handle_or_options));
}

}  // namespace tessera
