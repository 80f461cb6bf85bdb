// Host SpMV and SpMM on the real matrices: Tessera's kernels and Kokkos Kernels'
// spmv (the baseline) in one process, on the same CSR arrays (zero-copy interop).
// Row-major SpMM, which Kokkos Kernels' build does not instantiate, is compared with
// Tessera's own portable loop (SpmmHostLoop::Portable) instead.
// Run through perf_tests/run_spmv_spmm.sh, which prints the ratio table.
//   spmv_spmm_bench [--matrices DIR] [--n N] [google benchmark flags]
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <limits>
#include <string>
#include <vector>

#include <Kokkos_Core.hpp>
#include <KokkosSparse_spmv.hpp>
#include <benchmark/benchmark.h>

#include "../common/benchmark_command_line.hpp"
#include "tessera/tessera.hpp"

namespace {

using Space = Kokkos::DefaultHostExecutionSpace;
using Matrix = tessera::Tensor<double, tessera::CSR, Space>;
using Vector = Kokkos::View<double*, Space>;
template <class Layout>
using Dense = Kokkos::View<double**, Layout, Space>;

template <class View>
View filled(View v, double seed) {
  Kokkos::parallel_for(
      "fill", Kokkos::RangePolicy<Space>(0, v.span()),
      KOKKOS_LAMBDA(std::size_t p) { v.data()[p] = 0.5 + 0.25 * static_cast<double>((p * 2654435761u + static_cast<std::size_t>(seed)) % 1000) / 1000.0; });
  return v;
}

// Rates over wall-clock time: the kernels run on several threads.
void set_counters(benchmark::State& state, const Matrix& A, std::int64_t n) {
  state.counters["nnz"] = static_cast<double>(A.nnz());
  state.counters["GFLOPs"] = benchmark::Counter(2.0 * static_cast<double>(A.nnz()) * static_cast<double>(n) * 1e-9,
                                                benchmark::Counter::kIsIterationInvariantRate);
}

void register_matrix(const std::string& name, const Matrix& A, std::int64_t n) {
  const auto rows = A.extent(0), cols = A.extent(1);
  const auto crs = tessera::to_crs_matrix(A);
  const Vector x = filled(Vector("x", cols), 1), y("y", rows);
  benchmark::RegisterBenchmark(("spmv/tessera/" + name).c_str(), [=](benchmark::State& state) {
    for (auto _ : state) tessera::spmv(1.0, A, x, 0.0, y);
    set_counters(state, A, 1);
  })->UseRealTime()->MinWarmUpTime(0.05);
  benchmark::RegisterBenchmark(("spmv/kokkoskernels/" + name).c_str(), [=](benchmark::State& state) {
    for (auto _ : state) KokkosSparse::spmv("N", 1.0, crs, x, 0.0, y);
    set_counters(state, A, 1);
  })->UseRealTime()->MinWarmUpTime(0.05);
  const auto B_left = filled(Dense<Kokkos::LayoutLeft>("B", cols, n), 2);
  const Dense<Kokkos::LayoutLeft> C_left("C", rows, n);
  const auto B_right = filled(Dense<Kokkos::LayoutRight>("B", cols, n), 3);
  const Dense<Kokkos::LayoutRight> C_right("C", rows, n);
  const std::string suffix = std::to_string(n) + "/";
  benchmark::RegisterBenchmark(("spmm_left_n" + suffix + "tessera/" + name).c_str(), [=](benchmark::State& state) {
    for (auto _ : state) tessera::spmm(1.0, A, B_left, 0.0, C_left);
    set_counters(state, A, n);
  })->UseRealTime()->MinWarmUpTime(0.05);
  benchmark::RegisterBenchmark(("spmm_left_n" + suffix + "kokkoskernels/" + name).c_str(), [=](benchmark::State& state) {
    for (auto _ : state) KokkosSparse::spmv("N", 1.0, crs, B_left, 0.0, C_left);
    set_counters(state, A, n);
  })->UseRealTime()->MinWarmUpTime(0.05);
  benchmark::RegisterBenchmark(("spmm_right_n" + suffix + "tessera/" + name).c_str(), [=](benchmark::State& state) {
    for (auto _ : state) tessera::spmm(1.0, A, B_right, 0.0, C_right);
    set_counters(state, A, n);
  })->UseRealTime()->MinWarmUpTime(0.05);
  tessera::SpmmOptions portable;
  portable.host_loop = tessera::SpmmHostLoop::Portable;
  benchmark::RegisterBenchmark(("spmm_right_n" + suffix + "tessera_portable/" + name).c_str(),
                               [=](benchmark::State& state) {
                                 for (auto _ : state) tessera::spmm(1.0, A, B_right, 0.0, C_right, portable);
                                 set_counters(state, A, n);
                               })
      ->UseRealTime()
      ->MinWarmUpTime(0.05);
}

}  // namespace

int main(int argc, char** argv) {
  const char* env = std::getenv("TESSERA_DATA_DIR");
  std::string dir = std::string(env && *env ? env : "../shared/data") + "/matrices";
  std::int64_t n = 32;
  const auto status = tessera_bench::benchmark_command_line(
      argc, argv, "spmv_spmm_bench", "usage: spmv_spmm_bench [--matrices DIR] [--n N] [benchmark flags]\n",
      [&](tessera::CommandLine& cl) {
        if (cl.is("--matrices")) dir = cl.text();
        else if (cl.is("--n")) n = cl.integer(1, std::numeric_limits<std::int64_t>::max());
        else cl.reject();
      });
  if (status) return *status;
  Kokkos::ScopeGuard kokkos(argc, argv);  // after the command line: --help shows ours, not Kokkos'
  std::vector<std::filesystem::path> files;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(dir, ec))
    if (e.path().string().find(".mtx") != std::string::npos) files.push_back(e.path());
  std::sort(files.begin(), files.end());
  if (files.empty()) {
    std::fprintf(stderr, "no .mtx files in %s (set TESSERA_DATA_DIR or --matrices)\n", dir.c_str());
    return 2;
  }
  std::fprintf(stderr, "loading %zu matrices from %s, %d threads\n", files.size(), dir.c_str(), Space().concurrency());
  for (const auto& f : files) {
    try {
      const auto A = tessera::from_coo<double, tessera::CSR, Space>(tessera::io::read_matrix_market(f.string()));
      std::string name = f.filename().string();
      name = name.substr(0, name.find(".mtx"));
      register_matrix(name, A, n);
    } catch (const tessera::Error& e) {
      std::fprintf(stderr, "error: %s\n", e.what());
      return 2;
    }
  }
  benchmark::RunSpecifiedBenchmarks();
  // The registered benchmarks hold Views: release them before Kokkos finalizes.
  benchmark::ClearRegisteredBenchmarks();
  benchmark::Shutdown();
  return 0;
}
