#pragma once
// Serial double-precision oracles for SpTTM and SpTTM-I from COO triplets, with a
// dense double factor C (rows x L, row-major) and its stored-entry mask:
//   ttm       A(i,j,l) = sum_k B(k,i,j) C(k,l)
//   ttm_i     A(k,j,l) = sum_i B(k,i,j) C(i,l)
//   ttm_mode  mode m contracted, the other two modes kept in their order, then l
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

inline HostCoo<double> ttm_mode(const HostCoo<double>& B, int mode, const std::vector<double>& C,
                                const std::vector<char>& c_stored, std::int64_t L) {
  const int a = mode == 0 ? 1 : 0, b = mode == 2 ? 1 : 2;  // the kept modes, in order
  return detail::ttm_by(
      B, C, c_stored, L, {B.shape[a], B.shape[b], L}, [&](std::int64_t n) { return B.coord(n, mode); },
      [&](std::int64_t n) { return std::array<std::int64_t, 2>{B.coord(n, a), B.coord(n, b)}; });
}

inline HostCoo<double> ttm(const HostCoo<double>& B, const std::vector<double>& C, const std::vector<char>& c_stored,
                           std::int64_t L) {
  return ttm_mode(B, 0, C, c_stored, L);
}

inline HostCoo<double> ttm_i(const HostCoo<double>& B, const std::vector<double>& C, const std::vector<char>& c_stored,
                             std::int64_t L) {
  return ttm_mode(B, 1, C, c_stored, L);
}

}  // namespace tessera::reference
