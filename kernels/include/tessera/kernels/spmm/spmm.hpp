#pragma once
// tessera::spmm — C = alpha * A * B + beta * C for a CSR-like tensor A and dense
// B (K x N), C (M x N) Views of any layout. As in BLAS, C is not read where beta is zero,
// and neither A nor B where alpha is zero (C = beta * C; no algorithm is chosen or run).
// Algorithms (SpmmOptions::algorithm):
//   Native            portable Kokkos kernel (impl/spmm_native.hpp), every space;
//   TensorCore        TCA-SpMM (cuda/spmm_tca.hpp), Kokkos::Cuda, float (TF32), half_t;
//   CudaCoreRowSplit  CUDA-core warp-per-row kernel, Kokkos::Cuda, float/double/half_t;
//   Auto              Kokkos::Cuda: what spmm_choose_algorithm() says; other spaces: Native.
// Asking a host space for a CUDA algorithm throws NotCompiled.
// On host spaces, Native runs an AVX-512 row loop (impl/spmm_rows_avx512.hpp) for float
// and double with row-major B and C on x86-64 CPUs that have it, the portable loop
// otherwise; SpmmOptions::host_loop and ::output_stores steer it.
#include <string>
#include <type_traits>

#include <Kokkos_Core.hpp>

#include "tessera/core/tensor.hpp"
#include "tessera/formats/encoding.hpp"
#include "tessera/kernels/common/checks.hpp"
#include "tessera/kernels/common/profiling_region.hpp"
#include "tessera/kernels/common/scale_output.hpp"
#include "tessera/kernels/spmm/impl/spmm_native.hpp"
#if defined(TESSERA_HAVE_CUDA_KERNELS) && defined(KOKKOS_ENABLE_CUDA)
#include "tessera/kernels/spmm/cuda/spmm_tca_kokkos.hpp"
#endif

namespace tessera {

enum class SpmmAlgorithm { Auto, Native, TensorCore, CudaCoreRowSplit };
enum class SpmmHostLoop { Auto, Portable };
enum class SpmmOutputStores { Auto, Cached, Streaming };
// SpmmOptions::tune on Kokkos::Cuda: the L2 state its timed calls start from
// (kernels::cuda::TcaTuneCache). ColdL2 for operands read from DRAM: produced long before the
// call, or larger than the L2. WarmL2 for a B produced just before the call (a GNN layer's
// features) or for operands multiplied back to back while they fit in the L2.
enum class SpmmTuneCache { ColdL2, WarmL2 };

inline const char* to_string(SpmmAlgorithm a) {
  switch (a) {
    case SpmmAlgorithm::Auto: return "Auto";
    case SpmmAlgorithm::Native: return "Native";
    case SpmmAlgorithm::TensorCore: return "TensorCore";
    case SpmmAlgorithm::CudaCoreRowSplit: return "CudaCoreRowSplit";
  }
  return "?";
}

struct SpmmOptions {
  SpmmAlgorithm algorithm = SpmmAlgorithm::Auto;
  // float inputs may run through TF32 tensor cores (about 1e-3 relative error) when
  // Auto chooses; off by default so float results keep fp32 accuracy.
  bool allow_tf32 = false;
  // Host spaces, Native: Auto runs the AVX-512 row loop where it applies (see above);
  // Portable always runs the portable one.
  SpmmHostLoop host_loop = SpmmHostLoop::Auto;
  // The AVX-512 loop with beta == 0 can write C with streaming (non-temporal) stores,
  // which save reading C's lines before overwriting them but leave C out of the cache.
  // Auto streams when C holds at least kSpmmStreamingMinBytes.
  SpmmOutputStores output_stores = SpmmOutputStores::Auto;
  // Kokkos::Cuda, Auto: instead of the rule on the plan's row statistics, time both CUDA kernels
  // on the first call for this matrix, value type, N and operand layouts and run the faster on
  // every later call (kernels::cuda::tca_tune: a few calls each into a scratch output, so C is
  // untouched; that first call synchronizes). For a matrix multiplied many times with one N
  // (iterative solvers, GNN training). Ignored on host spaces, by the explicit algorithms, and
  // while the stream is being captured into a graph.
  bool tune = false;
  // Where the timed calls find A and B (SpmmTuneCache): the L2 state the caller's calls will
  // see, since the faster kernel can differ between the two.
  SpmmTuneCache tune_cache = SpmmTuneCache::ColdL2;
};

// Auto's threshold for streaming stores: an output this large does not stay in a
// core's private caches and takes a large share of a shared last-level cache, so the
// next kernel would mostly read it from memory anyway.
inline constexpr std::int64_t kSpmmStreamingMinBytes = std::int64_t(16) << 20;

// Whether the AVX-512 loop writes an output of c_bytes with streaming stores.
inline bool spmm_streams_output(SpmmOutputStores stores, bool beta_is_zero, std::int64_t c_bytes) {
  if (!beta_is_zero) return false;  // C is read anyway
  return stores == SpmmOutputStores::Streaming ||
         (stores == SpmmOutputStores::Auto && c_bytes >= kSpmmStreamingMinBytes);
}

// True when spmm on a host space, with host_loop Auto, runs the AVX-512 row loop for
// value type T and row-major B and C on this CPU.
template <class T>
bool spmm_host_loop_is_avx512() {
  return kernels::impl::spmm_avx512_value_v<T> && kernels::cpu_has_avx512f();
}

namespace kernels::detail {

template <class Space>
constexpr bool is_cuda_space_v =
#if defined(KOKKOS_ENABLE_CUDA)
    std::is_same_v<Space, Kokkos::Cuda>;
#else
    false;
#endif

// The CUDA kernels take int row offsets and column ids; tensors with wider index types run
// Native on Kokkos::Cuda too.
#if defined(TESSERA_HAVE_CUDA_KERNELS) && defined(KOKKOS_ENABLE_CUDA)
template <class T, class Enc, class Space>
constexpr bool has_tca_v = is_cuda_space_v<Space> && kernels::cuda::tca_value_supported_v<T> &&
                           std::is_same_v<typename Space::memory_space, Kokkos::CudaSpace> &&
                           std::is_same_v<typename Enc::offset_type, int> &&
                           std::is_same_v<typename Enc::ordinal_type, int>;
#else
template <class T, class Enc, class Space>
constexpr bool has_tca_v = false;
#endif

// What spmm requires of its operands; spmm_choose_algorithm checks the same, as with tune it
// runs the CUDA kernels on B.
template <class T, class Enc, class Space, class BView, class CView>
void check_spmm_operands(const Tensor<T, Enc, Space>& A, const BView& B, const CView& C) {
  static_assert(is_csr_like_v<Enc>, "spmm needs a CSR-like tensor (levels {Dense, Compressed}, row order)");
  static_assert(Kokkos::is_view<BView>::value && BView::rank == 2, "B must be a rank-2 Kokkos::View");
  static_assert(Kokkos::is_view<CView>::value && CView::rank == 2, "C must be a rank-2 Kokkos::View");
  static_assert(std::is_same_v<typename CView::value_type, T>, "C must be a non-const View of A's value type");
  static_assert(std::is_same_v<typename BView::non_const_value_type, T>, "B must hold A's value type");
  static_assert(Kokkos::SpaceAccessibility<Space, typename BView::memory_space>::accessible &&
                    Kokkos::SpaceAccessibility<Space, typename CView::memory_space>::accessible,
                "B and C must be accessible from A's execution space");
  kernels::require_extent("spmm", "B.extent(0)", B.extent(0), A.extent(1));
  kernels::require_extent("spmm", "C.extent(0)", C.extent(0), A.extent(0));
  kernels::require_extent("spmm", "C.extent(1)", C.extent(1), B.extent(1));
}

#if defined(TESSERA_HAVE_CUDA_KERNELS) && defined(KOKKOS_ENABLE_CUDA)
// Auto's pick on Kokkos::Cuda for A's plan (looked up once per spmm call).
template <class T, class Enc, class Space, class BView, class CView>
SpmmAlgorithm choose_cuda_kernel(const Space& space, const Tensor<T, Enc, Space>& A,
                                 const kernels::cuda::TcaPlan& plan, const BView& B, const CView& C,
                                 const SpmmOptions& opts) {
  namespace kc = kernels::cuda;
  const auto& s = A.decompose();
  const auto args =
      kc::make_tca_args<T>(1.0, s.levels[1].pos, s.levels[1].crd, s.vals, B, 0.0, C, A.extent(0), A.extent(1));
  const auto cache = opts.tune_cache == SpmmTuneCache::WarmL2 ? kc::TcaTuneCache::WarmL2 : kc::TcaTuneCache::ColdL2;
  const auto kernel =
      opts.tune ? kc::TcaPlanCache::tuned(s.levels[1].pos, s.levels[1].crd, plan, args, opts.allow_tf32, cache,
                                          space.cuda_stream())
                : kc::tca_choose(plan, args, opts.allow_tf32);
  return kernel == kc::TcaKernel::TensorCore ? SpmmAlgorithm::TensorCore : SpmmAlgorithm::CudaCoreRowSplit;
}
#endif

}  // namespace kernels::detail

// The algorithm spmm(space, A, B, C, opts) will run (Auto resolved), without running it; with
// opts.tune, the first query for a shape times the CUDA kernels on space's stream.
template <class T, class Enc, class Space, class BView, class CView>
SpmmAlgorithm spmm_choose_algorithm(const Space& space, const Tensor<T, Enc, Space>& A, const BView& B,
                                    const CView& C, const SpmmOptions& opts = {}) {
  kernels::detail::check_spmm_operands(A, B, C);
  if (opts.algorithm != SpmmAlgorithm::Auto) return opts.algorithm;
#if defined(TESSERA_HAVE_CUDA_KERNELS) && defined(KOKKOS_ENABLE_CUDA)
  if constexpr (kernels::detail::has_tca_v<T, Enc, Space>) {
    if (A.extent(0) == 0 || C.extent(1) == 0) return SpmmAlgorithm::CudaCoreRowSplit;
    const auto& s = A.decompose();
    const auto plan =
        kernels::cuda::TcaPlanCache::get(s.levels[1].pos, s.levels[1].crd, A.extent(0), space.cuda_stream());
    return kernels::detail::choose_cuda_kernel(space, A, *plan, B, C, opts);
  } else
#endif
  {
    (void)space;
    return SpmmAlgorithm::Native;
  }
}

// The same on the default instance of A's execution space.
template <class T, class Enc, class Space, class BView, class CView>
SpmmAlgorithm spmm_choose_algorithm(const Tensor<T, Enc, Space>& A, const BView& B, const CView& C,
                                    const SpmmOptions& opts = {}) {
  return spmm_choose_algorithm(Space(), A, B, C, opts);
}

// Kokkos::Cuda keeps a plan per matrix, keyed by its row-offset and column-id arrays. After
// rewriting A's pos or crd in place (same Views, new pattern), call this before the next spmm:
// otherwise that call runs the old pattern's plan. A new tensor needs nothing. No-op elsewhere.
template <class T, class Enc, class Space>
void spmm_forget_plan(const Tensor<T, Enc, Space>& A) {
#if defined(TESSERA_HAVE_CUDA_KERNELS) && defined(KOKKOS_ENABLE_CUDA)
  if constexpr (kernels::detail::has_tca_v<T, Enc, Space>) {
    const auto& s = A.decompose();
    kernels::cuda::TcaPlanCache::forget(s.levels[1].pos, s.levels[1].crd);
  } else
#endif
  {
    (void)A;
  }
}

template <class T, class Enc, class Space, class BView, class CView>
void spmm(const Space& space, typename Tensor<T, Enc, Space>::value_type alpha, const Tensor<T, Enc, Space>& A,
          const BView& B, typename Tensor<T, Enc, Space>::value_type beta, const CView& C,
          const SpmmOptions& opts = {}) {
  kernels::detail::check_spmm_operands(A, B, C);
  kernels::require_disjoint("spmm", "C", C, "B", B);
  if (static_cast<double>(alpha) == 0.0) {  // BLAS: neither A nor B is read, no algorithm runs
    const kernels::ProfilingRegion profiling_region("tessera::spmm[alpha=0]");
    kernels::scale_output(space, beta, C);
    return;
  }
  const auto& s = A.decompose();
  SpmmAlgorithm algorithm = opts.algorithm;
#if defined(TESSERA_HAVE_CUDA_KERNELS) && defined(KOKKOS_ENABLE_CUDA)
  if constexpr (kernels::detail::has_tca_v<T, Enc, Space>) {
    namespace kc = kernels::cuda;
    if (algorithm != SpmmAlgorithm::Native) {
      if (A.extent(0) == 0 || C.extent(1) == 0) return;
      // Both kernels use the plan: the row split for its row chunks (long rows split over warps).
      const auto plan = kc::TcaPlanCache::get(s.levels[1].pos, s.levels[1].crd, A.extent(0), space.cuda_stream());
      if (algorithm == SpmmAlgorithm::Auto)
        algorithm = kernels::detail::choose_cuda_kernel(space, A, *plan, B, C, opts);
      const auto args = kc::make_tca_args<T>(static_cast<double>(alpha), s.levels[1].pos, s.levels[1].crd, s.vals,
                                             B, static_cast<double>(beta), C, A.extent(0), A.extent(1));
      const std::string region = std::string("tessera::spmm[") + to_string(algorithm) + "]";
      const kernels::ProfilingRegion profiling_region(region);
      kc::spmm_tca(plan.get(),
                   algorithm == SpmmAlgorithm::TensorCore ? kc::TcaKernel::TensorCore : kc::TcaKernel::CudaCoreRowSplit,
                   args, space.cuda_stream());
      return;
    }
  }
#endif
  if (algorithm == SpmmAlgorithm::Auto) algorithm = SpmmAlgorithm::Native;
  if (algorithm != SpmmAlgorithm::Native)
    throw NotCompiled(std::string("tessera::spmm: algorithm ") + to_string(algorithm) +
                      " needs Kokkos::Cuda with CUDA kernels compiled in (tessera_kernels_cuda), a value type "
                      "float, double or Kokkos::Experimental::half_t and int row offsets and column ids");
  const kernels::ProfilingRegion profiling_region("tessera::spmm[native]");
  const kernels::impl::SpmmHostLoopChoice loop{
      opts.host_loop == SpmmHostLoop::Auto && spmm_host_loop_is_avx512<T>(),
      spmm_streams_output(opts.output_stores, beta == T(0),
                          static_cast<std::int64_t>(C.span()) * static_cast<std::int64_t>(sizeof(T)))};
  kernels::impl::spmm_native(space, alpha, s.levels[1].pos, s.levels[1].crd, s.vals, B, beta, C, A.extent(0), loop);
}

template <class T, class Enc, class Space, class BView, class CView>
void spmm(typename Tensor<T, Enc, Space>::value_type alpha, const Tensor<T, Enc, Space>& A, const BView& B,
          typename Tensor<T, Enc, Space>::value_type beta, const CView& C, const SpmmOptions& opts = {}) {
  spmm(Space(), alpha, A, B, beta, C, opts);
}

}  // namespace tessera
