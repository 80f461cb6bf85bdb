// SpMM on CUDA: the tensor-core kernel in fp16, float through TF32 with a tuned kernel pick, and
// products recorded into a CUDA graph. Prints a skip line where Kokkos has no CUDA backend.
#include <cstdio>
#include <string>

#include <tessera/tessera.hpp>

#if defined(KOKKOS_ENABLE_CUDA)
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

namespace {

using Half = Kokkos::Experimental::half_t;

void check(cudaError_t status, const char* call) {
  if (status != cudaSuccess) throw tessera::CudaError(std::string(call) + ": " + cudaGetErrorString(status));
}

// values (row-major, rows x cols) into a device View, converted to its value type.
template <class View>
void upload(const View& view, const std::vector<double>& values) {
  auto host = Kokkos::create_mirror_view(view);
  for (std::size_t i = 0; i < host.extent(0); ++i)
    for (std::size_t j = 0; j < host.extent(1); ++j)
      host(i, j) = static_cast<typename View::non_const_value_type>(values[i * host.extent(1) + j]);
  Kokkos::deep_copy(view, host);
}

// Largest |C - A B| / sum |terms| over C, with A's values rounded to T as A holds them.
template <class T, class View>
double error_of(const tessera::HostCoo<double>& coo, const std::vector<double>& b, const View& C) {
  const auto Ch = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), C);
  const std::size_t n = Ch.extent(1);
  std::vector<double> want(Ch.extent(0) * n, 0.0), size(want.size(), 0.0);
  for (std::int64_t e = 0; e < coo.nnz(); ++e) {
    const double a = static_cast<double>(static_cast<T>(coo.values[e]));
    for (std::size_t j = 0; j < n; ++j) {
      want[coo.coord(e, 0) * n + j] += a * b[coo.coord(e, 1) * n + j];
      size[coo.coord(e, 0) * n + j] += std::abs(a * b[coo.coord(e, 1) * n + j]);
    }
  }
  double worst = 0;
  for (std::size_t i = 0; i < Ch.extent(0); ++i)
    for (std::size_t j = 0; j < n; ++j) {
      const double err = std::abs(static_cast<double>(Ch(i, j)) - want[i * n + j]) / std::max(size[i * n + j], 1e-300);
      worst = std::isfinite(err) ? std::max(worst, err) : std::numeric_limits<double>::infinity();
    }
  return worst;
}

int run(const std::string& data) {
  const auto coo = tessera::io::read_matrix_market(data + "/matrices/fv2.mtx.gz");
  const std::int64_t m = coo.shape[0], k = coo.shape[1], n = 64;
  std::vector<double> b(k * n);  // multiples of 1/8 in [-1, 1]: exact in fp16 and TF32
  for (std::int64_t r = 0; r < k; ++r)
    for (std::int64_t j = 0; j < n; ++j) b[r * n + j] = static_cast<double>((r * 7 + j * 3) % 17 - 8) / 8.0;
  int failures = 0;

  // [half]
  const auto A = tessera::from_coo<Half, tessera::CSR, Kokkos::Cuda>(coo);  // values rounded to fp16
  Kokkos::View<Half**, Kokkos::LayoutRight, Kokkos::CudaSpace> B("B", k, n), C("C", m, n);
  upload(B, b);
  tessera::SpmmHandle tensor_cores(tessera::SpmmOptions{tessera::SpmmAlgorithm::TensorCore});
  tessera::spmm(Half(1), A, B, Half(0), C, tensor_cores);  // TCA-SpMM, fp32 accumulation
  // [half]
  failures += error_of<Half>(coo, b, C) > 4e-3;

  // [tf32]
  const auto Af = tessera::from_coo<float, tessera::CSR, Kokkos::Cuda>(coo);
  Kokkos::View<float**, Kokkos::LayoutRight, Kokkos::CudaSpace> Bf("Bf", k, n), Cf("Cf", m, n);
  upload(Bf, b);
  tessera::SpmmOptions opts;
  opts.allow_tf32 = true;  // float may run on the TF32 tensor cores (about 1e-3 relative error)
  opts.tune = true;        // first call: time both CUDA kernels for this N and these layouts
  tessera::SpmmHandle tuned(opts);
  tessera::spmm(1.0f, Af, Bf, 0.0f, Cf, tuned);  // synchronizes once, to time the kernels
  std::printf("the tuned pick for N = %lld: %s\n", static_cast<long long>(n),
              tessera::to_string(tessera::spmm_choose_algorithm(Af, Bf, Cf, tuned)));
  // [tf32]
  failures += error_of<float>(coo, b, Cf) > 5e-3;

  // [graph]
  // Building a plan synchronizes the device, which a stream being captured cannot do: make the
  // first call through the handle before the capture; the captured calls replay correctly.
  cudaStream_t stream = nullptr;
  check(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreateWithFlags");
  {
    const Kokkos::Cuda space(stream);  // Tessera's kernels run on this instance's stream
    tessera::SpmmHandle handle;
    tessera::spmm(space, Half(1), A, B, Half(0), C, handle);  // builds and keeps A's plan
    space.fence();
    Kokkos::deep_copy(C, static_cast<Half>(std::numeric_limits<float>::quiet_NaN()));  // the replay must write C
    cudaGraph_t graph = nullptr;
    cudaGraphExec_t exec = nullptr;
    check(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal), "cudaStreamBeginCapture");
    tessera::spmm(space, Half(1), A, B, Half(0), C, handle);  // recorded, not run
    check(cudaStreamEndCapture(stream, &graph), "cudaStreamEndCapture");
    check(cudaGraphInstantiate(&exec, graph, 0), "cudaGraphInstantiate");
    check(cudaGraphLaunch(exec, stream), "cudaGraphLaunch");  // runs the product
    check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
    check(cudaGraphExecDestroy(exec), "cudaGraphExecDestroy");
    check(cudaGraphDestroy(graph), "cudaGraphDestroy");
  }
  check(cudaStreamDestroy(stream), "cudaStreamDestroy");
  // [graph]
  failures += error_of<Half>(coo, b, C) > 4e-3;

  std::printf("spmm on CUDA: %s\n", failures == 0 ? "all checks passed" : "FAILED");
  return failures == 0 ? 0 : 1;
}

}  // namespace
#endif

int main(int argc, char** argv) {
  Kokkos::ScopeGuard guard(argc, argv);
#if defined(KOKKOS_ENABLE_CUDA)
  try {
    return run(argc > 1 ? argv[1] : "../shared/data");
  } catch (const tessera::Error& e) {
    std::printf("error: %s\n", e.what());
    return 1;
  }
#else
  (void)argc, (void)argv;
  std::printf("skipped: Kokkos was built without CUDA\n");
  return 0;
#endif
}
