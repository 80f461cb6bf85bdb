// Dense-factor MTTKRP (tessera::mttkrp(space, X, mode, factors, out, handle)) on the default
// execution space (Kokkos::Cuda in a CUDA build) against, in the same process on the same data:
//   * a plain COO kernel with one atomic add per (nonzero, rank column), written here: the common
//     GPU baseline of the literature (and a check of our result);
//   * the DRAM floor: the mode-rooted tensor read once, the factors read once and the result
//     written once, at the bandwidth of a device-to-device copy measured in this process;
//   * with --host, tessera::mttkrp on the host space (OpenMP) on the same tensor.
// Tensors: Last.fm and generated ones (fibers of uniform or power-law lengths, or independent
// uniform coordinates; orders 3 and 4), every mode, ranks 16, 32, 64. Times are medians of --reps fenced calls; "first call" is the call that
// also rearranges the tensor for the mode (kept in the handle afterwards).
#include <Kokkos_Core.hpp>

#include <algorithm>
#include <array>
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
#include "tessera/core/device_coo.hpp"
#include "tessera/formats/convert.hpp"
#include "tessera/kernels/mttkrp/mttkrp_dense.hpp"

namespace {

using tessera_bench::copy_bandwidth;
using tessera_bench::device_name;
using tessera_bench::Generated;
using tessera_bench::mix;
using tessera_bench::read_lastfm;
using Space = tessera_bench::Space;
using HostSpace = Kokkos::DefaultHostExecutionSpace;

const char* const kUsage =
    "mttkrp_bench [--reps R] [--prec fp32,fp64] [--ranks 16,32,64] [--scale S] [--only NAME[,NAME...]] [--host]\n"
    "  --reps R      calls timed per variant, the median is reported (default 5)\n"
    "  --prec LIST   fp32, fp64 or both (default fp32)\n"
    "  --ranks LIST  ranks (default 16,32,64)\n"
    "  --scale S     nonzeros of the generated tensors in millions are multiplied by S (default 1)\n"
    "  --only NAMES  only the tensors whose name contains one of NAMES (a comma list)\n"
    "  --host        also time the host space's kernel (slow on large tensors)\n";

struct Options : TensorBenchOptions {
  std::vector<int> ranks{16, 32, 64};
};

template <class T>
using Matrix = Kokkos::View<T**, Kokkos::LayoutRight, Space>;

// out(i_mode, r) += x * prod factors: one thread per (nonzero, column), an atomic add each.
// The baseline's operands as C arrays: what a device lambda can index.
template <class T, int N>
struct CooOperands {
  Kokkos::View<const int*, Space> crd[N];
  Matrix<T> factors[N];
};

template <class T, int N>
void coo_atomic_mttkrp(const std::array<Kokkos::View<const int*, Space>, N>& coords,
                       const Kokkos::View<const T*, Space>& vals, int mode, const std::array<Matrix<T>, N>& matrices,
                       const Matrix<T>& out) {
  CooOperands<T, N> in;
  for (int m = 0; m < N; ++m) {
    in.crd[m] = coords[m];
    in.factors[m] = matrices[m];
  }
  Kokkos::deep_copy(out, T(0));
  const std::int64_t R = static_cast<std::int64_t>(out.extent(1));
  const std::int64_t nnz = static_cast<std::int64_t>(vals.extent(0));
  const std::int64_t batch = std::int64_t{1} << 30;  // launches of at most 2^30 threads
  for (std::int64_t first = 0; first < nnz * R; first += batch)
    Kokkos::parallel_for(
        "mttkrp_bench::coo_atomic",
        Kokkos::RangePolicy<Space, Kokkos::IndexType<std::int64_t>>(first, std::min(nnz * R, first + batch)),
        KOKKOS_LAMBDA(const std::int64_t t) {
          const std::int64_t e = t / R, r = t % R;
          T p = vals(e);
          for (int m = 0; m < N; ++m)
            if (m != mode) p *= in.factors[m](in.crd[m](e), r);
          Kokkos::atomic_add(&out(in.crd[mode](e), r), p);
        });
}

template <class T, class View>
double max_relative_difference(const View& a, const View& b) {
  const auto ha = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), a);
  const auto hb = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), b);
  double worst = 0, norm = 0;
  for (std::size_t i = 0; i < ha.span(); ++i) norm = std::max(norm, std::abs(static_cast<double>(hb.data()[i])));
  for (std::size_t i = 0; i < ha.span(); ++i)
    worst = std::max(worst, std::abs(static_cast<double>(ha.data()[i]) - static_cast<double>(hb.data()[i])));
  return worst / std::max(norm, 1e-300);
}

template <class T, int N>
void run_tensor(const std::string& name, const tessera::DeviceCoo<double, Space>& coo, const Options& opt,
                double bandwidth) {
  const char* prec = sizeof(T) == 4 ? "fp32" : "fp64";
  const auto X = tessera::from_coo<T, tessera::CSF<N>, Space>(coo);
  const auto X_coo = tessera::convert<tessera::COOTensor<N>>(X);  // the baseline's int coordinates
  std::array<Kokkos::View<const int*, Space>, N> crd;
  for (int m = 0; m < N; ++m) crd[m] = X_coo.level(m).crd;
  const Kokkos::View<const T*, Space> vals = X_coo.values();
  std::optional<tessera::Tensor<T, tessera::CSF<N>, HostSpace>> X_host;
  if (opt.host && !std::is_same_v<Space, HostSpace>) X_host = X.template to<HostSpace>();
  for (int R : opt.ranks) {
    std::array<Matrix<T>, N> factors;
    std::array<Kokkos::View<T**, Kokkos::LayoutRight, HostSpace>, N> host_factors;
    for (int m = 0; m < N; ++m) {
      factors[m] = Matrix<T>("factor", coo.shape[m], R);
      const auto f = factors[m];
      Kokkos::parallel_for(
          "mttkrp_bench::factor", Kokkos::RangePolicy<Space, Kokkos::IndexType<std::int64_t>>(0, f.span()),
          KOKKOS_LAMBDA(const std::int64_t i) {
            f.data()[i] = static_cast<T>(static_cast<double>(mix(static_cast<std::uint64_t>(i) * 5 + m) >> 11) * 0x1.0p-53);
          });
      if (X_host) host_factors[m] = Kokkos::create_mirror_view_and_copy(HostSpace(), factors[m]);
    }
    tessera::MttkrpHandle handle;
    for (int mode = 0; mode < N; ++mode) {
      Matrix<T> out("out", coo.shape[mode], R), base("base", coo.shape[mode], R);
      const double first_ms = median_fenced_ms(1, [&] { tessera::mttkrp(Space(), X, mode, factors, out, handle); });
      const double ours_ms = median_fenced_ms(opt.reps, [&] { tessera::mttkrp(Space(), X, mode, factors, out, handle); });
      const double atomic_ms = median_fenced_ms(opt.reps, [&] { coo_atomic_mttkrp<T, N>(crd, vals, mode, factors, base); });
      const double diff = max_relative_difference<T>(out, base);
      // The floor: the mode-rooted CSF (same size for every mode up to its upper levels: X's
      // arrays stand for it), the factors read once, out written once.
      std::int64_t bytes = tessera_bench::tensor_bytes(X) + static_cast<std::int64_t>(out.span() * sizeof(T));
      for (int m = 0; m < N; ++m)
        if (m != mode) bytes += static_cast<std::int64_t>(factors[m].span() * sizeof(T));
      const double floor_ms = static_cast<double>(bytes) / bandwidth * 1e3;
      std::string host_text = "";
      if (X_host) {
        Kokkos::View<T**, Kokkos::LayoutRight, HostSpace> host_out("host_out", coo.shape[mode], R);
        tessera::MttkrpHandle host_handle;
        tessera::mttkrp(HostSpace(), *X_host, mode, host_factors, host_out, host_handle);
        const double host_ms = median_fenced_ms(std::min(opt.reps, 3), [&] {
          tessera::mttkrp(HostSpace(), *X_host, mode, host_factors, host_out, host_handle);
        });
        char buf[64];
        std::snprintf(buf, sizeof buf, " | %10.3f | %7.1fx", host_ms, host_ms / ours_ms);
        host_text = buf;
      }
      std::printf("| %-22s | %s | %2d | %4d | %10.3f | %10.3f | %10.3f | %6.2fx | %8.3f | %5.1f%% | %8.1e%s |\n",
                  name.c_str(), prec, mode, R, first_ms, ours_ms, atomic_ms, atomic_ms / ours_ms, floor_ms,
                  100.0 * floor_ms / ours_ms, diff, host_text.c_str());
      std::fflush(stdout);
    }
  }
}

template <int N>
void run_both(const std::string& name, const tessera::DeviceCoo<double, Space>& coo, const Options& opt, double bw) {
  if (opt.fp32) run_tensor<float, N>(name, coo, opt, bw);
  if (opt.fp64) run_tensor<double, N>(name, coo, opt, bw);
}

int run(const Options& opt) {
  const double bandwidth = copy_bandwidth(opt.reps);
  std::printf("mttkrp_bench on %s, device-to-device copy %.0f GB/s (the DRAM floor's rate), median of %d calls\n",
              device_name().c_str(), bandwidth * 1e-9, opt.reps);
  std::printf("| tensor | prec | mode | rank | first call ms | ours ms | coo-atomic ms | vs atomic | DRAM floor ms | "
              "of floor | max rel diff%s |\n",
              opt.host ? " | host ms | host/ours" : "");
  std::printf("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:%s|\n", opt.host ? "|---:|---:" : "");
  if (opt.wanted("lastfm")) {
    run_both<3>("lastfm", tessera::to_device<Space>(read_lastfm()), opt, bandwidth);
  }
  const auto M = [&](double millions) { return static_cast<std::int64_t>(millions * 1e6 * opt.scale); };
  const std::vector<Generated> generated = {
      {"fibers3", {2000000, 500000, 100000}, M(20), 8, false},
      {"fibers3", {2000000, 500000, 100000}, M(100), 8, false},
      {"powerfibers3", {2000000, 500000, 100000}, M(20), 8, true},
      {"powerfibers3", {2000000, 500000, 100000}, M(100), 8, true},
      {"independent3", {5000000, 2000000, 1000000}, M(100), 0, false},
      {"fibers4", {1000000, 200000, 50000, 20000}, M(50), 8, false},
      {"powerfibers4", {1000000, 200000, 50000, 20000}, M(50), 8, true},
  };
  tessera_bench::for_each_generated(
      generated, [&](const std::string& name) { return opt.wanted(name); },
      [&](const Generated& g, const auto& coo) {
        if (g.shape.size() == 3) run_both<3>(g.name, coo, opt, bandwidth);
        else run_both<4>(g.name, coo, opt, bandwidth);
      });
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  Options opt;
  const auto option = [&](tessera::CommandLine& cl) {
    if (!cl.is("--ranks")) return cl.reject();
    opt.ranks.clear();
    for (const auto r : cl.int64_list()) opt.ranks.push_back(static_cast<int>(std::clamp<std::int64_t>(r, 1, 4096)));
  };
  return tessera_bench::bench_main(argc, argv, "mttkrp_bench", kUsage, opt, option, run);
}
