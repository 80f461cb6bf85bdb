#pragma once
// Shape checks shared by the kernel front ends.
#include <cstdint>
#include <string>

#include "tessera/core/error.hpp"

namespace tessera::kernels {

inline void require_extent(const char* kernel, const char* what, std::int64_t actual, std::int64_t expected) {
  if (actual != expected)
    throw ShapeError(std::string(kernel) + ": " + what + " is " + std::to_string(actual) + ", expected " +
                     std::to_string(expected));
}

// The output View `out` must not share memory with the input View `in`: the kernels read
// their inputs while other threads write the output. Sharing is certain where both start at
// the same element, or where both are contiguous and their ranges meet. Strided Views whose
// ranges interleave without sharing elements (two columns of one row-major matrix, as in a
// Krylov basis) are left alone. Views with no elements overlap nothing.
template <class OutView, class InView>
void require_disjoint(const char* kernel, const char* out_name, const OutView& out, const char* in_name,
                      const InView& in) {
  if (out.span() == 0 || in.span() == 0) return;
  const auto out_begin = reinterpret_cast<std::uintptr_t>(out.data());
  const auto in_begin = reinterpret_cast<std::uintptr_t>(in.data());
  const auto out_end = out_begin + out.span() * sizeof(typename OutView::value_type);
  const auto in_end = in_begin + in.span() * sizeof(typename InView::value_type);
  const bool ranges_meet = out_begin < in_end && in_begin < out_end;
  if (out_begin == in_begin || (ranges_meet && out.span_is_contiguous() && in.span_is_contiguous()))
    throw AliasError(std::string(kernel) + ": " + out_name + " overlaps " + in_name + ", which it reads; pass " +
                     out_name + " its own memory");
}

}  // namespace tessera::kernels
