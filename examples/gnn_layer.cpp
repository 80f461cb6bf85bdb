// One graph-convolution (GCN) layer, H' = relu(Â · H · W), on a real graph.
//   Â = D^-1/2 (A + I) D^-1/2 with A the graph's symmetrized 0/1 adjacency and D the
//   row sums of A + I; H (nodes x F_in) random features; W (F_in x F_out) dense weights.
//   Â is built in Space by the library: tessera::add (A + A^T, then + identity), spmv for
//   the degrees, scale_rows and scale_columns.
//   Â · H runs through tessera::spmm (on CUDA: TCA-SpMM or the row-split kernel, whichever
//   SpmmOptions::tune measured to be faster on the first call), · W through a small Kokkos
//   dense product fused with relu.
// The same source runs on OpenMP and CUDA: change `Space` below (and `T`, the value type).
// Prints the time per layer and checks sampled rows against a double host computation;
// exits 1 on mismatch.
// Usage: gnn_layer [graph.mtx[.gz]] [--n F_in=64] [--out F_out=32] [--reps R=20]
//   default graph: $TESSERA_DATA_DIR/matrices/cora.mtx.gz (TESSERA_DATA_DIR defaults to ../shared/data)
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include <Kokkos_Core.hpp>

#include "tessera/tessera.hpp"
#include "example_support.hpp"

namespace {

using Space = Kokkos::DefaultExecutionSpace;  // e.g. Kokkos::OpenMP or Kokkos::Cuda
using T = float;                              // value type of Â, H, W, H'

struct Args {
  std::string path;
  int n = 64;    // input features F_in (the SpMM's N)
  int out = 32;  // output features F_out
  int reps = 20;
};

Args parse_args(int argc, char** argv) {
  Args args;
  args.path = tessera_example::data_file("matrices/cora.mtx.gz");
  for (tessera::CommandLine cl(argc, argv,
                                       "usage: gnn_layer [graph.mtx[.gz]] [--n F_in=64] [--out F_out=32] [--reps R=20]\n"
                                       "Default graph: $TESSERA_DATA_DIR/matrices/cora.mtx.gz\n");
       cl.next();) {
    if (cl.is("--n")) args.n = cl.int_value();
    else if (cl.is("--out")) args.out = cl.int_value();
    else if (cl.is("--reps")) args.reps = cl.int_value();
    else if (cl.is_option()) cl.reject();
    else args.path = cl.single_argument();
  }
  if (args.n < 1 || args.out < 1 || args.reps < 1) throw tessera::Error("--n, --out and --reps must be positive");
  return args;
}

void require_square(const tessera::HostCoo<double>& graph) {
  if (graph.order() != 2 || graph.shape[0] != graph.shape[1])
    throw tessera::Error("gnn_layer: the graph must be a square adjacency matrix, got " +
                         std::to_string(graph.shape[0]) + " x " + std::to_string(graph.shape.size() > 1 ? graph.shape[1] : 0));
}

// Â in Space: the pattern of A + A^T + I with ones, each row and column scaled by 1/sqrt(degree).
tessera::Tensor<T, tessera::CSR, Space> normalized_adjacency_in_space(const tessera::HostCoo<double>& graph) {
  require_square(graph);
  using Csr = tessera::Tensor<T, tessera::CSR, Space>;
  const Space space;
  const auto ones_on_pattern = [&](const Csr& m) {
    Kokkos::deep_copy(space, m.values(), T(1));  // a 0/1 pattern, whatever the sums were
    return m;
  };
  const Csr A = tessera::from_coo<T, tessera::CSR, Space>(graph);
  const Csr S = ones_on_pattern(tessera::add(space, T(1), A, T(1), tessera::transpose(A)));
  const Csr A_hat = ones_on_pattern(tessera::add(space, T(1), S, T(1), tessera::identity<T>(space, graph.shape[0])));
  Kokkos::View<T*, Space::memory_space> degree("degree", graph.shape[0]), ones("ones", graph.shape[0]);
  Kokkos::deep_copy(space, ones, T(1));
  tessera::spmv(space, T(1), A_hat, ones, T(0), degree);  // row sums
  Kokkos::parallel_for(
      "gnn_layer::inverse_sqrt", Kokkos::RangePolicy<Space>(space, 0, degree.extent(0)),
      KOKKOS_LAMBDA(const std::int64_t i) { degree(i) = static_cast<T>(1.0 / ::sqrt(static_cast<double>(degree(i)))); });
  tessera::scale_rows(space, degree, A_hat);
  tessera::scale_columns(space, A_hat, degree);
  return A_hat;
}

// The same Â on the host in double, by sorting the symmetrized edge list: the reference.
tessera::HostCoo<double> normalized_adjacency(const tessera::HostCoo<double>& graph) {
  require_square(graph);
  const std::int64_t nodes = graph.shape[0];
  std::vector<std::pair<std::int64_t, std::int64_t>> edges;
  edges.reserve(2 * static_cast<std::size_t>(graph.nnz()) + static_cast<std::size_t>(nodes));
  for (std::int64_t e = 0; e < graph.nnz(); ++e) {
    const std::int64_t i = graph.coord(e, 0), j = graph.coord(e, 1);
    edges.emplace_back(i, j);
    edges.emplace_back(j, i);
  }
  for (std::int64_t i = 0; i < nodes; ++i) edges.emplace_back(i, i);
  std::sort(edges.begin(), edges.end());
  edges.erase(std::unique(edges.begin(), edges.end()), edges.end());
  std::vector<double> degree(static_cast<std::size_t>(nodes), 0.0);
  for (const auto& e : edges) degree[e.first] += 1.0;
  tessera::HostCoo<double> a_hat;
  a_hat.shape = {nodes, nodes};
  a_hat.coords.reserve(2 * edges.size());
  a_hat.values.reserve(edges.size());
  for (const auto& e : edges) {
    a_hat.coords.push_back(e.first);
    a_hat.coords.push_back(e.second);
    a_hat.values.push_back(1.0 / std::sqrt(degree[e.first] * degree[e.second]));
  }
  return a_hat;
}

// Hn = relu(Z · W): Z (nodes x F_in), W (F_in x F_out), Hn (nodes x F_out); one thread per output.
template <class Matrix>
void dense_relu(const Matrix& Z, const Matrix& W, const Matrix& Hn) {
  using Value = typename Matrix::non_const_value_type;
  const std::int64_t f_in = static_cast<std::int64_t>(W.extent(0));
  Kokkos::parallel_for(
      "gnn_layer::dense_relu",
      Kokkos::MDRangePolicy<Space, Kokkos::Rank<2>>({0, 0}, {static_cast<std::int64_t>(Hn.extent(0)),
                                                              static_cast<std::int64_t>(Hn.extent(1))}),
      KOKKOS_LAMBDA(const std::int64_t i, const std::int64_t j) {
        Value acc = 0;
        for (std::int64_t k = 0; k < f_in; ++k) acc += Z(i, k) * W(k, j);
        Hn(i, j) = acc > Value(0) ? acc : Value(0);
      });
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

int run(const Args& args) {
  using Mem = Space::memory_space;
  using Matrix = Kokkos::View<T**, Kokkos::LayoutRight, Mem>;

  const tessera::HostCoo<double> graph = tessera::io::read_matrix_market(args.path);
  const auto A = normalized_adjacency_in_space(graph);
  const auto a_hat = normalized_adjacency(graph);
  const std::int64_t nodes = A.extent(0), f_in = args.n, f_out = args.out;
  std::printf("graph %s: %lld nodes, %lld entries in Â (self-loops included), space %s\n", args.path.c_str(),
              static_cast<long long>(nodes), static_cast<long long>(A.nnz()), Space::name());

  // Features and weights (Glorot-uniform scale), drawn on the host.
  Matrix H("H", nodes, f_in), W("W", f_in, f_out), Z("Z", nodes, f_in), Hn("H'", nodes, f_out);
  auto Hh = Kokkos::create_mirror_view(H);
  auto Wh = Kokkos::create_mirror_view(W);
  std::mt19937_64 rng(42);
  std::uniform_real_distribution<double> feature(-1.0, 1.0);
  const double glorot = std::sqrt(6.0 / static_cast<double>(f_in + f_out));
  std::uniform_real_distribution<double> weight(-glorot, glorot);
  for (std::int64_t i = 0; i < nodes; ++i)
    for (std::int64_t k = 0; k < f_in; ++k) Hh(i, k) = static_cast<T>(feature(rng));
  for (std::int64_t k = 0; k < f_in; ++k)
    for (std::int64_t j = 0; j < f_out; ++j) Wh(k, j) = static_cast<T>(weight(rng));
  Kokkos::deep_copy(H, Hh);
  Kokkos::deep_copy(W, Wh);

  tessera::SpmmOptions opts;
  opts.allow_tf32 = true;  // GNN features tolerate TF32 (about 1e-3 relative); no effect off CUDA
  opts.tune = true;        // one Â, many layers of one width: time both CUDA kernels once; no effect off CUDA
  // The layers below read the same H back to back, so Â and H stay in L2 between them: time the
  // kernels in that state.
  opts.tune_cache = tessera::SpmmTuneCache::WarmL2;
  tessera::SpmmHandle handle(opts);  // Â's plan and the tuned pick, kept for every layer
  const tessera::SpmmAlgorithm algorithm = tessera::spmm_choose_algorithm(A, H, Z, handle);

  auto layer = [&]() {
    tessera::spmm(T(1), A, H, T(0), Z, handle);  // Z = Â · H   (nodes x F_in)
    dense_relu(Z, W, Hn);                        // H' = relu(Z · W)
  };
  layer();  // warm-up: plan build, first launches
  Kokkos::fence();
  const auto t0 = std::chrono::steady_clock::now();
  for (int r = 0; r < args.reps; ++r) layer();
  Kokkos::fence();
  const double per_layer = seconds_since(t0) / args.reps;
  const double flops = 2.0 * static_cast<double>(A.nnz()) * f_in + 2.0 * static_cast<double>(nodes) * f_in * f_out;
  std::printf("layer F_in=%lld -> F_out=%lld: %.3f ms per layer, %.2f GFLOP/s, spmm algorithm %s (%d reps)\n",
              static_cast<long long>(f_in), static_cast<long long>(f_out), per_layer * 1e3,
              flops / per_layer * 1e-9, tessera::to_string(algorithm), args.reps);

  // Double host reference on up to 64 sampled rows, from the host's double Â; the error bound
  // scales with the sum of |terms| (float or TF32 rounding).
  auto out = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), Hn);
  std::vector<std::int64_t> row_begin(static_cast<std::size_t>(nodes) + 1, 0);
  for (std::int64_t e = 0; e < a_hat.nnz(); ++e) ++row_begin[a_hat.coord(e, 0) + 1];  // a_hat is sorted by row
  for (std::int64_t i = 0; i < nodes; ++i) row_begin[i + 1] += row_begin[i];
  const double tol = algorithm == tessera::SpmmAlgorithm::TensorCore ? 4e-3 : 1e-5;
  double worst = 0;
  std::int64_t checked = 0, active = 0;
  const std::int64_t step = std::max<std::int64_t>(1, (nodes + 63) / 64);  // at most 64 rows
  for (std::int64_t i = 0; i < nodes; i += step, ++checked) {
    std::vector<double> z(f_in, 0.0), z_abs(f_in, 0.0);
    for (std::int64_t e = row_begin[i]; e < row_begin[i + 1]; ++e) {
      const std::int64_t q = a_hat.coord(e, 1);
      for (std::int64_t k = 0; k < f_in; ++k) {
        const double term = a_hat.values[e] * static_cast<double>(Hh(q, k));
        z[k] += term;
        z_abs[k] += std::abs(term);
      }
    }
    for (std::int64_t j = 0; j < f_out; ++j) {
      double ref = 0, scale = 0;
      for (std::int64_t k = 0; k < f_in; ++k) {
        ref += z[k] * static_cast<double>(Wh(k, j));
        scale += z_abs[k] * std::abs(static_cast<double>(Wh(k, j)));
      }
      ref = std::max(ref, 0.0);
      active += ref > 0;
      const double got = static_cast<double>(out(i, j));
      const double err = std::isfinite(got) ? std::abs(got - ref) / std::max(scale, 1e-30) : INFINITY;
      worst = std::max(worst, err);
    }
  }
  const bool ok = worst <= tol;
  std::printf("check: %lld sampled rows, %lld of %lld outputs active after relu, max error / sum|terms| %.2e "
              "(tol %.0e) %s\n",
              static_cast<long long>(checked), static_cast<long long>(active),
              static_cast<long long>(checked * f_out), worst, tol, ok ? "ok" : "MISMATCH");
  return ok ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) { return tessera_example::run_example(argc, argv, parse_args, run); }
