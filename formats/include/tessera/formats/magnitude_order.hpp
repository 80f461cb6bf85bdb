#pragma once
/// \file
/// The order in which magnitude pruning (NV24, VNM) ranks candidates: larger first, and a NaN
/// above every number. A NaN weight is then kept, so that it shows in the results instead of
/// being dropped silently, and the ranking stays a strict weak ordering (a plain `>` is not
/// one once a NaN is present, which std::sort family calls do not allow).
#include <cmath>

namespace tessera::detail {

// a ranks before b; both are magnitudes (non-negative or NaN).
inline bool larger_magnitude(double a, double b) {
  if (std::isnan(a)) return !std::isnan(b);
  return a > b;  // false when b is NaN
}

}  // namespace tessera::detail
