#pragma once
// Error norms against double-precision references.
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

namespace tessera_test {

// ||got - ref||_2 / max(||ref||_2, tiny); NaN anywhere gives +inf.
template <class Got>
double relative_error(const Got& got, const std::vector<double>& ref) {
  double diff = 0, norm = 0;
  for (std::size_t i = 0; i < ref.size(); ++i) {
    const double g = static_cast<double>(got[i]);
    if (std::isnan(g)) return std::numeric_limits<double>::infinity();
    diff += (g - ref[i]) * (g - ref[i]);
    norm += ref[i] * ref[i];
  }
  return std::sqrt(diff) / std::max(std::sqrt(norm), 1e-300);
}

// Tolerance for a sum of `terms` products in precision T, relative to the result norm.
template <class T>
double tolerance(std::int64_t terms) {
  const double eps = std::numeric_limits<T>::epsilon();
  return 8.0 * eps * std::sqrt(static_cast<double>(std::max<std::int64_t>(terms, 1))) + 4.0 * eps;
}

}  // namespace tessera_test
