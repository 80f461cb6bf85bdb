#pragma once
// Operands of the sparse-addition benchmarks: C = A + B on a real matrix, B = A^T for square
// matrices (the symmetrization of a graph or a mesh), for rectangular ones A with its columns
// reversed (another pattern of the same shape).
#include <cstdint>
#include <string>
#include <utility>

#include "tessera/core/coo.hpp"
#include "tessera/core/io/matrix_market.hpp"

namespace tessera_bench {

struct AddCase {
  std::string name;
  tessera::HostCoo<double> a, b;
};

inline AddCase add_case(const std::string& path) {
  AddCase c;
  const auto slash = path.find_last_of('/');
  c.name = path.substr(slash + 1, path.size() - slash - 1 - 7);  // drop ".mtx.gz"
  c.a = tessera::io::read_matrix_market(path);
  c.b = c.a;
  const bool square = c.a.shape[0] == c.a.shape[1];
  for (std::int64_t n = 0; n < c.b.nnz(); ++n) {
    if (square) std::swap(c.b.coords[2 * n], c.b.coords[2 * n + 1]);
    else c.b.coords[2 * n + 1] = c.a.shape[1] - 1 - c.b.coords[2 * n + 1];
  }
  return c;
}

}  // namespace tessera_bench
