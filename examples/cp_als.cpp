// CP-ALS: a rank-R CP decomposition X ~ sum_r lambda_r a_r o b_r o c_r of a sparse
// 3-way tensor (default: the Last.fm user x artist x tag tensor), by alternating
// least squares with tessera's SpMTTKRP:
//   1. read the .tns tensor; build one CSF<3> per mode with that mode last
//      (mttkrp's B(k,l,i) contracts the two leading modes);
//   2. per iteration and mode n: M = mttkrp(X_(n), U_k, U_l); solve U_n G = M with
//      G = (U_k^T U_k) .* (U_l^T U_l) by Cholesky (tiny ridge); normalize columns;
//   3. print the fit 1 - ||X - Xhat|| / ||X|| and the time per iteration.
// ALS never lowers the fit: the program exits 1 if the fit is NaN or drops by more
// than 1e-6 (relative), or if a first-iteration MTTKRP differs from a double-precision
// reference computed from the tensor's triplets by more than 1e-10 of its terms' sizes;
// 2 on bad input (a tensor of order other than 3, a value that is
// not finite, or all values zero).
// Usage: cp_als [tensor.tns[.gz]] [--rank R=16] [--iters N=50] [--tol T=1e-5] [--seed S=7]
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include <Kokkos_Core.hpp>

#include "tessera/tessera.hpp"
#include "example_support.hpp"

namespace {

using Space = Kokkos::DefaultHostExecutionSpace;
using Clock = std::chrono::steady_clock;

struct Args {
  std::string path;
  int rank = 16;
  int iters = 50;
  double tol = 1e-5;
  unsigned seed = 7;
};

Args parse_args(int argc, char** argv) {
  Args args;
  args.path = tessera_example::data_file("tensors/lastfm_user_artist_tag.tns.gz");
  for (tessera::CommandLine cl(
           argc, argv,
           "usage: cp_als [tensor.tns[.gz]] [--rank R=16] [--iters N=50] [--tol T=1e-5] [--seed S=7]\n"
           "Default tensor: $TESSERA_DATA_DIR/tensors/lastfm_user_artist_tag.tns.gz\n");
       cl.next();) {
    if (cl.is("--rank")) args.rank = cl.int_value();
    else if (cl.is("--iters")) args.iters = cl.int_value();
    else if (cl.is("--tol")) args.tol = cl.double_value();
    else if (cl.is("--seed")) args.seed = static_cast<unsigned>(cl.integer(0, std::numeric_limits<unsigned>::max()));
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

tessera::Tensor<double, tessera::Dense<2>, Space> as_tensor(const Factor& U) {
  Kokkos::View<double**, Kokkos::LayoutRight, Kokkos::HostSpace> view("cp_als::factor", U.rows, U.R);
  std::copy(U.v.begin(), U.v.end(), view.data());
  return tessera::from_dense<tessera::Dense<2>, Space>(view);
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
Factor solve_normal_equations(std::vector<double> G, const Kokkos::View<double**, Kokkos::LayoutRight, Space>& M,
                              std::int64_t R) {
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

// X with mode n moved last, the other two in their order: mttkrp's B(k, l, i).
tessera::Tensor<double, tessera::CSF<3>, Space> mode_last(const tessera::HostCoo<double>& X, int n) {
  const int k = n == 0 ? 1 : 0, l = n == 2 ? 1 : 2;
  tessera::HostCoo<double> Y;
  Y.shape = {X.shape[k], X.shape[l], X.shape[n]};
  Y.values = X.values;
  Y.coords.reserve(X.coords.size());
  for (std::int64_t e = 0; e < X.nnz(); ++e) Y.coords.insert(Y.coords.end(), {X.coord(e, k), X.coord(e, l), X.coord(e, n)});
  return tessera::from_coo<double, tessera::CSF<3>, Space>(Y);
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
  std::printf("      %lld x %lld x %lld, %lld nonzeros, rank %d, %d threads\n", static_cast<long long>(X.shape[0]),
              static_cast<long long>(X.shape[1]), static_cast<long long>(X.shape[2]), static_cast<long long>(X.nnz()),
              args.rank, Space().concurrency());

  std::printf("[2/3] building one CSF per mode\n");
  const tessera::Tensor<double, tessera::CSF<3>, Space> B[3] = {mode_last(X, 0), mode_last(X, 1), mode_last(X, 2)};
  const std::int64_t R = args.rank;
  std::mt19937_64 rng(args.seed);
  std::uniform_real_distribution<double> uniform(0.0, 1.0);
  Factor U[3];
  for (int n = 0; n < 3; ++n) {
    U[n] = Factor{X.shape[n], R, std::vector<double>(X.shape[n] * R)};
    for (auto& x : U[n].v) x = uniform(rng);
  }

  std::printf("[3/3] ALS\n  iter        fit      delta   time(s)  mttkrp(s)\n");
  double fit = 0, worst_mttkrp_error = 0;
  for (int it = 1; it <= args.iters; ++it) {
    const auto start = Clock::now();
    double mttkrp_s = 0, check_s = 0;
    std::vector<double> lambda;
    Kokkos::View<double**, Kokkos::LayoutRight, Space> M;
    for (int n = 0; n < 3; ++n) {
      const int k = n == 0 ? 1 : 0, l = n == 2 ? 1 : 2;
      const auto t0 = Clock::now();
      M = tessera::to_dense(tessera::mttkrp(B[n], as_tensor(U[k]), as_tensor(U[l])));
      mttkrp_s += std::chrono::duration<double>(Clock::now() - t0).count();
      if (it == 1) {  // each mode's product once, against the triplets (not timed)
        const auto check_start = Clock::now();
        const double error = mttkrp_error(X, n, U[k], U[l], M);
        check_s += std::chrono::duration<double>(Clock::now() - check_start).count();
        if (!(error <= 1e-10)) {
          std::fprintf(stderr, "error: mttkrp of mode %d is off by %.2e of its terms' sizes (tolerance 1e-10)\n", n,
                       error);
          return 1;
        }
        worst_mttkrp_error = std::max(worst_mttkrp_error, error);
      }
      const auto Gk = gram(U[k]), Gl = gram(U[l]);
      std::vector<double> G(R * R);
      for (std::int64_t a = 0; a < R * R; ++a) G[a] = Gk[a] * Gl[a];
      U[n] = solve_normal_equations(G, M, R);
      lambda = normalize_columns(U[n]);
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
      return 1;
    }
    if (it > 1 && previous - fit > 1e-6 * std::abs(previous)) {
      std::fprintf(stderr, "error: the fit decreased from %.9f to %.9f; ALS must be monotone\n", previous, fit);
      return 1;
    }
    if (it > 1 && std::abs(fit - previous) < args.tol) {
      std::printf("converged: |delta fit| < %.1e after %d iterations\n", args.tol, it);
      break;
    }
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) { return tessera_example::run_example(argc, argv, parse_args, run); }
