#pragma once
/// \file
/// The first step of every call given a handle: check (or, on its first call, record) the
/// tensor it serves; a handle rebound to a new tensor drops the state it kept for the old one.
#include <cstdint>
#include <utility>
#include <vector>

#include "tessera/core/tensor.hpp"
#include "tessera/kernels/common/capture_check.hpp"
#include "tessera/kernels/common/pattern_binding.hpp"

namespace tessera::kernels {

/// Checks (or, on its first call, records) the tensor `handle` serves; ShapeError for another one.
template <class Space, class Handle, class... Views>
void bind_handle(const Space& space, const char* who, Handle& handle, const std::vector<std::int64_t>& extents,
                 std::int64_t nnz, const Views&... index_arrays) {
  if (handle.binding().would_read(index_arrays...))
    require_can_synchronize(space, who, "checks the tensor its handle serves");
  if (handle.binding().bind(who, extents, nnz, index_arrays...)) handle.state().reset();
}

namespace detail {
template <class Space, class Handle, class T, class Enc, class TensorSpace, std::size_t... L>
void bind_handle_to_levels(const Space& space, const char* who, Handle& handle,
                           const Tensor<T, Enc, TensorSpace>& X, std::index_sequence<L...>) {
  const auto& s = X.decompose();
  const auto& shape = X.shape();
  bind_handle(space, who, handle, std::vector<std::int64_t>(shape.begin(), shape.end()), X.nnz(),
              s.levels[L].pos..., s.levels[L].crd...);
}
}  // namespace detail

/// bind_handle for a tensor: its extents, its stored entries and every level's index arrays.
template <class Space, class Handle, class T, class Enc, class TensorSpace>
void bind_handle_to_tensor(const Space& space, const char* who, Handle& handle, const Tensor<T, Enc, TensorSpace>& X) {
  detail::bind_handle_to_levels(space, who, handle, X, std::make_index_sequence<Enc::order>());
}

}  // namespace tessera::kernels
