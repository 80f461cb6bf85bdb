// Conjugate gradient over MPI, one rank per GPU in a CUDA build (dist::ScopeGuard maps
// them): tessera::dist::spmv for A·p (halo exchange overlapped with the local product),
// Kokkos kernels for the vector updates on each rank's block (the x and r updates fused
// with r·r), MPI_Allreduce for the global dot products.
// Two problems, each with b = A·1 so that the error of x against 1 is known:
//   - the 3-D Poisson 7-point matrix on an N x N x N grid, generated in parallel
//     (every rank builds the triplets of its own rows);
//   - a real SPD matrix read in parallel from a Matrix Market file
//     (default $TESSERA_DATA_DIR/matrices/fv2.mtx.gz: an FEM matrix from the Norris set).
// Prints the residual history and the time per iteration; exits 1 when a solve does
// not converge or its error is too large, 2 on bad input.
// Usage: mpiexec -n P dist_cg [--poisson N=48] [--tol T=1e-8] [--max-iters I=5000] [--every E=25] [matrix.mtx[.gz]]
#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include <Kokkos_Core.hpp>

#include "tessera/dist.hpp"
#include "tessera/tessera.hpp"
#include "example_support.hpp"

namespace {

using Space = Kokkos::DefaultExecutionSpace;
using Matrix = tessera::dist::DistTensor<double, tessera::CSR, Space>;
using Vector = tessera::dist::DistVector<double, Space>;

struct Args {
  std::string path;
  std::int64_t grid = 48;
  double tol = 1e-8;
  int max_iters = 5000;
  int every = 25;  // residual printed every `every` iterations
};

// Every rank parses the same argv (so a bad option fails on all of them); only the root
// prints the usage.
Args parse_args(int argc, char** argv, bool root) {
  Args args;
  args.path = tessera_example::data_file("matrices/fv2.mtx.gz");
  for (tessera::CommandLine cl(
           argc, argv,
           root ? "usage: mpiexec -n P dist_cg [--poisson N=48] [--tol T=1e-8] [--max-iters I=5000] [--every E=25]"
                  " [matrix.mtx[.gz]]\n"
                  "Solves the 3-D Poisson problem on an N^3 grid, then the SPD matrix "
                  "(default $TESSERA_DATA_DIR/matrices/fv2.mtx.gz).\n"
                : "");
       cl.next();) {
    if (cl.is("--poisson")) args.grid = cl.int64_value();
    else if (cl.is("--tol")) args.tol = cl.double_value();
    else if (cl.is("--max-iters")) args.max_iters = cl.int_value();
    else if (cl.is("--every")) args.every = cl.int_value();
    else if (cl.is_option()) cl.reject();
    else args.path = cl.single_argument();
  }
  if (args.grid < 1 || args.max_iters < 1 || args.every < 1)
    throw tessera::Error("--poisson, --max-iters and --every must be positive");
  // |r|/|b| starts at 1: a tolerance of 1 or more would accept x = 0.
  if (!(args.tol > 0 && args.tol < 1)) throw tessera::Error("--tol must be in (0, 1)");
  return args;
}

using Policy = Kokkos::RangePolicy<Space, Kokkos::IndexType<std::int64_t>>;

double all_ranks_sum(MPI_Comm comm, double local) {
  double global = 0;
  MPI_Allreduce(&local, &global, 1, MPI_DOUBLE, MPI_SUM, comm);
  return global;
}

double dot(MPI_Comm comm, const Vector& a, const Vector& b) {
  const auto u = a.local(), v = b.local();
  double local = 0;
  Kokkos::parallel_reduce(
      "dist_cg::dot", Policy(0, u.extent(0)), KOKKOS_LAMBDA(const std::int64_t i, double& sum) { sum += u(i) * v(i); },
      local);
  return all_ranks_sum(comm, local);
}

// x += alpha p, r -= alpha Ap; returns r·r over all ranks.
double update(MPI_Comm comm, double alpha, const Vector& p, const Vector& Ap, const Vector& x, const Vector& r) {
  const auto pv = p.local(), Apv = Ap.local(), xv = x.local(), rv = r.local();
  double local = 0;
  Kokkos::parallel_reduce(
      "dist_cg::update", Policy(0, xv.extent(0)),
      KOKKOS_LAMBDA(const std::int64_t i, double& sum) {
        xv(i) += alpha * pv(i);
        rv(i) -= alpha * Apv(i);
        sum += rv(i) * rv(i);
      },
      local);
  return all_ranks_sum(comm, local);
}

// y = a x + b y on this rank's block.
void axpby(double a, const Vector& x, double b, const Vector& y) {
  const auto xv = x.local(), yv = y.local();
  Kokkos::parallel_for(
      "dist_cg::axpby", Policy(0, yv.extent(0)), KOKKOS_LAMBDA(const std::int64_t i) { yv(i) = a * xv(i) + b * yv(i); });
}

// Solves A x = A·1 from x = 0; returns true when it converged with a small error.
bool solve(const std::string& name, const Matrix& A, const Args& args) {
  MPI_Comm comm = A.comm();
  const bool root = tessera::dist::comm_rank(comm) == 0;
  if (A.extent(0) != A.extent(1))
    throw tessera::ShapeError("CG needs a square matrix; " + name + " is " + std::to_string(A.extent(0)) + " x " +
                              std::to_string(A.extent(1)));
  if (root)
    std::printf("\n%s: %lld x %lld, %lld nonzeros, %d ranks\n", name.c_str(), static_cast<long long>(A.extent(0)),
                static_cast<long long>(A.extent(1)), static_cast<long long>(A.nnz()), tessera::dist::comm_size(comm));
  Vector ones(comm, A.cols()), b(comm, A.rows()), x(comm, A.cols()), r(comm, A.rows()), p(comm, A.cols()),
      Ap(comm, A.rows());
  Kokkos::deep_copy(ones.local(), 1.0);
  tessera::dist::spmv(1.0, A, ones, 0.0, b);
  Kokkos::deep_copy(r.local(), b.local());  // r = b - A·0
  Kokkos::deep_copy(p.local(), r.local());
  const double b_norm = std::sqrt(dot(comm, b, b));
  if (!(b_norm > 0) || !std::isfinite(b_norm))
    throw tessera::Error(name + ": |A 1| is " + std::to_string(b_norm) + ", not a right-hand side CG can solve for");
  double rr = dot(comm, r, r);

  MPI_Barrier(comm);
  const double t0 = MPI_Wtime();
  double spmv_time = 0;
  int it = 0;
  double rel = std::sqrt(rr) / b_norm;
  if (root) std::printf("  iter %5d  |r|/|b| = %.3e\n", it, rel);
  while (it < args.max_iters && rel > args.tol) {
    const double s0 = MPI_Wtime();
    tessera::dist::spmv(1.0, A, p, 0.0, Ap);
    Space().fence();  // the next dot waits for it anyway; here the wait counts as spmv time
    spmv_time += MPI_Wtime() - s0;
    const double pAp = dot(comm, p, Ap);
    // p^T A p > 0 for every p != 0 is what CG needs of A; where it fails, the step is
    // undefined and the iterates would turn to NaN.
    if (!(pAp > 0) || !std::isfinite(pAp)) {
      if (root)
        std::fprintf(stderr, "  CG broke down at iteration %d: p^T A p = %.3e; %s is not symmetric positive definite\n",
                     it + 1, pAp, name.c_str());
      return false;
    }
    const double alpha = rr / pAp;
    const double rr_next = update(comm, alpha, p, Ap, x, r);
    axpby(1.0, r, rr_next / rr, p);  // p = r + beta p
    rr = rr_next;
    rel = std::sqrt(rr) / b_norm;
    ++it;
    if (root && (it % args.every == 0 || rel <= args.tol)) std::printf("  iter %5d  |r|/|b| = %.3e\n", it, rel);
  }
  Space().fence();
  double elapsed = MPI_Wtime() - t0, slowest[2] = {0, 0};
  const double mine[2] = {elapsed, spmv_time};
  MPI_Allreduce(mine, slowest, 2, MPI_DOUBLE, MPI_MAX, comm);

  // Error against the known solution 1.
  axpby(-1.0, ones, 1.0, x);
  const double error = std::sqrt(dot(comm, x, x) / static_cast<double>(A.extent(0)));
  // x's error grows with the residual (times A's condition number); below round-off, the
  // rounding of x itself sets the floor.
  const double error_bound = 1e3 * std::max(args.tol, std::numeric_limits<double>::epsilon()) *
                             std::max<double>(1.0, std::sqrt(A.extent(0)));
  const bool converged = rel <= args.tol;
  if (root) {
    std::printf("  %s after %d iterations: |r|/|b| = %.3e, rms error vs 1 = %.3e\n"
                "  time per iteration %.3f ms (of which dist::spmv %.3f ms), slowest rank\n",
                converged ? "converged" : "NOT converged", it, rel, error, 1e3 * slowest[0] / std::max(it, 1),
                1e3 * slowest[1] / std::max(it, 1));
    // A small residual with x far from 1: A x = b has other solutions (A singular) or
    // amplifies the residual beyond the bound (A ill-conditioned).
    if (converged && !(error < error_bound))
      std::fprintf(stderr,
                   "  the residual is small but x is not the solution 1 (rms error %.3e > %.3e): %s is singular "
                   "or too ill-conditioned\n",
                   error, error_bound, name.c_str());
  }
  return converged && error < error_bound;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  const bool root = tessera::dist::comm_rank(MPI_COMM_WORLD) == 0;
  // The command line first: --help prints our usage alone, a bad option ends before Kokkos starts.
  Args args;
  const auto parsed = tessera::walk_command_line("dist_cg", [&] { args = parse_args(argc, argv, root); }, root);
  int status = parsed.value_or(0);
  const bool kokkos_help = tessera_example::asks_for_kokkos_help(argc, argv);
  std::optional<tessera::dist::ScopeGuard> kokkos;
  if (!parsed) {
    try {
      kokkos.emplace(MPI_COMM_WORLD, argc, argv);  // one GPU per rank in a CUDA build
    } catch (const std::exception& e) {  // the same arguments on every rank: the same failure
      if (root) tessera_example::report_error("Kokkos did not start: " + tessera_example::error_text(e));
      status = 2;
    }
  }
  if (kokkos && !kokkos_help) {
    try {
      bool ok = solve("3-D Poisson " + std::to_string(args.grid) + "^3",
                      tessera::dist::poisson_3d<Matrix>(MPI_COMM_WORLD, args.grid), args);
      ok = solve(args.path, Matrix::read_matrix_market(MPI_COMM_WORLD, args.path), args) && ok;
      status = ok ? 0 : 1;
    } catch (const tessera::Error& e) {
      // Library errors reach every rank (collective agreement): report once, exit cleanly.
      if (root) tessera_example::report_error(tessera_example::error_text(e));
      status = 2;
    } catch (const std::exception& e) {
      // Anything else (std::bad_alloc) may have struck this rank alone while the others wait
      // in a collective call: only ending the job frees them.
      std::fprintf(stderr, "error on rank %d: %s\n", tessera::dist::comm_rank(MPI_COMM_WORLD),
                   tessera_example::error_text(e).c_str());
      MPI_Abort(MPI_COMM_WORLD, 2);
    }
    kokkos.reset();
  }
  MPI_Finalize();
  return status;
}
