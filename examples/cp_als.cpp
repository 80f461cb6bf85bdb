// CP-ALS: a rank-R CP decomposition X ~ sum_r lambda_r a_r o b_r o c_r of a sparse
// 3-way tensor (default: the Last.fm user x artist x tag tensor), by alternating
// least squares with tessera's dense-factor MTTKRP:
//   1. read the .tns tensor and build it as a CSF<3> in `Space` (OpenMP or CUDA: change the
//      alias below); one MttkrpHandle keeps the tensor rearranged for each mode after its first use;
//   2. per iteration and mode n: M = mttkrp(X, n, U) in Space; solve U_n G = M on the host with
//      G = (U_k^T U_k) .* (U_l^T U_l) by Cholesky (tiny ridge); normalize columns;
//   3. print the fit 1 - ||X - Xhat|| / ||X|| and the time per iteration.
// ALS never lowers the fit: the program exits 1 if the fit is NaN or drops by more
// than 1e-6 (relative), if a first-iteration MTTKRP differs from a double-precision
// reference computed from the tensor's triplets by more than 1e-10 of its terms' sizes, or if
// --expect-fit F is given and the last fit differs from F by more than 1e-6 (relative);
// 2 on bad input (a tensor of order other than 3, a value that is
// not finite, or all values zero).
// --compare-host, where Space is a device space, runs the same ALS on the host space afterwards and
// exits 1 unless both reach the same fit (1e-6 relative).
// Usage: cp_als [tensor.tns[.gz]] [--rank R=16] [--iters N=50] [--tol T=1e-5] [--seed S=7] [--expect-fit F]
//               [--compare-host]
#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <optional>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include <Kokkos_Core.hpp>

#include "tessera/tessera.hpp"
#include "example_support.hpp"

namespace {

using Space = Kokkos::DefaultExecutionSpace;  // e.g. Kokkos::OpenMP or Kokkos::Cuda
using HostSpace = Kokkos::DefaultHostExecutionSpace;
template <class S>
using SpaceMatrix = Kokkos::View<double**, Kokkos::LayoutRight, S>;
using Clock = std::chrono::steady_clock;

struct Args {
  std::string path;
  int rank = 16;
  int iters = 50;
  double tol = 1e-5;
  unsigned seed = 7;
  double expect_fit = -1;  // < 0: not checked
  bool compare_host = false;
};

Args parse_args(int argc, char** argv) {
  Args args;
  args.path = tessera_example::data_file("tensors/lastfm_user_artist_tag.tns.gz");
  for (tessera::CommandLine cl(
           argc, argv,
           "usage: cp_als [tensor.tns[.gz]] [--rank R=16] [--iters N=50] [--tol T=1e-5] [--seed S=7] [--expect-fit F]\n"
           "              [--compare-host]  (Space a device: the same ALS on the host space too, same fit)\n"
           "Default tensor: $TESSERA_DATA_DIR/tensors/lastfm_user_artist_tag.tns.gz\n");
       cl.next();) {
    if (cl.is("--rank")) args.rank = cl.int_value();
    else if (cl.is("--iters")) args.iters = cl.int_value();
    else if (cl.is("--tol")) args.tol = cl.double_value();
    else if (cl.is("--seed")) args.seed = static_cast<unsigned>(cl.integer(0, std::numeric_limits<unsigned>::max()));
    else if (cl.is("--expect-fit")) args.expect_fit = cl.double_value();
    else if (cl.is("--compare-host")) args.compare_host = true;
    else if (cl.is_option()) cl.reject();
    else args.path = cl.single_argument();
  }
  if (args.rank < 1 || args.iters < 1 || !(args.tol >= 0)) throw tessera::Error("--rank and --iters must be positive, --tol >= 0");
  return args;
}

// A factor matrix, rows x R row-major on the host.
struct Factor {
  std::int64_t rows = 0, R = 0;
  std::vector<double> v;
  double& operator()(std::int64_t i, std::int64_t r) { return v[i * R + r]; }
  double operator()(std::int64_t i, std::int64_t r) const { return v[i * R + r]; }
};

// U copied into the factor matrix `view` in its space.
template <class View>
void copy_to_space(const Factor& U, const View& view) {
  const auto host = Kokkos::create_mirror_view(view);
  std::copy(U.v.begin(), U.v.end(), host.data());
  Kokkos::deep_copy(view, host);
}

// G = U^T U (R x R).
std::vector<double> gram(const Factor& U) {
  std::vector<double> G(U.R * U.R, 0.0);
  for (std::int64_t i = 0; i < U.rows; ++i)
    for (std::int64_t a = 0; a < U.R; ++a)
      for (std::int64_t b = 0; b < U.R; ++b) G[a * U.R + b] += U(i, a) * U(i, b);
  return G;
}

// Solves U G = M row by row: G is symmetric positive (semi)definite, so Cholesky
// G + ridge*I = L L^T; the ridge (relative to G's mean diagonal) keeps columns
// that collapsed to zero from making G singular without moving the fit measurably.
template <class HostMatrix>
Factor solve_normal_equations(std::vector<double> G, const HostMatrix& M, std::int64_t R) {
  double trace = 0;
  for (std::int64_t a = 0; a < R; ++a) trace += G[a * R + a];
  const double ridge = 1e-12 * std::max(trace / static_cast<double>(R), 1e-300);
  for (std::int64_t a = 0; a < R; ++a) G[a * R + a] += ridge;
  for (std::int64_t j = 0; j < R; ++j) {  // in-place lower Cholesky factor
    double d = G[j * R + j];
    for (std::int64_t p = 0; p < j; ++p) d -= G[j * R + p] * G[j * R + p];
    if (!(d > 0)) throw tessera::Error("cp_als: normal equations are not positive definite (rank too high?)");
    G[j * R + j] = std::sqrt(d);
    for (std::int64_t i = j + 1; i < R; ++i) {
      double s = G[i * R + j];
      for (std::int64_t p = 0; p < j; ++p) s -= G[i * R + p] * G[j * R + p];
      G[i * R + j] = s / G[j * R + j];
    }
  }
  Factor U{static_cast<std::int64_t>(M.extent(0)), R, std::vector<double>(M.extent(0) * R)};
  for (std::int64_t i = 0; i < U.rows; ++i) {
    double* x = &U.v[i * R];
    for (std::int64_t a = 0; a < R; ++a) {  // L y = m
      double s = M(i, a);
      for (std::int64_t p = 0; p < a; ++p) s -= G[a * R + p] * x[p];
      x[a] = s / G[a * R + a];
    }
    for (std::int64_t a = R - 1; a >= 0; --a) {  // L^T x = y
      double s = x[a];
      for (std::int64_t p = a + 1; p < R; ++p) s -= G[p * R + a] * x[p];
      x[a] = s / G[a * R + a];
    }
  }
  return U;
}

// Scales every column of U to unit 2-norm and returns the norms.
std::vector<double> normalize_columns(Factor& U) {
  std::vector<double> lambda(U.R, 0.0);
  for (std::int64_t i = 0; i < U.rows; ++i)
    for (std::int64_t r = 0; r < U.R; ++r) lambda[r] += U(i, r) * U(i, r);
  for (auto& l : lambda) l = std::sqrt(l);
  for (std::int64_t i = 0; i < U.rows; ++i)
    for (std::int64_t r = 0; r < U.R; ++r)
      if (lambda[r] > 0) U(i, r) /= lambda[r];
  return lambda;
}

// The largest error of mttkrp's result M for mode n, each entry against a double-precision
// reference computed straight from X's triplets (not through the library), relative to the
// sum of the |terms| behind it.
template <class MView>
double mttkrp_error(const tessera::HostCoo<double>& X, int n, const Factor& Uk, const Factor& Ul, const MView& M) {
  const int k = n == 0 ? 1 : 0, l = n == 2 ? 1 : 2;
  const std::int64_t R = Uk.R;
  std::vector<double> ref(static_cast<std::size_t>(X.shape[n] * R), 0.0), scale(ref.size(), 0.0);
  for (std::int64_t e = 0; e < X.nnz(); ++e)
    for (std::int64_t r = 0; r < R; ++r) {
      const double term = X.values[e] * Uk(X.coord(e, k), r) * Ul(X.coord(e, l), r);
      ref[X.coord(e, n) * R + r] += term;
      scale[X.coord(e, n) * R + r] += std::abs(term);
    }
  double worst = 0;
  for (std::int64_t i = 0; i < X.shape[n]; ++i)
    for (std::int64_t r = 0; r < R; ++r) {
      const double rel = std::abs(M(i, r) - ref[i * R + r]) / std::max(scale[i * R + r], 1e-300);
      worst = std::isfinite(rel) ? std::max(worst, rel) : INFINITY;  // std::max would drop a NaN
    }
  return worst;
}

// The ALS iterations in space S from the factors seeded by args.seed: the last fit, or none after
// an error it printed.
template <class S>
std::optional<double> als(const Args& args, const tessera::HostCoo<double>& X, double norm_x2) {
  std::printf("[2/3] building the tensor (CSF, in %s)\n", S::name());
  const auto tensor = tessera::from_coo<double, tessera::CSF<3>, S>(X);
  tessera::MttkrpHandle handle;  // the tensor rooted at each mode, built on the mode's first product
  const std::int64_t R = args.rank;
  std::mt19937_64 rng(args.seed);
  std::uniform_real_distribution<double> uniform(0.0, 1.0);
  Factor U[3];
  std::array<SpaceMatrix<S>, 3> factors;
  for (int n = 0; n < 3; ++n) {
    U[n] = Factor{X.shape[n], R, std::vector<double>(X.shape[n] * R)};
    for (auto& x : U[n].v) x = uniform(rng);
    factors[n] = SpaceMatrix<S>("cp_als::factor", X.shape[n], R);
    copy_to_space(U[n], factors[n]);
  }
  std::array<SpaceMatrix<S>, 3> products;
  for (int n = 0; n < 3; ++n) products[n] = SpaceMatrix<S>("cp_als::mttkrp", X.shape[n], R);

  std::printf("[3/3] ALS in %s (the first iteration builds the per-mode CSFs)\n"
              "  iter        fit      delta   time(s)  mttkrp(s)\n", S::name());
  double fit = 0, worst_mttkrp_error = 0;
  for (int it = 1; it <= args.iters; ++it) {
    const auto start = Clock::now();
    double mttkrp_s = 0, check_s = 0;
    std::vector<double> lambda;
    Kokkos::View<double**, Kokkos::LayoutRight, Kokkos::HostSpace> M;
    for (int n = 0; n < 3; ++n) {
      const int k = n == 0 ? 1 : 0, l = n == 2 ? 1 : 2;
      const auto t0 = Clock::now();
      tessera::mttkrp(S(), tensor, n, factors, products[n], handle);
      S().fence();
      mttkrp_s += std::chrono::duration<double>(Clock::now() - t0).count();
      M = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), products[n]);
      if (it == 1) {  // each mode's product once, against the triplets (not timed)
        const auto check_start = Clock::now();
        const double error = mttkrp_error(X, n, U[k], U[l], M);
        check_s += std::chrono::duration<double>(Clock::now() - check_start).count();
        if (!(error <= 1e-10)) {
          std::fprintf(stderr, "error: mttkrp of mode %d is off by %.2e of its terms' sizes (tolerance 1e-10)\n", n,
                       error);
          return std::nullopt;
        }
        worst_mttkrp_error = std::max(worst_mttkrp_error, error);
      }
      const auto Gk = gram(U[k]), Gl = gram(U[l]);
      std::vector<double> G(R * R);
      for (std::int64_t a = 0; a < R * R; ++a) G[a] = Gk[a] * Gl[a];
      U[n] = solve_normal_equations(G, M, R);
      lambda = normalize_columns(U[n]);
      copy_to_space(U[n], factors[n]);
    }
    // ||X - Xhat||^2 = ||X||^2 + ||Xhat||^2 - 2 <X, Xhat>; <X, Xhat> from the last
    // mode's MTTKRP, ||Xhat||^2 from the Gram matrices of the normalized factors.
    const auto G0 = gram(U[0]), G1 = gram(U[1]), G2 = gram(U[2]);
    double norm_xhat2 = 0, inner = 0;
    for (std::int64_t a = 0; a < R; ++a)
      for (std::int64_t b = 0; b < R; ++b)
        norm_xhat2 += lambda[a] * lambda[b] * G0[a * R + b] * G1[a * R + b] * G2[a * R + b];
    for (std::int64_t i = 0; i < U[2].rows; ++i)
      for (std::int64_t r = 0; r < R; ++r) inner += lambda[r] * M(i, r) * U[2](i, r);
    const double residual = std::sqrt(std::max(norm_x2 + norm_xhat2 - 2 * inner, 0.0));
    const double previous = fit;
    fit = 1.0 - residual / std::sqrt(norm_x2);
    const double seconds = std::chrono::duration<double>(Clock::now() - start).count() - check_s;
    std::printf("  %4d  %.7f  %+.2e  %8.3f  %9.3f\n", it, fit, fit - previous, seconds, mttkrp_s);
    if (it == 1)
      std::printf("        (each mode's mttkrp checked against the tensor's triplets: max error %.2e of the terms' "
                  "sizes)\n", worst_mttkrp_error);
    std::fflush(stdout);
    if (std::isnan(fit)) {
      std::fprintf(stderr, "error: the fit is NaN\n");
      return std::nullopt;
    }
    if (it > 1 && previous - fit > 1e-6 * std::abs(previous)) {
      std::fprintf(stderr, "error: the fit decreased from %.9f to %.9f; ALS must be monotone\n", previous, fit);
      return std::nullopt;
    }
    if (it > 1 && std::abs(fit - previous) < args.tol) {
      std::printf("converged: |delta fit| < %.1e after %d iterations\n", args.tol, it);
      break;
    }
  }
  std::printf("final fit %.9f in %s\n", fit, S::name());
  return fit;
}

int run(const Args& args) {
  std::printf("[1/3] reading %s\n", args.path.c_str());
  const auto X = tessera::io::read_tns(args.path);
  if (X.order() != 3) throw tessera::Error("cp_als needs a 3-way tensor, " + args.path + " has order " + std::to_string(X.order()));
  double norm_x2 = 0;
  bool any_nonzero = false;
  for (std::int64_t e = 0; e < X.nnz(); ++e) {
    const double v = X.values[e];
    if (!std::isfinite(v))
      throw tessera::Error(args.path + ": value " + std::to_string(e + 1) + " is " + std::to_string(v) +
                           "; CP-ALS needs finite values");
    any_nonzero = any_nonzero || v != 0;
    norm_x2 += v * v;
  }
  // The fit is relative to ||X||: a tensor without a nonzero value has none to report.
  if (!any_nonzero)
    throw tessera::Error(args.path + " has no nonzero value (||X|| = 0); its CP decomposition is zero and has no fit");
  if (!(norm_x2 > 0) || !std::isfinite(norm_x2))
    throw tessera::Error(args.path + ": ||X||^2 is " + std::to_string(norm_x2) +
                         " in double, too small or too large for the fit's sums; scale the values");
  std::printf("      %lld x %lld x %lld, %lld nonzeros, rank %d, on %s\n", static_cast<long long>(X.shape[0]),
              static_cast<long long>(X.shape[1]), static_cast<long long>(X.shape[2]), static_cast<long long>(X.nnz()),
              args.rank, Space::name());

  const auto result = als<Space>(args, X, norm_x2);
  if (!result) return 1;
  const double fit = *result;
  if (args.compare_host && !std::is_same_v<Space, HostSpace>) {
    const auto host_result = als<HostSpace>(args, X, norm_x2);
    if (!host_result) return 1;
    const double host_fit = *host_result;
    const double difference = std::abs(fit - host_fit) / std::max(std::abs(host_fit), 1e-300);
    std::printf("fit in %s %.9f, in %s %.9f: relative difference %.1e (tolerance 1e-6)\n", Space::name(), fit,
                HostSpace::name(), host_fit, difference);
    if (!(difference <= 1e-6)) {
      std::fprintf(stderr, "error: the fits of the two spaces differ by %.1e (relative)\n", difference);
      return 1;
    }
  }
  if (args.expect_fit >= 0) {
    const double difference = std::abs(fit - args.expect_fit) / std::max(std::abs(args.expect_fit), 1e-300);
    std::printf("fit %.9f, expected %.9f: relative difference %.1e (tolerance 1e-6)\n", fit, args.expect_fit,
                difference);
    if (!(difference <= 1e-6)) {
      std::fprintf(stderr, "error: the fit differs from the expected one by %.1e (relative)\n", difference);
      return 1;
    }
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) { return tessera_example::run_example(argc, argv, parse_args, run); }
