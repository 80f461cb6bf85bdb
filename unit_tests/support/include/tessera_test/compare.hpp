#pragma once
// Error norms against double-precision references.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <sstream>
#include <vector>

#include <gtest/gtest.h>

#include "tessera/core/coo.hpp"

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

// Entry by entry: |got[i] - ref[i]| <= tol * scale[i] + absolute_floor, with scale[i] the sum
// of the absolute values of the terms behind ref[i] (the same product on absolute values) and
// absolute_floor the output type's rounding step near zero (its subnormal spacing: 2^-24 for
// fp16). A norm-wise bound lets a few large entries hide wrong small ones (whole rows of a
// badly scaled matrix); this holds every entry to its own terms. NaN fails.
template <class Got>
testing::AssertionResult entrywise_close(const Got& got, const std::vector<double>& ref,
                                         const std::vector<double>& scale, double tol, double absolute_floor = 0) {
  std::int64_t off = 0;
  std::ostringstream first;
  for (std::size_t i = 0; i < ref.size(); ++i) {
    const double g = static_cast<double>(got[i]);
    const double bound = tol * scale[i] + absolute_floor;
    if (std::abs(g - ref[i]) <= bound) continue;  // false for NaN
    if (off++ < 3) first << " [" << i << "] got " << g << ", want " << ref[i] << " (bound " << bound << ");";
  }
  if (off == 0) return testing::AssertionSuccess();
  return testing::AssertionFailure() << off << " of " << ref.size() << " entries outside " << tol
                                     << " x (sum of |terms|) + " << absolute_floor << ":" << first.str();
}

// The same entries with their absolute values: the operands of a product's scale (the
// product on them gives each entry's sum of |terms|).
inline tessera::HostCoo<double> absolute_values(tessera::HostCoo<double> coo) {
  for (auto& v : coo.values) v = std::abs(v);
  return coo;
}
inline std::vector<double> absolute_values(std::vector<double> v) {
  for (auto& x : v) x = std::abs(x);
  return v;
}

// The entries of `x` in its leading slices along `mode`, as many as keep the entries of
// `product` in them at most `max_entries` (at least one slice), where the product's mode 0 is
// x's `mode` (the rows of A in A B, mode 1 of B in ttm): an operand cut so that its product
// stays small.
inline tessera::HostCoo<double> leading_slices_within(const tessera::HostCoo<double>& x, int mode,
                                                      const tessera::HostCoo<double>& product,
                                                      std::int64_t max_entries) {
  std::vector<std::int64_t> per_slice(static_cast<std::size_t>(x.shape[mode]), 0);
  for (std::int64_t n = 0; n < product.nnz(); ++n) ++per_slice[product.coord(n, 0)];
  std::int64_t slices = 0, entries = 0;
  while (slices < x.shape[mode] && (slices == 0 || entries + per_slice[slices] <= max_entries))
    entries += per_slice[slices++];
  tessera::HostCoo<double> head;
  head.shape = x.shape;
  head.shape[mode] = slices;
  for (std::int64_t n = 0; n < x.nnz(); ++n)
    if (x.coord(n, mode) < slices) {
      head.coords.insert(head.coords.end(), x.coords.begin() + n * x.order(), x.coords.begin() + (n + 1) * x.order());
      head.values.push_back(x.values[n]);
    }
  return head;
}

// Most entries in one row of a matrix (the terms of one entry of A x).
inline std::int64_t longest_row(const tessera::HostCoo<double>& coo) {
  std::vector<std::int64_t> count(static_cast<std::size_t>(coo.shape[0]), 0);
  std::int64_t longest = 0;
  for (std::int64_t n = 0; n < coo.nnz(); ++n) longest = std::max(longest, ++count[coo.coord(n, 0)]);
  return longest;
}

}  // namespace tessera_test
