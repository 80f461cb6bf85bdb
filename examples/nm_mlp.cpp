// A pruned MLP block, Y = relu(X · W1) · W2, run dense and N:M-sparse from the same code.
//   X (batch x d) activations; W1 (d x hidden), W2 (hidden x d) weights, random, scaled by
//   1/sqrt(fan-in). The sparse block holds both weights pruned along k by magnitude and runs
//   tessera::nm_spmm; the dense block runs a dense product (on CUDA: cuBLAS, fp32
//   accumulation; elsewhere a Kokkos loop). MlpBlock<Layer> is the same code for both.
//   --format nv24 (default): fp16, 2:4 (tessera::prune_nv24; on CUDA the sparse-tensor-core
//     kernel, against cuBLAS fp16);
//   --format vnm: fp32, vector-wise N:M (tessera::prune_vnm with --pattern N:M:L, default
//     8:32:32, 75% sparse; on CUDA the tiled CUDA-core kernel with a stage plan built once,
//     against cuBLAS SGEMM with TF32 off).
//   --activations column (vnm only): X, the hidden layer and Y are LayoutLeft (column-major),
//     which the VNM kernel reads without rewriting them first; cuBLAS gets the same layout.
// Prints the accuracy loss of pruning (sparse vs dense output), the time of each block and
// the speedup. Checks the sparse block against the dense code run on the pruned weights
// (to_dense) and exits 1 when they differ by more than the value type's rounding.
// Usage: nm_mlp [--batch B=2048] [--d D=4096] [--hidden H=11008] [--reps R=20]
//               [--format nv24|vnm] [--pattern N:M:L=8:32:32] [--activations row|column]
// (defaults on the host: batch 64, d 1024, hidden 2752, reps 5)
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include <Kokkos_Core.hpp>

#include "tessera/core/error.hpp"
#include "tessera/formats/nv24.hpp"
#include "tessera/formats/vnm.hpp"
#include "tessera/kernels/nm_spmm/nm_spmm.hpp"
#include "example_support.hpp"
#if defined(KOKKOS_ENABLE_CUDA)
#include <cublas_v2.h>
#endif

namespace {

using Space = Kokkos::DefaultExecutionSpace;  // e.g. Kokkos::OpenMP or Kokkos::Cuda
using half = Kokkos::Experimental::half_t;
// Weights are row-major; activations row-major or, with --activations column, column-major.
template <class T, class Layout = Kokkos::LayoutRight>
using Mat = Kokkos::View<T**, Layout, Space>;

// Defaults: a Llama-7B MLP layer (4096 -> 11008) and a batch of 2048 on a GPU; on the host,
// where the dense block is a plain loop (hours at that size), a quarter of the layer, a batch
// of 64 and 5 reps.
constexpr bool kOnHost = Kokkos::SpaceAccessibility<Kokkos::HostSpace, Space::memory_space>::accessible;

struct Args {
  int batch = kOnHost ? 64 : 2048, d = kOnHost ? 1024 : 4096, hidden = kOnHost ? 2752 : 11008, reps = kOnHost ? 5 : 20;
  std::string format = "nv24", activations = "row";
  tessera::VnmPattern pattern{8, 32, 32};
};

Args parse_args(int argc, char** argv) {
  Args a;
  bool pattern_given = false;
  const std::string usage = "usage: nm_mlp [--batch B=" + std::to_string(a.batch) + "] [--d D=" + std::to_string(a.d) +
                            "] [--hidden H=" + std::to_string(a.hidden) + "] [--reps R=" + std::to_string(a.reps) +
                            "] [--format nv24|vnm]\n"
                            "              [--pattern N:M:L=8:32:32] [--activations row|column]\n"
                            "Default sizes: an LLM layer on a GPU, a quarter of it on the host (this build: " +
                            std::string(kOnHost ? "host" : "GPU") + ").\n";
  for (tessera::CommandLine cl(argc, argv, usage); cl.next();) {
    if (cl.is("--batch")) a.batch = cl.int_value();
    else if (cl.is("--d")) a.d = cl.int_value();
    else if (cl.is("--hidden")) a.hidden = cl.int_value();
    else if (cl.is("--reps")) a.reps = cl.int_value();
    else if (cl.is("--format")) a.format = cl.text();
    else if (cl.is("--activations")) a.activations = cl.text();
    else if (cl.is("--pattern")) {
      const auto v = cl.int64_list(':');
      if (v.size() != 3) throw tessera::Error("--pattern wants N:M:L (e.g. 8:32:32)");
      for (const auto x : v)  // check_vnm_pattern names what is wrong with any in int range
        if (x < 0 || x > 1024) throw tessera::Error("--pattern: " + std::to_string(x) + " is not a valid N, M or L");
      a.pattern = {static_cast<int>(v[0]), static_cast<int>(v[1]), static_cast<int>(v[2])};
      tessera::check_vnm_pattern(a.pattern);
      pattern_given = true;
    } else cl.reject();
  }
  if (pattern_given && a.format != "vnm") throw tessera::Error("--pattern needs --format vnm (nv24 is 2:4 along k)");
  if (a.batch < 1 || a.d < 1 || a.hidden < 1 || a.reps < 1) throw tessera::Error("all sizes must be positive");
  if (a.format != "nv24" && a.format != "vnm") throw tessera::Error("--format must be nv24 or vnm, got " + a.format);
  if (a.activations != "row" && a.activations != "column")
    throw tessera::Error("--activations must be row or column, got " + a.activations);
  if (a.activations == "column" && a.format != "vnm")
    throw tessera::Error("--activations column needs --format vnm (the 2:4 kernel takes row-major activations)");
  return a;
}

// ---- the kinds of layer: dense, 2:4, VNM ----------------------------------------------------
template <class T>
struct DenseLinear {
  Mat<T> W;  // (in x out)
};
// The sparse layers, each with its value type and what its product needs (prune: the
// weight pruned the --format way).
// Each layer keeps an NmSpmmHandle for its weight: what the CUDA kernels reuse from call to call
// (the VNM stage plan, the NV24 launch per batch size) is built on the first call only.
struct Nv24Linear {
  using value_type = half;
  tessera::Nv24Tensor<half, Space> W;  // (in x out), 2:4 along in
  // One batch size, many calls: the first call times the CUDA launches and keeps the fastest
  // (the warm-up call of time_ms pays it; no effect off CUDA).
  mutable tessera::NmSpmmHandle handle{tessera::NmSpmmOptions{tessera::NmSpmmAlgorithm::Auto, tessera::VnmLayout::Auto,
                                                              /*tune=*/true}};
  static Nv24Linear prune(const Mat<half>& W, const Args&) { return {tessera::prune_nv24(W)}; }
};
struct VnmLinear {
  using value_type = float;
  tessera::Tensor<float, tessera::VNM, Space> W;  // (in x out), N of every M vectors of L along in
  mutable tessera::NmSpmmHandle handle;
  static VnmLinear prune(const Mat<float>& W, const Args& a) { return {tessera::prune_vnm<Space>(W, a.pattern)}; }
};

#if defined(KOKKOS_ENABLE_CUDA)
void check_blas(cublasStatus_t status, const char* call) {
  if (status != CUBLAS_STATUS_SUCCESS)
    throw tessera::CudaError(std::string(call) + " failed: " + cublasGetStatusString(status));
}
cublasHandle_t blas_handle() {
  static cublasHandle_t h = [] {
    cublasHandle_t handle;
    check_blas(cublasCreate(&handle), "cublasCreate");
    return handle;
  }();
  return h;
}
#endif

// Y (rows x out) = X (rows x in) * W
template <class T, class Layout>
void linear(const Mat<T, Layout>& X, const DenseLinear<T>& L, const Mat<T, Layout>& Y) {
  const int rows = static_cast<int>(X.extent(0)), in = static_cast<int>(X.extent(1)),
            out = static_cast<int>(L.W.extent(1));
#if defined(KOKKOS_ENABLE_CUDA)
  if constexpr (std::is_same_v<Space, Kokkos::Cuda>) {
    // fp32 runs without TF32 (the handle's default math mode). Row-major activations, seen
    // column-major: Y^T (out x rows) = W^T (out x in) * X^T (in x rows); column-major ones:
    // Y = X * W with W (row-major) seen as W^T.
    const cudaDataType type = std::is_same_v<T, float> ? CUDA_R_32F : CUDA_R_16F;
    const float one = 1.f, zero = 0.f;
    check_blas(cublasSetStream(blas_handle(), Space().cuda_stream()), "cublasSetStream");
    const cublasStatus_t st =
        std::is_same_v<Layout, Kokkos::LayoutLeft>
            ? cublasGemmEx(blas_handle(), CUBLAS_OP_N, CUBLAS_OP_T, rows, out, in, &one, X.data(), type, rows,
                           L.W.data(), type, out, &zero, Y.data(), type, rows, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT)
            : cublasGemmEx(blas_handle(), CUBLAS_OP_N, CUBLAS_OP_N, out, rows, in, &one, L.W.data(), type, out,
                           X.data(), type, in, &zero, Y.data(), type, out, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
    check_blas(st, "cublasGemmEx");
    return;
  }
#endif
  // Each thread sums a run of 16 adjacent outputs of a row, so that it reads W's rows 64
  // bytes at a time (one output per thread read a column of W, one element per cache line).
  constexpr int kRun = 16;
  const Mat<T> W = L.W;
  Kokkos::parallel_for(
      "nm_mlp::dense linear", Kokkos::MDRangePolicy<Space, Kokkos::Rank<2>>({0, 0}, {rows, (out + kRun - 1) / kRun}),
      KOKKOS_LAMBDA(int i, int run) {
        const int j0 = run * kRun, width = out - j0 < kRun ? out - j0 : kRun;
        float acc[kRun] = {};
        for (int k = 0; k < in; ++k) {
          const float x = static_cast<float>(X(i, k));
          for (int t = 0; t < width; ++t) acc[t] += x * static_cast<float>(W(k, j0 + t));
        }
        for (int t = 0; t < width; ++t) Y(i, j0 + t) = static_cast<T>(acc[t]);
      });
}
void linear(const Mat<half>& X, const Nv24Linear& L, const Mat<half>& Y) {
  tessera::nm_spmm(half(1.0f), X, L.W, half(0.0f), Y, L.handle);
}
template <class Layout>
void linear(const Mat<float, Layout>& X, const VnmLinear& L, const Mat<float, Layout>& Y) {
  tessera::nm_spmm(1.0f, X, L.W, 0.0f, Y, L.handle);
}

template <class T, class Layout>
void relu(const Mat<T, Layout>& H) {
  Kokkos::parallel_for(
      "nm_mlp::relu",
      Kokkos::MDRangePolicy<Space, Kokkos::Rank<2>>({0, 0}, {static_cast<int>(H.extent(0)), static_cast<int>(H.extent(1))}),
      KOKKOS_LAMBDA(int i, int j) {
        if (static_cast<float>(H(i, j)) < 0.f) H(i, j) = static_cast<T>(0.f);
      });
}

// ---- the block: one code for every layer kind ----------------------------------------------
template <class T, class Layer, class Layout = Kokkos::LayoutRight>
struct MlpBlock {
  Layer up, down;         // d -> hidden, hidden -> d
  Mat<T, Layout> hidden;  // (batch x hidden)
  void operator()(const Mat<T, Layout>& X, const Mat<T, Layout>& Y) const {
    linear(X, up, hidden);
    relu(hidden);
    linear(hidden, down, Y);
  }
};

template <class T, class Layout = Kokkos::LayoutRight>
Mat<T, Layout> random_mat(std::int64_t rows, std::int64_t cols, double scale, std::uint64_t seed, const char* label) {
  Mat<T, Layout> m(std::string(label), rows, cols);
  auto h = Kokkos::create_mirror_view(m);
  std::mt19937_64 rng(seed);
  std::normal_distribution<float> normal(0.f, static_cast<float>(scale));
  for (std::int64_t i = 0; i < rows; ++i)
    for (std::int64_t j = 0; j < cols; ++j) h(i, j) = static_cast<T>(normal(rng));
  Kokkos::deep_copy(m, h);
  return m;
}

template <class T, class Layout>
double relative_difference(const Mat<T, Layout>& a, const Mat<T, Layout>& b) {
  auto ha = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), a);
  auto hb = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), b);
  double num = 0, den = 0;
  for (std::size_t i = 0; i < ha.extent(0); ++i)
    for (std::size_t j = 0; j < ha.extent(1); ++j) {
      const double x = static_cast<float>(ha(i, j)), y = static_cast<float>(hb(i, j));
      num += (x - y) * (x - y);
      den += y * y;
    }
  return std::isfinite(num) ? std::sqrt(num / std::max(den, 1e-300)) : INFINITY;
}

template <class Block, class Act>
double time_ms(const Block& block, const Act& X, const Act& Y, int reps) {
  block(X, Y);  // warm-up (library handles, kernel loading, the NV24 launch tuning)
  Kokkos::fence();
  const auto t0 = std::chrono::steady_clock::now();
  for (int r = 0; r < reps; ++r) block(X, Y);
  Kokkos::fence();
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count() / reps;
}

template <class Sparse, class Layout = Kokkos::LayoutRight>
int run_block(const Args& a) {
  using T = typename Sparse::value_type;
  using Act = Mat<T, Layout>;
  const Act X = random_mat<T, Layout>(a.batch, a.d, 1.0, 1, "X");
  const Mat<T> W1 = random_mat<T>(a.d, a.hidden, 1.0 / std::sqrt(a.d), 2, "W1");
  const Mat<T> W2 = random_mat<T>(a.hidden, a.d, 1.0 / std::sqrt(a.hidden), 3, "W2");
  const Act hidden("hidden", a.batch, a.hidden);

  const MlpBlock<T, DenseLinear<T>, Layout> dense{{W1}, {W2}, hidden};
  const MlpBlock<T, Sparse, Layout> sparse{Sparse::prune(W1, a), Sparse::prune(W2, a), hidden};
  // the dense code on the pruned weights: what the sparse block must reproduce
  const MlpBlock<T, DenseLinear<T>, Layout> dense_pruned{
      {tessera::to_dense(sparse.up.W)}, {tessera::to_dense(sparse.down.W)}, hidden};

  Act Y_dense("Y_dense", a.batch, a.d), Y_sparse("Y_sparse", a.batch, a.d), Y_check("Y_check", a.batch, a.d);
  Kokkos::deep_copy(Y_sparse, static_cast<T>(NAN));  // poisoned: every entry must be written
  const double t_dense = time_ms(dense, X, Y_dense, a.reps);
  const double t_sparse = time_ms(sparse, X, Y_sparse, a.reps);
  dense_pruned(X, Y_check);
  Kokkos::fence();

  constexpr bool fp32 = std::is_same_v<Sparse, VnmLinear>;
  const std::string kind = fp32 ? std::to_string(a.pattern.n) + ":" + std::to_string(a.pattern.m) + " (L = " +
                                      std::to_string(a.pattern.l) + ")"
                                : std::string("2:4");
  // the CUDA kernels (where nm_spmm runs them) or the portable one
  const bool cuda_kernel = fp32 ? !std::is_same_v<Space, Kokkos::DefaultHostExecutionSpace>
                                : tessera::nm_spmm_default_algorithm<tessera::Nv24Tensor<half, Space>>() ==
                                      tessera::NmSpmmAlgorithm::SparseTensorCore;
  const double loss = relative_difference(Y_sparse, Y_dense);
  const double kernel_err = relative_difference(Y_sparse, Y_check);
  const double bound = fp32 ? 1e-4 : 1e-2;  // the value type's rounding, summed over the two layers
  std::printf("MLP block relu(X W1) W2: batch %d, d %d, hidden %d, %s, %s activations, space %s\n", a.batch, a.d,
              a.hidden, fp32 ? "fp32" : KOKKOS_HALF_T_IS_FLOAT ? "half_t (= float in this build)" : "fp16",
              std::is_same_v<Layout, Kokkos::LayoutLeft> ? "column-major" : "row-major", Space::name());
  std::printf("  dense  (%s): %9.3f ms\n", std::is_same_v<Space, Kokkos::DefaultHostExecutionSpace> ? "plain Kokkos loop, not a tuned BLAS" : "cuBLAS",
              t_dense);
  std::printf("  %s sparse (tessera::nm_spmm, %s): %9.3f ms  -> speedup %.2fx\n", kind.c_str(),
              !cuda_kernel ? "portable kernel" : fp32 ? "tiled CUDA-core kernel" : "sparse tensor cores", t_sparse,
              t_dense / t_sparse);
  std::printf("  accuracy loss of %s pruning (||Y_sparse - Y_dense|| / ||Y_dense||): %.4f\n", kind.c_str(), loss);
  std::printf("  sparse block vs dense code on the pruned weights: %.2e %s\n", kernel_err,
              kernel_err < bound ? "(ok)" : "(MISMATCH)");
  return kernel_err < bound ? 0 : 1;
}

int run(const Args& a) {
  if (a.format == "nv24") return run_block<Nv24Linear>(a);
  return a.activations == "column" ? run_block<VnmLinear, Kokkos::LayoutLeft>(a) : run_block<VnmLinear>(a);
}

}  // namespace

int main(int argc, char** argv) { return tessera_example::run_example(argc, argv, parse_args, run); }
