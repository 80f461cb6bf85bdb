#pragma once
// Serial double-precision oracles for SpTTM and SpTTM-I from COO triplets, with a
// dense double factor C (rows x L, row-major) and its stored-entry mask:
//   ttm    A(i,j,l) = sum_k B(k,i,j) C(k,l)
//   ttm_i  A(k,j,l) = sum_i B(k,i,j) C(i,l)
// The structure is every coordinate reached by a product with a stored C entry.
#include <array>
#include <cstdint>
#include <map>
#include <vector>

#include "tessera/core/coo.hpp"

namespace tessera::reference {

namespace detail {
// Sums B(n) * C(row(n), l) into A(out(n), l); row/out pick B's modes per entry.
template <class RowOf, class OutOf>
HostCoo<double> ttm_by(const HostCoo<double>& B, const std::vector<double>& C, const std::vector<char>& c_stored,
                       std::int64_t L, std::vector<std::int64_t> out_shape, RowOf row_of, OutOf out_of) {
  std::map<std::array<std::int64_t, 3>, double> A;
  for (std::int64_t n = 0; n < B.nnz(); ++n) {
    const std::int64_t row = row_of(n);
    const auto [a, b] = out_of(n);
    for (std::int64_t l = 0; l < L; ++l)
      if (c_stored[row * L + l]) A[{a, b, l}] += B.values[n] * C[row * L + l];
  }
  HostCoo<double> out;
  out.shape = std::move(out_shape);
  for (const auto& [c, v] : A) {
    out.coords.insert(out.coords.end(), c.begin(), c.end());
    out.values.push_back(v);
  }
  return out;
}
}  // namespace detail

inline HostCoo<double> ttm(const HostCoo<double>& B, const std::vector<double>& C, const std::vector<char>& c_stored,
                           std::int64_t L) {
  return detail::ttm_by(
      B, C, c_stored, L, {B.shape[1], B.shape[2], L}, [&](std::int64_t n) { return B.coord(n, 0); },
      [&](std::int64_t n) { return std::array<std::int64_t, 2>{B.coord(n, 1), B.coord(n, 2)}; });
}

inline HostCoo<double> ttm_i(const HostCoo<double>& B, const std::vector<double>& C, const std::vector<char>& c_stored,
                             std::int64_t L) {
  return detail::ttm_by(
      B, C, c_stored, L, {B.shape[0], B.shape[2], L}, [&](std::int64_t n) { return B.coord(n, 1); },
      [&](std::int64_t n) { return std::array<std::int64_t, 2>{B.coord(n, 0), B.coord(n, 2)}; });
}

}  // namespace tessera::reference
