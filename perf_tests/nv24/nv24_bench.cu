// NV24 fp16 benchmark: C (M x N) = A (M x K) * B (K x N, 2:4-pruned weight), in one process
// on the same data: Tessera's NV24 kernel, cuBLAS dense fp16 (cublasGemmEx, fp16 in/out,
// CUBLAS_COMPUTE_32F) on the pruned weight, and cuSPARSELt (dlopen; column skipped when the
// library is absent) on the same pruned weight at its best: for each shape the weight in both
// layouts (K strided as stored, and a transposed copy with K contiguous), each with the
// configuration cusparseLtMatmulSearch finds, and the faster of the two timed.
// Shapes: 4096^3, 8192^3 and the LLM linear-layer set. Prints a Markdown table; each time
// is the median over 7 samples of 10 back-to-back launches (after warm-up), the three
// libraries' samples interleaved (median_event_ms_interleaved: they share the GPU's clock and
// power state). The cubes are also timed with each library alone after a few seconds of its own
// back-to-back calls: the state a sustained workload runs in, which differs per library when
// the board is at its power limit. Every NV24 and cuSPARSELt result is compared with cuBLAS on
// three sampled rows. --tuned runs nv24_tune's launch for each shape instead of Auto's (tuned
// once per shape before the timing, the cost printed) and times Auto's beside it, interleaved.
// --choice-cost times only the host side of Auto's choice (nv24_choose, which every nv24_spmm
// call without a launch runs) on each shape, and prints it with the launch chosen. --cold-l2
// times single calls from a cold L2 instead of back-to-back calls (SampleProtocol below).
// Usage: nv24_bench [--quick | --sweep | --sweep-set | --choice-cost] [--tuned] [--cold-l2]
#include <cublas_v2.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "cusparselt_dl.hpp"
#include "../common/event_timing.hpp"
#include "nv24_harness.hpp"
#include "tessera/core/command_line.hpp"

using namespace nv24_harness;
namespace kc = tessera::kernels::cuda;

#define CUBLAS_CHECK(expr)                                                                               \
  do {                                                                                                   \
    const cublasStatus_t s_ = (expr);                                                                    \
    if (s_ != CUBLAS_STATUS_SUCCESS) throw std::runtime_error(std::string(#expr) + " failed: " + std::to_string(s_)); \
  } while (0)
#define LT_CHECK(expr)                                                                                   \
  do {                                                                                                   \
    const cusparseStatus_t s_ = (expr);                                                                  \
    if (s_ != CUSPARSE_STATUS_SUCCESS) throw std::runtime_error(std::string(#expr) + " failed: " + std::to_string(s_)); \
  } while (0)

// Fills n fp16 values in [-1, 1) from a hash of the index (activations need no host copy).
__global__ void fill_random(__half* p, std::int64_t n, std::uint64_t seed) {
  for (std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; i < n; i += std::int64_t(gridDim.x) * blockDim.x) {
    std::uint64_t x = (i + 1) * 0x9E3779B97F4A7C15ull ^ seed;
    x ^= x >> 31;
    x *= 0xBF58476D1CE4E5B9ull;
    x ^= x >> 29;
    p[i] = __float2half(static_cast<float>((x >> 40) & 0xFFFFFF) / 8388608.0f - 1.0f);
  }
}

// How a sample is taken. Warm (default): 10 back-to-back calls, each finding the operands the
// call before left in the L2 (a layer run over and over; the compressed weight of the smaller
// shapes fits the H100's 50 MB). --cold-l2: one call after a write over twice the L2, so that
// weight and activations come from DRAM (a layer whose weight other layers evicted since its
// last use); 15 samples, as single calls vary more.
struct SampleProtocol {
  EventTiming how{3, 7, 10, nullptr};
  void* flush = nullptr;  // --cold-l2: 2 x L2 bytes written before each sample
  std::size_t flush_bytes = 0;
  void before_sample(cudaStream_t s) const {
    if (flush) HARNESS_CHECK(cudaMemsetAsync(flush, 0, flush_bytes, s));
  }
};
static SampleProtocol g_protocol;

// Median time per call of fn on stream s under g_protocol.
static float median_ms(const std::function<void()>& fn, cudaStream_t s) {
  EventTiming how = g_protocol.how;
  how.stream = s;
  return static_cast<float>(median_event_ms(fn, how, [s] { g_protocol.before_sample(s); }));
}

// How long a library runs alone before its sustained time is taken: long enough for the board
// to settle at its power limit (the SM clock settles within about a second on an H100).
constexpr double kSustainSeconds = 3.0;

// Median time of fn (as median_ms) after it ran back to back for kSustainSeconds.
static float sustained_ms(const std::function<void()>& fn, cudaStream_t s) {
  const auto start = std::chrono::steady_clock::now();
  while (std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() < kSustainSeconds) {
    for (int c = 0; c < 10; ++c) fn();
    HARNESS_CHECK(cudaStreamSynchronize(s));
  }
  return median_ms(fn, s);
}

// Relative difference of x vs ref (both M x N fp16, device) on rows 0, M/2, M-1.
static double sampled_rel_diff(const __half* x, const __half* ref, std::int64_t M, std::int64_t N) {
  double num = 0, den = 0;
  std::vector<std::uint16_t> a(N), b(N);
  for (std::int64_t r : {std::int64_t(0), M / 2, M - 1}) {
    HARNESS_CHECK(cudaMemcpy(a.data(), x + r * N, N * 2, cudaMemcpyDeviceToHost));
    HARNESS_CHECK(cudaMemcpy(b.data(), ref + r * N, N * 2, cudaMemcpyDeviceToHost));
    for (std::int64_t j = 0; j < N; ++j) {
      const double u = from_bits(a[j], Nv24Type::F16), v = from_bits(b[j], Nv24Type::F16);
      num += (u - v) * (u - v);
      den += v * v;
    }
  }
  return std::sqrt(num / std::max(den, 1e-300));
}

// dst (n x k, row-major) = src (k x n, row-major), 16-bit elements: the weight with K contiguous.
__global__ void transpose_u16(const std::uint16_t* src, std::uint16_t* dst, std::int64_t k, std::int64_t n) {
  for (std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; i < k * n;
       i += std::int64_t(gridDim.x) * blockDim.x)
    dst[(i % n) * k + i / n] = src[i];
}

// cuSPARSELt's product C^T (N x M) = W^T (N x K, structured) * A^T (K x M), all column-major
// views of the row-major arrays, for one layout of the weight: K strided (W^T column-major, as
// the weight is stored) or K contiguous (W^T row-major, from a transposed copy). Compressed
// and searched once; call() runs the found configuration.
struct LtProduct {
  lt::Api& api;
  const lt::Handle& handle;
  lt::MatDescr w{}, a{}, c{};
  lt::MatmulDescr mm{};
  lt::AlgSelection alg{};
  lt::Plan plan{};
  bool w_made = false, a_made = false, c_made = false, alg_made = false, plan_made = false;
  std::optional<DeviceBuf<unsigned char>> compressed, compress_buffer, workspace;

  LtProduct(lt::Api& api_, const lt::Handle& handle_, bool k_contiguous, const std::uint16_t* weight, std::int64_t M,
            std::int64_t N, std::int64_t K, const __half* A, __half* C, cudaStream_t stream)
      : api(api_), handle(handle_) {
    LT_CHECK(api.structured_init(&handle, &w, N, K, k_contiguous ? K : N, 16, CUDA_R_16F,
                                 k_contiguous ? CUSPARSE_ORDER_ROW : CUSPARSE_ORDER_COL, lt::kSparsity50));
    w_made = true;
    LT_CHECK(api.dense_init(&handle, &a, K, M, K, 16, CUDA_R_16F, CUSPARSE_ORDER_COL));
    a_made = true;
    LT_CHECK(api.dense_init(&handle, &c, N, M, N, 16, CUDA_R_16F, CUSPARSE_ORDER_COL));
    c_made = true;
    LT_CHECK(api.matmul_init(&handle, &mm, CUSPARSE_OPERATION_NON_TRANSPOSE, CUSPARSE_OPERATION_NON_TRANSPOSE, &w,
                             &a, &c, &c, lt::kCompute32F));
    LT_CHECK(api.alg_init(&handle, &alg, &mm, lt::kAlgDefault));
    alg_made = true;
    LT_CHECK(api.plan_init(&handle, &plan, &mm, &alg));
    plan_made = true;
    std::size_t csize = 0, cbuf = 0;
    LT_CHECK(api.compressed_size(&handle, &plan, &csize, &cbuf));
    compressed.emplace(csize);
    compress_buffer.emplace(std::max<std::size_t>(cbuf, 1));
    LT_CHECK(api.compress(&handle, &plan, weight, compressed->p, compress_buffer->p, stream));
    // The search may pick a split-K configuration with a larger workspace: ask again after it.
    constexpr std::size_t kSearchWorkspace = std::size_t{256} << 20;
    std::size_t wsize = 0;
    LT_CHECK(api.workspace(&handle, &plan, &wsize));
    workspace.emplace(std::max(wsize, kSearchWorkspace));
    const float one = 1.f, zero = 0.f;
    LT_CHECK(api.search(&handle, &plan, &one, compressed->p, A, &zero, C, C, workspace->p, &stream, 1));
    LT_CHECK(api.workspace(&handle, &plan, &wsize));
    if (wsize > workspace->count) workspace.emplace(wsize);
    HARNESS_CHECK(cudaStreamSynchronize(stream));
    a_ptr = A, c_ptr = C;
  }
  LtProduct(const LtProduct&) = delete;
  LtProduct& operator=(const LtProduct&) = delete;
  ~LtProduct() {
    if (plan_made) api.plan_destroy(&plan);
    if (alg_made) api.alg_destroy(&alg);
    if (c_made) api.mat_destroy(&c);
    if (a_made) api.mat_destroy(&a);
    if (w_made) api.mat_destroy(&w);
  }
  void call(cudaStream_t stream) {
    const float one = 1.f, zero = 0.f;
    LT_CHECK(api.matmul(&handle, &plan, &one, compressed->p, a_ptr, &zero, c_ptr, c_ptr, workspace->p, &stream, 1));
  }
  const __half* a_ptr = nullptr;
  __half* c_ptr = nullptr;
};

struct Row {
  std::int64_t M, N, K;
  std::string tile, lt_layout = "-";
  float nv24 = 0, cublas = 0, lt = -1;
  float nv24_auto = -1;  // --tuned: Auto's launch, timed beside the tuned one
  // cubes: each library alone after kSustainSeconds of its own back-to-back calls (-1: not run)
  float nv24_alone = -1, cublas_alone = -1, lt_alone = -1;
  double diff_nv24 = 0, diff_lt = -1;
};

int main(int argc, char** argv) {
  std::string mode;
  bool tuned = false, cold_l2 = false;
  const auto status = tessera::walk_command_line("nv24_bench", [&] {
    for (tessera::CommandLine cl(argc, argv,
                                 "usage: nv24_bench [--quick | --sweep | --sweep-set | --choice-cost] [--tuned] [--cold-l2]\n");
         cl.next();) {
      if (cl.is("--tuned")) tuned = true;
      else if (cl.is("--cold-l2")) cold_l2 = true;
      else if (cl.is("--quick") || cl.is("--sweep") || cl.is("--sweep-set") || cl.is("--choice-cost")) mode = cl.arg();
      else cl.reject();
    }
    if (cold_l2 && !mode.empty() && mode != "--quick")
      throw tessera::Error("--cold-l2 times the tables (the default or --quick), not " + mode);
  });
  if (status) return *status;
  const bool quick = mode == "--quick";
  std::vector<double> tune_ms;  // host time of each nv24_tune call
  try {
    cudaDeviceProp prop;
    HARNESS_CHECK(cudaGetDeviceProperties(&prop, 0));
    cudaStream_t stream;
    HARNESS_CHECK(cudaStreamCreate(&stream));
    cublasHandle_t blas;
    CUBLAS_CHECK(cublasCreate(&blas));
    CUBLAS_CHECK(cublasSetStream(blas, stream));
    lt::Api api;
    const bool have_lt = api.load();
    lt::Handle lth;
    if (have_lt) LT_CHECK(api.init(&lth));
    DeviceBuf<unsigned char> flush(cold_l2 ? 2 * static_cast<std::size_t>(prop.l2CacheSize) : 0);
    if (cold_l2) g_protocol = {EventTiming{3, 15, 1, nullptr}, flush.p, 2 * static_cast<std::size_t>(prop.l2CacheSize)};
    std::printf("Timing: %s\n", cold_l2 ? "--cold-l2: median of 15 single calls, each after a write over 2 x L2"
                                         : "median of 7 samples of 10 back-to-back calls (operands left in L2)");
    std::printf("GPU: %s (%d SMs); cuSPARSELt: %s\n\n", prop.name, prop.multiProcessorCount,
                have_lt ? api.path.c_str() : "not found (column skipped)");

    // (N, K) pairs, each with its M values
    std::vector<std::pair<std::int64_t, std::int64_t>> nk = {{4096, 4096}, {8192, 8192}};
    const std::vector<std::pair<std::int64_t, std::int64_t>> llm = {
        {2048, 2048},  {6144, 2048},  {2048, 5632},  {5632, 2048},  {4096, 4096},  {12288, 4096}, {4096, 11008},
        {11008, 4096}, {5120, 5120},  {15360, 5120}, {5120, 13824}, {13824, 5120}, {6656, 6656},  {19968, 6656},
        {6656, 17920}, {17920, 6656}, {8192, 8192},  {24576, 8192}, {8192, 22016}, {22016, 8192}};
    const std::vector<std::int64_t> Ms = {256, 512, 1024, 2048, 4096};
    std::vector<Row> cubes, set;
    std::uint64_t seed = 7;

    // Times the libraries with their samples interleaved; sustained: each one alone too.
    auto time_all = [&](Row& row, const std::vector<std::function<void()>>& ops, bool sustained) {
      EventTiming how = g_protocol.how;
      how.stream = stream;
      const std::vector<double> ms =
          median_event_ms_interleaved(ops, how, [&] { g_protocol.before_sample(stream); });
      row.cublas = static_cast<float>(ms[0]);
      row.nv24 = static_cast<float>(ms[1]);
      if (tuned) row.nv24_auto = static_cast<float>(ms.back());
      if (ops.size() > (tuned ? 3u : 2u)) row.lt = static_cast<float>(ms[2]);
      if (!sustained) return;
      row.cublas_alone = sustained_ms(ops[0], stream);
      row.nv24_alone = sustained_ms(ops[1], stream);
      if (row.lt > 0) row.lt_alone = sustained_ms(ops[2], stream);
    };

    auto measure = [&](std::int64_t M, const Nv24Host& w, const DeviceBuf<std::uint16_t>& dBp,
                       const DeviceBuf<std::uint16_t>& dBt, const DeviceBuf<std::uint16_t>& dV,
                       const DeviceBuf<std::uint32_t>& dMeta, bool sustained) {
      const std::int64_t N = w.n, K = w.k;
      Row row{M, N, K};
      DeviceBuf<__half> dA(static_cast<std::size_t>(M * K)), dC(static_cast<std::size_t>(M * N)),
          dRef(static_cast<std::size_t>(M * N));
      fill_random<<<1024, 256, 0, stream>>>(dA.p, M * K, seed++);
      HARNESS_CHECK(cudaGetLastError());
      const float one = 1.f, zero = 0.f;
      // cuBLAS, column-major view: C^T (N x M) = B^T (N x K) * A^T (K x M)
      auto gemm = [&] {
        CUBLAS_CHECK(cublasGemmEx(blas, CUBLAS_OP_N, CUBLAS_OP_N, int(N), int(M), int(K), &one, dBp.p, CUDA_R_16F,
                                  int(N), dA.p, CUDA_R_16F, int(K), &zero, dRef.p, CUDA_R_16F, int(N),
                                  CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
      };
      kc::Nv24Args args{Nv24Type::F16, M, N, K, w.kp, dA.p, K, dV.p, dMeta.p, dC.p, N};
      // Each launch picked once per shape, as a handle keeps it: the timed calls run it alone.
      const kc::Nv24Launch auto_launch = kc::nv24_choose(args);
      const auto tune_start = std::chrono::steady_clock::now();
      const kc::Nv24Launch launch = tuned ? kc::nv24_tune(args, stream) : auto_launch;
      if (tuned)
        tune_ms.push_back(
            std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - tune_start).count());
      row.tile = kc::to_string(launch);
      auto ours = [&] { kc::nv24_spmm(args, stream, launch); };
      auto ours_auto = [&] { kc::nv24_spmm(args, stream, auto_launch); };
      HARNESS_CHECK(cudaMemsetAsync(dC.p, 0xFF, M * N * 2, stream));
      gemm();
      ours();
      HARNESS_CHECK(cudaStreamSynchronize(stream));
      row.diff_nv24 = sampled_rel_diff(dC.p, dRef.p, M, N);
      if (!have_lt) {
        if (tuned) time_all(row, {gemm, ours, ours_auto}, sustained);
        else time_all(row, {gemm, ours}, sustained);
      } else {
        // The weight in both layouts, each searched; the faster one is the baseline.
        LtProduct strided(api, lth, false, dBp.p, M, N, K, dA.p, dC.p, stream);
        LtProduct contiguous(api, lth, true, dBt.p, M, N, K, dA.p, dC.p, stream);
        const float strided_ms = median_ms([&] { strided.call(stream); }, stream);
        const float contiguous_ms = median_ms([&] { contiguous.call(stream); }, stream);
        LtProduct& best = contiguous_ms < strided_ms ? contiguous : strided;
        row.lt_layout = &best == &contiguous ? "K contiguous" : "K strided";
        auto sparse = [&] { best.call(stream); };
        HARNESS_CHECK(cudaMemsetAsync(dC.p, 0xFF, M * N * 2, stream));
        sparse();
        HARNESS_CHECK(cudaStreamSynchronize(stream));
        row.diff_lt = sampled_rel_diff(dC.p, dRef.p, M, N);
        if (tuned) time_all(row, {gemm, ours, sparse, ours_auto}, sustained);
        else time_all(row, {gemm, ours, sparse}, sustained);
      }
      if (tuned) {
        char auto_note[160];
        std::snprintf(auto_note, sizeof auto_note, " (Auto %s: %.4f ms)", kc::to_string(auto_launch).c_str(),
                      row.nv24_auto);
        row.tile += auto_note;
      }
      return row;
    };

    auto run_pair = [&](std::int64_t N, std::int64_t K, const std::vector<std::int64_t>& m_list, std::vector<Row>& out,
                        bool sustained) {
      const Nv24Host w = prune_encode(random_mat(K, N, N, Nv24Type::F16, seed++), Nv24Type::F16);
      DeviceBuf<std::uint16_t> dBp(w.pruned.bits), dV(w.vals), dBt(w.pruned.bits.size());
      DeviceBuf<std::uint32_t> dMeta(w.meta);
      transpose_u16<<<1024, 256, 0, stream>>>(dBp.p, dBt.p, K, N);
      HARNESS_CHECK(cudaGetLastError());
      for (std::int64_t M : m_list) {
        out.push_back(measure(M, w, dBp, dBt, dV, dMeta, sustained));
        const Row& r = out.back();
        std::fprintf(stderr, "M=%lld N=%lld K=%lld nv24 %.4f cublas %.4f lt %.4f auto %.4f\n", (long long)M,
                     (long long)N, (long long)K, r.nv24, r.cublas, r.lt, r.nv24_auto);
      }
    };
    if (mode == "--choice-cost") {
      // No operands: the choice reads the extents only. The first call per shape fills the
      // per-device caches (attributes, cluster occupancy) and is left out.
      std::vector<std::array<std::int64_t, 3>> shapes = {{4096, 4096, 4096}, {8192, 8192, 8192}};
      for (auto [N, K] : llm)
        for (std::int64_t M : Ms) shapes.push_back({M, N, K});
      constexpr int kCalls = 200, kBatches = 5;
      std::vector<double> per_call;
      std::printf("| M | N | K | Auto's launch | host us per nv24_choose (median of %d x %d calls) |\n|---|---|---|---|---|\n",
                  kBatches, kCalls);
      for (auto [M, N, K] : shapes) {
        const kc::Nv24Args args{Nv24Type::F16, M, N, K, tessera::nv24::padded_k(K), nullptr, K, nullptr, nullptr,
                                nullptr, N};
        const kc::Nv24Launch launch = kc::nv24_choose(args);
        std::vector<double> us;
        for (int b = 0; b < kBatches; ++b) {
          const auto t0 = std::chrono::steady_clock::now();
          for (int i = 0; i < kCalls; ++i)
            if (kc::nv24_choose(args).tile != launch.tile) throw std::runtime_error("nv24_choose changed its pick");
          us.push_back(std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count() / kCalls);
        }
        std::sort(us.begin(), us.end());
        per_call.push_back(us[kBatches / 2]);
        std::printf("| %lld | %lld | %lld | %s | %.2f |\n", (long long)M, (long long)N, (long long)K,
                    kc::to_string(launch).c_str(), us[kBatches / 2]);
      }
      std::sort(per_call.begin(), per_call.end());
      std::printf("\nSUMMARY nv24_choose host time per call over %zu shapes: median %.2f us, max %.2f us\n",
                  per_call.size(), per_call[per_call.size() / 2], per_call.back());
      return 0;
    }
    if (mode == "--sweep" || mode == "--sweep-set") {
      // Tuning aids for Auto's model. --sweep: every tile at 1, 2 and 4 K splits on a few shapes.
      // --sweep-set: on the cubes and the set, every wgmma.sp tile at 1-4 K splits and every head +
      // tail pair of them whose head leaves a partial last wave, with up to 1.5 waves of head
      // blocks in the tail. Auto's launch comes first; all samples of a shape are interleaved.
      const bool whole_set = mode == "--sweep-set";
      std::vector<std::array<std::int64_t, 3>> shapes = {{4096, 4096, 4096}, {256, 4096, 4096}, {1024, 5120, 5120},
                                                         {256, 2048, 5632}, {512, 5120, 13824}, {256, 17920, 6656}};
      if (whole_set) {
        shapes = {{4096, 4096, 4096}, {8192, 8192, 8192}};
        for (auto [N, K] : llm)
          for (std::int64_t M : Ms) shapes.push_back({M, N, K});
      }
      // the wgmma.sp tiles on Hopper only
      const bool hopper = prop.major == 9 && prop.minor == 0;
      const int first = whole_set ? static_cast<int>(kc::Nv24Tile::HopperWide) : static_cast<int>(kc::Nv24Tile::Large);
      const int last = static_cast<int>(hopper ? kc::Nv24Tile::HopperLarge : kc::Nv24Tile::Small);
      const kc::Nv24Tile pair_tiles[] = {kc::Nv24Tile::HopperWide, kc::Nv24Tile::HopperTall, kc::Nv24Tile::HopperLarge};
      std::optional<Nv24Host> w;  // pruned once per weight shape
      for (auto [M, N, K] : shapes) {
        if (!w || w->k != K || w->n != N)
          w.emplace(prune_encode(random_mat(K, N, N, Nv24Type::F16, seed++), Nv24Type::F16));
        DeviceBuf<std::uint16_t> dV(w->vals);
        DeviceBuf<std::uint32_t> dMeta(w->meta);
        DeviceBuf<__half> dA(static_cast<std::size_t>(M * K)), dC(static_cast<std::size_t>(M * N));
        fill_random<<<1024, 256, 0, stream>>>(dA.p, M * K, seed++);
        kc::Nv24Args args{Nv24Type::F16, M, N, K, w->kp, dA.p, K, dV.p, dMeta.p, dC.p, N};
        std::vector<kc::Nv24Launch> cands = {kc::nv24_choose(args)};
        for (int t = first; t <= last; ++t)
          for (int splits : {1, 2, 3, 4})
            if (splits != 3 || whole_set) cands.push_back({kc::Nv24Tile(t), splits});
        for (kc::Nv24Tile head : pair_tiles) {
          if (!whole_set || !hopper) break;
          const kc::Nv24TileShape tile = kc::nv24_tile_shape(head);
          const std::int64_t rows = tile.activation_rows, row_tiles = (M + rows - 1) / rows;
          const std::int64_t cols = (N + tile.weight_rows - 1) / tile.weight_rows;
          if (row_tiles * cols % prop.multiProcessorCount == 0) continue;
          const std::int64_t lo = std::max<std::int64_t>(1, row_tiles - (3 * prop.multiProcessorCount / 2 + cols - 1) / cols);
          for (kc::Nv24Tile tail : pair_tiles)
            for (std::int64_t r = lo; tail != head && r < row_tiles; ++r) cands.push_back({head, 1, tail, M - r * rows});
        }
        std::vector<std::function<void()>> runs;
        for (const kc::Nv24Launch& l : cands) runs.push_back([&, l] { kc::nv24_spmm(args, stream, l); });
        const std::vector<double> ms = median_event_ms_interleaved(runs, EventTiming{2, 7, 5, stream});
        std::printf("sweep M=%lld N=%lld K=%lld", (long long)M, (long long)N, (long long)K);
        for (std::size_t c = 0; c < cands.size(); ++c)
          std::printf(" | %s%s = %.4f", c == 0 ? "Auto: " : "", kc::to_string(cands[c]).c_str(), ms[c]);
        std::printf("\n");
        std::fflush(stdout);
      }
      return 0;
    }
    run_pair(4096, 4096, {4096}, cubes, true);
    run_pair(8192, 8192, {8192}, cubes, true);
    if (!quick)
      for (auto [N, K] : llm) run_pair(N, K, Ms, set, false);

    auto tflops = [](const Row& r, float ms) { return 2.0 * r.M * r.N * r.K / (ms * 1e-3) / 1e12; };
    auto print = [&](const std::vector<Row>& rows) {
      std::printf("| M | N | K | NV24 tile | NV24 ms | cuBLAS ms | cuSPARSELt weight | cuSPARSELt ms | NV24 TFLOP/s (dense-equiv.) | NV24 / cuBLAS | NV24 / cuSPARSELt | rel. diff NV24 vs cuBLAS | rel. diff cuSPARSELt vs cuBLAS |\n");
      std::printf("|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
      for (const Row& r : rows) {
        std::printf("| %lld | %lld | %lld | %s | %.4f | %.4f | %s | ", (long long)r.M, (long long)r.N, (long long)r.K,
                    r.tile.c_str(), r.nv24, r.cublas, r.lt_layout.c_str());
        if (r.lt > 0) std::printf("%.4f", r.lt); else std::printf("-");
        std::printf(" | %.0f | %.2fx | ", tflops(r, r.nv24), r.cublas / r.nv24);
        if (r.lt > 0) std::printf("%.2fx", r.lt / r.nv24); else std::printf("-");
        std::printf(" | %.1e | ", r.diff_nv24);
        if (r.diff_lt >= 0) std::printf("%.1e |\n", r.diff_lt); else std::printf("- |\n");
      }
    };
    std::printf("### Cubes\n\n");
    print(cubes);
    std::printf("\n### Cubes, each library alone after %.0f s of its own back-to-back calls (sustained power state)\n\n",
                kSustainSeconds);
    std::printf("| M | N | K | NV24 ms | cuBLAS ms | cuSPARSELt ms | NV24 / cuBLAS | NV24 / cuSPARSELt |\n");
    std::printf("|---|---|---|---|---|---|---|---|\n");
    for (const Row& r : cubes) {
      std::printf("| %lld | %lld | %lld | %.4f | %.4f | ", (long long)r.M, (long long)r.N, (long long)r.K, r.nv24_alone,
                  r.cublas_alone);
      if (r.lt_alone > 0) std::printf("%.4f | %.2fx | %.2fx |\n", r.lt_alone, r.cublas_alone / r.nv24_alone,
                                      r.lt_alone / r.nv24_alone);
      else std::printf("- | %.2fx | - |\n", r.cublas_alone / r.nv24_alone);
    }
    if (!set.empty()) {
      std::printf("\n### LLM linear-layer set (%zu shapes)\n\n", set.size());
      print(set);
      double g_blas = 0, g_lt = 0;
      int n_lt = 0;
      for (const Row& r : set) {
        g_blas += std::log(r.cublas / r.nv24);
        if (r.lt > 0) g_lt += std::log(r.lt / r.nv24), ++n_lt;
      }
      std::printf("\nSUMMARY set geomean NV24/cuBLAS %.3fx", std::exp(g_blas / set.size()));
      if (n_lt) std::printf(", NV24/cuSPARSELt %.3fx (%d shapes)", std::exp(g_lt / n_lt), n_lt);
      std::printf("\n");
    }
    for (const Row& r : cubes)
      std::printf("SUMMARY %lld^3: NV24/cuBLAS %.3fx%s (each alone, sustained: %.3fx)\n", (long long)r.M,
                  r.cublas / r.nv24,
                  r.lt > 0 ? (", NV24/cuSPARSELt " + std::to_string(r.lt / r.nv24) + "x").c_str() : "",
                  r.cublas_alone / r.nv24_alone);
    if (tuned) {
      std::vector<double> gain;
      for (const auto* rows : {&cubes, &set})
        for (const Row& r : *rows) gain.push_back(r.nv24_auto / r.nv24);
      double g = 0;
      for (double x : gain) g += std::log(x);
      std::sort(gain.begin(), gain.end());
      std::sort(tune_ms.begin(), tune_ms.end());
      std::printf("SUMMARY tuned launch over Auto's (time of Auto's / time of the tuned, %zu shapes): geomean %.4fx, "
                  "min %.3fx, max %.3fx; nv24_tune took median %.1f ms, max %.1f ms\n",
                  gain.size(), std::exp(g / gain.size()), gain.front(), gain.back(), tune_ms[tune_ms.size() / 2],
                  tune_ms.back());
    }
    if (have_lt) api.destroy(&lth);
    CUBLAS_CHECK(cublasDestroy(blas));
  } catch (const std::exception& e) {
    return harness_error(e.what());
  }
  return 0;
}
