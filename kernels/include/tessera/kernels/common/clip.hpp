#pragma once
/// \file
/// clip(): the part of a sorted coordinate segment that falls in a coordinate range,
/// for kernels whose threads each own a range of the output's first coordinate.
#include <algorithm>
#include <cstdint>
#include <utility>

namespace tessera::kernels {

/// Positions [begin', end') of the sorted segment crd[begin, end) whose coordinates lie in [lo, hi).
template <class Ordinal>
std::pair<std::int64_t, std::int64_t> clip(const Ordinal* crd, std::int64_t begin, std::int64_t end, std::int64_t lo,
                                           std::int64_t hi) {
  const Ordinal* b = std::lower_bound(crd + begin, crd + end, lo);
  const Ordinal* e = std::lower_bound(b, crd + end, hi);
  return {b - crd, e - crd};
}

}  // namespace tessera::kernels
