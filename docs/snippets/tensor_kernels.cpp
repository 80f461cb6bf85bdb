// Sparse tensor kernels on a host space: MTTKRP (dense and sparse results), SpTTM and SpTTM-I on
// the Last.fm tagging tensor (users x artists x tags).
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include <tessera/tessera.hpp>

namespace {
template <class Tensor>
double sum_of_values(const Tensor& X) {
  const auto v = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), X.values());
  double sum = 0;
  for (std::size_t q = 0; q < v.extent(0); ++q) sum += v(q);
  return sum;
}
}  // namespace

int main(int argc, char** argv) {
  Kokkos::ScopeGuard guard(argc, argv);
  using Space = Kokkos::DefaultHostExecutionSpace;  // the sparse-result kernels run on host spaces
  using Factor = Kokkos::View<double**, Kokkos::LayoutRight, Kokkos::HostSpace>;
  const std::string data = argc > 1 ? argv[1] : "../shared/data";
  int failures = 0;

  // [read]
  const tessera::HostCoo<double> X = tessera::io::read_tns(data + "/tensors/lastfm_user_artist_tag.tns.gz");
  const auto B = tessera::from_coo<double, tessera::CSF<3>, Space>(X);  // levels: user, artist, tag
  // [read]

  // [mttkrp]
  // M(i, r) = sum over k, l of B(k, l, i) U(k, r) V(l, r): one row per tag, from the users' and
  // the artists' factor matrices (rank R), as in one step of CP-ALS.
  const std::int64_t R = 8;
  Factor U("U", X.shape[0], R), V("V", X.shape[1], R);
  for (std::int64_t r = 0; r < R; ++r) {
    for (std::int64_t k = 0; k < X.shape[0]; ++k) U(k, r) = 1.0 + 0.1 * static_cast<double>((k + r) % 7);
    for (std::int64_t l = 0; l < X.shape[1]; ++l) V(l, r) = 1.0 - 0.1 * static_cast<double>((l * r) % 5);
  }
  const auto Ut = tessera::from_dense<tessera::Dense<2>, Space>(U);
  const auto Vt = tessera::from_dense<tessera::Dense<2>, Space>(V);
  const auto M = tessera::to_dense(tessera::mttkrp(B, Ut, Vt));  // tags x R
  // [mttkrp]
  std::vector<double> want(X.shape[2] * R, 0.0), size(want.size(), 0.0);
  for (std::int64_t e = 0; e < X.nnz(); ++e)
    for (std::int64_t r = 0; r < R; ++r) {
      const double term = X.values[e] * U(X.coord(e, 0), r) * V(X.coord(e, 1), r);
      want[X.coord(e, 2) * R + r] += term;
      size[X.coord(e, 2) * R + r] += std::abs(term);
    }
  double worst = 0;
  for (std::int64_t i = 0; i < X.shape[2]; ++i)
    for (std::int64_t r = 0; r < R; ++r)
      worst = std::max(worst, std::abs(M(i, r) - want[i * R + r]) / std::max(size[i * R + r], 1e-300));
  failures += !(worst <= 1e-12);

  // [mttkrp_mode]
  // The same product as a dense matrix, for any mode (here 2, the tags) and on any space: X's
  // other modes are contracted with their factors; factors[mode] is not read.
  Factor out("out", X.shape[2], R);
  const std::array<Factor, 3> factors{U, V, Factor()};
  tessera::MttkrpHandle handle;  // keeps B rearranged for each mode it was asked for
  tessera::mttkrp(Space(), B, 2, factors, out, handle);
  // [mttkrp_mode]
  double dense_worst = 0;
  for (std::int64_t i = 0; i < X.shape[2]; ++i)
    for (std::int64_t r = 0; r < R; ++r)
      dense_worst = std::max(dense_worst, std::abs(out(i, r) - want[i * R + r]) / std::max(size[i * R + r], 1e-300));
  failures += !(dense_worst <= 1e-12);

  // [ttm]
  // Y(i, j, l) = sum over k of B(k, i, j) P(k, l): the users contracted with P (users x 4);
  // Z(k, j, l) = sum over i of B(k, i, j) Q(i, l): the artists contracted with Q (artists x 4).
  Factor P("P", X.shape[0], 4), Q("Q", X.shape[1], 4);
  Kokkos::deep_copy(P, 0.5);
  Kokkos::deep_copy(Q, 0.25);
  const auto Pt = tessera::from_dense<tessera::Dense<2>, Space>(P);
  const auto Qt = tessera::from_dense<tessera::Dense<2>, Space>(Q);
  const auto Y = tessera::ttm(B, Pt);  // CSF<3>, artists x tags x 4, Auto workspace
  const auto Z = tessera::ttm_i<tessera::workspace::Hash, tessera::COOTensor<3>>(B, Qt);  // users x tags x 4
  // [ttm]
  double total = 0;
  for (const double v : X.values) total += v;
  failures += std::abs(sum_of_values(Y) - 2.0 * total) > 1e-9 * total;  // 4 columns of 0.5 per entry
  failures += std::abs(sum_of_values(Z) - 1.0 * total) > 1e-9 * total;  // 4 columns of 0.25 per entry
  failures += Y.extent(0) != X.shape[1] || Y.extent(2) != 4 || Z.extent(0) != X.shape[0];

  // [ttm_mode]
  // Any mode, with a handle: W(u, a, l) = sum over t of B(u, a, t) S(t, l), the tags contracted.
  // The handle keeps B arranged for each mode it was asked for (a Tucker loop pays for it once).
  Factor S("S", X.shape[2], 4);
  Kokkos::deep_copy(S, 1.0);
  tessera::TtmHandle ttm_handle;
  const auto W = tessera::ttm(Space(), B, 2, tessera::from_dense<tessera::Dense<2>, Space>(S), ttm_handle);
  // [ttm_mode]
  failures += std::abs(sum_of_values(W) - 4.0 * total) > 1e-9 * total;  // 4 columns of 1 per entry
  failures += W.extent(0) != X.shape[0] || W.extent(1) != X.shape[1] || W.extent(2) != 4;

  std::printf("%lld x %lld x %lld tensor, %lld entries; mttkrp max error %.1e; tensor kernels: %s\n",
              static_cast<long long>(X.shape[0]), static_cast<long long>(X.shape[1]),
              static_cast<long long>(X.shape[2]), static_cast<long long>(X.nnz()), worst,
              failures == 0 ? "all checks passed" : "FAILED");
  return failures == 0 ? 0 : 1;
}
