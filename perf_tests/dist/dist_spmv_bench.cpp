// Strong scaling of tessera::dist::spmv and tessera::dist::spmm against PETSc's
// MatMult and MatMatMult (MATMPIAIJ times MATMPIDENSE; on one rank MATSEQAIJ times
// MATSEQDENSE, PETSc's own types there) in the same run: both use the same rows on
// the same ranks (PETSc's row ownership is set to Tessera's blocks),
// the same x / B values, and their results are compared after timing.
// Each rank computes on the host with its own thread count (OMP_NUM_THREADS, 1 for
// pure MPI scaling). A time is the slowest rank's, per call, median of --runs
// batches of --reps calls, each batch between barriers; the two libraries' batches
// alternate.
// Prints one Markdown table row per operation (run_dist.sh assembles the table).
// Options: kUsage below (dist_spmv_bench --help).
#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <numeric>
#include <stdexcept>
#include <limits>
#include <string>
#include <vector>

#include <Kokkos_Core.hpp>

#include "tessera/core/command_line.hpp"
#include "tessera/dist.hpp"
#include "tessera/tessera.hpp"

#ifdef TESSERA_HAVE_PETSC
#include <petscmat.h>
#endif

namespace {

using Space = Kokkos::DefaultHostExecutionSpace;
using Matrix = tessera::dist::DistTensor<double, tessera::CSR, Space>;

struct Args {
  std::string path;
  std::int64_t grid = 0;  // > 0: 3-D Poisson on grid^3 instead of a file
  std::int64_t k = 16;
  int reps = 50, runs = 5;
  tessera::SpmmOptions spmm;
};

tessera::SpmmHostLoop parse_loop(const std::string& s) {
  if (s == "auto") return tessera::SpmmHostLoop::Auto;
  if (s == "portable") return tessera::SpmmHostLoop::Portable;
  throw tessera::Error("--spmm-loop: expected auto or portable, got " + s);
}

tessera::SpmmOutputStores parse_stores(const std::string& s) {
  if (s == "auto") return tessera::SpmmOutputStores::Auto;
  if (s == "cached") return tessera::SpmmOutputStores::Cached;
  if (s == "streaming") return tessera::SpmmOutputStores::Streaming;
  throw tessera::Error("--spmm-stores: expected auto, cached or streaming, got " + s);
}

constexpr const char* kUsage =
    "usage: mpiexec -n P dist_spmv_bench [--poisson N] [matrix.mtx[.gz]] [--k 16] [--reps 50] [--runs 5]\n"
    "         [--spmm-loop auto|portable] [--spmm-stores auto|cached|streaming]\n"
    "(the last two set dist::spmm's SpmmOptions::host_loop and ::output_stores)\n";

// Every rank walks the same argv (a bad option fails on all of them); the root alone
// prints the usage.
Args parse_args(int argc, char** argv, bool root) {
  Args args;
  constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();
  for (tessera::CommandLine cl(argc, argv, root ? kUsage : ""); cl.next();) {
    if (cl.is("--poisson")) args.grid = cl.integer(1, kMax);
    else if (cl.is("--k")) args.k = cl.integer(1, kMax);
    else if (cl.is("--reps")) args.reps = static_cast<int>(cl.integer(1, 1000000));
    else if (cl.is("--runs")) args.runs = static_cast<int>(cl.integer(1, 1000000));
    else if (cl.is("--spmm-loop")) args.spmm.host_loop = parse_loop(cl.text());
    else if (cl.is("--spmm-stores")) args.spmm.output_stores = parse_stores(cl.text());
    else if (cl.is_option()) cl.reject();
    else args.path = cl.single_argument();
  }
  if (args.grid <= 0 && args.path.empty()) throw tessera::Error("give --poisson N or a matrix file");
  return args;
}

// Seconds per call of each op: slowest rank, median over batches. The ops' batches
// alternate, so that both libraries meet the same noise on a shared machine.
std::vector<double> time_per_call(MPI_Comm comm, const Args& args, const std::vector<std::function<void()>>& ops) {
  for (const auto& op : ops)
    for (int w = 0; w < 3; ++w) op();  // warm-up: buffers allocated, caches filled
  std::vector<std::vector<double>> batches(ops.size());
  for (int run = 0; run < args.runs; ++run)
    for (std::size_t turn = 0; turn < ops.size(); ++turn) {
      const std::size_t o = (turn + static_cast<std::size_t>(run)) % ops.size();  // rotate: neither library always runs first
      MPI_Barrier(comm);
      const double t0 = MPI_Wtime();
      for (int r = 0; r < args.reps; ++r) ops[o]();
      double mine = (MPI_Wtime() - t0) / args.reps, slowest = 0;
      MPI_Allreduce(&mine, &slowest, 1, MPI_DOUBLE, MPI_MAX, comm);
      batches[o].push_back(slowest);
    }
  std::vector<double> medians;
  for (auto& b : batches) {
    std::sort(b.begin(), b.end());
    medians.push_back(b[b.size() / 2]);
  }
  return medians;
}

double max_abs_diff(MPI_Comm comm, const std::vector<double>& a, const std::vector<double>& b) {
  double mine = 0, all = 0;
  for (std::size_t i = 0; i < a.size(); ++i) mine = std::max(mine, std::fabs(a[i] - b[i]));
  MPI_Allreduce(&mine, &all, 1, MPI_DOUBLE, MPI_MAX, comm);
  return all;
}

template <class V>
std::vector<double> host_copy(const V& view) {
  auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), view);
  return std::vector<double>(host.data(), host.data() + host.size());
}

#ifdef TESSERA_HAVE_PETSC
void petsc_check(PetscErrorCode code, const char* call) {
  if (code != 0) throw tessera::Error(std::string("PETSc: ") + call + " failed with error " + std::to_string(code));
}
#define PETSC_CHECK(call) petsc_check((call), #call)

// This rank's rows of A as PETSc CSR (global columns, sorted within rows).
struct LocalCsr {
  std::vector<PetscInt> row_ptr, cols;
  std::vector<PetscScalar> vals;
};
LocalCsr local_csr(const Matrix& A) {
  const auto coo = A.owned_coo();
  const std::int64_t r0 = A.rows().begin(tessera::dist::comm_rank(A.comm()));
  const std::int64_t m = A.rows().count(tessera::dist::comm_rank(A.comm()));
  std::vector<std::int64_t> order(coo.nnz());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](std::int64_t a, std::int64_t b) {
    return std::make_pair(coo.coords[2 * a], coo.coords[2 * a + 1]) < std::make_pair(coo.coords[2 * b], coo.coords[2 * b + 1]);
  });
  LocalCsr csr;
  csr.row_ptr.assign(m + 1, 0);
  for (std::int64_t n : order) {
    ++csr.row_ptr[coo.coords[2 * n] - r0 + 1];
    csr.cols.push_back(static_cast<PetscInt>(coo.coords[2 * n + 1]));
    csr.vals.push_back(coo.values[n]);
  }
  for (std::int64_t i = 0; i < m; ++i) csr.row_ptr[i + 1] += csr.row_ptr[i];
  return csr;
}
#endif

void print_row(const std::string& matrix, int ranks, const char* op, double tessera_s, double petsc_s,
               double max_diff) {
  std::printf("| %s | %d | %s | %.4f | ", matrix.c_str(), ranks, op, 1e3 * tessera_s);
  if (petsc_s > 0)
    std::printf("%.4f | %.2fx | %.1e |\n", 1e3 * petsc_s, petsc_s / tessera_s, max_diff);
  else
    std::printf("- | - | - |\n");
}

void run(const Args& args) {
  MPI_Comm comm = MPI_COMM_WORLD;
  const int rank = tessera::dist::comm_rank(comm), ranks = tessera::dist::comm_size(comm);
  const Matrix A = args.grid > 0 ? tessera::dist::poisson_3d<Matrix>(comm, args.grid)
                                  : Matrix::read_matrix_market(comm, args.path);
  const std::string name = args.grid > 0 ? "poisson3d_" + std::to_string(args.grid)
                                         : args.path.substr(args.path.find_last_of('/') + 1);
  const std::int64_t m = A.rows().count(rank), n = A.cols().count(rank), k = args.k;
  if (rank == 0) {
#ifdef TESSERA_HAVE_PETSC
    char version[128];
    PETSC_CHECK(PetscGetVersion(version, sizeof version));
    std::printf("<!-- PETSc: %s (the library loaded at run time) -->\n", version);
#else
    std::printf("<!-- PETSc: not built in (no PETSc column) -->\n");
#endif
  }
  if (rank == 0)
    std::printf("<!-- %s: %lld x %lld, %lld nonzeros, %d ranks, ghosts on rank 0: %lld -->\n", name.c_str(),
                static_cast<long long>(A.extent(0)), static_cast<long long>(A.extent(1)),
                static_cast<long long>(A.nnz()), ranks, static_cast<long long>(A.import_plan().ghosts()));

  // x_j = sin(j), B(j, c) = cos(j + c): the same values for both libraries.
  tessera::dist::DistVector<double, Space> x(comm, A.cols()), y(comm, A.rows());
  tessera::dist::DistMultiVector<double, Space> B(comm, A.cols(), k), C(comm, A.rows(), k);
  const std::int64_t c0 = A.cols().begin(rank);
  for (std::int64_t j = 0; j < n; ++j) {
    x.local()(j) = std::sin(static_cast<double>(c0 + j));
    for (std::int64_t c = 0; c < k; ++c) B.local()(j, c) = std::cos(static_cast<double>(c0 + j + c));
  }
  const auto tessera_spmv = [&] { tessera::dist::spmv(1.0, A, x, 0.0, y); };
  tessera::dist::DistSpmmHandle spmm_handle(args.spmm);  // the local blocks' plans, built once
  const auto tessera_spmm = [&] { tessera::dist::spmm(1.0, A, B, 0.0, C, spmm_handle); };
  if (rank == 0) {
    const bool avx512 = args.spmm.host_loop == tessera::SpmmHostLoop::Auto && tessera::spmm_host_loop_is_avx512<double>();
    const bool streaming =
        avx512 && tessera::dist::diagonal_spmm_options(C, args.spmm).output_stores == tessera::SpmmOutputStores::Streaming;
    std::printf("<!-- %s, %d ranks: dist::spmm's host loop %s%s -->\n", name.c_str(), ranks,
                avx512 ? "AVX-512" : "portable", avx512 ? (streaming ? ", streaming stores" : ", cached stores") : "");
  }
  double t_spmv = 0, t_spmm = 0, p_spmv = 0, p_spmm = 0, d_spmv = 0, d_spmm = 0;

#ifdef TESSERA_HAVE_PETSC
  LocalCsr csr = local_csr(A);
  Mat PA, PB, PC;
  Vec px, py;
  // On one rank PETSc's own choice (MATAIJ, and MatCreateDense below) is the sequential pair SeqAIJ x SeqDense;
  // an MPIAIJ A with that SeqDense B has no product kernel and MatMatMult falls back to one MatMult per
  // column of B (2.8x slower: perf_tests/results/dist_spmv_spmm_host.md). SeqAIJ uses csr's arrays in place.
  if (ranks == 1)
    PETSC_CHECK(MatCreateSeqAIJWithArrays(comm, m, n, csr.row_ptr.data(), csr.cols.data(), csr.vals.data(), &PA));
  else
    PETSC_CHECK(MatCreateMPIAIJWithArrays(comm, m, n, A.extent(0), A.extent(1), csr.row_ptr.data(), csr.cols.data(),
                                          csr.vals.data(), &PA));
  PETSC_CHECK(MatCreateVecs(PA, &px, &py));
  {
    PetscScalar* a;
    PETSC_CHECK(VecGetArray(px, &a));
    for (std::int64_t j = 0; j < n; ++j) a[j] = x.local()(j);
    PETSC_CHECK(VecRestoreArray(px, &a));
  }
  PETSC_CHECK(MatCreateDense(comm, n, PETSC_DECIDE, A.extent(1), k, nullptr, &PB));
  {
    PetscScalar* a;  // column-major, leading dimension n
    PETSC_CHECK(MatDenseGetArray(PB, &a));
    for (std::int64_t j = 0; j < n; ++j)
      for (std::int64_t c = 0; c < k; ++c) a[c * n + j] = B.local()(j, c);
    PETSC_CHECK(MatDenseRestoreArray(PB, &a));
  }
  PETSC_CHECK(MatMatMult(PA, PB, MAT_INITIAL_MATRIX, PETSC_DEFAULT, &PC));
  if (rank == 0) {
    MatType ta, tb;
    PETSC_CHECK(MatGetType(PA, &ta));
    PETSC_CHECK(MatGetType(PB, &tb));
    std::printf("<!-- PETSc on %d ranks: MatMult and MatMatMult of %s x %s -->\n", ranks, ta, tb);
  }
  const auto times_spmv = time_per_call(comm, args, {tessera_spmv, [&] { PETSC_CHECK(MatMult(PA, px, py)); }});
  const auto times_spmm = time_per_call(
      comm, args, {tessera_spmm, [&] { PETSC_CHECK(MatMatMult(PA, PB, MAT_REUSE_MATRIX, PETSC_DEFAULT, &PC)); }});
  t_spmv = times_spmv[0], p_spmv = times_spmv[1], t_spmm = times_spmm[0], p_spmm = times_spmm[1];

  // Same answers? (max |difference| over all entries)
  {
    const PetscScalar* a;
    PETSC_CHECK(VecGetArrayRead(py, &a));
    d_spmv = max_abs_diff(comm, host_copy(y.local()), std::vector<double>(a, a + m));
    PETSC_CHECK(VecRestoreArrayRead(py, &a));
    PetscScalar* c;
    PETSC_CHECK(MatDenseGetArray(PC, &c));
    std::vector<double> petsc_c(m * k);
    for (std::int64_t i = 0; i < m; ++i)
      for (std::int64_t col = 0; col < k; ++col) petsc_c[i * k + col] = c[col * m + i];
    PETSC_CHECK(MatDenseRestoreArray(PC, &c));
    d_spmm = max_abs_diff(comm, host_copy(C.local()), petsc_c);
  }
  PETSC_CHECK(MatDestroy(&PC));
  PETSC_CHECK(MatDestroy(&PB));
  PETSC_CHECK(VecDestroy(&px));
  PETSC_CHECK(VecDestroy(&py));
  PETSC_CHECK(MatDestroy(&PA));
#else
  t_spmv = time_per_call(comm, args, {tessera_spmv})[0];
  t_spmm = time_per_call(comm, args, {tessera_spmm})[0];
#endif

  if (rank == 0) {
    print_row(name, ranks, "SpMV", t_spmv, p_spmv, d_spmv);
    print_row(name, ranks, ("SpMM k=" + std::to_string(k)).c_str(), t_spmm, p_spmm, d_spmm);
  }
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int status = 0;
#ifdef TESSERA_HAVE_PETSC
  // PETSc runs on the MPI started above and leaves finalizing it to us.
  if (PetscInitialize(&argc, &argv, nullptr, nullptr) != 0) {
    MPI_Finalize();
    return 1;
  }
#endif
  {
    const bool root = tessera::dist::comm_rank(MPI_COMM_WORLD) == 0;
    Args args;
    const auto parsed = tessera::walk_command_line("dist_spmv_bench", [&] { args = parse_args(argc, argv, root); }, root);
    if (parsed) {
      status = *parsed;
    } else {
      Kokkos::ScopeGuard kokkos(argc, argv);  // after the command line: --help shows ours, not Kokkos'
      try {
        run(args);
      } catch (const std::exception& e) {
        std::fprintf(stderr, "dist_spmv_bench: %s\n", e.what());
        status = 1;
      }
    }
  }
#ifdef TESSERA_HAVE_PETSC
  PetscFinalize();
#endif
  MPI_Finalize();
  return status;
}
