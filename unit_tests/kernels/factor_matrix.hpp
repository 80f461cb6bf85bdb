#pragma once
// Factor matrices for the tensor-kernel tests: the COO the kernel gets, plus the
// dense double image and stored-entry mask the reference oracles take.
#include <cstdint>
#include <vector>

#include "tessera/core/coo.hpp"
#include "tessera_test/random_coo.hpp"

namespace tessera_test {

struct Factor {
  tessera::HostCoo<double> coo;
  std::vector<double> dense;  // (rows, cols) row-major, duplicates summed
  std::vector<char> stored;   // (rows, cols) 1 where coo stores an entry
};

inline Factor factor_of(tessera::HostCoo<double> coo) {
  Factor f;
  const std::int64_t J = coo.shape[1];
  f.dense.assign(coo.shape[0] * J, 0.0);
  f.stored.assign(coo.shape[0] * J, 0);
  for (std::int64_t n = 0; n < coo.nnz(); ++n) {
    f.dense[coo.coord(n, 0) * J + coo.coord(n, 1)] += coo.values[n];
    f.stored[coo.coord(n, 0) * J + coo.coord(n, 1)] = 1;
  }
  f.coo = std::move(coo);
  return f;
}

// nnz random entries, or every entry when nnz < 0.
inline Factor make_factor(std::int64_t rows, std::int64_t J, std::int64_t nnz, std::uint64_t seed) {
  if (nnz >= 0) return factor_of(random_coo({rows, J}, nnz, seed));
  tessera::HostCoo<double> coo;
  coo.shape = {rows, J};
  const auto v = random_vector(rows * J, seed);
  for (std::int64_t r = 0; r < rows; ++r)
    for (std::int64_t j = 0; j < J; ++j) {
      coo.coords.insert(coo.coords.end(), {r, j});
      coo.values.push_back(v[r * J + j]);
    }
  return factor_of(coo);
}

}  // namespace tessera_test
