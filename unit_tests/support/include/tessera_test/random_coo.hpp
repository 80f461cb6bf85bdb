#pragma once
// Random COO inputs for tests, including the edge cases every kernel must survive.
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "tessera/core/coo.hpp"

namespace tessera_test {

// nnz entries with uniform coordinates (duplicates possible) and values in [-1, 1).
inline tessera::HostCoo<double> random_coo(const std::vector<std::int64_t>& shape, std::int64_t nnz,
                                           std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> value(-1.0, 1.0);
  tessera::HostCoo<double> coo;
  coo.shape = shape;
  bool empty = false;
  for (auto e : shape) empty = empty || e == 0;
  if (empty) return coo;
  for (std::int64_t n = 0; n < nnz; ++n) {
    for (auto e : shape) coo.coords.push_back(std::uniform_int_distribution<std::int64_t>(0, e - 1)(rng));
    coo.values.push_back(value(rng));
  }
  return coo;
}

struct MatrixCase {
  std::string name;
  tessera::HostCoo<double> coo;
};

// Matrices covering the shapes kernels get wrong: empty rows, one dense row,
// rectangular both ways, 1x1, no entries at all, duplicates.
inline std::vector<MatrixCase> edge_case_matrices(std::uint64_t seed) {
  std::vector<MatrixCase> cases;
  cases.push_back({"uniform_200x200", random_coo({200, 200}, 2000, seed)});
  cases.push_back({"rectangular_tall_300x40", random_coo({300, 40}, 900, seed + 1)});
  cases.push_back({"rectangular_wide_30x500", random_coo({30, 500}, 900, seed + 2)});
  cases.push_back({"one_by_one", random_coo({1, 1}, 1, seed + 3)});
  cases.push_back({"zero_nnz_50x60", random_coo({50, 60}, 0, seed + 4)});
  cases.push_back({"zero_rows_0x7", random_coo({0, 7}, 0, seed + 5)});
  // Mostly empty rows: 10 entries in 1000 rows.
  cases.push_back({"empty_rows_1000x64", random_coo({1000, 64}, 10, seed + 6)});
  // One dense row among short ones.
  auto dense_row = random_coo({400, 3000}, 400, seed + 7);
  for (std::int64_t j = 0; j < 3000; ++j) {
    dense_row.coords.push_back(17);
    dense_row.coords.push_back(j);
    dense_row.values.push_back(0.001 * static_cast<double>(j % 97) - 0.05);
  }
  cases.push_back({"one_dense_row_400x3000", dense_row});
  // Heavy duplication: 5000 entries on a 20x20 grid.
  cases.push_back({"duplicates_20x20", random_coo({20, 20}, 5000, seed + 8)});
  return cases;
}

inline std::vector<double> random_vector(std::int64_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> value(-1.0, 1.0);
  std::vector<double> v(n);
  for (auto& x : v) x = value(rng);
  return v;
}

}  // namespace tessera_test
