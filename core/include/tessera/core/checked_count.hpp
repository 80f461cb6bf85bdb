#pragma once
/// \file
/// Products of extents (positions of dense levels, elements of dense arrays) computed with
/// an overflow check: a wrapped product would size an allocation or a validation too small,
/// and every later index into it would be out of bounds.
#include <array>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>

#include "tessera/core/error.hpp"

namespace tessera::detail {

// count * extent for non-negative operands; an OverflowError saying `what` has more
// positions than int64 can count.
inline std::int64_t checked_count_product(std::int64_t count, std::int64_t extent, const std::string& what) {
  if (extent != 0 && count > std::numeric_limits<std::int64_t>::max() / extent)
    throw OverflowError(what + " has more positions than int64 can count");
  return count * extent;
}

// Elements of a dense array of `shape` holding `element_bytes` each; an OverflowError where
// their count or their bytes overflow.
template <std::size_t N>
std::int64_t checked_dense_elements(const std::array<std::int64_t, N>& shape, std::size_t element_bytes,
                                    const std::string& what) {
  std::int64_t count = 1;
  for (const std::int64_t extent : shape) count = checked_count_product(count, extent, what);
  if (static_cast<std::uint64_t>(count) > std::numeric_limits<std::size_t>::max() / element_bytes)
    throw OverflowError(what + ": " + std::to_string(count) + " elements of " + std::to_string(element_bytes) +
                        " bytes do not fit the address space");
  return count;
}

}  // namespace tessera::detail
