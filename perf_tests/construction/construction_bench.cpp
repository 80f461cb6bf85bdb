// Tensor construction on the 3-D Poisson matrix's shuffled triplets (n = 200: 8 M rows, 55.8 M
// triplets): from_coo on Kokkos::Serial and Kokkos::OpenMP against the sequential algorithm it
// replaced, and in CUDA builds from_coo on the device (triplets on the device, triplets on the
// host with their copy) and CSR -> CSC against cusparseCsr2cscEx2 on the same arrays. Every
// time is the median of --reps calls, each fenced; the ratio columns compare within a table.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <random>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include <Kokkos_Core.hpp>

#include "../common/fenced_timing.hpp"
#include "serial_from_coo.hpp"
#include "tessera/core/command_line.hpp"
#include "tessera/core/poisson_3d_triplets.hpp"
#include "tessera/tessera.hpp"

#if defined(KOKKOS_ENABLE_CUDA)
#include <cusparse.h>
#endif

namespace {

const char* const kUsage =
    "construction_bench [--n N] [--reps R] [--no-host] [--no-cuda] [--no-baseline]\n"
    "  --n N          Poisson grid size (default 200: 55.8 M triplets)\n"
    "  --reps R       calls timed per variant, the median is reported (default 3)\n"
    "  --no-host      skip the host table (Serial, OpenMP, the sequential baseline)\n"
    "  --no-cuda      skip the CUDA table (CUDA builds)\n"
    "  --no-baseline  skip the sequential baseline (the slowest row)\n";

tessera::HostCoo<double> shuffled_poisson(std::int64_t n) {
  tessera::HostCoo<double> coo = tessera::poisson_3d_triplets(n, 0, n * n * n);
  std::mt19937_64 rng(2024);
  for (std::int64_t i = coo.nnz() - 1; i > 0; --i) {
    const std::int64_t j = std::uniform_int_distribution<std::int64_t>(0, i)(rng);
    std::swap(coo.coords[2 * i], coo.coords[2 * j]);
    std::swap(coo.coords[2 * i + 1], coo.coords[2 * j + 1]);
    std::swap(coo.values[i], coo.values[j]);
  }
  return coo;
}

void host_table(const tessera::HostCoo<double>& coo, int reps, bool baseline) {
  using tessera::CSR;
  std::printf("\n| host: from_coo<double, CSR> | ms per call | speed-up |\n|---|---:|---:|\n");
  const double serial = median_fenced_ms(reps, [&] { return tessera::from_coo<double, CSR, Kokkos::Serial>(coo); });
  if (baseline) {
    const double before = median_fenced_ms(reps, [&] { return construction_bench::serial_from_coo<double, CSR>(coo); });
    std::printf("| sequential algorithm before (Serial) | %.1f | %.2fx |\n", before, 1.0);
    std::printf("| from_coo, Kokkos::Serial | %.1f | %.2fx |\n", serial, before / serial);
  } else {
    std::printf("| from_coo, Kokkos::Serial | %.1f | %.2fx |\n", serial, 1.0);
  }
#if defined(KOKKOS_ENABLE_OPENMP)
  const double openmp = median_fenced_ms(reps, [&] { return tessera::from_coo<double, CSR, Kokkos::OpenMP>(coo); });
  std::printf("| from_coo, Kokkos::OpenMP (%d threads) | %.1f | %.2fx vs Serial (target >= 1.7x on 2 cores) |\n",
              Kokkos::OpenMP().concurrency(), openmp, serial / openmp);
#endif
}

#if defined(KOKKOS_ENABLE_CUDA)
void check_cusparse(cusparseStatus_t status, const char* what) {
  if (status != CUSPARSE_STATUS_SUCCESS)
    throw tessera::CudaError(std::string(what) + " failed: " + cusparseGetErrorString(status));
}

template <class View>
std::vector<typename View::non_const_value_type> on_host(const View& v) {
  std::vector<typename View::non_const_value_type> out(v.extent(0));
  Kokkos::deep_copy(Kokkos::View<typename View::non_const_value_type*, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>(
                        out.data(), out.size()),
                    v);
  return out;
}

void cuda_table(const tessera::HostCoo<double>& coo, int reps) {
  using tessera::CSC;
  using tessera::CSR;
  using Cuda = Kokkos::Cuda;
  const auto device_coo = tessera::to_device<Cuda>(coo);
  std::printf("\n| CUDA (%s) | ms per call | target |\n|---|---:|---|\n", "Kokkos::Cuda");
  const double from_device = median_fenced_ms(reps, [&] { return tessera::from_coo<double, CSR, Cuda>(device_coo); });
  std::printf("| from_coo<CSR>, triplets on the device | %.2f | <= 60 ms |\n", from_device);
  const double from_host = median_fenced_ms(reps, [&] { return tessera::from_coo<double, CSR, Cuda>(coo); });
  std::printf("| from_coo<CSR>, triplets on the host (copy included) | %.2f | <= 250 ms |\n", from_host);

  const auto A = tessera::from_coo<double, CSR, Cuda>(device_coo);
  const double ours = median_fenced_ms(reps, [&] { return tessera::convert<CSC>(A); });

  // cuSPARSE on the same CSR arrays, outputs and buffer allocated once, outside the timing.
  const auto& s = A.decompose();
  const int m = static_cast<int>(A.shape()[0]), n = static_cast<int>(A.shape()[1]);
  const int nnz = static_cast<int>(A.nnz());
  Kokkos::View<int*, Kokkos::CudaSpace> col_ptr("csc col_ptr", n + 1), row_ind("csc row_ind", nnz);
  Kokkos::View<double*, Kokkos::CudaSpace> csc_val("csc val", nnz);
  cusparseHandle_t handle = nullptr;
  check_cusparse(cusparseCreate(&handle), "cusparseCreate");
  check_cusparse(cusparseSetStream(handle, Cuda().cuda_stream()), "cusparseSetStream");
  std::size_t bytes = 0;
  check_cusparse(
      cusparseCsr2cscEx2_bufferSize(handle, m, n, nnz, s.vals.data(), s.levels[1].pos.data(), s.levels[1].crd.data(),
                                    csc_val.data(), col_ptr.data(), row_ind.data(), CUDA_R_64F, CUSPARSE_ACTION_NUMERIC,
                                    CUSPARSE_INDEX_BASE_ZERO, CUSPARSE_CSR2CSC_ALG1, &bytes),
      "cusparseCsr2cscEx2_bufferSize");
  Kokkos::View<unsigned char*, Kokkos::CudaSpace> buffer("cusparse buffer", std::max<std::size_t>(bytes, 1));
  const double vendor = median_fenced_ms(reps, [&] {
    check_cusparse(
        cusparseCsr2cscEx2(handle, m, n, nnz, s.vals.data(), s.levels[1].pos.data(), s.levels[1].crd.data(),
                           csc_val.data(), col_ptr.data(), row_ind.data(), CUDA_R_64F, CUSPARSE_ACTION_NUMERIC,
                           CUSPARSE_INDEX_BASE_ZERO, CUSPARSE_CSR2CSC_ALG1, buffer.data()),
        "cusparseCsr2cscEx2");
    return 0;
  });
  // As a caller of convert sees it: the CSC arrays and the buffer allocated by each call, the
  // buffer freed in it, the arrays returned.
  const double vendor_allocating = median_fenced_ms(reps, [&] {
    Kokkos::View<int*, Kokkos::CudaSpace> ptr(Kokkos::view_alloc(Kokkos::WithoutInitializing, "ptr"), n + 1);
    Kokkos::View<int*, Kokkos::CudaSpace> ind(Kokkos::view_alloc(Kokkos::WithoutInitializing, "ind"), nnz);
    Kokkos::View<double*, Kokkos::CudaSpace> val(Kokkos::view_alloc(Kokkos::WithoutInitializing, "val"), nnz);
    Kokkos::View<unsigned char*, Kokkos::CudaSpace> scratch(Kokkos::view_alloc(Kokkos::WithoutInitializing, "buf"),
                                                            std::max<std::size_t>(bytes, 1));
    check_cusparse(cusparseCsr2cscEx2(handle, m, n, nnz, s.vals.data(), s.levels[1].pos.data(), s.levels[1].crd.data(),
                                      val.data(), ptr.data(), ind.data(), CUDA_R_64F, CUSPARSE_ACTION_NUMERIC,
                                      CUSPARSE_INDEX_BASE_ZERO, CUSPARSE_CSR2CSC_ALG1, scratch.data()),
                   "cusparseCsr2cscEx2");
    Kokkos::fence();
    return std::make_tuple(ptr, ind, val);
  });
  check_cusparse(cusparseDestroy(handle), "cusparseDestroy");
  std::printf("| convert<CSC>(CSR) | %.2f | %.2fx cuSPARSE with buffers allocated once (target >= 1.0x) |\n", ours,
              vendor / ours);
  std::printf("| cusparseCsr2cscEx2 (ALG1, buffers allocated once) | %.2f | |\n", vendor);
  std::printf("| cusparseCsr2cscEx2 (ALG1, CSC arrays and buffer allocated per call) | %.2f | convert<CSC>: %.2fx |\n",
              vendor_allocating, vendor_allocating / ours);

  const auto C = tessera::convert<CSC>(A);
  const bool same = on_host(C.decompose().levels[1].pos) == on_host(col_ptr) &&
                    on_host(C.decompose().levels[1].crd) == on_host(row_ind) && on_host(C.values()) == on_host(csc_val);
  std::printf("\nCSC arrays of convert<CSC> and cuSPARSE: %s\n", same ? "identical" : "DIFFERENT");
  if (!same) throw tessera::Error("convert<CSC> disagrees with cusparseCsr2cscEx2");
}
#endif

}  // namespace

int main(int argc, char** argv) {
  std::int64_t n = 200;
  int reps = 3;
  bool host = true, cuda = true, baseline = true;
  if (const auto status = tessera::walk_command_line("construction_bench", [&] {
        for (tessera::CommandLine cl(argc, argv, kUsage); cl.next();) {
          if (cl.is("--n"))
            n = cl.integer(1, 2000);
          else if (cl.is("--reps"))
            reps = static_cast<int>(cl.integer(1, 1000));
          else if (cl.is("--no-host"))
            host = false;
          else if (cl.is("--no-cuda"))
            cuda = false;
          else if (cl.is("--no-baseline"))
            baseline = false;
          else
            cl.reject();
        }
      }))
    return *status;
  Kokkos::ScopeGuard kokkos(argc, argv);
  try {
    const auto coo = shuffled_poisson(n);
    std::printf(
        "construction_bench: 3-D Poisson n = %lld: %lld x %lld, %lld triplets in random order; median of %d calls\n",
        static_cast<long long>(n), static_cast<long long>(coo.shape[0]), static_cast<long long>(coo.shape[1]),
        static_cast<long long>(coo.nnz()), reps);
    if (host) host_table(coo, reps, baseline);
#if defined(KOKKOS_ENABLE_CUDA)
    if (cuda) cuda_table(coo, reps);
#else
    (void)cuda;
#endif
  } catch (const tessera::Error& e) {
    std::fflush(stdout);
    std::fprintf(stderr, "construction_bench: error: %s\n", e.what());
    return 2;
  }
  return 0;
}
