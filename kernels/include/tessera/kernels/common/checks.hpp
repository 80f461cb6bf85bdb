#pragma once
/// \file
/// Shape checks shared by the kernel front ends.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>

#include "tessera/core/error.hpp"
#include "tessera/kernels/common/strided_overlap.hpp"

namespace tessera::kernels {

/// ShapeError naming the kernel unless `actual` == `expected`.
inline void require_extent(const char* kernel, const char* what, std::int64_t actual, std::int64_t expected) {
  if (actual != expected)
    throw ShapeError(std::string(kernel) + ": " + what + " is " + std::to_string(actual) + ", expected " +
                     std::to_string(expected));
}

/// A byte count as a message shows it: "812 bytes", "3.4 MB", "720.0 GB" (std::to_string of a
/// double printed "720000000000.000000").
inline std::string byte_count_text(double bytes) {
  char text[64];
  if (bytes >= 1e9) std::snprintf(text, sizeof text, "%.1f GB", bytes / 1e9);
  else if (bytes >= 1e6) std::snprintf(text, sizeof text, "%.1f MB", bytes / 1e6);
  else std::snprintf(text, sizeof text, "%.0f bytes", bytes);
  return text;
}

/// Dense workspaces of `positions` each, one per thread, must fit the memory budget: an
/// OverflowError naming the kernel otherwise (before anything is allocated).
inline void require_dense_workspaces_fit(const std::string& kernel, std::int64_t positions, std::int64_t threads,
                                         std::size_t value_bytes, std::int64_t budget_bytes) {
  const double bytes = static_cast<double>(positions) * static_cast<double>(threads) *
                       static_cast<double>(value_bytes + 1);
  if (bytes > static_cast<double>(budget_bytes))
    throw OverflowError(kernel + ": Dense workspaces of " + std::to_string(positions) + " positions for " +
                        std::to_string(threads) + " threads need " + byte_count_text(bytes) +
                        ", over memory_budget_bytes; use a sparse policy or raise the budget");
}

/// The output View `out` must not share memory with the input View `in`: the kernels read
/// their inputs while other threads write the output. Views whose address ranges meet share
/// an element where both are contiguous; strided ones (columns or column windows of one
/// matrix, as in a Krylov basis) are checked element-exactly (strided_overlap.hpp), so that
/// interleaved Views that share nothing pass and overlapping windows do not. Views with no
/// elements overlap nothing.
template <class OutView, class InView>
void require_disjoint(const char* kernel, const char* out_name, const OutView& out, const char* in_name,
                      const InView& in) {
  if (out.span() == 0 || in.span() == 0) return;
  constexpr std::size_t out_bytes = sizeof(typename OutView::value_type);
  constexpr std::size_t in_bytes = sizeof(typename InView::value_type);
  const auto out_begin = reinterpret_cast<std::uintptr_t>(out.data());
  const auto in_begin = reinterpret_cast<std::uintptr_t>(in.data());
  const auto out_end = out_begin + out.span() * out_bytes;
  const auto in_end = in_begin + in.span() * in_bytes;
  if (!(out_begin < in_end && in_begin < out_end)) return;
  const std::int64_t apart = static_cast<std::int64_t>(in_begin - out_begin);  // wraps to the signed distance
  const bool shared = out_begin == in_begin || (out.span_is_contiguous() && in.span_is_contiguous()) ||
                      out_bytes != in_bytes || apart % static_cast<std::int64_t>(out_bytes) != 0 ||
                      !detail::provably_disjoint(detail::strided_set(out), detail::strided_set(in),
                                                 apart / static_cast<std::int64_t>(out_bytes));
  if (shared)
    throw AliasError(std::string(kernel) + ": " + out_name + " overlaps " + in_name + ", which it reads; pass " +
                     out_name + " its own memory");
}

}  // namespace tessera::kernels
