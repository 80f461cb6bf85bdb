#pragma once
// The portable implementation of tessera::spmm (the primary template of SpmmImpl): the Kokkos
// row loops of spmm_native.hpp, AVX-512 on host CPUs that have it. cuda/spmm_cuda.hpp
// specializes SpmmImpl for Kokkos::Cuda.
#include <cstdint>
#include <string>

#include <Kokkos_Core.hpp>

#include "tessera/core/error.hpp"
#include "tessera/core/tensor.hpp"
#include "tessera/kernels/common/profiling_region.hpp"
#include "tessera/kernels/common/scale_output.hpp"
#include "tessera/kernels/spmm/impl/spmm_native.hpp"
#include "tessera/kernels/spmm/spmm_handle.hpp"

namespace tessera {

// Whether the AVX-512 loop writes an output of c_bytes with streaming stores.
inline bool spmm_streams_output(SpmmOutputStores stores, bool beta_is_zero, std::int64_t c_bytes) {
  if (!beta_is_zero) return false;  // C is read anyway
  return stores == SpmmOutputStores::Streaming ||
         (stores == SpmmOutputStores::Auto && c_bytes >= kSpmmStreamingMinBytes);
}

// True when spmm on a host space, with host_loop Auto, runs the AVX-512 row loop for value
// type T and row-major B and C on this CPU.
template <class T>
bool spmm_host_loop_is_avx512() {
  return kernels::impl::spmm_avx512_value_v<T> && kernels::cpu_has_avx512f();
}

namespace kernels {

// The Native algorithm, on every space. The tensor's stored arrays are CSR arrays of its major
// mode (rows of CSR, columns of CSC); `scatter` is true when the product reads them transposed
// (op = Transpose on CSR, NoTranspose on CSC).
template <class Space, class T, class Enc, class BView, class CView>
void spmm_portable(const Space& space, bool scatter, T alpha, const Tensor<T, Enc, Space>& A, const BView& B, T beta,
                   const CView& C, const SpmmOptions& opts) {
  const ProfilingRegion profiling_region(region_name<T>("spmm", scatter ? "Native,scatter" : "Native"));
  const auto& s = A.decompose();
  const std::int64_t major = A.extent(Enc::mode_order[0]);
  if (scatter) {
    scale_output(space, beta, C);
    return impl::spmm_native_scatter(space, alpha, s.levels[1].pos, s.levels[1].crd, s.vals, B, C, major);
  }
  const impl::SpmmHostLoopChoice loop{
      opts.host_loop == SpmmHostLoop::Auto && spmm_host_loop_is_avx512<T>(),
      spmm_streams_output(opts.output_stores, beta == T(0),
                          static_cast<std::int64_t>(C.span()) * static_cast<std::int64_t>(sizeof(T)))};
  impl::spmm_native(space, alpha, s.levels[1].pos, s.levels[1].crd, s.vals, B, beta, C, major, loop);
}

// Spaces and types without a specialization run Native; asking them for a CUDA algorithm
// raises NotCompiled.
template <class Space, class T, class Enc, class Enable = void>
struct SpmmImpl {
  template <class BView, class CView>
  static SpmmAlgorithm choose(const Space&, bool, const Tensor<T, Enc, Space>&, const BView&, const CView&,
                              SpmmHandle& handle) {
    const SpmmAlgorithm a = handle.options().algorithm;
    return a == SpmmAlgorithm::Auto ? SpmmAlgorithm::Native : a;
  }
  template <class BView, class CView>
  static void run(const Space& space, bool scatter, T alpha, const Tensor<T, Enc, Space>& A, const BView& B, T beta,
                  const CView& C, SpmmHandle& handle) {
    const SpmmAlgorithm a = choose(space, scatter, A, B, C, handle);
    if (a != SpmmAlgorithm::Native)
      throw NotCompiled(std::string("tessera::spmm: algorithm ") + to_string(a) +
                        " needs Kokkos::Cuda with CUDA kernels compiled in (tessera_kernels_cuda), a value type "
                        "float, double or Kokkos::Experimental::half_t and int row offsets and column ids");
    spmm_portable(space, scatter, alpha, A, B, beta, C, handle.options());
  }
};

}  // namespace kernels
}  // namespace tessera
