// tessera::spgemm on Kokkos::Cuda against cusparseSpGEMM (ALG1) in the same process, on the same
// device arrays: C = A * A for the square real matrices with at least --min-products
// multiply-adds (A * A^T for rectangular ones), and generated matrices of 10 M to 1 G products.
// Per matrix and precision: the whole call (ours and cuSPARSE's both allocating C and their
// buffers), the numeric phase alone (our SpgemmHandle, cusparseSpGEMMreuse_compute), and the
// device memory each needs beyond the operands (workspace at its peak plus C). Each time is the
// median of --reps fenced calls; C, of the whole call and of the numeric phase, is checked against
// cuSPARSE's.
#include <Kokkos_Core.hpp>
#include <cusparse.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "../common/cusparse_check.hpp"
#include "../common/device_bytes.hpp"
#include "../common/fenced_timing.hpp"
#include "../common/large_matrices.hpp"
#include "../common/matrix_bench_options.hpp"
#include "spgemm_operands.hpp"
#include "tessera/core/command_line.hpp"
#include "tessera/formats/convert.hpp"
#include "tessera/kernels/spgemm/spgemm.hpp"

namespace {

using Cuda = Kokkos::Cuda;

const char* const kUsage =
    "spgemm_cuda_bench [--reps R] [--prec fp32,fp64] [--min-products P] [--only NAME[,NAME...]] [--no-real] [--no-generated]\n"
    "  --reps R          calls timed per variant, the median is reported (default 5)\n"
    "  --prec LIST       fp32, fp64 or both (default both)\n"
    "  --min-products P  real matrices with at least P multiply-adds (default 1000000)\n"
    "  --only NAMES      only the matrices whose name contains one of NAMES (a comma list)\n"
    "  --no-real         skip the real matrices\n"
    "  --no-generated    skip the generated matrices\n";

template <class T>
constexpr cudaDataType value_type() {
  return sizeof(T) == 8 ? CUDA_R_64F : CUDA_R_32F;
}

template <class T>
cusparseSpMatDescr_t describe(const tessera::Tensor<T, tessera::CSR, Cuda>& M) {
  const auto& s = M.decompose();
  cusparseSpMatDescr_t d = nullptr;
  CUSPARSE_CHECK(cusparseCreateCsr(&d, M.extent(0), M.extent(1), M.nnz(), s.levels[1].pos.data(),
                                   s.levels[1].crd.data(), s.vals.data(), CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                                   CUSPARSE_INDEX_BASE_ZERO, value_type<T>()));
  return d;
}

// One cusparseSpGEMM (ALG1) product from scratch: buffers and C's arrays allocated in the call.
// Returns C's entries; `peak` gets buffer1 + buffer2 + C's bytes (all alive at the copy).
struct CusparseProduct {
  std::int64_t nnz = 0;
  std::size_t peak = 0;
  std::vector<int> pos, crd;
  std::vector<double> vals;
};

template <class T>
CusparseProduct cusparse_spgemm(cusparseHandle_t handle, const tessera::Tensor<T, tessera::CSR, Cuda>& A,
                                const tessera::Tensor<T, tessera::CSR, Cuda>& B, bool keep) {
  const T one = 1, zero = 0;
  const auto op = CUSPARSE_OPERATION_NON_TRANSPOSE;
  cusparseSpMatDescr_t a = describe(A), b = describe(B), c = nullptr;
  CUSPARSE_CHECK(cusparseCreateCsr(&c, A.extent(0), B.extent(1), 0, nullptr, nullptr, nullptr, CUSPARSE_INDEX_32I,
                                   CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, value_type<T>()));
  cusparseSpGEMMDescr_t desc = nullptr;
  CUSPARSE_CHECK(cusparseSpGEMM_createDescr(&desc));
  const auto alg = CUSPARSE_SPGEMM_ALG1;
  std::size_t bytes1 = 0, bytes2 = 0;
  CUSPARSE_CHECK(cusparseSpGEMM_workEstimation(handle, op, op, &one, a, b, &zero, c, value_type<T>(), alg, desc,
                                               &bytes1, nullptr));
  DeviceBytes buffer1(bytes1);
  CUSPARSE_CHECK(cusparseSpGEMM_workEstimation(handle, op, op, &one, a, b, &zero, c, value_type<T>(), alg, desc,
                                               &bytes1, buffer1.p));
  CUSPARSE_CHECK(cusparseSpGEMM_compute(handle, op, op, &one, a, b, &zero, c, value_type<T>(), alg, desc, &bytes2,
                                        nullptr));
  DeviceBytes buffer2(bytes2);
  CUSPARSE_CHECK(cusparseSpGEMM_compute(handle, op, op, &one, a, b, &zero, c, value_type<T>(), alg, desc, &bytes2,
                                        buffer2.p));
  std::int64_t rows = 0, cols = 0, nnz = 0;
  CUSPARSE_CHECK(cusparseSpMatGetSize(c, &rows, &cols, &nnz));
  DeviceBytes pos((rows + 1) * sizeof(int)), crd(nnz * sizeof(int)), vals(nnz * sizeof(T));
  CUSPARSE_CHECK(cusparseCsrSetPointers(c, pos.p, crd.p, vals.p));
  CUSPARSE_CHECK(cusparseSpGEMM_copy(handle, op, op, &one, a, b, &zero, c, value_type<T>(), alg, desc));
  CusparseProduct out;
  out.nnz = nnz;
  out.peak = bytes1 + bytes2 + (rows + 1) * sizeof(int) + nnz * (sizeof(int) + sizeof(T));
  if (keep) {
    out.pos.resize(rows + 1);
    out.crd.resize(nnz);
    std::vector<T> v(nnz);
    cuda_check(cudaMemcpy(out.pos.data(), pos.p, out.pos.size() * sizeof(int), cudaMemcpyDeviceToHost), "copy");
    cuda_check(cudaMemcpy(out.crd.data(), crd.p, out.crd.size() * sizeof(int), cudaMemcpyDeviceToHost), "copy");
    cuda_check(cudaMemcpy(v.data(), vals.p, v.size() * sizeof(T), cudaMemcpyDeviceToHost), "copy");
    out.vals.assign(v.begin(), v.end());
  }
  cuda_check(cudaDeviceSynchronize(), "cusparseSpGEMM");
  CUSPARSE_CHECK(cusparseSpGEMM_destroyDescr(desc));
  CUSPARSE_CHECK(cusparseDestroySpMat(a));
  CUSPARSE_CHECK(cusparseDestroySpMat(b));
  CUSPARSE_CHECK(cusparseDestroySpMat(c));
  return out;
}

// cusparseSpGEMMreuse set up once (its symbolic phase); compute() is the numeric phase alone.
template <class T>
class CusparseReuse {
 public:
  CusparseReuse(cusparseHandle_t handle, const tessera::Tensor<T, tessera::CSR, Cuda>& A,
                const tessera::Tensor<T, tessera::CSR, Cuda>& B)
      : handle_(handle), a_(describe(A)), b_(describe(B)) {
    const auto op = CUSPARSE_OPERATION_NON_TRANSPOSE;
    const auto alg = CUSPARSE_SPGEMM_DEFAULT;
    CUSPARSE_CHECK(cusparseCreateCsr(&c_, A.extent(0), B.extent(1), 0, nullptr, nullptr, nullptr, CUSPARSE_INDEX_32I,
                                     CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, value_type<T>()));
    CUSPARSE_CHECK(cusparseSpGEMM_createDescr(&desc_));
    std::size_t b1 = 0, b2 = 0, b3 = 0, b4 = 0, b5 = 0;
    CUSPARSE_CHECK(cusparseSpGEMMreuse_workEstimation(handle, op, op, a_, b_, c_, alg, desc_, &b1, nullptr));
    buffers_.emplace_back(new DeviceBytes(b1));
    CUSPARSE_CHECK(cusparseSpGEMMreuse_workEstimation(handle, op, op, a_, b_, c_, alg, desc_, &b1, buffers_[0]->p));
    CUSPARSE_CHECK(cusparseSpGEMMreuse_nnz(handle, op, op, a_, b_, c_, alg, desc_, &b2, nullptr, &b3, nullptr, &b4,
                                           nullptr));
    buffers_.emplace_back(new DeviceBytes(b2));
    buffers_.emplace_back(new DeviceBytes(b3));
    buffers_.emplace_back(new DeviceBytes(b4));
    CUSPARSE_CHECK(cusparseSpGEMMreuse_nnz(handle, op, op, a_, b_, c_, alg, desc_, &b2, buffers_[1]->p, &b3,
                                           buffers_[2]->p, &b4, buffers_[3]->p));
    std::int64_t rows = 0, cols = 0, nnz = 0;
    CUSPARSE_CHECK(cusparseSpMatGetSize(c_, &rows, &cols, &nnz));
    buffers_[0].reset();  // buffer1 and buffer2 are done with; buffer3 serves the copy
    buffers_[1].reset();
    buffers_.emplace_back(new DeviceBytes((rows + 1) * sizeof(int)));
    buffers_.emplace_back(new DeviceBytes(nnz * sizeof(int)));
    buffers_.emplace_back(new DeviceBytes(nnz * sizeof(T)));
    CUSPARSE_CHECK(cusparseCsrSetPointers(c_, buffers_[4]->p, buffers_[5]->p, buffers_[6]->p));
    CUSPARSE_CHECK(cusparseSpGEMMreuse_copy(handle, op, op, a_, b_, c_, alg, desc_, &b5, nullptr));
    buffers_.emplace_back(new DeviceBytes(b5));
    CUSPARSE_CHECK(cusparseSpGEMMreuse_copy(handle, op, op, a_, b_, c_, alg, desc_, &b5, buffers_[7]->p));
    cuda_check(cudaDeviceSynchronize(), "cusparseSpGEMMreuse");
    buffers_[2].reset();
  }
  ~CusparseReuse() {
    cusparseSpGEMM_destroyDescr(desc_);
    cusparseDestroySpMat(a_);
    cusparseDestroySpMat(b_);
    cusparseDestroySpMat(c_);
  }
  void compute() {
    const T one = 1, zero = 0;
    const auto op = CUSPARSE_OPERATION_NON_TRANSPOSE;
    CUSPARSE_CHECK(cusparseSpGEMMreuse_compute(handle_, op, op, &one, a_, b_, &zero, c_, value_type<T>(),
                                               CUSPARSE_SPGEMM_DEFAULT, desc_));
  }

 private:
  cusparseHandle_t handle_;
  cusparseSpMatDescr_t a_ = nullptr, b_ = nullptr, c_ = nullptr;
  cusparseSpGEMMDescr_t desc_ = nullptr;
  std::vector<std::unique_ptr<DeviceBytes>> buffers_;
};

// Our C against cuSPARSE's: same pattern, values within the precision's rounding of the products.
template <class T>
void check_same(const tessera::Tensor<T, tessera::CSR, Cuda>& C, const CusparseProduct& ref, const std::string& name) {
  const auto& s = C.decompose();
  const auto pos = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), s.levels[1].pos);
  const auto crd = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), s.levels[1].crd);
  const auto vals = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), s.vals);
  if (C.nnz() != ref.nnz) throw tessera::Error(name + ": C has " + std::to_string(C.nnz()) + " entries, cuSPARSE's " +
                                               std::to_string(ref.nnz));
  for (std::size_t i = 0; i < ref.pos.size(); ++i)
    if (pos(i) != ref.pos[i])
      throw tessera::Error(name + ": row offsets differ from cuSPARSE's at row " + std::to_string(i));
  double worst = 0, scale = 0;
  for (std::int64_t p = 0; p < ref.nnz; ++p) {
    if (crd(p) != ref.crd[p])
      throw tessera::Error(name + ": column ids differ from cuSPARSE's at " + std::to_string(p));
    worst = std::max(worst, std::abs(static_cast<double>(vals(p)) - ref.vals[p]));
    scale = std::max(scale, std::abs(ref.vals[p]));
  }
  const double tolerance = (sizeof(T) == 4 ? 1e-4 : 1e-11) * std::max(scale, 1.0);
  if (worst > tolerance) throw tessera::Error(name + ": values differ from cuSPARSE's by " + std::to_string(worst));
}

struct Case {
  std::string name;
  tessera::HostCoo<double> left, right;
};

template <class T>
tessera::Tensor<T, tessera::CSR, Cuda> on_device(const tessera::HostCoo<double>& coo) {
  return tessera::from_coo<T, tessera::CSR, Cuda>(coo);
}

tessera::HostCoo<double> coo_of(const large_matrices::Csr& m) {
  tessera::HostCoo<double> coo;
  coo.shape = {m.rows, m.cols};
  coo.coords.resize(2 * m.nnz());
  coo.values = m.val;
  for (std::int64_t i = 0; i < m.rows; ++i)
    for (int p = m.pos[i]; p < m.pos[i + 1]; ++p) {
      coo.coords[2 * p] = i;
      coo.coords[2 * p + 1] = m.crd[p];
    }
  return coo;
}

template <class T>
void run_case(cusparseHandle_t handle, const Case& c, std::int64_t products, int reps) {
  const auto A = on_device<T>(c.left);
  const auto B = on_device<T>(c.right);
  const char* prec = sizeof(T) == 4 ? "fp32" : "fp64";
  CusparseProduct vendor;
  try {
    vendor = cusparse_spgemm(handle, A, B, true);
  } catch (const std::exception& e) {
    std::printf("| %s | %s | %.1f | cuSPARSE ALG1 failed: %s |\n", c.name.c_str(), prec, products / 1e6, e.what());
    return;
  }
  tessera::workspace::Report report;
  const auto C = tessera::spgemm(A, B, {}, &report);
  check_same(C, vendor, c.name);
  const std::size_t ours_peak = static_cast<std::size_t>(report.peak_bytes) +
                                static_cast<std::size_t>(C.extent(0) + 1) * sizeof(int) +
                                static_cast<std::size_t>(C.nnz()) * (sizeof(int) + sizeof(T));
  const double ours_ms = median_fenced_ms(reps, [&] { (void)tessera::spgemm(A, B); });
  const double vendor_ms = median_fenced_ms(reps, [&] { (void)cusparse_spgemm(handle, A, B, false); });
  tessera::SpgemmHandle reuse;
  (void)tessera::spgemm(A, B, reuse);
  const double ours_numeric = median_fenced_ms(reps, [&] { (void)tessera::spgemm(A, B, reuse); });
  check_same(tessera::spgemm(A, B, reuse), vendor, c.name + " (numeric only)");
  CusparseReuse<T> vendor_reuse(handle, A, B);
  const double vendor_numeric = median_fenced_ms(reps, [&] { vendor_reuse.compute(); });
  std::printf("| %s | %s | %.1f | %lld | %.3f | %.3f | %.2fx | %.3f | %.3f | %.2fx | %.1fx | %.1f | %.1f | %.2f |\n",
              c.name.c_str(), prec, products / 1e6, static_cast<long long>(C.nnz()), ours_ms, vendor_ms,
              vendor_ms / ours_ms, ours_numeric, vendor_numeric, vendor_numeric / ours_numeric, ours_ms / ours_numeric,
              ours_peak / 1048576.0, vendor.peak / 1048576.0, static_cast<double>(ours_peak) / vendor.peak);
  std::fflush(stdout);
}

}  // namespace

int main(int argc, char** argv) {
  MatrixBenchOptions options(5);
  std::int64_t min_products = 1000000;
  if (const auto status = tessera::walk_command_line("spgemm_cuda_bench", [&] {
        for (tessera::CommandLine cl(argc, argv, kUsage); cl.next();) {
          if (options.take(cl)) continue;
          if (cl.is("--min-products")) min_products = cl.integer(0, std::int64_t{1} << 50);
          else cl.reject();
        }
      }))
    return *status;
  Kokkos::ScopeGuard kokkos(argc, argv);
  try {
    cudaDeviceProp prop{};
    cuda_check(cudaGetDeviceProperties(&prop, 0), "cudaGetDeviceProperties");
    std::printf("spgemm_cuda_bench on %s: C = A * A (A * A^T for rectangular A); median of %d calls, ms\n\n",
                prop.name, options.reps);
    std::printf("| matrix | prec | Mproducts | nnz(C) | ours | cuSPARSE ALG1 | speed-up | ours numeric | cuSPARSE "
                "reuse compute | speed-up | ours full / numeric | ours MiB | cuSPARSE MiB | memory ratio |\n"
                "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    cusparseHandle_t handle = nullptr;
    CUSPARSE_CHECK(cusparseCreate(&handle));
    CUSPARSE_CHECK(cusparseSetStream(handle, Cuda().cuda_stream()));
    const auto run = [&](const Case& c) {
      if (!options.wanted(c.name)) return;
      const std::int64_t products = tessera_bench::multiply_adds(c.left, c.right);
      if (options.fp32) run_case<float>(handle, c, products, options.reps);
      if (options.fp64) run_case<double>(handle, c, products, options.reps);
    };
    if (options.real)
      for (const auto& path : tessera_bench::real_matrix_paths()) {
        Case c;
        const auto slash = path.find_last_of('/');
        c.name = path.substr(slash + 1, path.size() - slash - 1 - 7);
        if (!options.wanted(c.name)) continue;
        c.left = tessera::io::read_matrix_market(path);
        if (c.left.shape[0] == c.left.shape[1]) {
          c.right = c.left;
        } else {
          c.right.shape = {c.left.shape[1], c.left.shape[0]};
          c.right.values = c.left.values;
          for (std::int64_t n = 0; n < c.left.nnz(); ++n)
            c.right.coords.insert(c.right.coords.end(), {c.left.coord(n, 1), c.left.coord(n, 0)});
        }
        if (tessera_bench::multiply_adds(c.left, c.right) < min_products) continue;
        run(c);
      }
    if (options.generated)
      for (const auto& m : {large_matrices::poisson_3d(100), large_matrices::poisson_3d(160),
                            large_matrices::uniform_random(1 << 20, 1 << 20, 8),
                            large_matrices::uniform_random(1 << 18, 1 << 18, 32),
                            large_matrices::power_law(1 << 20, 1.6, 2000), large_matrices::banded(1 << 18, 64)}) {
        Case c;
        c.name = m.name;
        c.left = coo_of(m);
        c.right = c.left;
        run(c);
      }
    CUSPARSE_CHECK(cusparseDestroy(handle));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "spgemm_cuda_bench: %s\n", e.what());
    return 1;
  }
  return 0;
}
