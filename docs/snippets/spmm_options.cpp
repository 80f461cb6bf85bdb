// SpMM on any space: operand layouts, the BLAS rules for alpha and beta, options, and the
// algorithm Auto runs.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <string>
#include <vector>

#include <tessera/tessera.hpp>

namespace {
// Largest |C - factor * want| relative to factor * size, entry by entry.
template <class View>
double error_of(const View& C, const std::vector<double>& want, const std::vector<double>& size, double factor) {
  const auto Ch = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), C);
  double worst = 0;
  for (std::size_t i = 0; i < Ch.extent(0); ++i)
    for (std::size_t j = 0; j < Ch.extent(1); ++j) {
      const std::size_t q = i * Ch.extent(1) + j;
      const double err = std::abs(Ch(i, j) - factor * want[q]) / std::max(factor * size[q], 1e-300);
      worst = std::isfinite(err) ? std::max(worst, err) : std::numeric_limits<double>::infinity();
    }
  return worst;
}
}  // namespace

int main(int argc, char** argv) {
  Kokkos::ScopeGuard guard(argc, argv);
  using Space = Kokkos::DefaultExecutionSpace;
  const std::string data = argc > 1 ? argv[1] : "../shared/data";
  const auto coo = tessera::io::read_matrix_market(data + "/matrices/fv2.mtx.gz");
  const auto A = tessera::from_coo<double, tessera::CSR, Space>(coo);
  const std::int64_t m = A.extent(0), k = A.extent(1), n = 32;

  // [layouts]
  // B (k x n) and C (m x n) are Views of any layout that A's space can read. Row-major
  // (LayoutRight) is the fast layout on every space; Kokkos' default on CUDA is LayoutLeft.
  Kokkos::View<double**, Kokkos::LayoutRight, Space> B("B", k, n), C("C", m, n);
  Kokkos::View<double**, Kokkos::LayoutLeft, Space> B_left("B_left", k, n), C_left("C_left", m, n);
  // [layouts]
  auto Bh = Kokkos::create_mirror_view(B);
  for (std::int64_t r = 0; r < k; ++r)
    for (std::int64_t j = 0; j < n; ++j) Bh(r, j) = std::sin(0.01 * static_cast<double>(r + 7 * j));
  Kokkos::deep_copy(B, Bh);
  Kokkos::deep_copy(B_left, B);  // the same values in the other layout
  std::vector<double> want(m * n, 0.0), size(m * n, 0.0);
  for (std::int64_t e = 0; e < coo.nnz(); ++e)
    for (std::int64_t j = 0; j < n; ++j) {
      want[coo.coord(e, 0) * n + j] += coo.values[e] * Bh(coo.coord(e, 1), j);
      size[coo.coord(e, 0) * n + j] += std::abs(coo.values[e] * Bh(coo.coord(e, 1), j));
    }
  int failures = 0;

  // [blas_rules]
  Kokkos::deep_copy(C, std::numeric_limits<double>::quiet_NaN());
  tessera::spmm(1.0, A, B, 0.0, C);  // beta == 0: C is written, never read (the NaNs go)
  tessera::spmm(0.0, A, B, 2.0, C);  // alpha == 0: C = 2 C, and neither A nor B is read
  // [blas_rules]
  failures += error_of(C, want, size, 2.0) > 1e-12;

  // [options]
  tessera::SpmmOptions opts;
  opts.algorithm = tessera::SpmmAlgorithm::Native;         // the portable Kokkos kernel, on every space
  opts.host_loop = tessera::SpmmHostLoop::Portable;        // host spaces: not the AVX-512 row loop
  opts.output_stores = tessera::SpmmOutputStores::Cached;  // AVX-512 loop: no streaming stores into C
  tessera::spmm(Space(), 1.0, A, B_left, 0.0, C_left, opts);
  // [options]
  failures += error_of(C_left, want, size, 1.0) > 1e-12;

  // [choose]
  const tessera::SpmmAlgorithm algorithm = tessera::spmm_choose_algorithm(A, B, C);  // runs nothing
  std::printf("Auto runs %s for these operands\n", tessera::to_string(algorithm));
  // [choose]

  std::printf("spmm options: %s\n", failures == 0 ? "all checks passed" : "FAILED");
  return failures == 0 ? 0 : 1;
}
