// Workspace studies for the sparse tensor kernels, OpenMP with all threads, double:
//   ttm_crossover/<policy>/<case>    SpTTM A(i,j,l) = sum_k B(k,i,j) C(k,l) on synthetic
//       B (K x N x N) with a fixed number of products whose (i, j) are drawn from a
//       pool of nnz/d pairs: deduplication d (products per output entry) grows while
//       the work stays the same, so dense and sparse workspaces can cross over.
//   ttm_ablation/<variant>/<policy>_lastfm     SpTTM of Last.fm (artist contracted, L = 8)
//   mttkrp_ablation/<variant>/<policy>_lastfm  SpMTTKRP of Last.fm (user rows, J = 16)
//       variants: default (accumulation sized from the estimate, no pipelining, double
//       buffer), pipelining, single_buffer, acc_<n> (fixed accumulation capacity).
// GFLOPs counts 2 flops per product. Names are <kernel>/<implementation>/<case> for
// perf_tests/ratio_table.py.
//   tensor_workspace_bench [google benchmark flags]
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include <Kokkos_Core.hpp>
#include <benchmark/benchmark.h>

#include "../common/benchmark_command_line.hpp"
#include "tessera/core/io/tns.hpp"
#include "tessera/formats/convert.hpp"
#include "tessera/kernels/mttkrp/mttkrp.hpp"
#include "tessera/kernels/ttm/ttm.hpp"

namespace {

namespace ws = tessera::workspace;
using Space = Kokkos::DefaultHostExecutionSpace;
using Csf = tessera::Tensor<double, tessera::CSF<3>, Space>;
using Factor = tessera::Tensor<double, tessera::Dense<2>, Space>;

Factor random_factor(std::int64_t rows, std::int64_t cols, std::uint64_t seed) {
  Kokkos::View<double**, Kokkos::LayoutRight, Kokkos::HostSpace> v("bench::factor", rows, cols);
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> value(-1.0, 1.0);
  for (std::int64_t n = 0; n < rows * cols; ++n) v.data()[n] = value(rng);
  return tessera::from_dense<tessera::Dense<2>, Space>(v);
}

// nnz entries over K x N x N; (i, j) uniform from a pool of nnz / dedup pairs.
tessera::HostCoo<double> pooled_tensor(std::int64_t K, std::int64_t N, std::int64_t nnz, std::int64_t dedup) {
  std::mt19937_64 rng(dedup);
  std::uniform_int_distribution<std::int64_t> coord(0, N - 1), k_of(0, K - 1);
  std::vector<std::pair<std::int64_t, std::int64_t>> pool(std::max<std::int64_t>(nnz / dedup, 1));
  for (auto& p : pool) p = {coord(rng), coord(rng)};
  std::uniform_int_distribution<std::size_t> pick(0, pool.size() - 1);
  tessera::HostCoo<double> B;
  B.shape = {K, N, N};
  for (std::int64_t n = 0; n < nnz; ++n) {
    const auto& [i, j] = pool[pick(rng)];
    B.coords.insert(B.coords.end(), {k_of(rng), i, j});
    B.values.push_back(1.0);
  }
  return B;
}

void set_counters(benchmark::State& state, std::int64_t nnz, std::int64_t products, std::int64_t out_nnz) {
  state.counters["nnz"] = static_cast<double>(nnz);
  state.counters["out_nnz"] = static_cast<double>(out_nnz);
  state.counters["GFLOPs"] =
      benchmark::Counter(2.0 * static_cast<double>(products) * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
}

template <class Run>
void add(const std::string& name, std::int64_t nnz, std::int64_t products, Run run, const std::string& label = "") {
  benchmark::RegisterBenchmark(name.c_str(), [=](benchmark::State& state) {
    std::int64_t out = 0;
    for (auto _ : state) out = run();
    set_counters(state, nnz, products, out);
    if (!label.empty()) state.SetLabel(label);
  })->UseRealTime()->MinWarmUpTime(0.05)->Unit(benchmark::kMillisecond);
}

template <class Policy>
void register_crossover(const std::string& case_name, const Csf& B, const Factor& C, std::int64_t products) {
  // Auto's row is labelled with the policy it picks ("chose dense"), so that the table
  // can also set that policy's own time against the best one.
  std::string label;
  if constexpr (std::is_same_v<Policy, ws::Auto>) {
    ws::Report report;
    tessera::ttm<Policy>(Space(), B, C, {}, &report);
    label = std::string("chose ") + report.policy;
  }
  add("ttm_crossover/" + std::string(ws::policy_name<Policy>) + "/" + case_name, B.nnz(), products,
      [=] { return tessera::ttm<Policy>(B, C).nnz(); }, label);
}

struct Variant {
  std::string name;
  ws::IsmOptions ism;
};
std::vector<Variant> ablation_variants() {
  std::vector<Variant> v{{"default", {}}, {"pipelining", {}}, {"single_buffer", {}}};
  v[1].ism.pipelining = true;
  v[2].ism.double_buffer = false;
  for (std::int64_t n : {std::int64_t{1} << 10, std::int64_t{1} << 14, std::int64_t{1} << 18}) {
    Variant a{"acc_" + std::to_string(n), {}};
    a.ism.accumulation_capacity = n;
    v.push_back(a);
  }
  return v;
}

template <class Policy>
void register_ablation(const Csf& Y, const Factor& Cy, const Csf& X, const Factor& Cx, const Factor& Dx,
                       std::int64_t ttm_products, std::int64_t mttkrp_products) {
  const std::string policy = ws::policy_name<Policy>;
  for (const auto& v : ablation_variants()) {
    ws::Options options;
    options.ism = v.ism;
    add("ttm_ablation/" + v.name + "/" + policy + "_lastfm", Y.nnz(), ttm_products,
                [=] { return tessera::ttm<Policy>(Y, Cy, options).nnz(); });
    add("mttkrp_ablation/" + v.name + "/" + policy + "_lastfm", X.nnz(), mttkrp_products,
                [=] { return tessera::mttkrp<Policy>(X, Cx, Dx, options).nnz(); });
  }
}

void register_all(const std::string& data_dir) {
  // Crossover: 2^18 drawn entries (fewer once equal (k, i, j) are summed) x L products, output N x N x L.
  constexpr std::int64_t K = 64, L = 4, nnz = std::int64_t{1} << 18;
  for (std::int64_t N : {1024, 4096})
    for (std::int64_t dedup : {1, 4, 16, 64, 256}) {
      const auto B = tessera::from_coo<double, tessera::CSF<3>, Space>(pooled_tensor(K, N, nnz, dedup));
      const auto C = random_factor(K, L, 1);
      const std::string name = "N" + std::to_string(N) + "_dedup" + std::to_string(dedup);
      register_crossover<ws::Dense>(name, B, C, B.nnz() * L);
      register_crossover<ws::Hash>(name, B, C, B.nnz() * L);
      register_crossover<ws::Bucket>(name, B, C, B.nnz() * L);
      register_crossover<ws::Coord>(name, B, C, B.nnz() * L);
      register_crossover<ws::SortOnce>(name, B, C, B.nnz() * L);
      register_crossover<ws::Auto>(name, B, C, B.nnz() * L);
    }

  // Ablation on Last.fm (user, artist, tag).
  const auto coo = tessera::io::read_tns(data_dir + "/tensors/lastfm_user_artist_tag.tns.gz");
  auto swapped = coo;  // (artist, user, tag): SpTTM contracts artists
  swapped.shape = {coo.shape[1], coo.shape[0], coo.shape[2]};
  for (std::int64_t n = 0; n < coo.nnz(); ++n) std::swap(swapped.coords[3 * n], swapped.coords[3 * n + 1]);
  auto tag_artist_user = coo;  // mttkrp's B(k, l, i) with users as output rows
  tag_artist_user.shape = {coo.shape[2], coo.shape[1], coo.shape[0]};
  for (std::int64_t n = 0; n < coo.nnz(); ++n) std::swap(tag_artist_user.coords[3 * n], tag_artist_user.coords[3 * n + 2]);
  const auto Y = tessera::from_coo<double, tessera::CSF<3>, Space>(swapped);
  const auto X = tessera::from_coo<double, tessera::CSF<3>, Space>(tag_artist_user);
  constexpr std::int64_t Lt = 8, J = 16;
  const auto Cy = random_factor(Y.extent(0), Lt, 2);
  const auto Cx = random_factor(X.extent(0), J, 3), Dx = random_factor(X.extent(1), J, 4);
  register_ablation<ws::Hash>(Y, Cy, X, Cx, Dx, coo.nnz() * Lt, coo.nnz() * J);
  register_ablation<ws::Coord>(Y, Cy, X, Cx, Dx, coo.nnz() * Lt, coo.nnz() * J);
}

}  // namespace

int main(int argc, char** argv) {
  const auto status = tessera_bench::benchmark_command_line(
      argc, argv, "tensor_workspace_bench", "usage: tensor_workspace_bench [benchmark flags]\n",
      [](tessera::CommandLine& cl) { cl.reject(); });
  if (status) return *status;
  Kokkos::ScopeGuard kokkos(argc, argv);  // after the command line: --help shows ours, not Kokkos'
  const char* data = std::getenv("TESSERA_DATA_DIR");
  try {
    register_all(data ? data : "../shared/data");
  } catch (const std::exception& e) {  // no data folder, an unreadable tensor
    std::fprintf(stderr, "tensor_workspace_bench: error: %s\n", e.what());
    benchmark::ClearRegisteredBenchmarks();  // those registered so far hold Views
    return 2;
  }
  benchmark::RunSpecifiedBenchmarks();
  // The registered lambdas hold Kokkos Views: release them before Kokkos finalizes.
  benchmark::ClearRegisteredBenchmarks();
  benchmark::Shutdown();
  return 0;
}
