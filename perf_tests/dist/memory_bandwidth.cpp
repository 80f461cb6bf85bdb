// Memory bandwidth that P ranks get at once, each streaming its own arrays: the ceiling
// of any memory-bound kernel's strong scaling on the machine (run_dist.sh prints it next
// to the SpMV/SpMM efficiencies of the same run). Kernels, STREAM style, over arrays of
// --mib MiB each, first touched by the rank that uses them:
//   read   s += b[i]                       8 bytes per element
//   triad  a[i] = b[i] + q * c[i]          24 bytes per element (the store's read for
//                                          ownership not counted, as in STREAM)
// A time is the slowest rank's, median of --reps passes, each between barriers.
// Prints one Markdown row: | ranks | read GB/s | triad GB/s | (all ranks together).
// Usage: mpiexec -n P memory_bandwidth [--mib 128] [--reps 9]
#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <string>
#include <vector>

#include "tessera/core/command_line.hpp"

namespace {

double slowest_rank_seconds(double seconds) {
  double slowest = 0;
  MPI_Allreduce(&seconds, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return slowest;
}

template <class Kernel>
double median_seconds(int reps, Kernel&& kernel) {
  std::vector<double> times;
  for (int r = 0; r < reps; ++r) {
    MPI_Barrier(MPI_COMM_WORLD);
    const auto t0 = std::chrono::steady_clock::now();
    kernel();
    times.push_back(slowest_rank_seconds(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count()));
  }
  std::nth_element(times.begin(), times.begin() + reps / 2, times.end());
  return times[reps / 2];
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, ranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  long mib = 128;
  int reps = 9;
  // Every rank walks the same argv; rank 0 alone prints the usage or the error.
  const auto status = tessera::walk_command_line(
      "memory_bandwidth",
      [&] {
        for (tessera::CommandLine cl(argc, argv, rank == 0 ? "usage: mpiexec -n P memory_bandwidth [--mib MiB per array] [--reps N]\n" : "");
             cl.next();) {
          if (cl.is("--mib")) mib = cl.integer(1, 1 << 20);
          else if (cl.is("--reps")) reps = static_cast<int>(cl.integer(1, 1000000));
          else cl.reject();
        }
      },
      rank == 0);
  if (status) {
    MPI_Finalize();
    return *status;
  }
  const std::size_t n = static_cast<std::size_t>(mib) * (1 << 20) / sizeof(double);
  std::vector<double> a(n, 0.0), b(n, 1.0), c(n, 2.0);  // first touch by this rank
  volatile double sink = 0;
  const double read_s = median_seconds(reps, [&] {
    // Eight independent sums: one chain of dependent adds would time the adder's latency.
    double s[8] = {};
    for (std::size_t i = 0; i + 8 <= n; i += 8)
      for (int j = 0; j < 8; ++j) s[j] += b[i + j];
    for (std::size_t i = n / 8 * 8; i < n; ++i) s[0] += b[i];
    sink = sink + s[0] + s[1] + s[2] + s[3] + s[4] + s[5] + s[6] + s[7];
  });
  const double q = 3.0;
  const double triad_s = median_seconds(reps, [&] {
    double* const pa = a.data();
    const double* const pb = b.data();
    const double* const pc = c.data();
    for (std::size_t i = 0; i < n; ++i) pa[i] = pb[i] + q * pc[i];
  });
  if (rank == 0) {
    const double bytes = static_cast<double>(n) * sizeof(double) * ranks;
    std::printf("| %d | %.1f | %.1f |\n", ranks, bytes / read_s * 1e-9, 3 * bytes / triad_s * 1e-9);
  }
  MPI_Finalize();
  return 0;
}
