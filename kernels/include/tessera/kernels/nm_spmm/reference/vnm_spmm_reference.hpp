#pragma once
// Serial double-precision oracle for VNM SpMM, straight from the stored arrays:
// every stored vector (row r, column group g) adds A(:, (r / N) * M + meta[r][g]) times its
// L values into C's columns of that group.
#include <cstdint>
#include <vector>

#include "tessera/formats/vnm/pattern.hpp"

namespace tessera::reference {

// C (m x n, row-major) = A (m x k, row-major) * B; vals (w x n_pad) and meta (w x groups) row-major.
inline std::vector<double> vnm_spmm(const std::vector<double>& A, std::int64_t m, const std::vector<double>& vals,
                                    const std::vector<std::uint8_t>& meta, const VnmExtents& e,
                                    const VnmPattern& p) {
  std::vector<double> C(m * e.cols, 0.0);
  for (std::int64_t r = 0; r < e.stored_rows; ++r)
    for (std::int64_t g = 0; g < e.groups; ++g) {
      const std::int64_t row_of_b = (r / p.n) * p.m + meta[r * e.groups + g];
      if (row_of_b >= e.rows) continue;  // padding rows of B are zero
      for (std::int64_t i = 0; i < m; ++i) {
        const double a = A[i * e.rows + row_of_b];
        for (std::int64_t j = g * p.l; j < (g + 1) * p.l && j < e.cols; ++j) C[i * e.cols + j] += a * vals[r * e.padded_cols + j];
      }
    }
  return C;
}

}  // namespace tessera::reference
