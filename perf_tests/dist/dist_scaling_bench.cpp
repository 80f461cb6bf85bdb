// Scaling of the distributed kernels over ranks, one rank per GPU in a CUDA build
// (dist::ScopeGuard maps them; host builds run on each rank's host threads): the 3-D
// Poisson matrix built in place (dist::poisson_3d) and, with --power-law, an irregular
// matrix generated on each rank, then dist::spmv and dist::spmm with k columns, and with
// --spgemm-poisson dist::spgemm (C = A A) of a Poisson matrix. On one
// rank the same product through tessera::spmv (tessera::spgemm) on the whole matrix is timed
// too (the single-GPU call the distributed one is held to); on several ranks the halo exchange of
// the SpMM's k columns alone is timed too (what the local product must hide). A time is
// the slowest rank's, per call, median of --runs batches of --reps calls, each batch
// between barriers and ending with a fence. Results are checked against the row sums of
// the matrix (A 1, known in closed form for both; C 1 against A (A 1) for SpGEMM). Prints
// Markdown table rows.
// --model P prints instead, on one rank, the halo each rank of 1, 2, 4, ... P ranks
// exchanges per product, from the ghost columns of the same partition (no GPU needed).
// Options: kUsage below (dist_scaling_bench --help).
#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include <Kokkos_Core.hpp>
#ifdef KOKKOS_ENABLE_CUDA
#include <cuda_runtime.h>
#endif

#include "tessera/core/command_line.hpp"
#include "tessera/dist.hpp"
#include "tessera/tessera.hpp"

namespace {

using Space = Kokkos::DefaultExecutionSpace;
using Matrix = tessera::dist::DistTensor<double, tessera::CSR, Space>;
using Vector = tessera::dist::DistVector<double, Space>;
using MultiVector = tessera::dist::DistMultiVector<double, Space>;

struct Args {
  std::int64_t grid = 200;       // Poisson grid of the SpMV (0: no Poisson matrix)
  std::int64_t spmm_grid = 0;    // Poisson grid of the SpMM (0: grid)
  std::vector<std::int64_t> ks{16, 64};
  int reps = 20, runs = 5;
  std::int64_t model_ranks = 0;  // > 0: print the exchange model up to this many ranks
  std::int64_t power_law = 0;    // rows of the irregular matrix (0: none)
  std::int64_t spgemm_grid = 0;  // Poisson grid of the SpGEMM (0: none)
};

constexpr const char* kUsage =
    "usage: mpiexec -n P dist_scaling_bench [--poisson N=200] [--spmm-poisson N] [--power-law R] [--k 16,64]\n"
    "         [--spgemm-poisson N] [--reps 20] [--runs 5] [--model P]\n"
    "(--spmm-poisson: a smaller grid for the SpMM, whose dense blocks take rows x k values;\n"
    " --poisson 0: no Poisson matrix; --power-law R: also an irregular R x R matrix (row lengths\n"
    " of a power law, columns mostly near the diagonal); --k 0: no SpMM; --spgemm-poisson N:\n"
    " also C = A A of the Poisson N^3 matrix, each product timed once per run after one warm-up;\n"
    " --model P: the halo model for 1 to P ranks, on one rank, no products)\n";

Args parse_args(int argc, char** argv, bool root) {
  Args args;
  constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();
  for (tessera::CommandLine cl(argc, argv, root ? kUsage : ""); cl.next();) {
    if (cl.is("--poisson")) args.grid = cl.integer(0, kMax);
    else if (cl.is("--spmm-poisson")) args.spmm_grid = cl.integer(1, kMax);
    else if (cl.is("--k")) args.ks = cl.int64_list();
    else if (cl.is("--reps")) args.reps = static_cast<int>(cl.integer(1, 1000000));
    else if (cl.is("--runs")) args.runs = static_cast<int>(cl.integer(1, 1000000));
    else if (cl.is("--model")) args.model_ranks = cl.integer(1, 1 << 20);
    else if (cl.is("--power-law")) args.power_law = cl.integer(1, kMax);
    else if (cl.is("--spgemm-poisson")) args.spgemm_grid = cl.integer(1, kMax);
    else cl.reject();
  }
  for (const std::int64_t k : args.ks)
    if (k < 0) throw tessera::Error("--k: columns must be >= 0");
  if (args.spmm_grid == 0) args.spmm_grid = args.grid;
  return args;
}

// Seconds per call: slowest rank, median over batches.
double time_per_call(MPI_Comm comm, const Args& args, const std::function<void()>& op, int warmups = 3) {
  for (int w = 0; w < warmups; ++w) op();  // buffers allocated, plans built
  Space().fence();
  std::vector<double> batches;
  for (int run = 0; run < args.runs; ++run) {
    MPI_Barrier(comm);
    const double t0 = MPI_Wtime();
    for (int r = 0; r < args.reps; ++r) op();
    Space().fence();
    double mine = (MPI_Wtime() - t0) / args.reps, slowest = 0;
    MPI_Allreduce(&mine, &slowest, 1, MPI_DOUBLE, MPI_MAX, comm);
    batches.push_back(slowest);
  }
  std::sort(batches.begin(), batches.end());
  return batches[batches.size() / 2];
}

// Largest |y_i - scale (A 1)_i| over all ranks; row_sum(i) = (A 1)_i.
template <class View>
double row_sum_error(MPI_Comm comm, std::int64_t r0, const View& y, double scale,
                     const std::function<double(std::int64_t)>& row_sum) {
  const auto yh = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), y);
  double mine = 0, all = 0;
  const std::int64_t k = static_cast<std::int64_t>(yh.extent(1));
  for (std::int64_t r = 0; r < static_cast<std::int64_t>(yh.extent(0)); ++r) {
    const double want = row_sum(r0 + r);
    for (std::int64_t c = 0; c < k; ++c) mine = std::max(mine, std::fabs(yh(r, c) - scale * want));
  }
  MPI_Allreduce(&mine, &all, 1, MPI_DOUBLE, MPI_MAX, comm);
  return all;
}

// A 1 of the Poisson matrix: 6 minus the grid neighbours of row i (0 inside, up to 3 on the faces).
std::function<double(std::int64_t)> poisson_row_sum(std::int64_t n) {
  return [n](std::int64_t i) {
    double sum = 0;
    tessera::poisson_3d_stencil(n, i, [&](std::int64_t, double v) { sum += v; });
    return sum;
  };
}

// The irregular matrix of --power-law: row i has length(i) entries, a Pareto law's draw (4 at
// least, 4096 at most: a scale-free graph's degrees), each column within rows / 64 of the
// diagonal for 7 entries in 8 and anywhere for the rest, every value 1 (so A 1 is the row's
// length, duplicates summed). Entry (i, k) is a hash of i and k: every rank makes its own rows.
struct PowerLawMatrix {
  std::int64_t rows;

  static std::uint64_t mix(std::uint64_t x) {  // splitmix64's finalizer
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
  }
  std::int64_t length(std::int64_t i) const {
    const double u = (static_cast<double>(mix(static_cast<std::uint64_t>(i)) >> 11) + 1) * 0x1.0p-53;  // (0, 1]
    return std::min<std::int64_t>(4096, static_cast<std::int64_t>(4.0 * std::pow(u, -1.0 / 1.6)));
  }
  std::int64_t column(std::int64_t i, std::int64_t k) const {
    const std::uint64_t h = mix(static_cast<std::uint64_t>(i) * 8191 + static_cast<std::uint64_t>(k) + 1);
    const std::int64_t window = std::max<std::int64_t>(1, rows / 64);
    if ((h & 7) == 0) return static_cast<std::int64_t>((h >> 3) % static_cast<std::uint64_t>(rows));
    const auto offset = static_cast<std::int64_t>((h >> 3) % static_cast<std::uint64_t>(2 * window + 1));
    const std::int64_t j = i - window + offset;
    return std::clamp<std::int64_t>(j, 0, rows - 1);
  }
  Matrix build(MPI_Comm comm) const {
    const int rank = tessera::dist::comm_rank(comm);
    const auto blocks = tessera::dist::RowPartition::uniform(rows, tessera::dist::comm_size(comm));
    tessera::HostCoo<double> owned;
    owned.shape = {rows, rows};
    for (std::int64_t i = blocks.begin(rank); i < blocks.end(rank); ++i)
      for (std::int64_t k = 0, n = length(i); k < n; ++k) {
        owned.coords.insert(owned.coords.end(), {i, column(i, k)});
        owned.values.push_back(1.0);
      }
    return Matrix::from_owned_rows(comm, blocks, blocks, owned);
  }
};

// One matrix of the benchmark: how it is built, named and checked.
struct MatrixCase {
  std::string name, builder;
  std::function<Matrix(MPI_Comm)> build;
  std::function<double(std::int64_t)> row_sum;  // (A 1)_i
};

MatrixCase poisson_case(std::int64_t n) {
  return {"Poisson " + std::to_string(n) + "^3", "dist::poisson_3d",
          [n](MPI_Comm comm) { return tessera::dist::poisson_3d<Matrix>(comm, n); }, poisson_row_sum(n)};
}

MatrixCase power_law_case(std::int64_t rows) {
  const PowerLawMatrix m{rows};
  return {"power-law " + std::to_string(rows), "generated per rank, from_owned_rows",
          [m](MPI_Comm comm) { return m.build(comm); },
          [m](std::int64_t i) { return static_cast<double>(m.length(i)); }};
}

std::string device_name() {
#ifdef KOKKOS_ENABLE_CUDA
  int device = 0;
  cudaDeviceProp props{};
  if (cudaGetDevice(&device) == cudaSuccess && cudaGetDeviceProperties(&props, device) == cudaSuccess)
    return std::string(props.name) + " (device " + std::to_string(device) + ")";
  return "CUDA device (unknown)";
#else
  return std::string(Space::name()) + " host space";
#endif
}

void print_row(const std::string& matrix, int ranks, const std::string& op, double seconds, const std::string& note) {
  std::printf("| %s | %d | %s | %.4f | %s |\n", matrix.c_str(), ranks, op.c_str(), 1e3 * seconds, note.c_str());
}

void print_devices(MPI_Comm comm) {
  const int rank = tessera::dist::comm_rank(comm), ranks = tessera::dist::comm_size(comm);
  const std::string mine = device_name();
  for (int r = 0; r < ranks; ++r) {
    if (r == rank) std::printf("<!-- rank %d of %d: %s -->\n", rank, ranks, mine.c_str());
    std::fflush(stdout);
    MPI_Barrier(comm);
  }
}

// Builds the case's matrix into A; the slowest rank's seconds.
double build(MPI_Comm comm, const MatrixCase& c, Matrix& A) {
  MPI_Barrier(comm);
  const double t0 = MPI_Wtime();
  A = c.build(comm);
  Space().fence();
  double elapsed = MPI_Wtime() - t0, slowest = 0;
  MPI_Allreduce(&elapsed, &slowest, 1, MPI_DOUBLE, MPI_MAX, comm);
  if (tessera::dist::comm_rank(comm) == 0)
    print_row(c.name, tessera::dist::comm_size(comm), "build (" + c.builder + ")", slowest, "");
  return slowest;
}

std::string check(double error) {
  if (!(error <= 1e-12)) throw tessera::Error("wrong product: max error " + std::to_string(error));
  return "checked";
}

// dist::spmv of c's matrix (and on one rank the one-process tessera::spmv).
void time_spmv(MPI_Comm comm, const Args& args, const MatrixCase& c, const Matrix& A) {
  const int rank = tessera::dist::comm_rank(comm), ranks = tessera::dist::comm_size(comm);
  const std::int64_t r0 = A.rows().begin(rank);
  const std::int64_t ghosts = A.import_plan().ghosts();
  std::int64_t most_ghosts = 0;
  MPI_Allreduce(&ghosts, &most_ghosts, 1, MPI_INT64_T, MPI_MAX, comm);
  const tessera::dist::HaloTransport transport = A.halo().transport();  // collective: sets the halo up
  if (rank == 0)
    std::printf("<!-- %s: %lld rows, %lld nonzeros, %d ranks, at most %lld ghosts per rank, halo %s -->\n",
                c.name.c_str(), static_cast<long long>(A.extent(0)), static_cast<long long>(A.nnz()), ranks,
                static_cast<long long>(most_ghosts), tessera::dist::describe(transport));
  Vector x(comm, A.cols()), y(comm, A.rows());
  Kokkos::deep_copy(x.local(), 1.0);
  using Block = Kokkos::View<double**, Kokkos::LayoutRight, Space>;
  const auto y_block = [&] { return Block(y.local().data(), y.local().extent(0), 1); };
  const double t = time_per_call(comm, args, [&] { tessera::dist::spmv(1.0, A, x, 0.0, y); });
  const std::string ok = check(row_sum_error(comm, r0, y_block(), 1.0, c.row_sum));
  if (rank == 0) print_row(c.name, ranks, "dist::spmv", t, ok);
  if (ranks > 1) return;
  tessera::SpmvHandle handle;
  const double single =
      time_per_call(comm, args, [&] { tessera::spmv(Space(), 1.0, A.diagonal(), x.local(), 0.0, y.local(), handle); });
  const std::string ok1 = check(row_sum_error(comm, r0, y_block(), 1.0, c.row_sum));
  print_row(c.name, ranks, "tessera::spmv (one process)", single,
            ok1 + "; dist::spmv / this = " + std::to_string(t / single));
}

// dist::spmm of c's matrix for each k of --k (and on several ranks the exchange alone).
void time_spmm(MPI_Comm comm, const Args& args, const MatrixCase& c, Matrix& A) {
  const int rank = tessera::dist::comm_rank(comm), ranks = tessera::dist::comm_size(comm);
  for (const std::int64_t k : args.ks) {
    if (k == 0) continue;
    MultiVector B(comm, A.cols(), k), C(comm, A.rows(), k);
    Kokkos::deep_copy(B.local(), 1.0);
    tessera::dist::DistSpmmHandle handle;
    const double t = time_per_call(comm, args, [&] { tessera::dist::spmm(1.0, A, B, 0.0, C, handle); });
    const std::string ok = check(row_sum_error(comm, A.rows().begin(rank), C.local(), 1.0, c.row_sum));
    if (rank == 0) print_row(c.name, ranks, "dist::spmm k=" + std::to_string(k), t, ok);
    if (ranks == 1) continue;
    auto& halo = A.halo();
    // The diagonal block's product alone, as dist::spmm runs it: what the exchange hides behind.
    const double local = time_per_call(comm, args, [&] {
      tessera::spmm(Space(), 1.0, A.diagonal(), B.local(), 0.0, C.local(), handle.diagonal());
    });
    if (rank == 0) print_row(c.name, ranks, "diagonal block's product alone, k=" + std::to_string(k), local, "");
    // The exchange around the diagonal product, without the boundary rows' products: the
    // diagonal product's time where the exchange is hidden behind it.
    const double overlapped = time_per_call(comm, args, [&] {
      halo.start(Space(), B.local());
      halo.overlap([&] { tessera::spmm(Space(), 1.0, A.diagonal(), B.local(), 0.0, C.local(), handle.diagonal()); });
      (void)halo.finish(Space());
    });
    if (rank == 0)
      print_row(c.name, ranks, "exchange around the diagonal product, k=" + std::to_string(k), overlapped, "");
    // The exchange alone (pack, copies, MPI, nothing to overlap): what the product must hide.
    const double exchange = time_per_call(comm, args, [&] {
      halo.start(Space(), B.local());
      halo.overlap([] {});
      (void)halo.finish(Space());
    });
    if (rank == 0) print_row(c.name, ranks, "halo exchange alone, k=" + std::to_string(k), exchange, "");
  }
}

// Largest |a_i - b_i| over all ranks.
double max_difference(MPI_Comm comm, const Vector& a, const Vector& b) {
  const auto ah = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), a.local());
  const auto bh = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), b.local());
  double mine = 0, all = 0;
  for (std::size_t i = 0; i < ah.extent(0); ++i) mine = std::max(mine, std::fabs(ah(i) - bh(i)));
  MPI_Allreduce(&mine, &all, 1, MPI_DOUBLE, MPI_MAX, comm);
  return all;
}

// dist::spgemm C = A A of c's matrix, a call per batch (a product takes far longer than an
// SpMV); checked by C 1 = A (A 1). On one rank, tessera::spgemm on the whole matrix too.
void time_spgemm(MPI_Comm comm, const Args& args, const MatrixCase& c, const Matrix& A) {
  const int ranks = tessera::dist::comm_size(comm);
  Args once = args;
  once.reps = 1;
  Matrix C;
  const double t = time_per_call(comm, once, [&] { C = tessera::dist::spgemm(A, A); }, 1);
  Vector ones(comm, A.cols()), a1(comm, A.rows()), aa1(comm, A.rows()), c1(comm, A.rows());
  Kokkos::deep_copy(ones.local(), 1.0);
  tessera::dist::spmv(1.0, A, ones, 0.0, a1);
  tessera::dist::spmv(1.0, A, a1, 0.0, aa1);
  tessera::dist::spmv(1.0, C, ones, 0.0, c1);
  const std::string ok = check(max_difference(comm, c1, aa1));
  if (tessera::dist::comm_rank(comm) != 0) return;
  std::printf("<!-- %s squared: %lld nonzeros -->\n", c.name.c_str(), static_cast<long long>(C.nnz()));
  print_row(c.name, ranks, "dist::spgemm C = A A", t, ok);
  if (ranks > 1) return;
  const double single = time_per_call(
      comm, once, [&] { (void)tessera::spgemm(Space(), A.diagonal(), A.diagonal()); }, 1);
  print_row(c.name, ranks, "tessera::spgemm (one process)", single, "dist::spgemm / this = " + std::to_string(t / single));
}

void run(MPI_Comm comm, const Args& args) {
  print_devices(comm);
  bool any_k = false;
  for (const std::int64_t k : args.ks) any_k = any_k || k > 0;
  Matrix A;
  if (args.grid > 0) {
    const MatrixCase spmv_case = poisson_case(args.grid);
    build(comm, spmv_case, A);
    time_spmv(comm, args, spmv_case, A);
    if (any_k) {
      const MatrixCase spmm_case = poisson_case(args.spmm_grid);
      if (args.spmm_grid != args.grid) {
        A = Matrix();
        build(comm, spmm_case, A);
      }
      time_spmm(comm, args, spmm_case, A);
    }
    A = Matrix();
  }
  if (args.power_law > 0) {
    const MatrixCase irregular = power_law_case(args.power_law);
    build(comm, irregular, A);
    time_spmv(comm, args, irregular, A);
    time_spmm(comm, args, irregular, A);
    A = Matrix();
  }
  if (args.spgemm_grid > 0) {
    const MatrixCase squared = poisson_case(args.spgemm_grid);
    build(comm, squared, A);
    time_spgemm(comm, args, squared, A);
  }
}

// The halo of every rank of 1, 2, 4, ... P ranks (equal row blocks, as poisson_3d makes):
// ghost entries received (= entries sent: the pattern is symmetric), the bytes of one
// product in double at k = 1, 16, 64, and the ranks it exchanges with.
void model(std::int64_t n, std::int64_t max_ranks) {
  using Host = Kokkos::DefaultHostExecutionSpace;
  const std::int64_t rows = n * n * n;
  std::printf("| ranks | rows per rank | ghosts per rank (max) | ghosts / owned rows | MB per rank per spmv | "
              "MB per rank per spmm k=16 | k=64 | neighbour ranks (max) |\n|---:|---:|---:|---:|---:|---:|---:|---:|\n");
  for (std::int64_t p = 1; p <= max_ranks; p *= 2) {
    const auto blocks = tessera::dist::RowPartition::uniform(rows, static_cast<int>(p));
    std::int64_t most = 0, neighbours = 0;
    for (int r = 0; r < p; ++r) {
      const auto g = tessera::dist::detail::poisson_3d_ghosts<Host>(n, blocks.begin(r), blocks.end(r));
      const std::int64_t count = static_cast<std::int64_t>(g.cols.extent(0));
      std::int64_t owners = 0;
      for (std::int64_t q = 0, last = -1; q < count; ++q) {
        const int owner = blocks.owner(g.cols(q));
        owners += owner != last;
        last = owner;
      }
      most = std::max(most, count);
      neighbours = std::max(neighbours, owners);
    }
    const double mb = 8.0 * 2 * static_cast<double>(most) / 1e6;  // sent + received
    std::printf("| %lld | %lld | %lld | %.2f%% | %.2f | %.1f | %.1f | %lld |\n", static_cast<long long>(p),
                static_cast<long long>(blocks.count(0)), static_cast<long long>(most),
                100.0 * static_cast<double>(most) / static_cast<double>(blocks.count(0)), mb, 16 * mb, 64 * mb,
                static_cast<long long>(neighbours));
  }
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  const bool root = tessera::dist::comm_rank(MPI_COMM_WORLD) == 0;
  Args args;
  // The command line first: --help prints our usage alone, a bad option ends before Kokkos starts.
  const auto parsed = tessera::walk_command_line("dist_scaling_bench", [&] { args = parse_args(argc, argv, root); }, root);
  int status = parsed.value_or(0);
  if (!parsed) {
    try {
      tessera::dist::ScopeGuard kokkos(MPI_COMM_WORLD, argc, argv);
      if (args.model_ranks > 0) {
        if (root) model(args.grid, args.model_ranks);
      } else {
        run(MPI_COMM_WORLD, args);
      }
    } catch (const std::exception& e) {
      std::fprintf(stderr, "dist_scaling_bench: %s\n", e.what());
      status = 1;
    }
  }
  MPI_Finalize();
  return status;
}
