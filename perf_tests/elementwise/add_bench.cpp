// Sparse addition C = A + B on the real matrices (operands: add_operands.hpp), every competitor
// in one process on the same data.
//   add_seq/{tessera,eigen}/<matrix>          one thread (Kokkos::Serial; Eigen's A + B)
//   add_omp/{tessera,kokkoskernels}/<matrix>  all OpenMP threads (Kokkos Kernels' spadd)
// Every call computes the whole sum (symbolic + numeric, C allocated). The rate counter
// ("GFLOPs") is input entries merged per second: nnz(A) + nnz(B) per call.
//   add_bench [google benchmark flags]
#include <cstdint>
#include <cstdio>
#include <exception>
#include <string>
#include <vector>

#include <Eigen/SparseCore>
#include <KokkosKernels_Handle.hpp>
#include <KokkosSparse_spadd.hpp>
#include <Kokkos_Core.hpp>
#include <benchmark/benchmark.h>

#include "../common/benchmark_command_line.hpp"
#include "../spgemm/spgemm_operands.hpp"
#include "add_operands.hpp"
#include "tessera/formats/convert.hpp"
#include "tessera/formats/crs_matrix.hpp"
#include "tessera/kernels/elementwise/elementwise.hpp"

namespace {

using Serial = Kokkos::Serial;
using OpenMP = Kokkos::OpenMP;
template <class Space>
using Csr = tessera::Tensor<double, tessera::CSR, Space>;
using EigenCsr = Eigen::SparseMatrix<double, Eigen::RowMajor, int>;
using EigenMap = Eigen::Map<const EigenCsr>;

void set_counters(benchmark::State& state, const Csr<Serial>& A, const Csr<Serial>& B, std::int64_t out_nnz) {
  state.counters["nnz"] = static_cast<double>(A.nnz());
  state.counters["out_nnz"] = static_cast<double>(out_nnz);
  state.counters["GFLOPs"] = benchmark::Counter(static_cast<double>(A.nnz() + B.nnz()) * 1e-9,
                                                benchmark::Counter::kIsIterationInvariantRate);
}

EigenMap eigen_view(const Csr<Serial>& M) {
  const auto& s = M.decompose();
  return EigenMap(static_cast<int>(M.extent(0)), static_cast<int>(M.extent(1)), static_cast<int>(M.nnz()),
                  s.levels[1].pos.data(), s.levels[1].crd.data(), s.vals.data());
}

void register_case(const tessera_bench::AddCase& c) {
  const auto As = tessera::from_coo<double, tessera::CSR, Serial>(c.a);
  const auto Bs = tessera::from_coo<double, tessera::CSR, Serial>(c.b);
  benchmark::RegisterBenchmark(("add_seq/tessera/" + c.name).c_str(), [=](benchmark::State& state) {
    std::int64_t nnz = 0;
    for (auto _ : state) nnz = tessera::add(Serial(), 1.0, As, 1.0, Bs).nnz();
    set_counters(state, As, Bs, nnz);
  })->UseRealTime()->MinWarmUpTime(0.05);
  benchmark::RegisterBenchmark(("add_seq/eigen/" + c.name).c_str(), [=](benchmark::State& state) {
    const EigenMap a = eigen_view(As), b = eigen_view(Bs);
    std::int64_t nnz = 0;
    for (auto _ : state) {
      const EigenCsr C = a + b;
      nnz = C.nonZeros();
    }
    set_counters(state, As, Bs, nnz);
  })->UseRealTime()->MinWarmUpTime(0.05);

  const auto Ao = tessera::from_coo<double, tessera::CSR, OpenMP>(c.a);
  const auto Bo = tessera::from_coo<double, tessera::CSR, OpenMP>(c.b);
  benchmark::RegisterBenchmark(("add_omp/tessera/" + c.name).c_str(), [=](benchmark::State& state) {
    std::int64_t nnz = 0;
    for (auto _ : state) nnz = tessera::add(OpenMP(), 1.0, Ao, 1.0, Bo).nnz();
    set_counters(state, As, Bs, nnz);
  })->UseRealTime()->MinWarmUpTime(0.05);
  benchmark::RegisterBenchmark(("add_omp/kokkoskernels/" + c.name).c_str(), [=](benchmark::State& state) {
    using Matrix = decltype(tessera::to_crs_matrix(Ao));
    using Handle = KokkosKernels::Experimental::KokkosKernelsHandle<int, int, double, OpenMP, Kokkos::HostSpace,
                                                                    Kokkos::HostSpace>;
    const Matrix a = tessera::to_crs_matrix(Ao), b = tessera::to_crs_matrix(Bo);
    std::int64_t nnz = 0;
    for (auto _ : state) {
      Handle handle;
      handle.create_spadd_handle(true);  // rows sorted, as in Tessera's CSR
      Matrix C;
      KokkosSparse::spadd_symbolic(&handle, a, b, C);
      KokkosSparse::spadd_numeric(&handle, 1.0, a, 1.0, b, C);
      nnz = C.nnz();
      handle.destroy_spadd_handle();
    }
    set_counters(state, As, Bs, nnz);
  })->UseRealTime()->MinWarmUpTime(0.05);
}

}  // namespace

int main(int argc, char** argv) {
  const auto status = tessera_bench::benchmark_command_line(argc, argv, "add_bench",
                                                            "usage: add_bench [benchmark flags]\n",
                                                            [](tessera::CommandLine& cl) { cl.reject(); });
  if (status) return *status;
  Kokkos::ScopeGuard kokkos(argc, argv);  // after the command line: --help shows ours, not Kokkos'
  try {
    for (const auto& path : tessera_bench::real_matrix_paths()) register_case(tessera_bench::add_case(path));
  } catch (const std::exception& e) {  // no data folder, an unreadable matrix
    std::fprintf(stderr, "add_bench: error: %s\n", e.what());
    return 2;
  }
  benchmark::RunSpecifiedBenchmarks();
  // The registered benchmarks hold tensors: release them while Kokkos is alive.
  benchmark::ClearRegisteredBenchmarks();
  benchmark::Shutdown();
  return 0;
}
