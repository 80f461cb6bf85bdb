// 2:4 weights (NV24): prune a dense fp16 weight, decode and re-encode it, and multiply activations
// by it through a handle. fp16 and bf16 run the sparse-tensor-core kernel on CUDA, the portable
// kernel elsewhere.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <random>

#include <tessera/tessera.hpp>

namespace {
using Space = Kokkos::DefaultExecutionSpace;
using H = Kokkos::Experimental::half_t;  // or tessera::bf16_t; float and double run the portable kernel
using Matrix = Kokkos::View<H**, Kokkos::LayoutRight, Space>;

// Largest |Y - X W| / sum |terms|, W given dense.
template <class WView>
double error_of(const Matrix& Y, const Matrix& X, const WView& W) {
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
      worst = std::max(worst, std::abs(static_cast<double>(Yh(i, j)) - want) / std::max(size, 1e-30));
    }
  return worst;
}
}  // namespace

int main(int argc, char** argv) {
  Kokkos::ScopeGuard guard(argc, argv);
  const std::int64_t m = 64, k = 256, n = 128;  // Y (m x n) = X (m x k) W (k x n)
  const Matrix W("W", k, n), X("X", m, k), Y("Y", m, n);
  {
    std::mt19937 rng(11);
    std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
    auto Wh = Kokkos::create_mirror_view(W);
    auto Xh = Kokkos::create_mirror_view(X);
    for (std::int64_t r = 0; r < k; ++r)
      for (std::int64_t j = 0; j < n; ++j) Wh(r, j) = static_cast<H>(uniform(rng));
    for (std::int64_t i = 0; i < m; ++i)
      for (std::int64_t r = 0; r < k; ++r) Xh(i, r) = static_cast<H>(uniform(rng));
    Kokkos::deep_copy(W, Wh);
    Kokkos::deep_copy(X, Xh);
  }
  int failures = 0;

  // [prune]
  const auto B = tessera::prune_nv24(W);        // keeps the 2 largest |w| of every 4 along k
  const auto B_dense = tessera::to_dense(B);    // k x n, zeros where pruned
  const auto B2 = tessera::nv24_from_dense(B_dense);  // already 2:4: accepted (W would be a FormatError)
  // [prune]
  failures += B.extent(0) != k || B2.extent(1) != n;

  // [multiply]
  tessera::NmSpmmHandle layer;                       // on CUDA: keeps the launch for each batch size
  tessera::nm_spmm(H(1.0f), X, B, H(0.0f), Y, layer);  // Y = X B, fp32 accumulation
  // [multiply]
  failures += error_of(Y, X, B_dense) > 4e-3;

  // [tune]
  tessera::NmSpmmOptions opts;
  opts.tune = true;  // CUDA, fp16 and bf16: time the candidate launches once per batch size
  tessera::NmSpmmHandle tuned(opts);
  tessera::nm_spmm(H(1.0f), X, B, H(0.0f), Y, tuned);  // that first call synchronizes
  // [tune]
  failures += error_of(Y, X, B_dense) > 4e-3;

  std::printf("nm_spmm (NV24): %s\n", failures == 0 ? "all checks passed" : "FAILED");
  return failures == 0 ? 0 : 1;
}
