#pragma once
// tessera::nm_spmm for NV24 weights: C (m x n) = A (m x k, dense activations) * B (k x n,
// 2:4-pruned weight in an Nv24Tensor), the product of a linear layer with a pruned weight.
//   Kokkos::Cuda, value type Kokkos::Experimental::half_t or tessera::bf16_t: the sparse-
//     tensor-core kernel (cuda/nv24_spmm_cuda.hpp: mma.sp, fp32 accumulation) on the
//     instance's stream; A is read in place when it is row-major with a row stride that is a
//     multiple of 8 (else packed first), C written in place when row-major (else through a
//     temporary);
//   every other space / value type: the portable Kokkos kernel (impl/nv24_spmm_native.hpp).
// Nv24Algorithm::Native forces the portable kernel; SparseTensorCore on a space without it
// throws NotCompiled. Nv24Options::tune times the CUDA launches once per shape instead of
// estimating (see there).
#include <algorithm>
#include <cstdint>
#include <string>
#include <type_traits>

#include <Kokkos_Core.hpp>

#include "tessera/core/error.hpp"
#include "tessera/formats/nv24.hpp"
#include "tessera/kernels/common/profiling_region.hpp"
#include "tessera/kernels/nm_spmm/weight_product_checks.hpp"
#include "tessera/kernels/nm_spmm/impl/nv24_spmm_native.hpp"
#if defined(TESSERA_HAVE_CUDA_KERNELS) && defined(KOKKOS_ENABLE_CUDA)
#include "tessera/kernels/nm_spmm/cuda/nv24_spmm_cuda.hpp"
#endif

namespace tessera {

enum class Nv24Algorithm { Auto, Native, SparseTensorCore };

struct Nv24Options {
  Nv24Algorithm algorithm = Nv24Algorithm::Auto;
  // Kokkos::Cuda: run the launch (block tile, K splits, tail) that kernels::cuda::nv24_tune
  // measured to be the fastest for this shape (value type, m, n, k) instead of the time model's
  // estimate: timed on the first call per shape in the process (a scratch output, so C is
  // untouched; that call synchronizes: 115-119 ms per shape in the median over the LLM layer set
  // on an H100, 0.67 s at most) and kept for every later one. For layers multiplied many times with
  // one batch size (inference). Ignored on other spaces and while the stream is being captured
  // into a graph.
  bool tune = false;
};

namespace kernels::detail {
#if defined(TESSERA_HAVE_CUDA_KERNELS) && defined(KOKKOS_ENABLE_CUDA)
template <class T, class Space>
constexpr bool has_nv24_tensor_core_v =
    std::is_same_v<Space, Kokkos::Cuda> && std::is_same_v<typename Space::memory_space, Kokkos::CudaSpace> &&
    (std::is_same_v<T, Kokkos::Experimental::half_t> || std::is_same_v<T, bf16_t>);

template <class T, class AView, class CView>
void nv24_spmm_cuda(const Kokkos::Cuda& space, const AView& A, const Nv24Tensor<T, Kokkos::Cuda>& B, const CView& C,
                    bool tune) {
  namespace kc = kernels::cuda;
  using Mat = Kokkos::View<T**, Kokkos::LayoutRight, Kokkos::CudaSpace>;
  const std::int64_t m = static_cast<std::int64_t>(A.extent(0)), k = B.extent(0), n = B.extent(1);
  const std::int64_t kp = B.k_padded();
  // A: in place when row-major with an aligned row stride, else packed into (m x k_padded)
  const T* a_ptr = A.data();
  std::int64_t lda = m > 0 ? static_cast<std::int64_t>(A.stride(0)) : kp;
  Mat packed;
  if (m > 0 && k > 0 && (A.stride(1) != 1 || !kc::nv24_a_in_place(A.data(), lda, k))) {
    packed = Mat(Kokkos::view_alloc(Kokkos::WithoutInitializing, "nv24_packed_A"), m, kp);
    Kokkos::parallel_for(
        "tessera::nm_spmm[nv24,pack A]",
        Kokkos::MDRangePolicy<Kokkos::Cuda, Kokkos::Rank<2>, Kokkos::IndexType<std::int64_t>>(space, {0, 0}, {m, kp}),
        KOKKOS_LAMBDA(std::int64_t i, std::int64_t kk) { packed(i, kk) = kk < k ? T(A(i, kk)) : T(0.0f); });
    a_ptr = packed.data();
    lda = kp;
  }
  // C: in place when row-major, else through a row-major temporary
  const bool c_direct = m == 0 || n == 0 || C.stride(1) == 1;
  Mat tmp;
  if (!c_direct) tmp = Mat(Kokkos::view_alloc(Kokkos::WithoutInitializing, "nv24_C"), m, n);
  T* c_ptr = c_direct ? C.data() : tmp.data();
  const std::int64_t ldc = c_direct ? (m > 0 ? static_cast<std::int64_t>(C.stride(0)) : n) : n;
  const auto& s = B.decompose();
  kc::Nv24Args args{std::is_same_v<T, bf16_t> ? kc::Nv24Type::BF16 : kc::Nv24Type::F16,
                    m, n, k, kp, a_ptr, lda, s.vals.data(), s.meta.data(), c_ptr, std::max<std::int64_t>(ldc, n)};
  if (tune) kc::nv24_spmm(args, space.cuda_stream(), kc::nv24_tuned(args, space.cuda_stream()));
  else kc::nv24_spmm(args, space.cuda_stream());
  if (!c_direct) Kokkos::deep_copy(space, C, tmp);
}
#else
template <class T, class Space>
constexpr bool has_nv24_tensor_core_v = false;
#endif
}  // namespace kernels::detail

// The algorithm nm_spmm runs for these types (Auto resolved).
template <class T, class Space>
constexpr Nv24Algorithm nv24_default_algorithm() {
  return kernels::detail::has_nv24_tensor_core_v<T, Space> ? Nv24Algorithm::SparseTensorCore : Nv24Algorithm::Native;
}

// C = A * B. A (m x k) and C (m x n): rank-2 Views of B's value type accessible from Space.
template <class T, class Space, class AView, class CView>
void nm_spmm(const Space& space, const AView& A, const Nv24Tensor<T, Space>& B, const CView& C,
             const Nv24Options& opts) {
  kernels::require_weight_product<T, Space>(A, B.extent(0), B.extent(1), C);
  Nv24Algorithm algorithm = opts.algorithm;
  if (algorithm == Nv24Algorithm::Auto) algorithm = nv24_default_algorithm<T, Space>();
  if (algorithm == Nv24Algorithm::Native) {
    const kernels::ProfilingRegion profiling_region("tessera::nm_spmm[nv24,native]");
    const auto& s = B.decompose();
    kernels::impl::nv24_spmm_native(space, A, s.vals, s.meta, C, B.extent(0), B.k_padded());
    return;
  }
#if defined(TESSERA_HAVE_CUDA_KERNELS) && defined(KOKKOS_ENABLE_CUDA)
  if constexpr (kernels::detail::has_nv24_tensor_core_v<T, Space>) {
    const kernels::ProfilingRegion profiling_region("tessera::nm_spmm[nv24,sparse tensor core]");
    kernels::detail::nv24_spmm_cuda(space, A, B, C, opts.tune);
    return;
  }
#endif
  throw NotCompiled(
      "tessera::nm_spmm: Nv24Algorithm::SparseTensorCore needs Kokkos::Cuda with CUDA kernels compiled in "
      "(tessera_kernels_cuda) and a value type Kokkos::Experimental::half_t or tessera::bf16_t");
}

template <class T, class Space, class AView, class CView>
void nm_spmm(const Space& space, const AView& A, const Nv24Tensor<T, Space>& B, const CView& C,
             Nv24Algorithm algorithm = Nv24Algorithm::Auto) {
  nm_spmm(space, A, B, C, Nv24Options{algorithm});
}

template <class T, class Space, class AView, class CView>
void nm_spmm(const AView& A, const Nv24Tensor<T, Space>& B, const CView& C,
             Nv24Algorithm algorithm = Nv24Algorithm::Auto) {
  nm_spmm(Space(), A, B, C, Nv24Options{algorithm});
}

template <class T, class Space, class AView, class CView>
void nm_spmm(const AView& A, const Nv24Tensor<T, Space>& B, const CView& C, const Nv24Options& opts) {
  nm_spmm(Space(), A, B, C, opts);
}

}  // namespace tessera
