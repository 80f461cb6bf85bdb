#pragma once
// Operands of the SpGEMM benchmarks: the real matrices as C = B * S(B)^T
// (tessera::reference::shifted_transpose), with their multiply-add count.
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

#include "tessera/core/coo.hpp"
#include "tessera/core/io/matrix_market.hpp"
#include "tessera/kernels/spgemm/reference/spgemm_reference.hpp"

namespace tessera_bench {

struct SpgemmCase {
  std::string name;
  tessera::HostCoo<double> left, right;  // C = left * right
  std::int64_t multiply_adds = 0;
};

// Multiply-adds of left * right: sum over k of (entries in column k of left) x (entries in row k of right).
inline std::int64_t multiply_adds(const tessera::HostCoo<double>& left, const tessera::HostCoo<double>& right) {
  std::vector<std::int64_t> col(left.shape[1], 0), row(right.shape[0], 0);
  for (std::int64_t n = 0; n < left.nnz(); ++n) ++col[left.coord(n, 1)];
  for (std::int64_t n = 0; n < right.nnz(); ++n) ++row[right.coord(n, 0)];
  std::int64_t total = 0;
  for (std::size_t k = 0; k < col.size(); ++k) total += col[k] * row[k];
  return total;
}

// $TESSERA_DATA_DIR/matrices/*.mtx.gz, sorted by name.
inline std::vector<std::string> real_matrix_paths() {
  const char* env = std::getenv("TESSERA_DATA_DIR");
  const std::filesystem::path dir = std::filesystem::path(env && *env ? env : "../shared/data") / "matrices";
  if (!std::filesystem::is_directory(dir))
    throw std::runtime_error("no folder " + dir.string() + ": point TESSERA_DATA_DIR at the data folder");
  std::vector<std::string> paths;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    const std::string p = entry.path().string();
    if (p.size() > 7 && p.compare(p.size() - 7, 7, ".mtx.gz") == 0) paths.push_back(p);
  }
  std::sort(paths.begin(), paths.end());
  return paths;
}

inline SpgemmCase real_case(const std::string& path) {
  SpgemmCase c;
  const auto slash = path.find_last_of('/');
  c.name = path.substr(slash + 1, path.size() - slash - 1 - 7);  // drop ".mtx.gz"
  c.left = tessera::io::read_matrix_market(path);
  c.right = tessera::reference::shifted_transpose(c.left);
  c.multiply_adds = multiply_adds(c.left, c.right);
  return c;
}

}  // namespace tessera_bench
