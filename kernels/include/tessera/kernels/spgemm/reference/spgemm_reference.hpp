#pragma once
// Serial double-precision oracle for spgemm, straight from COO triplets: a dense
// accumulator row per output row. Returns the product's structure (every (i, j)
// reached by some a_ik * b_kj, even when the sum cancels) with its values, sorted
// row-major, as a HostCoo.
#include <algorithm>
#include <cstdint>
#include <vector>

#include "tessera/core/coo.hpp"

namespace tessera::reference {

inline HostCoo<double> spgemm(const HostCoo<double>& A, const HostCoo<double>& B) {
  const std::int64_t rows = A.shape[0], inner = A.shape[1], cols = B.shape[1];
  std::vector<std::vector<std::int64_t>> a_row(rows), b_row(inner);  // entry ids per row
  for (std::int64_t n = 0; n < A.nnz(); ++n) a_row[A.coord(n, 0)].push_back(n);
  for (std::int64_t n = 0; n < B.nnz(); ++n) b_row[B.coord(n, 0)].push_back(n);
  HostCoo<double> C;
  C.shape = {rows, cols};
  std::vector<double> acc(cols, 0.0);
  std::vector<char> reached(cols, 0);
  std::vector<std::int64_t> touched;
  for (std::int64_t i = 0; i < rows; ++i) {
    for (std::int64_t na : a_row[i])
      for (std::int64_t nb : b_row[A.coord(na, 1)]) {
        const std::int64_t j = B.coord(nb, 1);
        acc[j] += A.values[na] * B.values[nb];
        if (!reached[j]) touched.push_back(j);
        reached[j] = 1;
      }
    std::sort(touched.begin(), touched.end());
    for (std::int64_t j : touched) {
      C.coords.push_back(i);
      C.coords.push_back(j);
      C.values.push_back(acc[j]);
      acc[j] = 0.0;
      reached[j] = 0;
    }
    touched.clear();
  }
  return C;
}

}  // namespace tessera::reference

namespace tessera::reference {

// The second operand of the "B times B transposed, columns shifted by one" method
// used to test and benchmark SpGEMM on real matrices: (B with column j moved to
// (j + 1) mod n) transposed, so the product is B * S(B)^T (not symmetric, no
// structurally aligned diagonal).
inline HostCoo<double> shifted_transpose(const HostCoo<double>& B) {
  HostCoo<double> T;
  T.shape = {B.shape[1], B.shape[0]};
  T.values = B.values;
  T.coords.reserve(B.coords.size());
  for (std::int64_t n = 0; n < B.nnz(); ++n) {
    T.coords.push_back(B.shape[1] == 0 ? 0 : (B.coord(n, 1) + 1) % B.shape[1]);
    T.coords.push_back(B.coord(n, 0));
  }
  return T;
}

}  // namespace tessera::reference
