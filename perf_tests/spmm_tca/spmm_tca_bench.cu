// TCA-SpMM vs cuSPARSE SpMM, same process, same device data.
//   fp16: A, B, C half, fp32 accumulation (cuSPARSE: CUDA_R_16F, compute CUDA_R_32F)
//   bf16: A, B, C bfloat16, fp32 accumulation (cuSPARSE: CUDA_R_16BF, compute CUDA_R_32F)
//   tf32: fp32 data, ours with TF32 allowed (tensor cores, or the CUDA-core kernel where the
//         plan picks it); cuSPARSE CUDA_R_32F with compute CUDA_R_32F (cuSPARSE SpMM has no
//         TF32 compute type for CSR; noted in the table).
//   fp64: A, B, C double (ours: the CUDA-core row split, the only fp64 kernel; cuSPARSE:
//         CUDA_R_64F, compute CUDA_R_64F).
// Ours runs the kernel tca_choose picks (the 'kernel' column); --kernel tc | rowsplit
// forces one, for comparing them; --kernel cudacore runs what tessera::spmm's Auto runs for
// fp32 without TF32 and fp64 (its 'tf32' rows then compute in fp32): the row-block SpMM
// (spmm_row_blocks.hpp) where spmm_row_blocks_preferred says so and B and C are row-major, the
// row split otherwise; --kernel rowblocks runs the row-block SpMM wherever it applies (fp32 and
// fp64, row-major, N <= kRowBlockSpmmMaxN), for setting that rule; --kernel tuned runs what
// tca_tune measures to be faster
// (once per matrix, N and precision, before the timed calls, as cuSPARSE's baseline is the
// fastest of its configurations by measurement), timed from the L2 state the bench times
// in unless --tune-cache cold | warm says otherwise.
// cuSPARSE: every CSR algorithm enum (DEFAULT, CSR_ALG1/2/3) with row-major and
// column-major dense operands; the fastest valid one is the baseline.
// Timing: CUDA events around each call, L2 flushed (a 2x L2 memset) before every rep,
// median of --reps (default 25) after 3 warm-ups. Prints a Markdown table. --warm-l2 puts a
// kernel that only waits (50 us) before each rep instead of the flush: the operands stay in
// L2 from one rep to the next where they fit (a B produced just before the call, or
// multiplied in a loop), and the call is enqueued while the GPU is busy (right after a host
// wait, a call of a few microseconds would time the launch latency and the idle clock).
// DRAM floor: (pos + crd + vals + B + C written once) / measured copy bandwidth.
// PLAN: the host time of TcaPlan::build per matrix (row analysis, column reuse, upload), also
// in calls of ours at the first N and precision.
// --ours-only skips cuSPARSE (its columns print '-'): for comparing kernel variants
// against the cuSPARSE figures of an earlier full run.
// --real-only skips the synthetic matrices (quick rounds on a folder of chosen real ones).
// --dense col gives ours column-major B and C (default row-major; cuSPARSE tries both anyway).
// --prec P[,P...] picks the precisions among fp16, bf16, tf32, fp64 (default fp16,tf32, the
// issue's targets); --row-chunk R builds the plans with
// row chunks of R nonzeros for the CUDA-core row split (default: the plan's automatic size);
// --shared-min-reuse X shares window columns where the matrix's window column reuse is at least X
// (default kSharedColumnMinReuse; 0: every matrix, a large X: none).
// Options: kUsage below (spmm_tca_bench --help).
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cusparse.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <limits>
#include <map>
#include <numeric>
#include <sstream>

#include "../../kernels/src/common/gpu_busy_wait.cuh"
#include "../common/cusparse_check.hpp"
#include "../common/event_timing.hpp"
#include "tca_harness.hpp"
#include "tessera/core/command_line.hpp"
#include "tessera/kernels/spmm/cuda/spmm_row_blocks.hpp"
#include "tessera/kernels/spmm/cuda/spmm_tca.hpp"

namespace kc = tessera::kernels::cuda;
using namespace tca_harness;

namespace {

int reps = 25;
bool ours_only = false;
std::string kernel_choice = "auto";
bool dense_col_major = false;
void* flush_buf = nullptr;
std::vector<double> tune_ms;  // host time of each tca_tune call (--kernel tuned)
std::size_t flush_bytes = 0;
bool warm_l2 = false;
kc::TcaTuneCache tune_cache = kc::TcaTuneCache::ColdL2;  // --kernel tuned
// Median of `reps` single calls after 3 warm-ups, L2 flushed before each (--warm-l2: the GPU
// kept busy before each instead).
template <class F>
double time_ms(F&& f) {
  int sample = 0;
  return median_event_ms(f, EventTiming{3, reps, 1, nullptr}, [&] {
    if (warm_l2) HARNESS_CHECK(kc::enqueue_gpu_busy_wait(nullptr));
    else HARNESS_CHECK(cudaMemsetAsync(flush_buf, sample++ & 0xff, flush_bytes));
  });
}


struct Result {
  double ours_ms = 0, cusp_ms = 0;
  std::string cusp_alg, kernel;
  double floor_ms = 0;
};

// What one precision runs: ours with element type T, cuSPARSE with its data and compute types.
template <kc::TcaType Ours, cudaDataType Data, cudaDataType Compute, class S>
struct PrecisionOf {
  static constexpr kc::TcaType ours = Ours;
  static constexpr cudaDataType data = Data, compute = Compute;
  using Scalar = S;
};
template <class T>
struct Precision;
template <>
struct Precision<__half> : PrecisionOf<kc::TcaType::F16, CUDA_R_16F, CUDA_R_32F, float> {};
template <>
struct Precision<__nv_bfloat16> : PrecisionOf<kc::TcaType::BF16, CUDA_R_16BF, CUDA_R_32F, float> {};
template <>
struct Precision<float> : PrecisionOf<kc::TcaType::F32, CUDA_R_32F, CUDA_R_32F, float> {};
template <>
struct Precision<double> : PrecisionOf<kc::TcaType::F64, CUDA_R_64F, CUDA_R_64F, double> {};
const char* const kPrecisions[] = {"fp16", "bf16", "tf32", "fp64"};

template <class T>
Result bench(const Csr& A, const kc::TcaPlan& plan, std::int64_t n, double bw, cusparseHandle_t handle) {
  using P = Precision<T>;
  std::mt19937_64 rng(42);
  std::vector<T> hv(A.nnz()), hB(A.cols * n);
  for (std::int64_t p = 0; p < A.nnz(); ++p) hv[p] = from_double<T>(A.val[p]);
  for (auto& x : hB) x = from_double<T>(rand_val(rng));
  int *dpos, *dcrd;
  T *dval, *dB, *dC;
  HARNESS_CHECK(cudaMalloc(&dpos, A.pos.size() * 4));
  HARNESS_CHECK(cudaMalloc(&dcrd, std::max<std::size_t>(A.crd.size(), 1) * 4));
  HARNESS_CHECK(cudaMalloc(&dval, std::max<std::size_t>(hv.size(), 1) * sizeof(T)));
  HARNESS_CHECK(cudaMalloc(&dB, hB.size() * sizeof(T)));
  HARNESS_CHECK(cudaMalloc(&dC, A.rows * n * sizeof(T)));
  HARNESS_CHECK(cudaMemcpy(dpos, A.pos.data(), A.pos.size() * 4, cudaMemcpyHostToDevice));
  HARNESS_CHECK(cudaMemcpy(dcrd, A.crd.data(), A.crd.size() * 4, cudaMemcpyHostToDevice));
  HARNESS_CHECK(cudaMemcpy(dval, hv.data(), hv.size() * sizeof(T), cudaMemcpyHostToDevice));
  HARNESS_CHECK(cudaMemcpy(dB, hB.data(), hB.size() * sizeof(T), cudaMemcpyHostToDevice));

  Result res;
  const double bytes = (A.rows + 1) * 4.0 + A.nnz() * (4.0 + sizeof(T)) + (A.cols + A.rows) * double(n) * sizeof(T);
  res.floor_ms = bytes / bw * 1e3;

  kc::TcaArgs a{};
  a.type = P::ours;
  a.rows = A.rows;
  a.cols = A.cols;
  a.n = n;
  a.pos = dpos;
  a.crd = dcrd;
  a.vals = dval;
  a.B = dense_col_major ? kc::DenseRef{dB, 1, A.cols} : kc::DenseRef{dB, n, 1};
  a.C = dC;
  a.c_row_stride = dense_col_major ? 1 : n;
  a.c_col_stride = dense_col_major ? A.rows : 1;
  a.alpha = 1.0;
  a.beta = 0.0;
  const auto tune_start = std::chrono::steady_clock::now();
  const kc::TcaKernel kernel =
      kernel_choice == "tc"         ? kc::TcaKernel::TensorCore
      : kernel_choice == "rowsplit" || kernel_choice == "cudacore" || kernel_choice == "rowblocks"
          ? kc::TcaKernel::CudaCoreRowSplit
      : kernel_choice == "tuned"    ? kc::tca_tune(plan, a, /*allow_tf32=*/true, nullptr, tune_cache)
                                    : kc::tca_choose(plan, a, /*allow_tf32=*/true);
  if (kernel_choice == "tuned")
    tune_ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - tune_start).count());
  res.kernel = kc::to_string(kernel);
  if (kernel == kc::TcaKernel::TensorCore && plan.stats().shared_columns) res.kernel += "/shared";
  if (kc::tca_runs_clusters(plan, kernel, a)) res.kernel += "/clusters";
  constexpr bool kRowBlockType = std::is_same_v<T, float> || std::is_same_v<T, double>;
  const bool row_blocks_apply = kRowBlockType && !dense_col_major && n <= kc::kRowBlockSpmmMaxN;
  if ((kernel_choice == "cudacore" && row_blocks_apply && kc::spmm_row_blocks_preferred(A.rows, A.nnz(), n)) ||
      (kernel_choice == "rowblocks" && row_blocks_apply)) {
    kc::RowBlockSpmmArgs rb;
    rb.type = std::is_same_v<T, double> ? kc::SpmvType::F64 : kc::SpmvType::F32;
    rb.rows = A.rows;
    rb.cols = A.cols;
    rb.n = n;
    rb.pos = dpos;
    rb.crd = dcrd;
    rb.vals = dval;
    rb.B = dB;
    rb.ldb = n;
    rb.C = dC;
    rb.ldc = n;
    const auto rb_plan = kc::spmm_row_blocks_plan(dpos, kc::SpmvOffset::I32, A.rows, n, nullptr);
    res.kernel = "RowBlocks";
    res.ours_ms = time_ms([&] { kc::spmm_row_blocks(*rb_plan, rb, nullptr); });
  } else {
    res.ours_ms = time_ms([&] { kc::spmm_tca(&plan, kernel, a, nullptr); });
  }
  const auto free_operands = [&] {
    for (void* p : {static_cast<void*>(dpos), static_cast<void*>(dcrd), static_cast<void*>(dval),
                    static_cast<void*>(dB), static_cast<void*>(dC)})
      HARNESS_CHECK(cudaFree(p));
  };
  if (ours_only) {
    free_operands();
    return res;
  }

  // cuSPARSE: best over algorithms and dense orders.
  const cudaDataType dt = P::data;
  cusparseSpMatDescr_t matA;
  CUSPARSE_CHECK(cusparseCreateCsr(&matA, A.rows, A.cols, A.nnz(), dpos, dcrd, dval, CUSPARSE_INDEX_32I,
                                   CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, dt));
  const typename P::Scalar alpha = 1, beta = 0;
  res.cusp_ms = 1e30;
  const std::pair<cusparseSpMMAlg_t, const char*> algs[] = {{CUSPARSE_SPMM_ALG_DEFAULT, "DEFAULT"},
                                                            {CUSPARSE_SPMM_CSR_ALG1, "CSR_ALG1"},
                                                            {CUSPARSE_SPMM_CSR_ALG2, "CSR_ALG2"},
                                                            {CUSPARSE_SPMM_CSR_ALG3, "CSR_ALG3"}};
  for (cusparseOrder_t order : {CUSPARSE_ORDER_ROW, CUSPARSE_ORDER_COL}) {
    const bool row = order == CUSPARSE_ORDER_ROW;
    cusparseDnMatDescr_t matB, matC;
    CUSPARSE_CHECK(cusparseCreateDnMat(&matB, A.cols, n, row ? n : A.cols, dB, dt, order));
    CUSPARSE_CHECK(cusparseCreateDnMat(&matC, A.rows, n, row ? n : A.rows, dC, dt, order));
    for (const auto& entry : algs) {
      const cusparseSpMMAlg_t alg = entry.first;
      const char* name = entry.second;
      std::size_t ws_bytes = 0;
      if (cusparseSpMM_bufferSize(handle, CUSPARSE_OPERATION_NON_TRANSPOSE, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha,
                                  matA, matB, &beta, matC, P::compute, alg, &ws_bytes) != CUSPARSE_STATUS_SUCCESS)
        continue;
      void* ws = nullptr;
      if (ws_bytes) HARNESS_CHECK(cudaMalloc(&ws, ws_bytes));
      bool ok = true;
      if (alg == CUSPARSE_SPMM_CSR_ALG3)
        ok = cusparseSpMM_preprocess(handle, CUSPARSE_OPERATION_NON_TRANSPOSE, CUSPARSE_OPERATION_NON_TRANSPOSE,
                                     &alpha, matA, matB, &beta, matC, P::compute, alg, ws) == CUSPARSE_STATUS_SUCCESS;
      if (ok)
        ok = cusparseSpMM(handle, CUSPARSE_OPERATION_NON_TRANSPOSE, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, matA,
                          matB, &beta, matC, P::compute, alg, ws) == CUSPARSE_STATUS_SUCCESS;
      HARNESS_CHECK(cudaDeviceSynchronize());
      if (ok) {
        const double ms = time_ms([&] {
          CUSPARSE_CHECK(cusparseSpMM(handle, CUSPARSE_OPERATION_NON_TRANSPOSE, CUSPARSE_OPERATION_NON_TRANSPOSE,
                                      &alpha, matA, matB, &beta, matC, P::compute, alg, ws));
        });
        if (ms < res.cusp_ms) {
          res.cusp_ms = ms;
          res.cusp_alg = std::string(name) + (row ? "/row" : "/col");
        }
      }
      if (ws) HARNESS_CHECK(cudaFree(ws));
    }
    CUSPARSE_CHECK(cusparseDestroyDnMat(matB));
    CUSPARSE_CHECK(cusparseDestroyDnMat(matC));
  }
  CUSPARSE_CHECK(cusparseDestroySpMat(matA));
  free_operands();
  // A run without its baseline would enter the geomean as a speedup of about 1e30.
  if (res.cusp_alg.empty())
    throw std::runtime_error("cuSPARSE ran none of its SpMM algorithms on " + A.name + " N=" + std::to_string(n));
  return res;
}

constexpr const char* kUsage =
    "usage: spmm_tca_bench [matrix_dir] [--reps R] [--n 32,64,...] [--synthetic-only | --real-only] [--ours-only]\n"
    "                      [--kernel auto | tc | rowsplit | cudacore | rowblocks | tuned] [--prec fp16,bf16,tf32,fp64] [--row-chunk R]\n"
    "                      [--dense row | col] [--shared-min-reuse X] [--warm-l2] [--tune-cache cold | warm]\n"
    "(what each option does: the comment at the top of spmm_tca_bench.cu)\n";

}  // namespace

int main(int argc, char** argv) {
  std::string dir = ".tca_data";
  std::vector<std::int64_t> ns{32, 64, 128, 256};
  bool synthetic_only = false, real_only = false;
  std::vector<std::string> precs{"fp16", "tf32"};
  int row_chunk = 0;
  double shared_min_reuse = kc::kSharedColumnMinReuse;
  std::string tune_cache_arg;  // empty: the bench's own L2 state
  const auto status = tessera::walk_command_line("spmm_tca_bench", [&] {
    using tessera::Error;
    for (tessera::CommandLine cl(argc, argv, kUsage); cl.next();) {
      if (cl.is("--reps")) reps = static_cast<int>(cl.integer(1, 1000000));
      else if (cl.is("--n")) {
        ns = cl.int64_list();
        for (const auto n : ns)
          if (n < 1) throw Error("--n takes positive numbers of columns, got " + std::to_string(n));
      } else if (cl.is("--synthetic-only")) synthetic_only = true;
      else if (cl.is("--real-only")) real_only = true;
      else if (cl.is("--ours-only")) ours_only = true;
      else if (cl.is("--warm-l2")) warm_l2 = true;
      else if (cl.is("--tune-cache")) {
        tune_cache_arg = cl.text();
        if (tune_cache_arg != "cold" && tune_cache_arg != "warm") throw Error("--tune-cache takes cold or warm");
      } else if (cl.is("--kernel")) {
        kernel_choice = cl.text();
        if (kernel_choice != "auto" && kernel_choice != "tc" && kernel_choice != "rowsplit" &&
            kernel_choice != "cudacore" && kernel_choice != "rowblocks" && kernel_choice != "tuned")
          throw Error("--kernel takes auto, tc, rowsplit, cudacore, rowblocks or tuned");
      } else if (cl.is("--prec")) {
        precs.clear();
        std::stringstream ss(cl.text());
        std::string tok;
        while (std::getline(ss, tok, ',')) {
          if (std::find(std::begin(kPrecisions), std::end(kPrecisions), tok) == std::end(kPrecisions))
            throw Error("--prec takes a comma-separated list of fp16, bf16, tf32, fp64 (got '" + tok + "')");
          precs.push_back(tok);
        }
        if (precs.empty()) throw Error("--prec needs at least one precision");
      } else if (cl.is("--row-chunk")) {
        row_chunk = static_cast<int>(cl.integer(1, std::numeric_limits<int>::max()));
      } else if (cl.is("--shared-min-reuse")) {
        shared_min_reuse = cl.double_value();
        if (!(shared_min_reuse >= 0)) throw Error("--shared-min-reuse takes a reuse of 0 or more");
      } else if (cl.is("--dense")) {
        const std::string order = cl.text();
        if (order != "col" && order != "row") throw Error("--dense takes row or col");
        dense_col_major = order == "col";
      } else if (cl.is_option()) cl.reject();
      else dir = cl.single_argument();
    }
  });
  if (status) return *status;
  const bool tune_warm = tune_cache_arg.empty() ? warm_l2 : tune_cache_arg == "warm";
  tune_cache = tune_warm ? kc::TcaTuneCache::WarmL2 : kc::TcaTuneCache::ColdL2;
  if (kernel_choice == "tc" && std::find(precs.begin(), precs.end(), "fp64") != precs.end()) {
    std::fprintf(stderr, "--kernel tc: fp64 has no tensor-core kernel (drop fp64 from --prec or use rowsplit)\n");
    return 2;
  }
  try {
    cudaDeviceProp prop;
    HARNESS_CHECK(cudaGetDeviceProperties(&prop, 0));
    flush_bytes = 2ull * prop.l2CacheSize;
    HARNESS_CHECK(cudaMalloc(&flush_buf, flush_bytes));
    const double bw = copy_bandwidth([](auto&& op) { return time_ms(op); });
    cusparseHandle_t handle;
    CUSPARSE_CHECK(cusparseCreate(&handle));
    std::printf("# TCA-SpMM vs cuSPARSE on %s (%d SMs, L2 %d MB), copy bandwidth %.0f GB/s, reps %d, %s L2%s\n\n",
                prop.name, prop.multiProcessorCount, prop.l2CacheSize >> 20, bw / 1e9, reps,
                warm_l2 ? "warm" : "cold (flushed before each rep)",
                kernel_choice != "tuned" ? "" : tune_warm ? ", tca_tune from a warm L2" : ", tca_tune from a cold L2");

    std::vector<Csr> mats;
    if (!real_only) {
      mats.push_back(uniform("syn_uniform_200k_d16", 200000, 200000, 16, 11));
      mats.push_back(power_law("syn_powerlaw_200k", 200000, 200000, 1.1, 20000, 12));
      mats.push_back(banded("syn_banded_500k_w11", 500000, 11, 13));
      mats.push_back(uniform("syn_short_1m_d2", 1000000, 1000000, 2, 14));
      mats.push_back(with_dense_row("syn_dense_row_100k", 100000, 100000, 6, 5000, 15));
      mats.push_back(uniform("syn_long_20k_d128", 20000, 100000, 128, 16));
    }
    std::size_t n_synth = mats.size();
    if (!synthetic_only)
      for (const auto& p : list_matrices(dir)) mats.push_back(read_mtx(p));

    std::printf("| matrix | rows | nnz | N | prec | ours GFLOP/s | cuSPARSE GFLOP/s | cuSPARSE alg | speedup | ours %% of DRAM floor | kernel |\n");
    std::printf("|---|---:|---:|---:|---|---:|---:|---|---:|---:|---|\n");
    std::map<std::pair<std::string, std::int64_t>, std::vector<double>> logs;  // (prec, N) -> log speedups
    struct PlanTime {
      double ms;
      std::string matrix;
      double call_ms;  // our call at the first N and precision
    };
    std::vector<PlanTime> plan_ms;
    struct Worst { double s = 1e30; std::string what; };
    std::map<std::string, Worst> worst;
    for (std::size_t mi = 0; mi < mats.size(); ++mi) {
      Csr& A = mats[mi];
      if (mi >= n_synth) make_representable(A);
      const auto plan_start = std::chrono::steady_clock::now();
      auto plan = kc::TcaPlan::build(A.pos.data(), A.rows, 0, row_chunk, A.crd.data(), shared_min_reuse);
      plan_ms.push_back({std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - plan_start).count(),
                         A.name, 0.0});
      for (auto n : ns)
        for (const std::string& prec : precs) {
          const Result r = prec == "fp16"   ? bench<__half>(A, *plan, n, bw, handle)
                           : prec == "bf16" ? bench<__nv_bfloat16>(A, *plan, n, bw, handle)
                           : prec == "tf32" ? bench<float>(A, *plan, n, bw, handle)
                                            : bench<double>(A, *plan, n, bw, handle);
          const double flop = 2.0 * A.nnz() * n;
          const double s = r.cusp_ms / r.ours_ms;
          if (n == ns.front() && prec == precs.front()) plan_ms.back().call_ms = r.ours_ms;
          const char* pname = prec.c_str();
          if (ours_only) {
            std::printf("| %s | %lld | %lld | %lld | %s | %.1f | - | - | - | %.1f | %s |\n", A.name.c_str(),
                        static_cast<long long>(A.rows), static_cast<long long>(A.nnz()), static_cast<long long>(n),
                        pname, flop / r.ours_ms * 1e-6, 100.0 * r.floor_ms / r.ours_ms, r.kernel.c_str());
            std::fflush(stdout);
            continue;
          }
          std::printf("| %s | %lld | %lld | %lld | %s | %.1f | %.1f | %s | %.2f | %.1f | %s |\n", A.name.c_str(),
                      static_cast<long long>(A.rows), static_cast<long long>(A.nnz()), static_cast<long long>(n),
                      pname, flop / r.ours_ms * 1e-6, flop / r.cusp_ms * 1e-6, r.cusp_alg.c_str(), s,
                      100.0 * r.floor_ms / r.ours_ms, r.kernel.c_str());
          std::fflush(stdout);
          logs[{pname, n}].push_back(std::log(s));
          if (n >= 64 && s < worst[pname].s) worst[pname] = {s, A.name + " N=" + std::to_string(n)};
        }
    }
    // What a plan costs against the calls it serves (built once per matrix and reused).
    std::sort(plan_ms.begin(), plan_ms.end(), [](const PlanTime& a, const PlanTime& b) { return a.ms < b.ms; });
    std::vector<double> calls;
    for (const PlanTime& p : plan_ms) calls.push_back(p.ms / p.call_ms);
    std::sort(calls.begin(), calls.end());
    std::printf("\nPLAN TcaPlan::build (host analysis + upload) over %zu matrices: median %.2f ms, max %.2f ms (%s); "
                "median %.0f, max %.0f calls' worth of ours at N = %lld, %s\n",
                plan_ms.size(), plan_ms[plan_ms.size() / 2].ms, plan_ms.back().ms, plan_ms.back().matrix.c_str(),
                calls[calls.size() / 2], calls.back(), static_cast<long long>(ns.front()), precs.front().c_str());
    if (ours_only) {
      cusparseDestroy(handle);
      return 0;
    }
    std::printf("\n| prec | N | geomean speedup | matrices |\n|---|---:|---:|---:|\n");
    std::map<std::string, std::vector<double>> ge64;
    for (const auto& [key, v] : logs) {
      double s = 0;
      for (double x : v) s += x;
      std::printf("| %s | %lld | %.2f | %zu |\n", key.first.c_str(), static_cast<long long>(key.second),
                  std::exp(s / v.size()), v.size());
      if (key.second >= 64) ge64[key.first].insert(ge64[key.first].end(), v.begin(), v.end());
    }
    for (const auto& [p, v] : ge64) {
      double s = 0;
      for (double x : v) s += x;
      std::printf("\nSUMMARY %s N>=64: geomean speedup %.2f over %zu runs; worst %.2f (%s)\n", p.c_str(),
                  std::exp(s / v.size()), v.size(), worst[p].s, worst[p].what.c_str());
    }
    if (!tune_ms.empty()) {
      std::sort(tune_ms.begin(), tune_ms.end());
      std::printf("\nTUNE tca_tune over %zu calls: median %.2f ms, max %.2f ms, total %.1f s\n", tune_ms.size(),
                  tune_ms[tune_ms.size() / 2], tune_ms.back(),
                  std::accumulate(tune_ms.begin(), tune_ms.end(), 0.0) / 1e3);
    }
    cusparseDestroy(handle);
  } catch (const std::exception& e) {
    return harness_error(e.what());
  }
  return 0;
}
