#pragma once
// Serial double-precision oracle for spmm, straight from the COO triplets.
#include <cstdint>
#include <vector>

#include "tessera/core/coo.hpp"

namespace tessera::reference {

// C = alpha * A * B + beta * C with B (K x N) and C (M x N) row-major.
inline void spmm(double alpha, const HostCoo<double>& A, const std::vector<double>& B, std::int64_t n, double beta,
                 std::vector<double>& C) {
  std::vector<double> ab(C.size(), 0.0);
  for (std::int64_t e = 0; e < A.nnz(); ++e) {
    const std::int64_t i = A.coord(e, 0), k = A.coord(e, 1);
    for (std::int64_t j = 0; j < n; ++j) ab[i * n + j] += A.values[e] * B[k * n + j];
  }
  for (std::size_t p = 0; p < C.size(); ++p) C[p] = alpha * ab[p] + (beta == 0.0 ? 0.0 : beta * C[p]);
}

}  // namespace tessera::reference
