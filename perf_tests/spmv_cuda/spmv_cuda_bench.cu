// Tessera's CUDA SpMV (spmv_csr, with the matrix's plan, as tessera::spmv runs it through a
// handle) against cusparseSpMV, same process, same device arrays, fp64 and fp32, y = A x and
// y = A^T x (beta = 0).
// cuSPARSE: CUSPARSE_SPMV_ALG_DEFAULT, CSR_ALG1 and CSR_ALG2 (its deterministic one), each with
// cusparseSpMV_preprocess; the fastest valid one is the baseline.
// Matrices: every .mtx(.gz) in the folder, then large generated ones (--no-large skips them):
// 3-D Poisson 200^3, uniform random 8M x 8M with 10 per row, power-law rows (4M rows), banded
// (50M nonzeros).
// Timing: CUDA events, L2 flushed (a 2x L2 memset) before every rep, median of --reps (default
// 25) after 3 warm-ups, ours and cuSPARSE alternating. Bandwidth: (row offsets + column ids +
// values + x + y) bytes per call over the time; the copy bandwidth (a 1 GiB device-to-device
// copy, read + written) is measured in the same run.
// Correctness: ours against a double-precision host reference on every matrix (error over the
// row's sum of |a_ij x_j|, against a bound of (row length + 2) units of the precision); the
// program exits 1 when one fails.
// Prints a Markdown table and SUMMARY lines (geomean per precision and op, worst matrix).
#include <cusparse.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "../common/cusparse_check.hpp"
#include "../common/event_timing.hpp"
#include "../common/large_matrices.hpp"
#include "../spmm_tca/tca_harness.hpp"
#include "tessera/core/command_line.hpp"
#include "tessera/kernels/spmv/cuda/spmv_csr.hpp"

namespace kc = tessera::kernels::cuda;
using tca_harness::Csr;

namespace {

int reps = 25;
void* flush_buf = nullptr;
std::size_t flush_bytes = 0;
int flush_value = 0;

void flush_l2() { HARNESS_CHECK(cudaMemsetAsync(flush_buf, flush_value++ & 0xff, flush_bytes)); }


template <class T>
struct DeviceArray {
  T* ptr = nullptr;
  explicit DeviceArray(std::size_t n) { HARNESS_CHECK(cudaMalloc(&ptr, std::max<std::size_t>(n, 1) * sizeof(T))); }
  DeviceArray(const std::vector<T>& host) : DeviceArray(host.size()) {
    HARNESS_CHECK(cudaMemcpy(ptr, host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice));
  }
  ~DeviceArray() { cudaFree(ptr); }
  DeviceArray(const DeviceArray&) = delete;
  DeviceArray& operator=(const DeviceArray&) = delete;
};

struct Row {
  double ours_ms = 0, cusp_ms = 0, bytes = 0, max_error = 0;
  std::string cusp_alg;
};

// y = op(A) x in double on the host, and the scale each entry's error is measured against.
void reference(const Csr& A, bool transpose, const std::vector<double>& x, std::vector<double>& y,
               std::vector<double>& scale, std::vector<std::int64_t>& length) {
  const std::int64_t out = transpose ? A.cols : A.rows;
  y.assign(out, 0.0);
  scale.assign(out, 0.0);
  length.assign(out, 0);
  if (!transpose) {
#pragma omp parallel for schedule(dynamic, 1024)
    for (std::int64_t i = 0; i < A.rows; ++i) {
      for (int q = A.pos[i]; q < A.pos[i + 1]; ++q) {
        y[i] += A.val[q] * x[A.crd[q]];
        scale[i] += std::fabs(A.val[q] * x[A.crd[q]]);
      }
      length[i] = A.pos[i + 1] - A.pos[i];
    }
    return;
  }
  for (std::int64_t i = 0; i < A.rows; ++i)
    for (int q = A.pos[i]; q < A.pos[i + 1]; ++q) {
      y[A.crd[q]] += A.val[q] * x[i];
      scale[A.crd[q]] += std::fabs(A.val[q] * x[i]);
      ++length[A.crd[q]];
    }
}

template <class T>
Row bench(const Csr& A, const kc::SpmvPlan& plan, bool transpose, cusparseHandle_t handle) {
  constexpr bool f64 = std::is_same_v<T, double>;
  const std::int64_t in = transpose ? A.rows : A.cols, out = transpose ? A.cols : A.rows;
  std::mt19937_64 rng(7);
  std::vector<double> x(in);
  for (auto& v : x) v = tca_harness::rand_val(rng);
  std::vector<T> xt(x.begin(), x.end()), vt(A.val.begin(), A.val.end());
  const DeviceArray<int> pos(A.pos), crd(A.crd);
  const DeviceArray<T> vals(vt), dx(xt);
  DeviceArray<T> dy(out);
  HARNESS_CHECK(cudaMemset(dy.ptr, 0xff, std::max<std::int64_t>(out, 1) * sizeof(T)));  // NaNs: unwritten shows

  kc::SpmvArgs a;
  a.type = f64 ? kc::SpmvType::F64 : kc::SpmvType::F32;
  a.offset = kc::SpmvOffset::I32;
  a.transpose = transpose;
  a.rows = A.rows;
  a.cols = A.cols;
  a.pos = pos.ptr;
  a.crd = crd.ptr;
  a.vals = vals.ptr;
  a.x = dx.ptr;
  a.y = dy.ptr;
  const auto ours = [&] { kc::spmv_csr(&plan, a, nullptr); };
  ours();
  std::vector<T> got(out);
  HARNESS_CHECK(cudaMemcpy(got.data(), dy.ptr, out * sizeof(T), cudaMemcpyDeviceToHost));
  std::vector<double> want, scale;
  std::vector<std::int64_t> length;
  reference(A, transpose, x, want, scale, length);
  Row row;
  const double unit = f64 ? std::ldexp(1.0, -53) : std::ldexp(1.0, -24);
  for (std::int64_t i = 0; i < out; ++i) {
    const double err = std::fabs(static_cast<double>(got[i]) - want[i]);
    const double bound = (length[i] + 2) * unit * scale[i];
    const double rel = err == 0 ? 0 : bound > 0 ? err / bound : std::numeric_limits<double>::infinity();
    if (!(rel <= row.max_error)) row.max_error = std::isnan(rel) ? std::numeric_limits<double>::infinity() : rel;
  }
  row.bytes = (A.rows + 1) * 4.0 + A.nnz() * (4.0 + sizeof(T)) + (A.rows + A.cols) * double(sizeof(T)) +
              (transpose ? out * double(sizeof(T)) : 0.0);  // the scatter reads y back

  const cudaDataType dt = f64 ? CUDA_R_64F : CUDA_R_32F;
  cusparseSpMatDescr_t matA;
  cusparseDnVecDescr_t vx, vy;
  CUSPARSE_CHECK(cusparseCreateCsr(&matA, A.rows, A.cols, A.nnz(), pos.ptr, crd.ptr, vals.ptr, CUSPARSE_INDEX_32I,
                                   CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, dt));
  CUSPARSE_CHECK(cusparseCreateDnVec(&vx, in, dx.ptr, dt));
  CUSPARSE_CHECK(cusparseCreateDnVec(&vy, out, dy.ptr, dt));
  const T alpha = 1, beta = 0;
  const cusparseOperation_t op = transpose ? CUSPARSE_OPERATION_TRANSPOSE : CUSPARSE_OPERATION_NON_TRANSPOSE;
  row.cusp_ms = 1e30;
  std::vector<double> ours_ms;  // one median per baseline algorithm timed beside it
  const std::pair<cusparseSpMVAlg_t, const char*> algs[] = {
      {CUSPARSE_SPMV_ALG_DEFAULT, "DEFAULT"}, {CUSPARSE_SPMV_CSR_ALG1, "CSR_ALG1"}, {CUSPARSE_SPMV_CSR_ALG2, "CSR_ALG2"}};
  for (const auto& entry : algs) {
    const cusparseSpMVAlg_t alg = entry.first;
    const char* const name = entry.second;
    std::size_t ws_bytes = 0;
    if (cusparseSpMV_bufferSize(handle, op, &alpha, matA, vx, &beta, vy, dt, alg, &ws_bytes) != CUSPARSE_STATUS_SUCCESS)
      continue;
    DeviceArray<char> ws(ws_bytes);
    if (cusparseSpMV_preprocess(handle, op, &alpha, matA, vx, &beta, vy, dt, alg, ws.ptr) != CUSPARSE_STATUS_SUCCESS ||
        cusparseSpMV(handle, op, &alpha, matA, vx, &beta, vy, dt, alg, ws.ptr) != CUSPARSE_STATUS_SUCCESS)
      continue;
    HARNESS_CHECK(cudaDeviceSynchronize());
    const auto times = median_event_ms_interleaved(
        {ours, [&] { CUSPARSE_CHECK(cusparseSpMV(handle, op, &alpha, matA, vx, &beta, vy, dt, alg, ws.ptr)); }},
        EventTiming{3, reps, 1, nullptr}, flush_l2);
    ours_ms.push_back(times[0]);
    if (times[1] < row.cusp_ms) {
      row.cusp_ms = times[1];
      row.cusp_alg = name;
    }
  }
  CUSPARSE_CHECK(cusparseDestroyDnVec(vx));
  CUSPARSE_CHECK(cusparseDestroyDnVec(vy));
  CUSPARSE_CHECK(cusparseDestroySpMat(matA));
  if (row.cusp_alg.empty()) throw std::runtime_error("cuSPARSE ran none of its SpMV algorithms on " + A.name);
  std::sort(ours_ms.begin(), ours_ms.end());
  row.ours_ms = ours_ms[ours_ms.size() / 2];
  return row;
}

constexpr const char* kUsage =
    "usage: spmv_cuda_bench [matrix_dir] [--reps R] [--no-large] [--large-only] [--prec fp64,fp32] [--op N,T]\n"
    "(what each option does: the comment at the top of spmv_cuda_bench.cu)\n";

}  // namespace

int main(int argc, char** argv) {
  std::string dir;
  bool large = true, real = true, fp64 = true, fp32 = true, op_n = true, op_t = true;
  const auto status = tessera::walk_command_line("spmv_cuda_bench", [&] {
    for (tessera::CommandLine cl(argc, argv, kUsage); cl.next();) {
      if (cl.is("--reps")) reps = static_cast<int>(cl.integer(1, 100000));
      else if (cl.is("--no-large")) large = false;
      else if (cl.is("--large-only")) real = false;
      else if (cl.is("--prec")) {
        const std::string p = cl.text();
        fp64 = p.find("fp64") != std::string::npos;
        fp32 = p.find("fp32") != std::string::npos;
        if (!fp64 && !fp32) throw tessera::Error("--prec takes fp64, fp32 or both");
      } else if (cl.is("--op")) {
        const std::string p = cl.text();
        op_n = p.find('N') != std::string::npos;
        op_t = p.find('T') != std::string::npos;
        if (!op_n && !op_t) throw tessera::Error("--op takes N, T or both");
      } else if (cl.is_option()) cl.reject();
      else dir = cl.single_argument();
    }
  });
  if (status) return *status;
  try {
    cudaDeviceProp prop;
    HARNESS_CHECK(cudaGetDeviceProperties(&prop, 0));
    flush_bytes = 2ull * prop.l2CacheSize;
    HARNESS_CHECK(cudaMalloc(&flush_buf, flush_bytes));
    const double bw = copy_bandwidth(
        [](auto&& op) { return median_event_ms(op, EventTiming{3, reps, 1, nullptr}, flush_l2); });
    cusparseHandle_t handle;
    CUSPARSE_CHECK(cusparseCreate(&handle));
    std::printf("# Tessera SpMV vs cusparseSpMV on %s (%d SMs, L2 %d MB), copy bandwidth %.0f GB/s, reps %d, L2 "
                "flushed before each rep\n\n",
                prop.name, prop.multiProcessorCount, prop.l2CacheSize >> 20, bw / 1e9, reps);
    std::printf("| matrix | rows | nnz | prec | op | ours ms | cuSPARSE ms | cuSPARSE alg | speedup | ours GB/s | ours %% of copy | "
                "error / bound |\n|---|---:|---:|---|---|---:|---:|---|---:|---:|---:|---:|\n");
    std::map<std::string, std::vector<double>> logs;
    std::map<std::string, std::pair<double, std::string>> worst;
    bool failed = false;
    const auto run = [&](const Csr& A) {
      const DeviceArray<int> pos(A.pos);
      const auto plan = kc::SpmvPlan::build(pos.ptr, kc::SpmvOffset::I32, A.rows, nullptr);
      for (const bool t : {false, true}) {
        if ((t && !op_t) || (!t && !op_n)) continue;
        for (const bool d : {true, false}) {
          if ((d && !fp64) || (!d && !fp32)) continue;
          const Row r = d ? bench<double>(A, *plan, t, handle) : bench<float>(A, *plan, t, handle);
          const std::string key = std::string(d ? "fp64" : "fp32") + " op=" + (t ? "T" : "N");
          const double s = r.cusp_ms / r.ours_ms;
          std::printf("| %s | %lld | %lld | %s | %s | %.4f | %.4f | %s | %.2f | %.0f | %.0f | %.2f |\n", A.name.c_str(),
                      static_cast<long long>(A.rows), static_cast<long long>(A.nnz()), d ? "fp64" : "fp32",
                      t ? "T" : "N", r.ours_ms, r.cusp_ms, r.cusp_alg.c_str(), s, r.bytes / r.ours_ms * 1e-6,
                      100.0 * r.bytes / r.ours_ms * 1e3 / bw, r.max_error);
          std::fflush(stdout);
          logs[key].push_back(std::log(s));
          if (worst.count(key) == 0 || s < worst[key].first) worst[key] = {s, A.name};
          if (!(r.max_error <= 1.0)) {
            failed = true;
            std::fprintf(stderr, "WRONG %s %s: error %.3g of the bound\n", A.name.c_str(), key.c_str(), r.max_error);
          }
        }
      }
    };
    if (real && !dir.empty())
      for (const auto& path : tca_harness::list_matrices(dir)) run(tca_harness::read_mtx(path));
    if (large) {
      run(large_matrices::poisson_3d(200));
      run(large_matrices::uniform_random(8000000, 8000000, 10));
      run(large_matrices::power_law(4000000, 1.2, 200000));
      run(large_matrices::banded(2500000, 20));
    }
    std::printf("\n| prec, op | geomean speedup | matrices | worst |\n|---|---:|---:|---|\n");
    for (const auto& [key, v] : logs) {
      double sum = 0;
      for (const double l : v) sum += l;
      std::printf("| %s | %.2f | %zu | %.2f (%s) |\n", key.c_str(), std::exp(sum / v.size()), v.size(),
                  worst[key].first, worst[key].second.c_str());
    }
    cusparseDestroy(handle);
    HARNESS_CHECK(cudaFree(flush_buf));
    return failed ? 1 : 0;
  } catch (const std::exception& e) {
    return harness_error(e.what());
  }
}
