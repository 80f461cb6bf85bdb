// The setup of an aggregation multigrid hierarchy: coarse matrices A_c = P^T A P by two sparse
// products per level (tessera::spgemm), with P an aggregation prolongator built from A.
//   P (n x aggregates) puts each row in one aggregate: a node whose neighbours in A are all free
//   starts an aggregate with them, the nodes left join a neighbouring aggregate (or their own).
//   Each level then computes A P, P^T by tessera::transpose, and P^T (A P); a second setup with
//   new values on the same patterns (a time-stepping or nonlinear solver's next step) runs only
//   the numeric phases, through one SpgemmHandle per product.
// The same source runs on OpenMP and CUDA: change `Space` below. Prints each level's size and the
// time of its products, full and numeric-only, and checks every coarse matrix against a double
// host computation; exits 1 on mismatch.
// Usage: amg_galerkin [matrix.mtx[.gz]] [--poisson N] [--levels L=4] [--reps R=5]
//   default matrix: $TESSERA_DATA_DIR/matrices/fv2.mtx.gz; --poisson N: the n^3 3-D Poisson matrix
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include <Kokkos_Core.hpp>

#include "example_support.hpp"
#include "tessera/core/poisson_3d_triplets.hpp"
#include "tessera/tessera.hpp"

namespace {

using Space = Kokkos::DefaultExecutionSpace;  // e.g. Kokkos::OpenMP or Kokkos::Cuda
using T = double;
using Matrix = tessera::Tensor<T, tessera::CSR, Space>;

struct Args {
  std::string path;
  int poisson = 0;  // grid size of the generated matrix, 0: read `path`
  int levels = 4;
  int reps = 5;
};

Args parse_args(int argc, char** argv) {
  Args args;
  args.path = tessera_example::data_file("matrices/fv2.mtx.gz");
  for (tessera::CommandLine cl(argc, argv,
                               "usage: amg_galerkin [matrix.mtx[.gz]] [--poisson N] [--levels L=4] [--reps R=5]\n"
                               "Default matrix: $TESSERA_DATA_DIR/matrices/fv2.mtx.gz; --poisson N: the N^3 3-D "
                               "Poisson matrix\n");
       cl.next();) {
    if (cl.is("--poisson")) args.poisson = cl.int_value();
    else if (cl.is("--levels")) args.levels = cl.int_value();
    else if (cl.is("--reps")) args.reps = cl.int_value();
    else if (cl.is_option()) cl.reject();
    else args.path = cl.single_argument();
  }
  if (args.poisson < 0 || args.poisson > 1000) throw tessera::Error("--poisson must be in [1, 1000]");
  if (args.levels < 1 || args.reps < 1) throw tessera::Error("--levels and --reps must be positive");
  return args;
}

// The aggregate of every row of the square matrix A (host COO), and how many there are.
std::vector<std::int64_t> aggregate(const tessera::HostCoo<double>& A, std::int64_t* count) {
  const std::int64_t n = A.shape[0];
  std::vector<std::int64_t> begin(n + 1, 0), neighbours;
  for (std::int64_t e = 0; e < A.nnz(); ++e) ++begin[A.coord(e, 0) + 1];
  for (std::int64_t i = 0; i < n; ++i) begin[i + 1] += begin[i];
  neighbours.resize(begin[n]);
  std::vector<std::int64_t> next(begin.begin(), begin.end() - 1);
  for (std::int64_t e = 0; e < A.nnz(); ++e) neighbours[next[A.coord(e, 0)]++] = A.coord(e, 1);
  std::vector<std::int64_t> agg(n, -1);
  *count = 0;
  for (std::int64_t i = 0; i < n; ++i) {  // a free node with free neighbours starts an aggregate
    if (agg[i] >= 0) continue;
    bool free = true;
    for (std::int64_t q = begin[i]; q < begin[i + 1] && free; ++q) free = agg[neighbours[q]] < 0;
    if (!free) continue;
    agg[i] = *count;
    for (std::int64_t q = begin[i]; q < begin[i + 1]; ++q) agg[neighbours[q]] = *count;
    ++*count;
  }
  for (std::int64_t i = 0; i < n; ++i) {  // the rest join a neighbour's aggregate, or start their own
    if (agg[i] >= 0) continue;
    for (std::int64_t q = begin[i]; q < begin[i + 1] && agg[i] < 0; ++q) agg[i] = agg[neighbours[q]];
    if (agg[i] < 0) agg[i] = (*count)++;
  }
  return agg;
}

tessera::HostCoo<double> prolongator(const std::vector<std::int64_t>& agg, std::int64_t aggregates) {
  tessera::HostCoo<double> P;
  P.shape = {static_cast<std::int64_t>(agg.size()), aggregates};
  for (std::size_t i = 0; i < agg.size(); ++i) {
    P.coords.push_back(static_cast<std::int64_t>(i));
    P.coords.push_back(agg[i]);
    P.values.push_back(1.0);
  }
  return P;
}

// P^T A P in double on the host: entry (agg(i), agg(j)) sums a_ij.
tessera::HostCoo<double> reference_coarse(const tessera::HostCoo<double>& A, const std::vector<std::int64_t>& agg,
                                          std::int64_t aggregates) {
  std::vector<std::vector<std::pair<std::int64_t, double>>> rows(aggregates);
  for (std::int64_t e = 0; e < A.nnz(); ++e) rows[agg[A.coord(e, 0)]].emplace_back(agg[A.coord(e, 1)], A.values[e]);
  tessera::HostCoo<double> C;
  C.shape = {aggregates, aggregates};
  for (std::int64_t r = 0; r < aggregates; ++r) {
    auto& row = rows[r];
    std::sort(row.begin(), row.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
    for (std::size_t k = 0; k < row.size(); ++k) {
      if (k > 0 && row[k].first == row[k - 1].first) {
        C.values.back() += row[k].second;
        continue;
      }
      C.coords.push_back(r);
      C.coords.push_back(row[k].first);
      C.values.push_back(row[k].second);
    }
  }
  return C;
}

// Largest difference between the device result and the reference, relative to the largest entry;
// infinity when the patterns differ.
double relative_error(const Matrix& got, const tessera::HostCoo<double>& want) {
  const tessera::HostCoo<T> g = tessera::to_coo(got);
  if (g.coords != want.coords) return INFINITY;
  double worst = 0, scale = 0;
  for (std::int64_t e = 0; e < want.nnz(); ++e) {
    worst = std::max(worst, std::abs(g.values[e] - want.values[e]));
    scale = std::max(scale, std::abs(want.values[e]));
  }
  return worst / std::max(scale, 1e-300);
}

template <class F>
double median_ms(int reps, F&& f) {
  std::vector<double> ms;
  for (int r = 0; r < reps; ++r) {
    Kokkos::fence();
    const auto t0 = std::chrono::steady_clock::now();
    f();
    Kokkos::fence();
    ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  }
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2];
}

tessera::HostCoo<double> scaled(tessera::HostCoo<double> A, double factor) {
  for (double& v : A.values) v *= factor;
  return A;
}

int run(const Args& args) {
  tessera::HostCoo<double> A_host = args.poisson ? tessera::poisson_3d_triplets(args.poisson, 0,
                                                                                 std::int64_t{args.poisson} *
                                                                                     args.poisson * args.poisson)
                                                 : tessera::io::read_matrix_market(args.path);
  if (A_host.order() != 2 || A_host.shape[0] != A_host.shape[1])
    throw tessera::Error("amg_galerkin: the matrix must be square");
  std::printf("amg_galerkin on %s: %s, %lld x %lld, %lld nonzeros; median of %d setups\n",
              Space::name(), args.poisson ? ("Poisson " + std::to_string(args.poisson) + "^3").c_str()
                                          : args.path.c_str(),
              static_cast<long long>(A_host.shape[0]), static_cast<long long>(A_host.shape[1]),
              static_cast<long long>(A_host.nnz()), args.reps);
  std::printf("| level | rows | nonzeros | coarse rows | coarse nonzeros | A P + P^T (A P), ms | numeric only, ms |\n"
              "|---:|---:|---:|---:|---:|---:|---:|\n");
  bool ok = true;
  for (int level = 0; level < args.levels && A_host.shape[0] > 1; ++level) {
    std::int64_t aggregates = 0;
    const std::vector<std::int64_t> agg = aggregate(A_host, &aggregates);
    const Matrix A = tessera::from_coo<T, tessera::CSR, Space>(A_host);
    const Matrix P = tessera::from_coo<T, tessera::CSR, Space>(prolongator(agg, aggregates));
    const Matrix Pt = tessera::transpose(P);
    const auto galerkin = [&](const Matrix& M) { return tessera::spgemm(Pt, tessera::spgemm(M, P)); };
    const double full = median_ms(args.reps, [&] { (void)galerkin(A); });
    const Matrix Ac = galerkin(A);

    // The next setup: new values on A's pattern, numeric phases only.
    const Matrix A2 = tessera::from_coo<T, tessera::CSR, Space>(scaled(A_host, 2.0));
    tessera::SpgemmHandle ap_handle, coarse_handle;
    const auto numeric = [&](const Matrix& M) {
      return tessera::spgemm(Pt, tessera::spgemm(M, P, ap_handle), coarse_handle);
    };
    (void)numeric(A);
    const double again = median_ms(args.reps, [&] { (void)numeric(A2); });
    const Matrix Ac2 = numeric(A2);

    const tessera::HostCoo<double> want = reference_coarse(A_host, agg, aggregates);
    const double error = std::max(relative_error(Ac, want), relative_error(Ac2, scaled(want, 2.0)));
    std::printf("| %d | %lld | %lld | %lld | %lld | %.3f | %.3f |\n", level, static_cast<long long>(A_host.shape[0]),
                static_cast<long long>(A_host.nnz()), static_cast<long long>(aggregates),
                static_cast<long long>(Ac.nnz()), full, again);
    if (!(error < 1e-12)) {
      std::printf("level %d: coarse matrix differs from the host reference (relative error %.3g)\n", level, error);
      ok = false;
    }
    A_host = want;
  }
  std::printf(ok ? "coarse matrices match the double host reference\n" : "MISMATCH\n");
  return ok ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) { return tessera_example::run_example(argc, argv, parse_args, run); }
