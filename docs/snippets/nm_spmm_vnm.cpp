// Vector-wise N:M (VNM) weights: prune a dense weight, encode and decode it, and multiply
// activations by it through a handle. float runs the tiled CUDA-core kernel on CUDA (compute
// capability 9.0 or newer), the portable kernel elsewhere.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <random>
#include <vector>

#include <tessera/tessera.hpp>

namespace {
using Space = Kokkos::DefaultExecutionSpace;
using Matrix = Kokkos::View<float**, Kokkos::LayoutRight, Space>;

// Largest |Y - factor X W| / (factor sum |terms|), W given dense.
template <class WView>
double error_of(const Matrix& Y, const Matrix& X, const WView& W, double factor) {
  const auto Yh = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), Y);
  const auto Xh = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), X);
  const auto Wh = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), W);
  double worst = 0;
  for (std::size_t i = 0; i < Yh.extent(0); ++i)
    for (std::size_t j = 0; j < Yh.extent(1); ++j) {
      double want = 0, size = 0;
      for (std::size_t q = 0; q < Xh.extent(1); ++q) {
        want += static_cast<double>(Xh(i, q)) * static_cast<double>(Wh(q, j));
        size += std::abs(static_cast<double>(Xh(i, q)) * static_cast<double>(Wh(q, j)));
      }
      worst = std::max(worst, std::abs(static_cast<double>(Yh(i, j)) - factor * want) / std::max(factor * size, 1e-30));
    }
  return worst;
}
}  // namespace

int main(int argc, char** argv) {
  Kokkos::ScopeGuard guard(argc, argv);
  const std::int64_t m = 64, k = 256, n = 128;  // Y (m x n) = X (m x k) W (k x n)
  const Matrix W("W", k, n), X("X", m, k), Y("Y", m, n), Y2("Y2", m, n);
  {
    std::mt19937 rng(7);
    std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
    auto Wh = Kokkos::create_mirror_view(W);
    auto Xh = Kokkos::create_mirror_view(X);
    for (std::int64_t r = 0; r < k; ++r)
      for (std::int64_t j = 0; j < n; ++j) Wh(r, j) = uniform(rng);
    for (std::int64_t i = 0; i < m; ++i)
      for (std::int64_t r = 0; r < k; ++r) Xh(i, r) = uniform(rng);
    Kokkos::deep_copy(W, Wh);
    Kokkos::deep_copy(X, Xh);
  }
  int failures = 0;

  // [prune]
  // In every window of 32 rows and every group of 32 columns, keep the 8 row vectors (of 32
  // values) with the largest L2 norms: 8:32, 75% sparse.
  const tessera::VnmPattern pattern{8, 32, 32};  // {N, M, L}
  const tessera::Tensor<float, tessera::VNM, Space> B = tessera::prune_vnm(W, pattern);
  const auto B_dense = tessera::to_dense(B);    // k x n, zeros where pruned
  // [prune]

  bool refused = false;
  // [encode]
  const auto B2 = tessera::from_dense<tessera::VNM>(B_dense, pattern);  // already 8:32: accepted
  try {
    tessera::from_dense<tessera::VNM>(W, pattern);  // W is dense: not 8:32
  } catch (const tessera::FormatError& e) {
    std::printf("%s\n", e.what());  // names the first window and column group that break the pattern
    refused = true;
  }
  // [encode]
  failures += !refused;

  // [multiply]
  tessera::NmSpmmHandle layer;                   // on CUDA: keeps B's stage plan for every call
  tessera::nm_spmm(1.0f, X, B, 0.0f, Y, layer);  // Y = X B
  tessera::nm_spmm(1.0f, X, B2, 0.0f, Y, layer); // B2 holds B's meta: the same handle serves it
  std::printf("Auto runs %s for VNM float weights here\n",
              tessera::to_string(tessera::nm_spmm_default_algorithm<tessera::Tensor<float, tessera::VNM, Space>>()));
  // [multiply]
  failures += error_of(Y, X, B_dense, 1.0) > 1e-5;

  // [options]
  tessera::NmSpmmOptions portable;
  portable.algorithm = tessera::NmSpmmAlgorithm::Native;  // the portable Kokkos kernel, every space
  tessera::nm_spmm(Space(), 2.0f, X, B, 0.0f, Y2, portable);  // alpha != 1: through a temporary of Y's size
  // [options]
  failures += error_of(Y2, X, B_dense, 2.0) > 1e-5;

  std::printf("nm_spmm (VNM): %s\n", failures == 0 ? "all checks passed" : "FAILED");
  return failures == 0 ? 0 : 1;
}
