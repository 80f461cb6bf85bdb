#pragma once
// Large generated CSR matrices for the GPU benchmarks, built row by row in parallel straight
// into CSR (no sort of triplets): 3-D Poisson, uniform random, power-law rows, banded. Values
// are random multiples of 1/64 in [-1, 1] (exact in every precision); every row draws from its
// own generator, so a matrix does not depend on the thread count.
#include <omp.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "../spmm_tca/tca_harness.hpp"

namespace large_matrices {

using tca_harness::Csr;

// Fills A from row lengths and a per-row writer: write(i, rng, cols_out, vals_out) fills the
// row's len(i) sorted, distinct column ids and values.
template <class LengthOf, class WriteRow>
Csr build_rows(std::string name, std::int64_t rows, std::int64_t cols, LengthOf length_of, WriteRow write_row) {
  Csr A;
  A.name = std::move(name);
  A.rows = rows;
  A.cols = cols;
  std::vector<std::int64_t> pos(rows + 1, 0);
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < rows; ++i) pos[i + 1] = length_of(i);
  for (std::int64_t i = 0; i < rows; ++i) pos[i + 1] += pos[i];
  if (pos[rows] > 2147483647) throw std::runtime_error(A.name + ": more than 2^31 - 1 nonzeros");
  A.pos.assign(pos.begin(), pos.end());
  A.crd.resize(pos[rows]);
  A.val.resize(pos[rows]);
#pragma omp parallel for schedule(dynamic, 4096)
  for (std::int64_t i = 0; i < rows; ++i) {
    std::mt19937_64 rng(0x9e3779b97f4a7c15ull * static_cast<std::uint64_t>(i + 1));
    write_row(i, rng, A.crd.data() + pos[i], A.val.data() + pos[i]);
  }
  return A;
}

// n distinct sorted column ids drawn uniformly from [0, cols) (n <= cols).
inline void distinct_sorted(std::mt19937_64& rng, std::int64_t n, std::int64_t cols, int* out) {
  std::uniform_int_distribution<std::int64_t> col(0, cols - 1);
  std::int64_t have = 0;
  while (have < n) {
    for (std::int64_t k = have; k < n; ++k) out[k] = static_cast<int>(col(rng));
    std::sort(out, out + n);
    have = std::unique(out, out + n) - out;
  }
}

// 7-point Laplacian on an n^3 grid: 6 on the diagonal, -1 to each neighbour.
inline Csr poisson_3d(std::int64_t n) {
  const auto at = [n](std::int64_t i) {
    return std::array<std::int64_t, 3>{i % n, i / n % n, i / (n * n)};
  };
  const auto len = [&](std::int64_t i) {
    const auto c = at(i);
    std::int64_t l = 1;
    for (const std::int64_t v : c) l += (v > 0) + (v + 1 < n);
    return l;
  };
  return build_rows("poisson3d_" + std::to_string(n), n * n * n, n * n * n, len,
                    [&](std::int64_t i, std::mt19937_64&, int* c, double* v) {
                      const auto x = at(i);
                      const std::int64_t steps[3] = {1, n, n * n};
                      int k = 0;
                      for (int d = 2; d >= 0; --d)
                        if (x[d] > 0) c[k] = static_cast<int>(i - steps[d]), v[k++] = -1.0;
                      c[k] = static_cast<int>(i), v[k++] = 6.0;
                      for (int d = 0; d < 3; ++d)
                        if (x[d] + 1 < n) c[k] = static_cast<int>(i + steps[d]), v[k++] = -1.0;
                    });
}

// `per_row` uniformly random columns in every row.
inline Csr uniform_random(std::int64_t rows, std::int64_t cols, std::int64_t per_row) {
  return build_rows("uniform_" + std::to_string(rows) + "_d" + std::to_string(per_row), rows, cols,
                    [&](std::int64_t) { return std::min(per_row, cols); },
                    [&](std::int64_t, std::mt19937_64& rng, int* c, double* v) {
                      const std::int64_t n = std::min(per_row, cols);
                      distinct_sorted(rng, n, cols, c);
                      for (std::int64_t k = 0; k < n; ++k) v[k] = tca_harness::rand_val(rng);
                    });
}

// Row lengths from a Pareto law (exponent alpha, at least 1, at most max_len), columns uniform:
// the degree distribution of a scale-free graph.
inline Csr power_law(std::int64_t rows, double alpha, std::int64_t max_len) {
  const auto len = [&](std::int64_t i) {
    std::mt19937_64 rng(0x51ed2701ull + static_cast<std::uint64_t>(i));
    const double u = std::uniform_real_distribution<double>(0.0, 1.0)(rng);
    return std::min<std::int64_t>(max_len, static_cast<std::int64_t>(std::pow(1.0 - u, -1.0 / alpha)));
  };
  return build_rows("powerlaw_" + std::to_string(rows), rows, rows, len,
                    [&](std::int64_t i, std::mt19937_64& rng, int* c, double* v) {
                      const std::int64_t n = len(i);
                      distinct_sorted(rng, n, rows, c);
                      for (std::int64_t k = 0; k < n; ++k) v[k] = tca_harness::rand_val(rng);
                    });
}

// `width` consecutive columns centred on the diagonal (clipped at the edges).
inline Csr banded(std::int64_t rows, std::int64_t width) {
  const auto first = [&](std::int64_t i) { return std::clamp<std::int64_t>(i - width / 2, 0, rows - width); };
  return build_rows("banded_" + std::to_string(rows) + "_w" + std::to_string(width), rows, rows,
                    [&](std::int64_t) { return width; },
                    [&](std::int64_t i, std::mt19937_64& rng, int* c, double* v) {
                      for (std::int64_t k = 0; k < width; ++k) {
                        c[k] = static_cast<int>(first(i) + k);
                        v[k] = tca_harness::rand_val(rng);
                      }
                    });
}

}  // namespace large_matrices
