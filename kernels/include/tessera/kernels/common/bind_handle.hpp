#pragma once
/// \file
/// The first step of every call given a handle: check (or, on its first call, record) the
/// tensor it serves; a handle rebound to a new tensor drops the state it kept for the old one.
#include <cstdint>
#include <vector>

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

}  // namespace tessera::kernels
