#pragma once
// Serial double-precision oracle for the NV24 product, from the dense pruned weight:
// independent of the NV24 layout (tests build the weight's dense form with their own
// pruning rule and compare).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

namespace tessera::reference {

// C (m x n) = A (m x k) * B (k x n), all row-major.
inline std::vector<double> dense_product(const std::vector<double>& A, const std::vector<double>& B, std::int64_t m,
                                         std::int64_t k, std::int64_t n) {
  std::vector<double> C(static_cast<std::size_t>(m * n), 0.0);
  for (std::int64_t i = 0; i < m; ++i)
    for (std::int64_t kk = 0; kk < k; ++kk) {
      const double a = A[i * k + kk];
      for (std::int64_t j = 0; j < n; ++j) C[i * n + j] += a * B[kk * n + j];
    }
  return C;
}

// 2:4 pruning of B (k x n, row-major) along k by magnitude, the rule of prune_nv24 written
// directly: in each group of 4 rows of a column, zero all but the 2 largest |b| (earlier
// index wins ties).
inline std::vector<double> prune_2_4(std::vector<double> B, std::int64_t k, std::int64_t n) {
  for (std::int64_t j = 0; j < n; ++j)
    for (std::int64_t g = 0; g < k; g += 4) {
      const std::int64_t len = std::min<std::int64_t>(4, k - g);
      // rank each entry by how many others beat it; keep rank < 2
      bool keep[4] = {false, false, false, false};
      for (std::int64_t p = 0; p < len; ++p) {
        int beaten = 0;
        for (std::int64_t q = 0; q < len; ++q) {
          const double bp = std::abs(B[(g + p) * n + j]), bq = std::abs(B[(g + q) * n + j]);
          if (q != p && (bq > bp || (bq == bp && q < p))) ++beaten;
        }
        keep[p] = beaten < 2;
      }
      for (std::int64_t p = 0; p < len; ++p)
        if (!keep[p]) B[(g + p) * n + j] = 0.0;
    }
  return B;
}

}  // namespace tessera::reference
