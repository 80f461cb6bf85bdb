#pragma once
/// \file
/// SpmmImpl for Kokkos::Cuda: the TCA-SpMM kernels of spmm_tca.hpp (tensor cores, or the
/// CUDA-core row split) for float, double and half_t tensors with int offsets and column ids,
/// on the instance's stream. The plan and the tuned picks live in the caller's SpmmHandle.
#include "tessera/kernels/common/cuda_config.hpp"
#include "tessera/kernels/spmm/impl/spmm_impl.hpp"

#if TESSERA_CUDA_KERNELS
#include <cstdint>
#include <map>
#include <memory>
#include <tuple>
#include <type_traits>

#include "tessera/kernels/common/cuda/stream_capture.hpp"
#include "tessera/kernels/spmm/cuda/spmm_tca.hpp"

namespace tessera::kernels {

namespace cuda {

/// Value types of the TCA-SpMM kernels: float, double, half_t.
template <class T>
constexpr bool tca_value_supported_v = std::is_same_v<T, float> || std::is_same_v<T, double> ||
                                       std::is_same_v<T, Kokkos::Experimental::half_t>;

/// Element type tag of T.
template <class T>
constexpr TcaType tca_type_of() {
  if constexpr (std::is_same_v<T, float>) return TcaType::F32;
  else if constexpr (std::is_same_v<T, double>) return TcaType::F64;
  else return TcaType::F16;  // Kokkos::Experimental::half_t stores a __half
}

/// The raw arguments of spmm_tca for C = alpha * A * B + beta * C, A rows x cols in CSR arrays.
template <class T, class PosView, class CrdView, class ValView, class BView, class CView>
TcaArgs make_tca_args(double alpha, const PosView& pos, const CrdView& crd, const ValView& vals, const BView& B,
                      double beta, const CView& C, std::int64_t rows, std::int64_t cols) {
  TcaArgs a{};
  a.type = tca_type_of<T>();
  a.rows = rows;
  a.cols = cols;
  a.n = static_cast<std::int64_t>(C.extent(1));
  a.pos = pos.data();
  a.crd = crd.data();
  a.vals = vals.data();
  a.B = DenseRef{B.data(), static_cast<std::int64_t>(B.stride(0)), static_cast<std::int64_t>(B.stride(1))};
  a.C = C.data();
  a.c_row_stride = static_cast<std::int64_t>(C.stride(0));
  a.c_col_stride = static_cast<std::int64_t>(C.stride(1));
  a.alpha = alpha;
  a.beta = beta;
  return a;
}

/// What an SpmmHandle keeps on Kokkos::Cuda: the matrix's plan (it depends on the pattern
/// only) and tca_tune's picks per shape of the other operands and L2 state.
struct SpmmCudaState {
  /// value type, N, B read in place, C row-major, TF32 allowed, L2 state
  using TuneKey = std::tuple<int, std::int64_t, bool, bool, bool, int>;
  std::shared_ptr<const TcaPlan> plan;  ///< the matrix's plan
  std::map<TuneKey, TcaKernel> tuned;   ///< tca_tune's pick per TuneKey
};

}  // namespace cuda

/// T and Enc's index types (int offsets and column ids) have TCA-SpMM kernels.
template <class T, class Enc>
constexpr bool has_tca_v = cuda::tca_value_supported_v<T> && std::is_same_v<typename Enc::offset_type, int> &&
                           std::is_same_v<typename Enc::ordinal_type, int>;

/// CSR-like tensors on Kokkos::Cuda that the TCA-SpMM kernels take.
template <class T, class Enc>
struct SpmmImpl<Kokkos::Cuda, T, Enc, std::enable_if_t<has_tca_v<T, Enc>>> {
  using Space = Kokkos::Cuda;  ///< The execution space.

  /// The algorithm run() would run (Auto resolved).
  template <class BView, class CView>
  static SpmmAlgorithm choose(const Space& space, const Tensor<T, Enc, Space>& A, const BView& B, const CView& C,
                              SpmmHandle& handle) {
    const SpmmOptions& opts = handle.options();
    if (opts.algorithm != SpmmAlgorithm::Auto) return opts.algorithm;
    if (A.extent(0) == 0 || C.extent(1) == 0) return SpmmAlgorithm::CudaCoreRowSplit;
    const auto args = tca_args(space, 1.0, A, B, 0.0, C);
    return to_algorithm(pick(space, state(space, A, handle), args, opts));
  }

  /// C = alpha * A * B + beta * C with the algorithm the handle's options name.
  template <class BView, class CView>
  static void run(const Space& space, T alpha, const Tensor<T, Enc, Space>& A, const BView& B, T beta, const CView& C,
                  SpmmHandle& handle) {
    const SpmmOptions& opts = handle.options();
    if (opts.algorithm == SpmmAlgorithm::Native) return spmm_portable(space, alpha, A, B, beta, C, opts);
    if (A.extent(0) == 0 || C.extent(1) == 0) return;
    // Both kernels use the plan: the row split for its row chunks (long rows split over warps).
    cuda::SpmmCudaState& st = state(space, A, handle);
    const auto args = tca_args(space, static_cast<double>(alpha), A, B, static_cast<double>(beta), C);
    const cuda::TcaKernel kernel =
        opts.algorithm == SpmmAlgorithm::Auto ? pick(space, st, args, opts)
        : opts.algorithm == SpmmAlgorithm::TensorCore ? cuda::TcaKernel::TensorCore
                                                       : cuda::TcaKernel::CudaCoreRowSplit;
    const ProfilingRegion profiling_region(region_name<T>("spmm", to_string(to_algorithm(kernel))));
    cuda::spmm_tca(st.plan.get(), kernel, args, space.cuda_stream());
  }

 private:
  static SpmmAlgorithm to_algorithm(cuda::TcaKernel k) {
    return k == cuda::TcaKernel::TensorCore ? SpmmAlgorithm::TensorCore : SpmmAlgorithm::CudaCoreRowSplit;
  }

  template <class BView, class CView>
  static cuda::TcaArgs tca_args(const Space&, double alpha, const Tensor<T, Enc, Space>& A, const BView& B, double beta,
                                const CView& C) {
    const auto& s = A.decompose();
    return cuda::make_tca_args<T>(alpha, s.levels[1].pos, s.levels[1].crd, s.vals, B, beta, C, A.extent(0),
                                  A.extent(1));
  }

  /// The handle's plan for A, built on first use (from host copies of the pattern: it
  /// synchronizes, so not while the stream is being captured).
  static cuda::SpmmCudaState& state(const Space& space, const Tensor<T, Enc, Space>& A, SpmmHandle& handle) {
    if (auto* kept = handle.state().get<cuda::SpmmCudaState>()) return *kept;
    cuda::require_not_capturing(space.cuda_stream(), "tessera::spmm", "builds the matrix's plan");
    const auto& s = A.decompose();
    const auto pos = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), s.levels[1].pos);
    const auto crd = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), s.levels[1].crd);
    return handle.state().emplace(
        cuda::SpmmCudaState{cuda::TcaPlan::build(pos.data(), A.extent(0), 0, 0, crd.data()), {}});
  }

  /// Auto's kernel: the rule on the plan's statistics, or with opts.tune the faster of the two
  /// as timed once per shape (the rule's pick while the stream is being captured).
  static cuda::TcaKernel pick(const Space& space, cuda::SpmmCudaState& st, const cuda::TcaArgs& args,
                              const SpmmOptions& opts) {
    if (!opts.tune) return cuda::tca_choose(*st.plan, args, opts.allow_tf32);
    const auto cache =
        opts.tune_cache == SpmmTuneCache::WarmL2 ? cuda::TcaTuneCache::WarmL2 : cuda::TcaTuneCache::ColdL2;
    const cuda::SpmmCudaState::TuneKey key{static_cast<int>(args.type), args.n, cuda::tca_b_in_place(args),
                                           args.c_col_stride == 1, opts.allow_tf32, static_cast<int>(cache)};
    if (const auto found = st.tuned.find(key); found != st.tuned.end()) return found->second;
    if (cuda::stream_is_capturing(space.cuda_stream())) return cuda::tca_choose(*st.plan, args, opts.allow_tf32);
    return st.tuned[key] = cuda::tca_tune(*st.plan, args, opts.allow_tf32, space.cuda_stream(), cache);
  }
};

}  // namespace tessera::kernels
#endif
