// tessera::add on Kokkos::Cuda against cusparse<t>csrgeam2 in the same process, on the same
// device arrays: C = A + B on the real matrices (operands: add_operands.hpp) and C = A + A^T on
// large generated ones. Per matrix and precision: the whole call (both allocate C; cuSPARSE's
// count, its host wait for nnz(C), and the sum) and the values alone on a known pattern (our
// ElementwiseHandle, csrgeam2 on C's arrays). Each time is the median of --reps fenced calls; C
// is checked against cuSPARSE's. The last lines give the geometric means of the speed-ups.
// --timeline adds, per matrix, one whole call and one values-only call step by step
// (kokkos_timeline.hpp): where the call's time goes on the host.
#include <Kokkos_Core.hpp>
#include <cusparse.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "../common/cusparse_check.hpp"
#include "../common/device_bytes.hpp"
#include "../common/fenced_timing.hpp"
#include "../common/kokkos_timeline.hpp"
#include "../common/large_matrices.hpp"
#include "../common/matrix_bench_options.hpp"
#include "../spgemm/spgemm_operands.hpp"
#include "add_operands.hpp"
#include "tessera/core/command_line.hpp"
#include "tessera/formats/convert.hpp"
#include "tessera/kernels/elementwise/elementwise.hpp"

namespace {

using Cuda = Kokkos::Cuda;
template <class T>
using Csr = tessera::Tensor<T, tessera::CSR, Cuda>;

const char* const kUsage =
    "add_cuda_bench [--reps R] [--prec fp32,fp64] [--only NAME[,NAME...]] [--no-real] [--no-generated]\n"
    "  --reps R        calls timed per variant, the median is reported (default 10)\n"
    "  --prec LIST     fp32, fp64 or both (default both)\n"
    "  --only NAMES    only the matrices whose name contains one of NAMES (a comma list)\n"
    "  --no-real       skip the real matrices\n"
    "  --no-generated  skip the generated matrices\n"
    "  --timeline      also print one whole call and one values-only call step by step\n";

// The typed csrgeam2 entry points.
cusparseStatus_t geam_buffer(cusparseHandle_t h, int m, int n, const float* alpha, cusparseMatDescr_t da, int nnz_a,
                             const float* va, const int* pa, const int* ca, const float* beta, cusparseMatDescr_t db,
                             int nnz_b, const float* vb, const int* pb, const int* cb, cusparseMatDescr_t dc,
                             const float* vc, const int* pc, const int* cc, std::size_t* bytes) {
  return cusparseScsrgeam2_bufferSizeExt(h, m, n, alpha, da, nnz_a, va, pa, ca, beta, db, nnz_b, vb, pb, cb, dc, vc,
                                         pc, cc, bytes);
}
cusparseStatus_t geam_buffer(cusparseHandle_t h, int m, int n, const double* alpha, cusparseMatDescr_t da, int nnz_a,
                             const double* va, const int* pa, const int* ca, const double* beta,
                             cusparseMatDescr_t db, int nnz_b, const double* vb, const int* pb, const int* cb,
                             cusparseMatDescr_t dc, const double* vc, const int* pc, const int* cc,
                             std::size_t* bytes) {
  return cusparseDcsrgeam2_bufferSizeExt(h, m, n, alpha, da, nnz_a, va, pa, ca, beta, db, nnz_b, vb, pb, cb, dc, vc,
                                         pc, cc, bytes);
}
cusparseStatus_t geam(cusparseHandle_t h, int m, int n, const float* alpha, cusparseMatDescr_t da, int nnz_a,
                      const float* va, const int* pa, const int* ca, const float* beta, cusparseMatDescr_t db,
                      int nnz_b, const float* vb, const int* pb, const int* cb, cusparseMatDescr_t dc, float* vc,
                      int* pc, int* cc, void* buffer) {
  return cusparseScsrgeam2(h, m, n, alpha, da, nnz_a, va, pa, ca, beta, db, nnz_b, vb, pb, cb, dc, vc, pc, cc, buffer);
}
cusparseStatus_t geam(cusparseHandle_t h, int m, int n, const double* alpha, cusparseMatDescr_t da, int nnz_a,
                      const double* va, const int* pa, const int* ca, const double* beta, cusparseMatDescr_t db,
                      int nnz_b, const double* vb, const int* pb, const int* cb, cusparseMatDescr_t dc, double* vc,
                      int* pc, int* cc, void* buffer) {
  return cusparseDcsrgeam2(h, m, n, alpha, da, nnz_a, va, pa, ca, beta, db, nnz_b, vb, pb, cb, dc, vc, pc, cc, buffer);
}

// C = A + B by csrgeam2, every array of C and the buffer allocated in the call (freed with the
// object, after the clock stops).
template <class T>
struct GeamSum {
  std::unique_ptr<DeviceBytes> buffer, pos, crd, vals;
  int nnz = 0;
};

template <class T>
class Geam {
 public:
  Geam(cusparseHandle_t handle, const Csr<T>& A, const Csr<T>& B) : handle_(handle), A_(A), B_(B) {
    CUSPARSE_CHECK(cusparseCreateMatDescr(&descr_));
    CUSPARSE_CHECK(cusparseSetMatType(descr_, CUSPARSE_MATRIX_TYPE_GENERAL));
    CUSPARSE_CHECK(cusparseSetMatIndexBase(descr_, CUSPARSE_INDEX_BASE_ZERO));
  }
  ~Geam() { cusparseDestroyMatDescr(descr_); }
  Geam(const Geam&) = delete;
  Geam& operator=(const Geam&) = delete;

  // The whole sum: buffer size, row offsets and nnz(C) (a host wait), then columns and values.
  GeamSum<T> sum() const {
    GeamSum<T> C;
    const int rows = static_cast<int>(A_.extent(0));
    std::size_t bytes = 0;
    CUSPARSE_CHECK(geam_buffer(handle_, rows, cols(), &one_, descr_, nnz(A_), vals(A_), pos(A_), crd(A_), &one_,
                               descr_, nnz(B_), vals(B_), pos(B_), crd(B_), descr_, nullptr, nullptr, nullptr,
                               &bytes));
    C.buffer = std::make_unique<DeviceBytes>(bytes);
    C.pos = std::make_unique<DeviceBytes>((rows + 1) * sizeof(int));
    CUSPARSE_CHECK(cusparseXcsrgeam2Nnz(handle_, rows, cols(), descr_, nnz(A_), pos(A_), crd(A_), descr_, nnz(B_),
                                        pos(B_), crd(B_), descr_, static_cast<int*>(C.pos->p), &C.nnz, C.buffer->p));
    C.crd = std::make_unique<DeviceBytes>(std::size_t(C.nnz) * sizeof(int));
    C.vals = std::make_unique<DeviceBytes>(std::size_t(C.nnz) * sizeof(T));
    values(C);
    return C;
  }
  // The columns and values of C into its arrays (the pattern's row offsets known).
  void values(GeamSum<T>& C) const {
    CUSPARSE_CHECK(geam(handle_, static_cast<int>(A_.extent(0)), cols(), &one_, descr_, nnz(A_), vals(A_), pos(A_),
                        crd(A_), &one_, descr_, nnz(B_), vals(B_), pos(B_), crd(B_), descr_,
                        static_cast<T*>(C.vals->p), static_cast<int*>(C.pos->p), static_cast<int*>(C.crd->p),
                        C.buffer->p));
  }

 private:
  int cols() const { return static_cast<int>(A_.extent(1)); }
  static int nnz(const Csr<T>& M) { return static_cast<int>(M.nnz()); }
  static const int* pos(const Csr<T>& M) { return M.decompose().levels[1].pos.data(); }
  static const int* crd(const Csr<T>& M) { return M.decompose().levels[1].crd.data(); }
  static const T* vals(const Csr<T>& M) { return M.decompose().vals.data(); }

  cusparseHandle_t handle_;
  const Csr<T>& A_;
  const Csr<T>& B_;
  cusparseMatDescr_t descr_ = nullptr;
  const T one_ = 1;
};

template <class V>
std::vector<V> to_host(const void* p, std::size_t n) {
  std::vector<V> out(n);
  if (n) cuda_check(cudaMemcpy(out.data(), p, n * sizeof(V), cudaMemcpyDeviceToHost), "cudaMemcpy");
  return out;
}

// Our C against cuSPARSE's: the same pattern, values equal up to the precision's rounding.
template <class T>
void check_same(const Csr<T>& C, const GeamSum<T>& ref, const std::string& name) {
  if (C.nnz() != ref.nnz)
    throw tessera::Error(name + ": C has " + std::to_string(C.nnz()) + " entries, cuSPARSE's " +
                         std::to_string(ref.nnz));
  const auto& s = C.decompose();
  const auto pos = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), s.levels[1].pos);
  const auto crd = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), s.levels[1].crd);
  const auto vals = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), s.vals);
  const auto ref_pos = to_host<int>(ref.pos->p, pos.extent(0));
  const auto ref_crd = to_host<int>(ref.crd->p, ref.nnz);
  const auto ref_vals = to_host<T>(ref.vals->p, ref.nnz);
  for (std::size_t i = 0; i < ref_pos.size(); ++i)
    if (pos(i) != ref_pos[i]) throw tessera::Error(name + ": row offsets differ at row " + std::to_string(i));
  for (int p = 0; p < ref.nnz; ++p) {
    if (crd(p) != ref_crd[p]) throw tessera::Error(name + ": column ids differ at " + std::to_string(p));
    const double tolerance = (sizeof(T) == 4 ? 1e-6 : 1e-14) * std::max(1.0, std::abs(double(ref_vals[p])));
    if (std::abs(double(vals(p)) - double(ref_vals[p])) > tolerance)
      throw tessera::Error(name + ": values differ at " + std::to_string(p));
  }
}

// A generated CSR matrix on the device, in precision T.
template <class T>
Csr<T> on_device(const large_matrices::Csr& m) {
  typename Csr<T>::Storage s;
  s.levels[1].pos = typename Csr<T>::pos_view("pos", m.pos.size());
  s.levels[1].crd = typename Csr<T>::crd_view("crd", m.crd.size());
  s.vals = typename Csr<T>::vals_view("vals", m.val.size());
  const std::vector<T> vals(m.val.begin(), m.val.end());
  Kokkos::deep_copy(s.levels[1].pos, Kokkos::View<const int*, Kokkos::HostSpace>(m.pos.data(), m.pos.size()));
  Kokkos::deep_copy(s.levels[1].crd, Kokkos::View<const int*, Kokkos::HostSpace>(m.crd.data(), m.crd.size()));
  Kokkos::deep_copy(s.vals, Kokkos::View<const T*, Kokkos::HostSpace>(vals.data(), vals.size()));
  return Csr<T>({m.rows, m.cols}, std::move(s));
}

struct Speedups {
  std::vector<double> whole, values;
  static double geomean(const std::vector<double>& r) {
    double log_sum = 0;
    for (double x : r) log_sum += std::log(x);
    return r.empty() ? 0 : std::exp(log_sum / r.size());
  }
  static double lowest(const std::vector<double>& r) { return r.empty() ? 0 : *std::min_element(r.begin(), r.end()); }
};

// One call of `call` step by step (see --timeline); its result is dropped after the print.
template <class Call>
void print_timeline(const std::string& title, Call&& call) {
  Kokkos::fence();
  tessera_bench::KokkosTimeline timeline;
  const auto result = call();
  Kokkos::fence();
  timeline.print(stdout, title.c_str());
}

template <class T>
void run_case(cusparseHandle_t handle, const std::string& name, const Csr<T>& A, const Csr<T>& B, int reps,
              bool timeline, Speedups& speedups) {
  const char* prec = sizeof(T) == 4 ? "fp32" : "fp64";
  const Geam<T> vendor(handle, A, B);
  GeamSum<T> ref = vendor.sum();
  const Cuda space;
  check_same(tessera::add(space, T(1), A, T(1), B), ref, name);
  const double ours_ms = median_fenced_ms(reps, [&] { return tessera::add(space, T(1), A, T(1), B); });
  const double vendor_ms = median_fenced_ms(reps, [&] { return vendor.sum(); });
  tessera::ElementwiseHandle reuse;
  (void)tessera::add(space, T(1), A, T(1), B, reuse);
  const double ours_values = median_fenced_ms(reps, [&] { return tessera::add(space, T(1), A, T(1), B, reuse); });
  const double vendor_values = median_fenced_ms(reps, [&] { vendor.values(ref); });
  const double bytes = static_cast<double>(A.nnz() + B.nnz() + ref.nnz) * (sizeof(int) + sizeof(T));
  speedups.whole.push_back(vendor_ms / ours_ms);
  speedups.values.push_back(vendor_values / ours_values);
  std::printf("| %s | %s | %lld | %lld | %lld | %.3f | %.3f | %.2fx | %.3f | %.3f | %.2fx | %.0f |\n", name.c_str(),
              prec, static_cast<long long>(A.extent(0)), static_cast<long long>(A.nnz() + B.nnz()),
              static_cast<long long>(ref.nnz), ours_ms, vendor_ms, vendor_ms / ours_ms, ours_values, vendor_values,
              vendor_values / ours_values, bytes / ours_values / 1e6);
  if (timeline) {
    print_timeline(name + " " + prec + ", tessera::add whole call", [&] { return tessera::add(space, T(1), A, T(1), B); });
    print_timeline(name + " " + prec + ", tessera::add values only",
                   [&] { return tessera::add(space, T(1), A, T(1), B, reuse); });
    std::printf("\n");
  }
  std::fflush(stdout);
}

}  // namespace

int main(int argc, char** argv) {
  MatrixBenchOptions options(10);
  bool timeline = false;
  if (const auto status = tessera::walk_command_line("add_cuda_bench", [&] {
        for (tessera::CommandLine cl(argc, argv, kUsage); cl.next();)
          if (cl.is("--timeline")) timeline = true;
          else if (!options.take(cl)) cl.reject();
      }))
    return *status;
  Kokkos::ScopeGuard kokkos(argc, argv);
  try {
    cudaDeviceProp prop{};
    cuda_check(cudaGetDeviceProperties(&prop, 0), "cudaGetDeviceProperties");
    std::printf("add_cuda_bench on %s: C = A + B, median of %d calls, ms\n\n", prop.name, options.reps);
    std::printf("| matrix | prec | rows | nnz(A) + nnz(B) | nnz(C) | ours | cuSPARSE csrgeam2 | speed-up | ours values "
                "only | csrgeam2 on C's pattern | speed-up | ours values only GB/s |\n"
                "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    cusparseHandle_t handle = nullptr;
    CUSPARSE_CHECK(cusparseCreate(&handle));
    CUSPARSE_CHECK(cusparseSetStream(handle, Cuda().cuda_stream()));
    Speedups by_prec[2];
    if (options.real)
      for (const auto& path : tessera_bench::real_matrix_paths()) {
        const auto c = tessera_bench::add_case(path);
        if (!options.wanted(c.name)) continue;
        if (options.fp32)
          run_case(handle, c.name, tessera::from_coo<float, tessera::CSR, Cuda>(c.a),
                   tessera::from_coo<float, tessera::CSR, Cuda>(c.b), options.reps, timeline, by_prec[0]);
        if (options.fp64)
          run_case(handle, c.name, tessera::from_coo<double, tessera::CSR, Cuda>(c.a),
                   tessera::from_coo<double, tessera::CSR, Cuda>(c.b), options.reps, timeline, by_prec[1]);
      }
    if (options.generated)
      for (const auto& make : {+[] { return large_matrices::poisson_3d(200); },
                               +[] { return large_matrices::uniform_random(1 << 22, 1 << 22, 8); },
                               +[] { return large_matrices::power_law(1 << 22, 1.6, 4000); },
                               +[] { return large_matrices::banded(1 << 20, 32); }}) {
        const auto m = make();
        if (!options.wanted(m.name)) continue;
        const std::string name = m.name + " + its transpose";
        if (options.fp32) {
          const auto A = on_device<float>(m);
          run_case(handle, name, A, tessera::transpose(A), options.reps, timeline, by_prec[0]);
        }
        if (options.fp64) {
          const auto A = on_device<double>(m);
          run_case(handle, name, A, tessera::transpose(A), options.reps, timeline, by_prec[1]);
        }
      }
    std::printf("\n");
    for (int k = 0; k < 2; ++k)
      if (!by_prec[k].whole.empty())
        std::printf("%s, %zu matrices: whole call geomean %.2fx (lowest %.2fx), values only geomean %.2fx (lowest "
                    "%.2fx)\n",
                    k == 0 ? "fp32" : "fp64", by_prec[k].whole.size(), Speedups::geomean(by_prec[k].whole),
                    Speedups::lowest(by_prec[k].whole), Speedups::geomean(by_prec[k].values),
                    Speedups::lowest(by_prec[k].values));
    CUSPARSE_CHECK(cusparseDestroy(handle));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "add_cuda_bench: %s\n", e.what());
    return 1;
  }
  return 0;
}
