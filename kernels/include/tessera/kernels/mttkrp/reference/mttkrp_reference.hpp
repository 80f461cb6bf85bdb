#pragma once
// Serial double-precision oracle for SpMTTKRP from COO triplets, with dense
// double C (K x J) and D (L x J) row-major: A(i,j) = sum B(k,l,i) C(k,j) D(l,j).
// Returns the structure (every (i, j) reached by a product with both factor
// entries stored) with values, as a HostCoo; c_stored / d_stored mark stored entries.
#include <cstdint>
#include <map>
#include <utility>
#include <vector>

#include "tessera/core/coo.hpp"

namespace tessera::reference {

inline HostCoo<double> mttkrp(const HostCoo<double>& B, const std::vector<double>& C, const std::vector<char>& c_stored,
                              const std::vector<double>& D, const std::vector<char>& d_stored, std::int64_t J) {
  std::map<std::pair<std::int64_t, std::int64_t>, double> A;
  for (std::int64_t n = 0; n < B.nnz(); ++n) {
    const std::int64_t k = B.coord(n, 0), l = B.coord(n, 1), i = B.coord(n, 2);
    for (std::int64_t j = 0; j < J; ++j)
      if (c_stored[k * J + j] && d_stored[l * J + j]) A[{i, j}] += B.values[n] * C[k * J + j] * D[l * J + j];
  }
  HostCoo<double> out;
  out.shape = {B.shape[2], J};
  for (const auto& [ij, v] : A) {
    out.coords.push_back(ij.first);
    out.coords.push_back(ij.second);
    out.values.push_back(v);
  }
  return out;
}

}  // namespace tessera::reference
