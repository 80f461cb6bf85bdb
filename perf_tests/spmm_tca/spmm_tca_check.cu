// Correctness sweep of the raw TCA-SpMM interface against a double-precision host
// reference: real matrices (a folder of .mtx[.gz]) and synthetic ones, every kernel
// and precision, N in {1, 7, 32, 64, 128, 256, 512}, row- and column-major B and C,
// outputs poisoned with NaN before beta == 0 runs; plans with and without shared columns, and
// split windows summed in clusters; tca_tune's pick (timed from a cold and from a warm L2),
// with C checked untouched by the tuning; N past 65535 column tiles, a row ending at
// nnz = INT_MAX, and the plans' window column reuse.
// Stand-alone (no Kokkos, no gtest) so it builds with plain nvcc on the GPU machine; the gtest
// spmm_tca_cuda_test covers the Kokkos front end.
// --real-only skips the synthetic matrices (run_device.sh splits the sweep over processes);
// --large-only runs only the large cases (N past the grid, nnz = INT_MAX) and the reuse check.
// --matrix FILE (repeatable) takes those real matrices instead of matrix_dir's (ctest's quick subset).
// Usage: spmm_tca_check [matrix_dir] [--matrix FILE]... [--quick] [--real-only | --large-only]
// exit 0 iff every case passes.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstring>
#include <limits>
#include <set>

#include "tca_harness.hpp"
#include "tessera/core/command_line.hpp"
#include "tessera/kernels/spmm/cuda/spmm_tca.hpp"

namespace kc = tessera::kernels::cuda;
using namespace tca_harness;

namespace {

template <class T>
struct Dev {
  T* p = nullptr;
  explicit Dev(std::size_t n) { HARNESS_CHECK(cudaMalloc(&p, std::max<std::size_t>(n, 1) * sizeof(T))); }
  ~Dev() { cudaFree(p); }
};

struct Config {
  kc::TcaType type;
  kc::TcaKernel kernel;
  const char* name;
  double tol;
  bool tune = false;  // run what tca_tune picks (cfg.kernel unused), after checking it left C alone
  kc::TcaTuneCache tune_cache = kc::TcaTuneCache::ColdL2;
};

int failures = 0, cases = 0;

template <class T>
void run_case(const Csr& A, const kc::TcaPlan& plan, const Config& cfg, std::int64_t n, bool left, double alpha,
              double beta, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<double> B(A.cols * n), C(A.rows * n);
  for (auto& x : B) x = rand_val(rng);
  for (auto& x : C) x = rand_val(rng);
  std::vector<double> ref = C;
  reference(A, B, n, alpha, beta, ref);
  // Device copies in the requested layout.
  std::vector<T> hv(A.nnz()), hB(B.size()), hC(C.size());
  for (std::int64_t p = 0; p < A.nnz(); ++p) hv[p] = from_double<T>(A.val[p]);
  auto bidx = [&](std::int64_t k, std::int64_t j) { return left ? k + j * A.cols : k * n + j; };
  auto cidx = [&](std::int64_t i, std::int64_t j) { return left ? i + j * A.rows : i * n + j; };
  for (std::int64_t k = 0; k < A.cols; ++k)
    for (std::int64_t j = 0; j < n; ++j) hB[bidx(k, j)] = from_double<T>(B[k * n + j]);
  for (std::int64_t i = 0; i < A.rows; ++i)
    for (std::int64_t j = 0; j < n; ++j)
      hC[cidx(i, j)] = beta == 0 ? from_double<T>(std::numeric_limits<double>::quiet_NaN()) : from_double<T>(C[i * n + j]);
  Dev<int> dpos(A.pos.size()), dcrd(A.crd.size());
  Dev<T> dval(hv.size()), dB(hB.size()), dC(hC.size());
  HARNESS_CHECK(cudaMemcpy(dpos.p, A.pos.data(), A.pos.size() * 4, cudaMemcpyHostToDevice));
  HARNESS_CHECK(cudaMemcpy(dcrd.p, A.crd.data(), A.crd.size() * 4, cudaMemcpyHostToDevice));
  HARNESS_CHECK(cudaMemcpy(dval.p, hv.data(), hv.size() * sizeof(T), cudaMemcpyHostToDevice));
  HARNESS_CHECK(cudaMemcpy(dB.p, hB.data(), hB.size() * sizeof(T), cudaMemcpyHostToDevice));
  HARNESS_CHECK(cudaMemcpy(dC.p, hC.data(), hC.size() * sizeof(T), cudaMemcpyHostToDevice));
  kc::TcaArgs a{};
  a.type = cfg.type;
  a.rows = A.rows;
  a.cols = A.cols;
  a.n = n;
  a.pos = dpos.p;
  a.crd = dcrd.p;
  a.vals = dval.p;
  a.B = kc::DenseRef{dB.p, left ? 1 : n, left ? A.cols : 1};
  a.C = dC.p;
  a.c_row_stride = left ? 1 : n;
  a.c_col_stride = left ? A.rows : 1;
  a.alpha = alpha;
  a.beta = beta;
  kc::TcaKernel kernel = cfg.kernel;
  if (cfg.tune) {
    kernel = kc::tca_tune(plan, a, /*allow_tf32=*/true, nullptr, cfg.tune_cache);
    std::vector<T> after(hC.size());
    HARNESS_CHECK(cudaMemcpy(after.data(), dC.p, after.size() * sizeof(T), cudaMemcpyDeviceToHost));
    if (std::memcmp(after.data(), hC.data(), after.size() * sizeof(T)) != 0) {
      ++cases, ++failures;
      std::printf("FAIL %-28s %-22s N=%-4lld tca_tune changed C\n", A.name.c_str(), cfg.name, static_cast<long long>(n));
      return;
    }
  }
  kc::spmm_tca(&plan, kernel, a, nullptr);
  HARNESS_CHECK(cudaDeviceSynchronize());
  HARNESS_CHECK(cudaMemcpy(hC.data(), dC.p, hC.size() * sizeof(T), cudaMemcpyDeviceToHost));
  double diff = 0, norm = 0;
  bool nan = false;
  for (std::int64_t i = 0; i < A.rows; ++i)
    for (std::int64_t j = 0; j < n; ++j) {
      const double g = to_double(hC[cidx(i, j)]), r = ref[i * n + j];
      if (std::isnan(g)) nan = true;
      diff += (g - r) * (g - r);
      norm += r * r;
    }
  const double err = nan ? std::numeric_limits<double>::infinity() : std::sqrt(diff) / std::max(std::sqrt(norm), 1e-300);
  ++cases;
  const bool ok = err <= cfg.tol;
  if (!ok) {
    ++failures;
    std::printf("FAIL %-28s %-22s N=%-4lld %s alpha=%g beta=%g rel_err=%.3e (tol %.1e)%s\n", A.name.c_str(), cfg.name,
                static_cast<long long>(n), left ? "left " : "right", alpha, beta, err, cfg.tol, nan ? " NaN/unwritten" : "");
  }
}

void run_config(const Csr& A, const kc::TcaPlan& plan, const Config& cfg, std::int64_t n, bool left, double alpha,
                double beta, std::uint64_t seed) {
  switch (cfg.type) {
    case kc::TcaType::F16: return run_case<__half>(A, plan, cfg, n, left, alpha, beta, seed);
    case kc::TcaType::BF16: return run_case<__nv_bfloat16>(A, plan, cfg, n, left, alpha, beta, seed);
    case kc::TcaType::F32: return run_case<float>(A, plan, cfg, n, left, alpha, beta, seed);
    case kc::TcaType::F64: return run_case<double>(A, plan, cfg, n, left, alpha, beta, seed);
  }
}

// The plan's window column reuse (which decides whether windows share their columns) against a
// count by std::set per window: column ids within a few times nnz (the plan marks columns) and
// spread far wider (it sorts), and a row holding a column twice (0).
void check_window_column_reuse() {
  auto expected = [](const Csr& A) {
    std::int64_t distinct = 0;
    for (std::int64_t r0 = 0; r0 < A.rows; r0 += kc::kWindowRows) {
      std::set<int> cols;
      for (std::int64_t r = r0; r < std::min<std::int64_t>(r0 + kc::kWindowRows, A.rows); ++r) {
        const std::set<int> row(A.crd.begin() + A.pos[r], A.crd.begin() + A.pos[r + 1]);
        if (static_cast<int>(row.size()) != A.pos[r + 1] - A.pos[r]) return 0.0;
        cols.insert(row.begin(), row.end());
      }
      distinct += static_cast<std::int64_t>(cols.size());
    }
    return distinct > 0 ? static_cast<double>(A.nnz()) / static_cast<double>(distinct) : 0.0;
  };
  std::vector<Csr> mats = {banded("banded_3000_w9", 3000, 9, 21), uniform("uniform_2000x3000", 2000, 3000, 20, 22),
                           uniform("wide_ids_300x50000000", 300, 50000000, 4, 23)};
  Csr twice = uniform("row_with_a_column_twice", 100, 200, 6, 24);
  std::int64_t r = 41;
  while (twice.pos[r + 1] - twice.pos[r] < 2) ++r;
  twice.crd[twice.pos[r] + 1] = twice.crd[twice.pos[r]];  // a row's second entry repeats its first
  mats.push_back(twice);
  for (const Csr& A : mats) {
    const double got = kc::TcaPlan::build(A.pos.data(), A.rows, 0, 0, A.crd.data())->stats().window_column_reuse;
    const double want = expected(A);
    ++cases;
    if (got != want) ++failures;
    std::printf("%s window column reuse %-24s %.4f (expected %.4f)\n", got == want ? "ok  " : "FAIL", A.name.c_str(),
                got, want);
  }
}

// The row split on a matrix whose last row ends at nnz = INT_MAX (17 GB of column ids and
// fp32 values), where positions past the row's end do not fit int: 65536 rows of about
// 32768 nonzeros, all in column 0 with value 1/1024, B one row of ones, so that C(i, j) is
// the row's length / 1024 exactly. Without a plan and with the default one. Skipped, and
// said so, where the GPU lacks the memory.
__global__ void fill_kernel(float* x, long long count, float value) {
  for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < count;
       i += static_cast<long long>(gridDim.x) * blockDim.x)
    x[i] = value;
}

void check_int_max_nnz() {
  constexpr long long kNnz = std::numeric_limits<int>::max();
  constexpr int kRows = 65536, kN = 8;
  std::size_t free_bytes = 0, total_bytes = 0;
  HARNESS_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  const std::size_t need = kNnz * (sizeof(int) + sizeof(float)) + (std::size_t{4} << 30);  // + row-chunk workspace
  if (free_bytes < need) {
    std::printf("SKIP nnz = INT_MAX row split: %zu MB free, %zu MB needed\n", free_bytes >> 20, need >> 20);
    return;
  }
  std::vector<int> pos(kRows + 1);
  for (int i = 0; i <= kRows; ++i) pos[i] = static_cast<int>(kNnz * i / kRows);
  Dev<int> dpos(pos.size()), dcrd(kNnz);
  Dev<float> dval(kNnz), dB(kN), dC(kRows * kN);
  HARNESS_CHECK(cudaMemcpy(dpos.p, pos.data(), pos.size() * sizeof(int), cudaMemcpyHostToDevice));
  HARNESS_CHECK(cudaMemset(dcrd.p, 0, kNnz * sizeof(int)));
  fill_kernel<<<4096, 256>>>(dval.p, kNnz, 1.0f / 1024);
  fill_kernel<<<1, 32>>>(dB.p, kN, 1.0f);
  HARNESS_CHECK(cudaGetLastError());
  kc::TcaArgs a{};
  a.type = kc::TcaType::F32;
  a.rows = kRows, a.cols = 1, a.n = kN;
  a.pos = dpos.p, a.crd = dcrd.p, a.vals = dval.p;
  a.B = kc::DenseRef{dB.p, kN, 1};
  a.C = dC.p;
  a.c_row_stride = kN, a.c_col_stride = 1;
  a.alpha = 1, a.beta = 0;
  const auto plan = kc::TcaPlan::build(pos.data(), kRows);
  for (const kc::TcaPlan* p : {static_cast<const kc::TcaPlan*>(nullptr), plan.get()}) {
    fill_kernel<<<64, 256>>>(dC.p, kRows * kN, std::numeric_limits<float>::quiet_NaN());
    HARNESS_CHECK(cudaGetLastError());
    kc::spmm_tca(p, kc::TcaKernel::CudaCoreRowSplit, a, nullptr);
    HARNESS_CHECK(cudaDeviceSynchronize());
    std::vector<float> C(kRows * kN);
    HARNESS_CHECK(cudaMemcpy(C.data(), dC.p, C.size() * sizeof(float), cudaMemcpyDeviceToHost));
    long long wrong = 0;
    for (int i = 0; i < kRows; ++i)
      for (int j = 0; j < kN; ++j) wrong += C[i * kN + j] != static_cast<float>(pos[i + 1] - pos[i]) / 1024;
    ++cases;
    if (wrong) ++failures;
    std::printf("%s nnz = INT_MAX row split, %s: %lld of %d outputs wrong\n", wrong ? "FAIL" : "ok  ",
                p ? "default plan" : "no plan", wrong, kRows * kN);
  }
}

}  // namespace

int main(int argc, char** argv) {
  std::string dir = ".tca_data";
  bool quick = false, real_only = false, large_only = false;
  std::vector<std::string> files;
  const auto status = tessera::walk_command_line("spmm_tca_check", [&] {
    for (tessera::CommandLine cl(
             argc, argv, "usage: spmm_tca_check [matrix_dir] [--matrix FILE]... [--quick] [--real-only | --large-only]\n");
         cl.next();) {
      if (cl.is("--quick")) quick = true;
      else if (cl.is("--real-only")) real_only = true;
      else if (cl.is("--large-only")) large_only = true;
      else if (cl.is("--matrix")) files.push_back(cl.text());
      else if (cl.is_option()) cl.reject();
      else dir = cl.single_argument();
    }
  });
  if (status) return *status;
  try {
    const Config tc16{kc::TcaType::F16, kc::TcaKernel::TensorCore, "fp16/TensorCore", 2e-3};
    const Config tcbf{kc::TcaType::BF16, kc::TcaKernel::TensorCore, "bf16/TensorCore", 1e-2};
    const Config tc32{kc::TcaType::F32, kc::TcaKernel::TensorCore, "fp32/TensorCore(TF32)", 1e-5};
    const Config rs16{kc::TcaType::F16, kc::TcaKernel::CudaCoreRowSplit, "fp16/RowSplit", 2e-3};
    const Config rs32{kc::TcaType::F32, kc::TcaKernel::CudaCoreRowSplit, "fp32/RowSplit", 1e-5};
    const Config rs64{kc::TcaType::F64, kc::TcaKernel::CudaCoreRowSplit, "fp64/RowSplit", 1e-12};
    const Config tune16{kc::TcaType::F16, kc::TcaKernel::TensorCore, "fp16/tuned", 2e-3, true};
    const Config tune32{kc::TcaType::F32, kc::TcaKernel::TensorCore, "fp32/tuned(TF32)", 1e-5, true};
    const Config tune32w{kc::TcaType::F32, kc::TcaKernel::TensorCore, "fp32/tuned warm(TF32)", 1e-5, true,
                         kc::TcaTuneCache::WarmL2};
    const std::vector<std::int64_t> all_n{1, 7, 32, 64, 128, 256, 512};

    std::vector<Csr> synth;
    synth.push_back(uniform("uniform_3000x2500", 3000, 2500, 12, 1));
    synth.push_back(power_law("powerlaw_5000", 5000, 5000, 1.2, 3000, 2));
    synth.push_back(banded("banded_4000_w9", 4000, 9, 3));
    synth.push_back(with_dense_row("dense_row_2000x6000", 2000, 6000, 3, 777, 4));
    synth.push_back(empty_rows("empty_rows_3000x500", 3000, 500, 5));
    synth.push_back(uniform("rect_tall_4001x300", 4001, 300, 5, 6));
    synth.push_back(uniform("rect_wide_37x9000", 37, 9000, 400, 7));
    synth.push_back(uniform("nnz0_100x80", 100, 80, 0, 8));
    synth.push_back(uniform("one_by_one", 1, 1, 1, 9));
    synth.push_back(power_law("long_rows_300", 300, 4000, 0.6, 4000, 10));
    if (quick) synth.resize(6);
    if (real_only || large_only) synth.clear();
    for (const auto& A : synth) {
      auto plan = kc::TcaPlan::build(A.pos.data(), A.rows);
      for (auto n : quick ? std::vector<std::int64_t>{7, 64} : all_n)
        for (bool left : {false, true}) {
          for (const Config* c : {&tc16, &tcbf, &tc32, &rs16, &rs32, &rs64})
            run_config(A, *plan, *c, n, left, 1.0, 0.0, 100 + n);
          run_config(A, *plan, tc16, n, left, 0.5, -2.0, 200 + n);
          run_config(A, *plan, tc32, n, left, -1.5, 0.25, 300 + n);
          for (const Config* c : {&tune16, &tune32, &tune32w})
            run_config(A, *plan, *c, n, left, 1.0, n == 7 ? 0.0 : -0.5, 350 + n);
        }
      // Fixed segment sizes: largest work items (long pipelines), 128 (the kernel's medium
      // staging area where no window is split into longer items) and smallest (windows split
      // over every warp of a block).
      for (int seg : {kc::kSegmentNnz, 128, kc::kChunkNnz}) {
        auto fixed = kc::TcaPlan::build(A.pos.data(), A.rows, seg);
        for (auto n : {7, 64, 256})
          for (const Config* c : {&tc16, &tc32}) run_config(A, *fixed, *c, n, false, 1.0, 0.5, 400 + n + seg);
        // its split windows summed in clusters, whatever the grid size
        if (const kc::TcaPlan* cl = fixed->cluster_layout())
          for (auto n : {7, 64, 256})
            for (const Config* c : {&tc16, &tcbf, &tc32}) run_config(A, *cl, *c, n, n == 7, 1.0, 0.5, 420 + n + seg);
        // the same segments with the windows' columns shared, whatever their reuse
        auto shared = kc::TcaPlan::build(A.pos.data(), A.rows, seg, 0, A.crd.data(), 0.0);
        for (auto n : {7, 64, 256})
          for (const Config* c : {&tc16, &tcbf, &tc32}) run_config(A, *shared, *c, n, n == 64, 1.0, 0.5, 450 + n + seg);
      }
      // Row split with the shortest row chunks (most rows cut, several chunks per row) and with
      // none (every row one piece), row-major (vectorised kernel) in every precision.
      for (int chunk : {kc::kMinRowChunkNnz, 1 << 30}) {
        auto chunked = kc::TcaPlan::build(A.pos.data(), A.rows, 0, chunk);
        for (auto n : {8, 64, 256})
          for (const Config* c : {&rs16, &rs32, &rs64}) run_config(A, *chunked, *c, n, false, 1.0, -0.5, 500 + n);
      }
      std::printf("synthetic %-24s %s  cases=%d failures=%d\n", A.name.c_str(), plan->describe().c_str(), cases, failures);
      std::fflush(stdout);
    }
    if (large_only || (!quick && !real_only)) {
      // N past 65535 column tiles of 32 (spmm_tca runs such products in column slices): the
      // tensor cores with split windows at every segment size, and the row split with B
      // repacked from column-major.
      const Csr wide = with_dense_row("dense_row_8x64", 8, 64, 3, 5, 11);
      const std::int64_t n = 65535LL * 32 + 104;
      for (int seg : {0, kc::kChunkNnz}) {
        auto plan = kc::TcaPlan::build(wide.pos.data(), wide.rows, seg);
        for (const Config* c : {&tc32, &tc16}) run_config(wide, *plan, *c, n, false, 1.0, 0.5, 600 + seg);
        run_config(wide, *plan, rs32, n, true, 1.0, 0.0, 610 + seg);
      }
      std::printf("synthetic N = %lld  cases=%d failures=%d\n", static_cast<long long>(n), cases, failures);
      check_window_column_reuse();
      check_int_max_nnz();
      std::fflush(stdout);
    }
    const auto paths = large_only ? std::vector<std::string>{} : !files.empty() ? files : list_matrices(dir);
    if (paths.empty() && !large_only) std::printf("WARNING: no matrices under %s\n", dir.c_str());
    std::size_t count = 0;
    for (const auto& path : paths) {
      if (quick && count >= 4) break;
      ++count;
      Csr A = read_mtx(path);
      make_representable(A);
      auto plan = kc::TcaPlan::build(A.pos.data(), A.rows, 0, 0, A.crd.data());
      const std::vector<std::int64_t> ns = quick ? std::vector<std::int64_t>{7, 64} : all_n;
      for (auto n : ns) {
        run_config(A, *plan, tc16, n, false, 1.0, 0.0, n);
        run_config(A, *plan, tc32, n, false, 1.0, 0.0, n + 1);
        if (n == 1 || n == 64 || n == 256) {
          run_config(A, *plan, tcbf, n, false, 1.0, 0.0, n + 2);
          run_config(A, *plan, rs64, n, false, 1.0, 0.0, n + 3);
          run_config(A, *plan, rs16, n, true, 1.0, 0.0, n + 4);
        }
        if (n == 7 || n == 64) {
          run_config(A, *plan, tc16, n, true, 2.0, 0.5, n + 5);
          run_config(A, *plan, rs32, n, true, 1.0, 0.0, n + 6);
        }
        if (n == 32 || n == 64 || n == 256) run_config(A, *plan, rs32, n, false, 1.0, 0.0, n + 7);
        if (n == 64 || n == 256)
          for (const Config* c : {&tune16, &tune32, &tune32w}) run_config(A, *plan, *c, n, false, 1.0, 0.5, n + 13);
      }
      // The tensor-core kernel with every matrix's windows sharing their columns (the automatic
      // plan above does where the reuse is high enough), and without.
      auto other = plan->stats().shared_columns ? kc::TcaPlan::build(A.pos.data(), A.rows)
                                                : kc::TcaPlan::build(A.pos.data(), A.rows, 0, 0, A.crd.data(), 0.0);
      for (std::int64_t n : {7, 64, 256}) {
        run_config(A, *other, tc16, n, false, 1.0, 0.0, n + 8);
        run_config(A, *other, tc32, n, n == 64, 1.0, 0.0, n + 9);
        if (n == 64) run_config(A, *other, tcbf, n, false, -1.0, 0.5, n + 10);
      }
      // The split windows summed in clusters, whatever the grid size (the automatic choice runs
      // them so on small grids only).
      if (const kc::TcaPlan* cl = plan->cluster_layout())
        for (std::int64_t n : {7, 64, 256}) {
          run_config(A, *cl, tc16, n, false, 1.0, 0.0, n + 11);
          run_config(A, *cl, tc32, n, n == 64, 1.0, -0.5, n + 12);
        }
      std::printf("real %-28s %s  cases=%d failures=%d\n", A.name.c_str(), plan->describe().c_str(), cases, failures);
      std::fflush(stdout);
    }
  } catch (const std::exception& e) {
    return harness_error(e.what());
  }
  std::printf("TOTAL cases=%d failures=%d\n", cases, failures);
  return failures == 0 ? 0 : 1;
}
