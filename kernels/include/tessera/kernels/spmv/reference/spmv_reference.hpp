#pragma once
// Serial double-precision oracle for spmv, straight from the COO triplets:
// independent of the encodings and of the kernel under test.
#include <cstdint>
#include <vector>

#include "tessera/core/coo.hpp"

namespace tessera::reference {

// y = alpha * A * x + beta * y; duplicates in A count as a sum.
inline void spmv(double alpha, const HostCoo<double>& A, const std::vector<double>& x, double beta,
                 std::vector<double>& y) {
  std::vector<double> ax(y.size(), 0.0);
  for (std::int64_t n = 0; n < A.nnz(); ++n) ax[A.coord(n, 0)] += A.values[n] * x[A.coord(n, 1)];
  for (std::size_t i = 0; i < y.size(); ++i) y[i] = alpha * ax[i] + (beta == 0.0 ? 0.0 : beta * y[i]);
}

}  // namespace tessera::reference
