// Handles: the tensor a handle serves, what it accepts and refuses, and reset() after the bound
// tensor's pattern is rewritten in place.
#include <cstdint>
#include <cstdio>
#include <vector>

#include <tessera/tessera.hpp>

namespace {
using Space = Kokkos::DefaultExecutionSpace;
using Matrix = Kokkos::View<double**, Kokkos::LayoutRight, Space>;

// An n x n matrix with two entries per row: (i, i) = 1 and (i, (i + shift) % n) = i % 5.
tessera::HostCoo<double> two_per_row(std::int64_t n, std::int64_t shift) {
  tessera::HostCoo<double> coo;
  coo.shape = {n, n};
  for (std::int64_t i = 0; i < n; ++i) {
    coo.coords.insert(coo.coords.end(), {i, i, i, (i + shift) % n});
    coo.values.insert(coo.values.end(), {1.0, static_cast<double>(i % 5)});
  }
  return coo;
}

// B (rows x cols) with B(r, j) = r + 1.
Matrix make_b(std::int64_t rows, std::int64_t cols) {
  Matrix B("B", rows, cols);
  auto Bh = Kokkos::create_mirror_view(B);
  for (std::int64_t r = 0; r < rows; ++r)
    for (std::int64_t j = 0; j < cols; ++j) Bh(r, j) = static_cast<double>(r + 1);
  Kokkos::deep_copy(B, Bh);
  return B;
}

// Whether C = A B for the matrix `coo` and B from make_b (small integers: exact).
bool holds_product(const Matrix& C, const tessera::HostCoo<double>& coo) {
  std::vector<double> want(C.extent(0), 0.0);
  for (std::int64_t e = 0; e < coo.nnz(); ++e) want[coo.coord(e, 0)] += coo.values[e] * static_cast<double>(coo.coord(e, 1) + 1);
  const auto Ch = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), C);
  for (std::size_t i = 0; i < Ch.extent(0); ++i)
    for (std::size_t j = 0; j < Ch.extent(1); ++j)
      if (Ch(i, j) != want[i]) return false;
  return true;
}
}  // namespace

int main(int argc, char** argv) {
  Kokkos::ScopeGuard guard(argc, argv);
  const auto first = two_per_row(1000, 1), second = two_per_row(1000, 2), small = two_per_row(500, 1);
  const auto A = tessera::from_coo<double, tessera::CSR, Space>(first);
  const auto S = tessera::from_coo<double, tessera::CSR, Space>(small);
  const Matrix B = make_b(1000, 8), C("C", 1000, 8), B_small = make_b(500, 8), C_small("C_small", 500, 8);
  int failures = 0;

  // [bind]
  tessera::SpmmHandle handle;                 // default SpmmOptions; handle.options() changes them
  tessera::spmm(1.0, A, B, 0.0, C, handle);   // the first call binds the handle to A
  const auto A_copy = tessera::convert<tessera::CSR>(A);  // A's pattern in other arrays
  tessera::spmm(1.0, A_copy, B, 0.0, C, handle);          // accepted: the pattern's fingerprint matches
  // [bind]
  failures += !handle.bound() || !holds_product(C, first);

  bool refused = false;
  // [refuse]
  try {
    tessera::spmm(1.0, S, B_small, 0.0, C_small, handle);  // another matrix
  } catch (const tessera::ShapeError& e) {
    std::printf("%s\n", e.what());  // tessera::spmm: the handle was built for a 1000 x 1000 tensor ...
    refused = true;
  }
  handle.reset();                                          // forget A: the next call binds S
  tessera::spmm(1.0, S, B_small, 0.0, C_small, handle);
  // [refuse]
  failures += !refused || !holds_product(C_small, small);

  // [in_place]
  tessera::SpmmHandle for_a;
  tessera::spmm(1.0, A, B, 0.0, C, for_a);
  // Rewrite A's pattern in place (same row lengths, other columns): the handle cannot see that
  // without reading the arrays, so reset it; the next call binds to the new pattern.
  const auto shifted = tessera::from_coo<double, tessera::CSR, Space>(second);
  Kokkos::deep_copy(A.decompose().levels[1].crd, shifted.decompose().levels[1].crd);
  Kokkos::deep_copy(A.decompose().vals, shifted.decompose().vals);
  for_a.reset();
  tessera::spmm(1.0, A, B, 0.0, C, for_a);
  // [in_place]
  failures += !holds_product(C, second);

  std::printf("handles: %s\n", failures == 0 ? "all checks passed" : "FAILED");
  return failures == 0 ? 0 : 1;
}
