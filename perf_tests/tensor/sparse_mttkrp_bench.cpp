// SpMTTKRP with sparse factors (tessera::mttkrp<Auto>(space, B, C, D), a sparse result) on the
// default execution space (Kokkos::Cuda in a CUDA build) against the same call on the host space
// (OpenMP), in the same process on the same data; the two results are compared entry by entry.
// Tensors: Last.fm and generated order-3 ones (fibers of uniform or power-law lengths); factors
// with R columns of which a share (--density) is stored in each row, as a window of consecutive
// columns that starts at a different column in every row, so that rows of C and D meet on part
// of their columns. Times are medians of --reps fenced calls. --timeline adds one GPU call per
// case step by step (kokkos_timeline.hpp): where a call's time goes on the host.
#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "../common/bench_main.hpp"
#include "../common/fenced_timing.hpp"
#include "../common/kokkos_timeline.hpp"
#include "generated_tensors.hpp"
#include "tensor_bench_options.hpp"
#include "tessera/core/command_line.hpp"
#include "tessera/core/device_coo.hpp"
#include "tessera/core/error.hpp"
#include "tessera/formats/convert.hpp"
#include "tessera/kernels/mttkrp/mttkrp.hpp"

namespace {

using tessera_bench::device_name;
using tessera_bench::Generated;
using tessera_bench::mix;
using tessera_bench::read_lastfm;
using Space = tessera_bench::Space;
using HostSpace = Kokkos::DefaultHostExecutionSpace;

const char* const kUsage =
    "sparse_mttkrp_bench [--reps R] [--prec fp32,fp64] [--ranks 16,64] [--density 0.25,1] [--scale S] [--only NAME[,NAME...]]\n"
    "                   [--timeline]\n"
    "  --reps R         calls timed per variant, the median is reported (default 5)\n"
    "  --prec LIST      fp32, fp64 or both (default fp32)\n"
    "  --ranks LIST     factor columns (default 16,64)\n"
    "  --density LIST   share of each factor row's columns stored (default 0.25,1)\n"
    "  --scale S        nonzeros of the generated tensors in millions are multiplied by S (default 1)\n"
    "  --only NAMES     only the tensors whose name contains one of NAMES (a comma list)\n"
    "  --timeline       also print one GPU call of each case step by step\n";

struct Options : TensorBenchOptions {
  std::vector<int> ranks{16, 64};
  std::vector<double> densities{0.25, 1.0};
  bool timeline = false;
};

// A rows x R factor storing max(1, density R) consecutive columns per row (wrapping), starting at
// column 7 r mod R, values in (0, 1].
template <class T>
tessera::Tensor<T, tessera::CSR, Space> sparse_factor(std::int64_t rows, int R, double density, std::uint64_t seed) {
  const std::int64_t per_row = std::max<std::int64_t>(1, std::llround(density * R));
  tessera::DeviceCoo<double, Space> coo;
  coo.shape = {rows, R};
  coo.coords = decltype(coo.coords)("coords", rows * per_row, 2);
  coo.values = decltype(coo.values)("values", rows * per_row);
  const auto coords = coo.coords;
  const auto values = coo.values;
  Kokkos::parallel_for(
      "sparse_mttkrp_bench::factor", Kokkos::RangePolicy<Space, Kokkos::IndexType<std::int64_t>>(0, rows * per_row),
      KOKKOS_LAMBDA(const std::int64_t e) {
        const std::int64_t r = e / per_row, t = e % per_row;
        coords(e, 0) = r;
        coords(e, 1) = (7 * r + t) % R;
        values(e) = static_cast<double>((mix(static_cast<std::uint64_t>(e) * 3 + seed) >> 11) + 1) * 0x1.0p-53;
      });
  return tessera::from_coo<T, tessera::CSR, Space>(coo);
}

// Largest |a - b| over the entries of two results relative to the largest |b|; -1 where their
// patterns differ.
template <class T, class SA, class SB>
double relative_difference(const tessera::Tensor<T, tessera::CSR, SA>& a, const tessera::Tensor<T, tessera::CSR, SB>& b) {
  const auto ca = tessera::to_coo(a), cb = tessera::to_coo(b);
  if (ca.coords != cb.coords) return -1;
  double worst = 0, norm = 0;
  for (std::size_t n = 0; n < cb.values.size(); ++n) {
    norm = std::max(norm, std::abs(static_cast<double>(cb.values[n])));
    worst = std::max(worst, std::abs(static_cast<double>(ca.values[n]) - static_cast<double>(cb.values[n])));
  }
  return worst / std::max(norm, 1e-300);
}

template <class T>
void run_tensor(const std::string& name, const tessera::DeviceCoo<double, Space>& coo, const Options& opt) {
  const char* prec = sizeof(T) == 4 ? "fp32" : "fp64";
  const auto B = tessera::from_coo<T, tessera::CSF<3>, Space>(coo);
  const auto B_host = B.template to<HostSpace>();
  for (const int R : opt.ranks)
    for (const double density : opt.densities) {
      const auto C = sparse_factor<T>(coo.shape[0], R, density, 1);
      const auto D = sparse_factor<T>(coo.shape[1], R, density, 2);
      const auto C_host = C.template to<HostSpace>();
      const auto D_host = D.template to<HostSpace>();
      tessera::workspace::Report report;
      const auto A = tessera::mttkrp(Space(), B, C, D, {}, &report);
      const double ours_ms = median_fenced_ms(opt.reps, [&] { return tessera::mttkrp(Space(), B, C, D); });
      const auto A_host = tessera::mttkrp(HostSpace(), B_host, C_host, D_host);
      const double host_ms =
          median_fenced_ms(opt.reps, [&] { return tessera::mttkrp(HostSpace(), B_host, C_host, D_host); });
      std::printf("| %s | %s | %d | %.2f | %lld | %lld | %.3f | %.3f | %.2fx | %s | %.1f | %.1e |\n", name.c_str(),
                  prec, R, density, static_cast<long long>(B.nnz()), static_cast<long long>(A.nnz()), ours_ms,
                  host_ms, host_ms / ours_ms, report.policy, static_cast<double>(report.peak_bytes) * 1e-6,
                  relative_difference(A, A_host));
      std::fflush(stdout);
      if (opt.timeline) {
        Kokkos::fence();
        tessera_bench::KokkosTimeline timeline;
        const auto step_by_step = tessera::mttkrp(Space(), B, C, D);
        Kokkos::fence();
        timeline.print(stdout, (name + " " + prec + " R=" + std::to_string(R) + " density " +
                                std::to_string(density)).c_str());
      }
    }
}

template <class Coo>
void run_both(const std::string& name, const Coo& coo, const Options& opt) {
  if (opt.fp32) run_tensor<float>(name, coo, opt);
  if (opt.fp64) run_tensor<double>(name, coo, opt);
}

int run(const Options& opt) {
  std::printf("sparse_mttkrp_bench on %s against %s (%d threads), median of %d calls\n", device_name().c_str(),
              HostSpace::name(), HostSpace().concurrency(), opt.reps);
  std::printf("| tensor | prec | R | density | nnz(B) | nnz(A) | ours ms | host ms | host/ours | policy | "
              "workspace peak MB | max rel diff |\n|---|---|---:|---:|---:|---:|---:|---:|---:|---|---:|---:|\n");
  if (opt.wanted("lastfm")) run_both("lastfm", tessera::to_device<Space>(read_lastfm()), opt);
  const auto M = [&](double millions) { return static_cast<std::int64_t>(millions * 1e6 * opt.scale); };
  const std::vector<Generated> generated = {
      {"fibers3", {2000000, 500000, 100000}, M(10), 8, false},
      {"powerfibers3", {2000000, 500000, 100000}, M(10), 8, true},
      {"fibers3", {2000000, 500000, 100000}, M(50), 8, false},
  };
  tessera_bench::for_each_generated(
      generated, [&](const std::string& name) { return opt.wanted(name); },
      [&](const Generated& g, const auto& coo) { run_both(g.name, coo, opt); });
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  Options opt;
  const auto option = [&](tessera::CommandLine& cl) {
    if (cl.is("--ranks")) {
      opt.ranks.clear();
      for (const auto r : cl.int64_list()) opt.ranks.push_back(static_cast<int>(std::clamp<std::int64_t>(r, 1, 4096)));
    } else if (cl.is("--density")) {
      opt.densities.clear();
      for (const double d : cl.double_list()) {
        if (!(d > 0 && d <= 1)) cl.reject();
        opt.densities.push_back(d);
      }
    } else if (cl.is("--timeline")) {
      opt.timeline = true;
    } else {
      cl.reject();
    }
  };
  return tessera_bench::bench_main(argc, argv, "sparse_mttkrp_bench", kUsage, opt, option, run);
}
