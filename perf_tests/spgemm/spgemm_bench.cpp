// SpGEMM on the real matrices, C = B * S(B)^T, every competitor in one process on
// the same data:
//   spgemm_seq/{tessera,tessera_dense,tessera_hash,eigen}/<matrix>   one thread (Kokkos::Serial)
//   spgemm_omp/{tessera,kokkoskernels}/<matrix>                      all OpenMP threads
// Every call computes the whole product from scratch (symbolic + numeric for Kokkos
// Kernels). GFLOPs counts 2 flops per multiply-add. Eigen is a sequential baseline.
// With --memory_table, prints instead the peak workspace bytes of Dense vs sparse
// (Hash) workspaces for the row-wise and outer-product algorithms (Markdown).
//   spgemm_bench [--max_madds N] [--memory_table] [google benchmark flags]
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <limits>
#include <string>
#include <vector>

#include <Eigen/SparseCore>
#include <KokkosKernels_Handle.hpp>
#include <KokkosSparse_spgemm.hpp>
#include <Kokkos_Core.hpp>
#include <benchmark/benchmark.h>

#include "spgemm_operands.hpp"
#include "../common/benchmark_command_line.hpp"
#include "tessera/formats/convert.hpp"
#include "tessera/formats/crs_matrix.hpp"
#include "tessera/kernels/spgemm/spgemm.hpp"

namespace {

namespace ws = tessera::workspace;
using Serial = Kokkos::Serial;
using OpenMP = Kokkos::OpenMP;
template <class Space>
using Csr = tessera::Tensor<double, tessera::CSR, Space>;
using EigenCsr = Eigen::SparseMatrix<double, Eigen::RowMajor, int>;
using EigenMap = Eigen::Map<const EigenCsr>;

void set_counters(benchmark::State& state, const tessera_bench::SpgemmCase& c, std::int64_t out_nnz) {
  state.counters["nnz"] = static_cast<double>(c.left.nnz());
  state.counters["out_nnz"] = static_cast<double>(out_nnz);
  state.counters["GFLOPs"] = benchmark::Counter(2.0 * static_cast<double>(c.multiply_adds) * 1e-9,
                                                benchmark::Counter::kIsIterationInvariantRate);
}

EigenMap eigen_view(const Csr<Serial>& M) {
  const auto& s = M.decompose();
  return EigenMap(static_cast<int>(M.extent(0)), static_cast<int>(M.extent(1)), static_cast<int>(M.nnz()),
                  s.levels[1].pos.data(), s.levels[1].crd.data(), s.vals.data());
}

template <class Policy>
void register_tessera_seq(const std::string& impl, const tessera_bench::SpgemmCase& c, const Csr<Serial>& A,
                          const Csr<Serial>& B) {
  benchmark::RegisterBenchmark(("spgemm_seq/" + impl + "/" + c.name).c_str(), [=](benchmark::State& state) {
    std::int64_t nnz = 0;
    ws::Report report;
    for (auto _ : state) nnz = tessera::spgemm<Policy>(Serial(), A, B, {}, &report).nnz();
    set_counters(state, c, nnz);
    // Auto's pick, so that the table can set that policy's own time against the best one.
    if constexpr (std::is_same_v<Policy, ws::Auto>) state.SetLabel(std::string("chose ") + report.policy);
  })->UseRealTime()->MinWarmUpTime(0.05);
}

template <class Policy>
void register_tessera_omp(const std::string& impl, const tessera_bench::SpgemmCase& c, const Csr<OpenMP>& A,
                          const Csr<OpenMP>& B, ws::RowOutput row_output) {
  ws::Options options;
  options.row_output = row_output;
  benchmark::RegisterBenchmark(("spgemm_omp/" + impl + "/" + c.name).c_str(), [=](benchmark::State& state) {
    std::int64_t nnz = 0;
    for (auto _ : state) nnz = tessera::spgemm<Policy>(OpenMP(), A, B, options).nnz();
    set_counters(state, c, nnz);
  })->UseRealTime()->MinWarmUpTime(0.05);
}

void register_case(const tessera_bench::SpgemmCase& c) {
  const auto As = tessera::from_coo<double, tessera::CSR, Serial>(c.left);
  const auto Bs = tessera::from_coo<double, tessera::CSR, Serial>(c.right);
  register_tessera_seq<ws::Auto>("tessera", c, As, Bs);
  register_tessera_seq<ws::Dense>("tessera_dense", c, As, Bs);
  register_tessera_seq<ws::Hash>("tessera_hash", c, As, Bs);
  benchmark::RegisterBenchmark(("spgemm_seq/eigen/" + c.name).c_str(), [=](benchmark::State& state) {
    const EigenMap a = eigen_view(As), b = eigen_view(Bs);
    std::int64_t nnz = 0;
    for (auto _ : state) {
      const EigenCsr C = a * b;
      nnz = C.nonZeros();
    }
    set_counters(state, c, nnz);
  })->UseRealTime()->MinWarmUpTime(0.05);

  const auto Ao = tessera::from_coo<double, tessera::CSR, OpenMP>(c.left);
  const auto Bo = tessera::from_coo<double, tessera::CSR, OpenMP>(c.right);
  register_tessera_omp<ws::Auto>("tessera", c, Ao, Bo, ws::RowOutput::Auto);
  // Ablation of the Dense policy's output placement (Auto picks one of these two).
  register_tessera_omp<ws::Dense>("tessera_buffered", c, Ao, Bo, ws::RowOutput::Buffered);
  register_tessera_omp<ws::Dense>("tessera_symbolic", c, Ao, Bo, ws::RowOutput::Symbolic);
  benchmark::RegisterBenchmark(("spgemm_omp/kokkoskernels/" + c.name).c_str(), [=](benchmark::State& state) {
    using Matrix = decltype(tessera::to_crs_matrix(Ao));
    using Handle = KokkosKernels::Experimental::KokkosKernelsHandle<int, int, double, OpenMP, Kokkos::HostSpace,
                                                                    Kokkos::HostSpace>;
    const Matrix a = tessera::to_crs_matrix(Ao), b = tessera::to_crs_matrix(Bo);
    std::int64_t nnz = 0;
    for (auto _ : state) {
      Handle handle;
      handle.create_spgemm_handle(KokkosSparse::SPGEMM_KK);
      Matrix C;
      KokkosSparse::spgemm_symbolic(handle, a, false, b, false, C);
      KokkosSparse::spgemm_numeric(handle, a, false, b, false, C);
      nnz = C.nnz();
      handle.destroy_spgemm_handle();
    }
    set_counters(state, c, nnz);
  })->UseRealTime()->MinWarmUpTime(0.05);
}

template <class Policy, class OutEnc, class EncA>
std::int64_t peak_bytes(const tessera_bench::SpgemmCase& c, const char** ran = nullptr) {
  const auto A = tessera::from_coo<double, EncA, Serial>(c.left);
  const auto B = tessera::from_coo<double, tessera::CSR, Serial>(c.right);
  ws::Report report;
  tessera::spgemm<Policy, OutEnc>(Serial(), A, B, {}, &report);
  if (ran) *ran = report.policy;
  return report.peak_bytes;
}

// One sequential accumulation per algorithm: the dense workspace spans a row
// (row-wise) or the whole output (outer product); the sparse one holds what is touched.
void print_memory_table(const std::vector<tessera_bench::SpgemmCase>& cases, std::int64_t max_dense_bytes) {
  std::printf("| matrix | nnz(B) | nnz(C) | row-wise dense B | row-wise hash B | ratio | outer dense B | outer hash B | ratio |\n");
  std::printf("|---|---|---|---|---|---|---|---|---|\n");
  double log_row = 0, log_outer = 0;
  int n_row = 0, n_outer = 0;
  for (const auto& c : cases) {
    const auto A = tessera::from_coo<double, tessera::CSR, Serial>(c.left);
    const auto B = tessera::from_coo<double, tessera::CSR, Serial>(c.right);
    const std::int64_t out_nnz = tessera::spgemm<ws::Hash>(Serial(), A, B).nnz();
    const auto row_dense = peak_bytes<ws::Dense, tessera::CSR, tessera::CSR>(c);
    const auto row_hash = peak_bytes<ws::Hash, tessera::CSR, tessera::CSR>(c);
    log_row += std::log(static_cast<double>(row_dense) / row_hash);
    ++n_row;
    const double outer_positions = static_cast<double>(c.left.shape[0]) * static_cast<double>(c.right.shape[1]);
    std::string outer_dense = "-", outer_hash = "-", outer_ratio = "-";
    if (outer_positions * 9 <= static_cast<double>(max_dense_bytes)) {
      const auto od = peak_bytes<ws::Dense, tessera::CSR, tessera::CSC>(c);
      const auto oh = peak_bytes<ws::Hash, tessera::CSR, tessera::CSC>(c);
      log_outer += std::log(static_cast<double>(od) / oh);
      ++n_outer;
      outer_dense = std::to_string(od);
      outer_hash = std::to_string(oh);
      char r[32];
      std::snprintf(r, sizeof r, "%.1fx", static_cast<double>(od) / oh);
      outer_ratio = r;
    }
    std::printf("| %s | %lld | %lld | %lld | %lld | %.1fx | %s | %s | %s |\n", c.name.c_str(),
                static_cast<long long>(c.left.nnz()), static_cast<long long>(out_nnz), static_cast<long long>(row_dense),
                static_cast<long long>(row_hash), static_cast<double>(row_dense) / row_hash, outer_dense.c_str(),
                outer_hash.c_str(), outer_ratio.c_str());
  }
  std::printf("| **geomean** | | | | | **%.2fx** (%d matrices) | | | **%.2fx** (%d matrices) |\n",
              n_row ? std::exp(log_row / n_row) : 0.0, n_row, n_outer ? std::exp(log_outer / n_outer) : 0.0, n_outer);
}

}  // namespace

int main(int argc, char** argv) {
  std::int64_t max_madds = 20'000'000;
  bool memory_table = false;
  const auto status = tessera_bench::benchmark_command_line(
      argc, argv, "spgemm_bench", "usage: spgemm_bench [--max_madds N] [--memory_table] [benchmark flags]\n",
      [&](tessera::CommandLine& cl) {
        if (cl.is("--max_madds")) max_madds = cl.integer(1, std::numeric_limits<std::int64_t>::max());
        else if (cl.is("--memory_table")) memory_table = true;
        else cl.reject();
      });
  if (status) return *status;
  Kokkos::ScopeGuard kokkos(argc, argv);  // after the command line: --help shows ours, not Kokkos'
  std::vector<tessera_bench::SpgemmCase> cases;
  try {
    for (const auto& path : tessera_bench::real_matrix_paths()) {
      auto c = tessera_bench::real_case(path);
      if (c.multiply_adds > max_madds) {
        std::fprintf(stderr, "skipping %s: %lld multiply-adds > --max_madds\n", c.name.c_str(),
                     static_cast<long long>(c.multiply_adds));
        continue;
      }
      cases.push_back(std::move(c));
    }
  } catch (const std::exception& e) {  // no data folder, an unreadable matrix
    std::fprintf(stderr, "spgemm_bench: error: %s\n", e.what());
    return 2;
  }
  if (memory_table) {
    print_memory_table(cases, ws::Options{}.memory_budget_bytes);
    return 0;
  }
  for (const auto& c : cases) register_case(c);
  benchmark::RunSpecifiedBenchmarks();
  // The registered benchmarks hold tensors: release them while Kokkos is alive.
  benchmark::ClearRegisteredBenchmarks();
  benchmark::Shutdown();
  return 0;
}
