// SpTTM with a dense factor along every mode (tessera::ttm(space, B, mode, C[, handle]); modes 0
// and 1 are tessera::ttm and tessera::ttm_i) on the default execution space (Kokkos::Cuda in a
// CUDA build), timed on a first call (B arranged for the mode within the call) and on later calls
// through a TtmHandle (B arranged and the result's pattern kept), against, in the same process on
// the same data:
//   * the DRAM floor of a call through the handle: B's CSF arrays and the factor C read once and
//     the result's values written once, at the bandwidth of a device-to-device copy measured in
//     this process (a first call also writes the result's coordinates);
//   * with --host, the same call through a handle on the host space (OpenMP), whose result also
//     checks ours.
// Tensors: Last.fm and generated order-3 ones (generated_tensors.hpp), C of --cols columns.
// Every kept fiber of the result holds a dense row of L values, so the result has up to
// nnz(B) x L entries: sizes whose bound passes int positions are skipped. Times are medians of
// --reps fenced calls.
#include <Kokkos_Core.hpp>

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "../common/bench_main.hpp"
#include "../common/fenced_timing.hpp"
#include "generated_tensors.hpp"
#include "tensor_bench_options.hpp"
#include "tessera/core/command_line.hpp"
#include "tessera/core/error.hpp"
#include "tessera/formats/convert.hpp"
#include "tessera/kernels/ttm/ttm.hpp"

namespace {

using tessera_bench::Generated;
using tessera_bench::mix;
using Space = tessera_bench::Space;
using HostSpace = Kokkos::DefaultHostExecutionSpace;

const char* const kUsage =
    "ttm_bench [--reps R] [--prec fp32,fp64] [--cols 16,64] [--scale S] [--only NAME[,NAME...]] [--host]\n"
    "  --reps R      calls timed per variant, the median is reported (default 5)\n"
    "  --prec LIST   fp32, fp64 or both (default fp32)\n"
    "  --cols LIST   columns L of the dense factor (default 16,64)\n"
    "  --scale S     nonzeros of the generated tensors in millions are multiplied by S (default 1)\n"
    "  --only NAMES  only the tensors whose name contains one of NAMES (a comma list)\n"
    "  --host        also time the host space's kernel and check ours against it\n";

struct Options : TensorBenchOptions {
  std::vector<std::int64_t> cols{16, 64};
};

// A rows x L factor of values in (0, 1], drawn from a hash of each entry's index.
template <class T>
tessera::Tensor<T, tessera::Dense<2>, Space> factor(std::int64_t rows, std::int64_t L) {
  Kokkos::View<T**, Kokkos::LayoutRight, Space> f("factor", rows, L);
  Kokkos::parallel_for(
      "ttm_bench::factor", Kokkos::RangePolicy<Space, Kokkos::IndexType<std::int64_t>>(0, f.span()),
      KOKKOS_LAMBDA(const std::int64_t i) {
        const auto bits = (mix(static_cast<std::uint64_t>(i) * 3) >> 11) + 1;
        f.data()[i] = static_cast<T>(static_cast<double>(bits) * 0x1.0p-53);
      });
  return tessera::from_dense<tessera::Dense<2>>(f);
}

// Largest |ours - host| over the largest |host|, or a note where the patterns differ.
template <class T, class Enc>
std::string check_against(const tessera::Tensor<T, Enc, Space>& ours, const tessera::Tensor<T, Enc, HostSpace>& host) {
  if (ours.nnz() != host.nnz()) return "pattern differs";
  const auto mine = ours.template to<HostSpace>();
  double worst = 0, norm = 0;
  for (std::int64_t e = 0; e < host.nnz(); ++e) {
    norm = std::max(norm, std::abs(static_cast<double>(host.values()(e))));
    worst = std::max(worst, std::abs(static_cast<double>(mine.values()(e)) - static_cast<double>(host.values()(e))));
  }
  char text[32];
  std::snprintf(text, sizeof text, "%.1e", worst / std::max(norm, 1e-300));
  return text;
}

template <class T>
void run_tensor(const std::string& name, const tessera::DeviceCoo<double, Space>& coo, const Options& opt,
                double bandwidth) {
  using Csf = tessera::CSF<3>;
  const char* prec = sizeof(T) == 4 ? "fp32" : "fp64";
  const auto B = tessera::from_coo<T, Csf, Space>(coo);
  std::optional<tessera::Tensor<T, Csf, HostSpace>> B_host;
  if (opt.host) B_host = B.template to<HostSpace>();
  tessera::TtmHandle handle, host_handle;
  for (const std::int64_t L : opt.cols) {
    for (int mode = 0; mode < 3; ++mode) {
      if (B.nnz() * L > INT_MAX) {
        std::printf("| %-22s | %s | %d | %3lld | skipped: nnz(B) x L may pass int positions | | | | | |%s\n",
                    name.c_str(), prec, mode, static_cast<long long>(L), opt.host ? " | | |" : "");
        continue;
      }
      const auto C = factor<T>(B.extent(mode), L);
      // The first result checks the host's and is dropped before the timing: a result of the
      // largest tensors takes a fifth of the device's memory.
      std::optional<tessera::Tensor<T, Csf, Space>> A = tessera::ttm(Space(), B, mode, C, handle);
      const std::int64_t nnz_A = A->nnz();
      std::string host_text;
      double host_ms = 0;
      if (opt.host) {
        const auto C_host = C.template to<HostSpace>();
        const auto host_call = [&] { return tessera::ttm(HostSpace(), *B_host, mode, C_host, host_handle); };
        host_text = check_against(*A, host_call());
        host_ms = median_fenced_ms(std::min(opt.reps, 3), host_call);
      }
      A.reset();
      const double first_ms = median_fenced_ms(opt.reps, [&] { return tessera::ttm(B, mode, C); });
      const double handle_ms = median_fenced_ms(opt.reps, [&] { return tessera::ttm(Space(), B, mode, C, handle); });
      const std::int64_t bytes = tessera_bench::tensor_bytes(B) + tessera_bench::tensor_bytes(C) +
                                 nnz_A * static_cast<std::int64_t>(sizeof(T));
      const double floor_ms = static_cast<double>(bytes) / bandwidth * 1e3;
      if (opt.host) {
        char buf[96];
        std::snprintf(buf, sizeof buf, " %10.3f | %7.1fx | %s |", host_ms, host_ms / handle_ms, host_text.c_str());
        host_text = buf;
      }
      std::printf("| %-22s | %s | %d | %3lld | %11lld | %10.3f | %10.3f | %8.3f | %5.1f%% |%s\n", name.c_str(), prec,
                  mode, static_cast<long long>(L), static_cast<long long>(nnz_A), first_ms, handle_ms, floor_ms,
                  100.0 * floor_ms / handle_ms, host_text.c_str());
      std::fflush(stdout);
    }
  }
}

void run_both(const std::string& name, const tessera::DeviceCoo<double, Space>& coo, const Options& opt, double bw) {
  if (opt.fp32) run_tensor<float>(name, coo, opt, bw);
  if (opt.fp64) run_tensor<double>(name, coo, opt, bw);
}

int run(const Options& opt) {
  const double bandwidth = tessera_bench::copy_bandwidth(opt.reps);
  std::printf("ttm_bench on %s, device-to-device copy %.0f GB/s (the DRAM floor's rate), median of %d calls\n",
              tessera_bench::device_name().c_str(), bandwidth * 1e-9, opt.reps);
  std::printf("| tensor | prec | mode | L | nnz(A) | first call ms | handle ms | DRAM floor ms | of floor |%s\n",
              opt.host ? " host ms | host/ours | max rel diff |" : "");
  std::printf("|---|---|---:|---:|---:|---:|---:|---:|---:|%s\n", opt.host ? "---:|---:|---:|" : "");
  if (opt.wanted("lastfm"))
    run_both("lastfm", tessera::to_device<Space>(tessera_bench::read_lastfm()), opt, bandwidth);
  const auto M = [&](double millions) { return static_cast<std::int64_t>(millions * 1e6 * opt.scale); };
  const std::vector<Generated> generated = {
      {"fibers3", {2000000, 500000, 100000}, M(20), 8, false},
      {"fibers3", {2000000, 500000, 100000}, M(100), 8, false},
      {"powerfibers3", {2000000, 500000, 100000}, M(20), 8, true},
      {"powerfibers3", {2000000, 500000, 100000}, M(100), 8, true},
      {"independent3", {5000000, 2000000, 1000000}, M(20), 0, false},
  };
  tessera_bench::for_each_generated(
      generated, [&](const std::string& name) { return opt.wanted(name); },
      [&](const Generated& g, const auto& coo) { run_both(g.name, coo, opt, bandwidth); });
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  Options opt;
  const auto option = [&](tessera::CommandLine& cl) {
    if (!cl.is("--cols")) return cl.reject();
    opt.cols.clear();
    for (const auto c : cl.int64_list()) opt.cols.push_back(std::clamp<std::int64_t>(c, 1, 4096));
  };
  return tessera_bench::bench_main(argc, argv, "ttm_bench", kUsage, opt, option, run);
}
