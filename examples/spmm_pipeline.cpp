// The main demo: the pipeline a user would copy.
//   1. read a Matrix Market file (plain or .gz), or generate a 2-D Poisson matrix;
//   2. build a CSR tensor in the default execution space and convert it (CSC, DCSR);
//   3. run SpMM C = A * B with a dense B of N columns;
//   4. check every row against a double-precision reference built from the COO triplets,
//      print a summary (exit 1 when the error exceeds 1e-4 relative to the terms' sizes).
// Usage: spmm_pipeline [matrix.mtx[.gz]] [--n N=64] [--reps R=10] [--grid G=512]
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <string>
#include <vector>

#include <Kokkos_Core.hpp>

#include "tessera/tessera.hpp"
#include "example_support.hpp"

namespace {

struct Args {
  std::string path;  // empty: generate
  int n = 64;
  int reps = 10;
  int grid = 512;
};

Args parse_args(int argc, char** argv) {
  Args args;
  for (tessera::CommandLine cl(argc, argv,
                                       "usage: spmm_pipeline [matrix.mtx[.gz]] [--n N=64] [--reps R=10] [--grid G=512]\n"
                                       "Without a file, A is the 5-point Laplacian of a G x G grid.\n");
       cl.next();) {
    if (cl.is("--n")) args.n = cl.int_value();
    else if (cl.is("--reps")) args.reps = cl.int_value();
    else if (cl.is("--grid")) args.grid = cl.int_value();
    else if (cl.is_option()) cl.reject();
    else args.path = cl.single_argument();
  }
  if (args.n < 1 || args.reps < 1 || args.grid < 1) throw tessera::Error("--n, --reps and --grid must be positive");
  // The Laplacian has 5 G^2 - 4 G nonzeros, which the CSR's 32-bit offsets must hold.
  const std::int64_t g = args.grid;
  if (5 * g * g - 4 * g > std::numeric_limits<std::int32_t>::max())
    throw tessera::Error("--grid " + std::to_string(g) +
                         " gives more nonzeros than a CSR with 32-bit offsets holds (G <= 20724)");
  return args;
}

// 5-point Laplacian on a g x g grid: the classic sparse matrix of PDE solvers.
tessera::HostCoo<double> poisson_2d(std::int64_t g) {
  tessera::HostCoo<double> coo;
  coo.shape = {g * g, g * g};
  auto add = [&](std::int64_t i, std::int64_t j, double v) {
    coo.coords.push_back(i);
    coo.coords.push_back(j);
    coo.values.push_back(v);
  };
  for (std::int64_t x = 0; x < g; ++x)
    for (std::int64_t y = 0; y < g; ++y) {
      const std::int64_t row = x * g + y;
      add(row, row, 4.0);
      if (x > 0) add(row, row - g, -1.0);
      if (x + 1 < g) add(row, row + g, -1.0);
      if (y > 0) add(row, row - 1, -1.0);
      if (y + 1 < g) add(row, row + 1, -1.0);
    }
  return coo;
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

int run(const Args& args) {
  using Space = Kokkos::DefaultExecutionSpace;
  using Mem = Space::memory_space;
  using T = float;

  auto t0 = std::chrono::steady_clock::now();
  tessera::io::MatrixMarketInfo info{};
  info.symmetry = tessera::io::MatrixMarketInfo::Symmetry::General;
  const auto coo = args.path.empty() ? poisson_2d(args.grid) : tessera::io::read_matrix_market(args.path, &info);
  const bool mirrored = info.symmetry != tessera::io::MatrixMarketInfo::Symmetry::General;
  std::printf(
      "[1/4] %s: %lld x %lld, %lld entries%s (%.2f s)\n",
      args.path.empty() ? ("generated 2-D Poisson, grid " + std::to_string(args.grid)).c_str() : args.path.c_str(),
      static_cast<long long>(coo.shape[0]), static_cast<long long>(coo.shape[1]), static_cast<long long>(coo.nnz()),
      mirrored ? " (with the mirrored half of the stored triangle)" : "", seconds_since(t0));
  // The product runs in float and is checked against finite references: NaN, infinities and
  // values float cannot hold (1e39) would leave nothing to compare.
  for (std::int64_t e = 0; e < coo.nnz(); ++e)
    if (!(std::abs(coo.values[e]) <= std::numeric_limits<T>::max()))
      throw tessera::Error("entry (" + std::to_string(coo.coord(e, 0) + 1) + ", " +
                           std::to_string(coo.coord(e, 1) + 1) + ") is " + std::to_string(coo.values[e]) +
                           "; the demo computes in float and takes finite values up to 3.4e38");

  t0 = std::chrono::steady_clock::now();
  const auto A = tessera::from_coo<T, tessera::CSR, Space>(coo);
  const auto csc = tessera::convert<tessera::CSC>(A);
  const auto dcsr = tessera::convert<tessera::DCSR>(A);
  const std::int64_t nonempty_rows = static_cast<std::int64_t>(dcsr.level(0).crd.extent(0));
  const std::string threads = Kokkos::SpaceAccessibility<Kokkos::HostSpace, Mem>::accessible
                                  ? " (" + std::to_string(Space().concurrency()) + " threads)"
                                  : "";
  std::printf("[2/4] CSR in %s%s: nnz %lld, %lld empty rows; CSC nnz %lld (%.2f s)\n", Space::name(), threads.c_str(),
              static_cast<long long>(A.nnz()), static_cast<long long>(A.extent(0) - nonempty_rows),
              static_cast<long long>(csc.nnz()), seconds_since(t0));

  const std::int64_t m = A.extent(0), k = A.extent(1), n = args.n;
  Kokkos::View<T**, Kokkos::LayoutRight, Mem> B("B", k, n), C("C", m, n);
  auto Bh = Kokkos::create_mirror_view(B);
  for (std::int64_t r = 0; r < k; ++r)
    for (std::int64_t j = 0; j < n; ++j) Bh(r, j) = static_cast<T>(std::sin(0.01 * static_cast<double>(r + 7 * j)));
  Kokkos::deep_copy(B, Bh);

  tessera::SpmmHandle handle;  // A's plan (on CUDA), built by the first call and reused
  tessera::spmm(T(1), A, B, T(0), C, handle);  // warm-up
  Kokkos::fence();
  t0 = std::chrono::steady_clock::now();
  for (int rep = 0; rep < args.reps; ++rep) tessera::spmm(T(1), A, B, T(0), C, handle);
  Kokkos::fence();
  const double per_call = seconds_since(t0) / args.reps;
  const double gflops = 2.0 * static_cast<double>(A.nnz()) * static_cast<double>(n) / per_call * 1e-9;
  std::printf("[3/4] SpMM C = A B in float, B dense %lld x %lld: %.3f ms per call, %.2f GFLOP/s (%d calls)\n",
              static_cast<long long>(k), static_cast<long long>(n), per_call * 1e3, gflops, args.reps);

  // Every row against a double-precision reference built from the COO triplets alone (rows
  // bucketed by a counting sort here, duplicates summed as separate terms), not through the
  // library: each entry within 1e-4 of the sum of its |terms| (float sums of thousands of terms).
  auto Ch = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), C);
  std::vector<std::int64_t> row_start(static_cast<std::size_t>(m) + 1, 0), by_row(static_cast<std::size_t>(coo.nnz()));
  for (std::int64_t e = 0; e < coo.nnz(); ++e) ++row_start[coo.coord(e, 0) + 1];
  for (std::int64_t i = 0; i < m; ++i) row_start[i + 1] += row_start[i];
  {
    std::vector<std::int64_t> next(row_start.begin(), row_start.end() - 1);
    for (std::int64_t e = 0; e < coo.nnz(); ++e) by_row[next[coo.coord(e, 0)]++] = e;
  }
  std::vector<double> ref(static_cast<std::size_t>(n)), scale(static_cast<std::size_t>(n));
  double max_rel = 0, checksum = 0;
  for (std::int64_t i = 0; i < m; ++i) {
    std::fill(ref.begin(), ref.end(), 0.0);
    std::fill(scale.begin(), scale.end(), 0.0);
    for (std::int64_t q = row_start[i]; q < row_start[i + 1]; ++q) {
      const std::int64_t e = by_row[q];
      for (std::int64_t j = 0; j < n; ++j) {
        const double term = coo.values[e] * static_cast<double>(Bh(coo.coord(e, 1), j));
        ref[j] += term;
        scale[j] += std::abs(term);
      }
    }
    for (std::int64_t j = 0; j < n; ++j) {
      const double rel = std::abs(Ch(i, j) - ref[j]) / std::max(scale[j], 1e-30);
      max_rel = std::isfinite(rel) ? std::max(max_rel, rel) : INFINITY;  // std::max would drop a NaN
      checksum += Ch(i, j);
    }
  }
  const bool ok = max_rel < 1e-4;
  std::printf("[4/4] check of all %lld rows against a double-precision reference from the COO triplets: max "
              "relative error %.2e (%s, tolerance 1e-4); sum of C %.6e\n",
              static_cast<long long>(m), max_rel, ok ? "ok" : "TOO LARGE", checksum);
  return ok ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) { return tessera_example::run_example(argc, argv, parse_args, run); }
