#pragma once
/// \file
/// SpmmImpl for Kokkos::Cuda: the TCA-SpMM kernels of spmm_tca.hpp (tensor cores, or the
/// CUDA-core row split) for float, double and half_t tensors with int offsets and column ids,
/// and the row-block SpMM of spmm_row_blocks.hpp for float and double with few columns, on the
/// instance's stream. The plans and the tuned picks live in the caller's SpmmHandle.
#include "tessera/kernels/common/cuda_config.hpp"
#include "tessera/kernels/spmm/impl/spmm_impl.hpp"

#if TESSERA_CUDA_KERNELS
#include <cstdint>
#include <map>
#include <string>
#include <memory>
#include <tuple>
#include <type_traits>

#include "tessera/kernels/common/cuda/stream_capture.hpp"
#include "tessera/kernels/spmm/cuda/spmm_row_blocks.hpp"
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
  std::shared_ptr<const TcaPlan> plan;  ///< the matrix's TCA plan, built on first use
  std::map<TuneKey, TcaKernel> tuned;   ///< tca_tune's pick per TuneKey
  /// The row-block SpMM's plans, per lane count (spmm_row_blocks_lanes), built on first use.
  std::map<int, std::shared_ptr<const SpmvPlan>> row_block_plans;
};

}  // namespace cuda

/// T and Enc's index types (int offsets and column ids) have TCA-SpMM kernels.
template <class T, class Enc>
constexpr bool has_tca_v = cuda::tca_value_supported_v<T> && std::is_same_v<typename Enc::offset_type, int> &&
                           std::is_same_v<typename Enc::ordinal_type, int>;

/// CSR- and CSC-like tensors on Kokkos::Cuda that the TCA-SpMM kernels take (the row-block
/// SpMM for float and double).
template <class T, class Enc>
struct SpmmImpl<Kokkos::Cuda, T, Enc, std::enable_if_t<has_tca_v<T, Enc>>> {
  using Space = Kokkos::Cuda;  ///< The execution space.

  /// The algorithm run() would run (Auto resolved); `scatter` as in spmm_portable.
  template <class BView, class CView>
  static SpmmAlgorithm choose(const Space& space, bool scatter, const Tensor<T, Enc, Space>& A, const BView& B,
                              const CView& C, SpmmHandle& handle) {
    const SpmmOptions& opts = handle.options();
    if (opts.algorithm != SpmmAlgorithm::Auto) return opts.algorithm;
    if (scatter) return SpmmAlgorithm::Native;
    if (major_rows(A) == 0 || C.extent(1) == 0) return SpmmAlgorithm::CudaCoreRowSplit;
    // Few columns of row-major B and C: the row blocks where they are the faster (fp32 only where
    // TF32 is not allowed, which leaves those to the rule below).
    if (row_blocks_apply(B, C) && cuda::spmm_row_blocks_preferred(major_rows(A), A.nnz(), C.extent(1)) &&
        !(std::is_same_v<T, float> && opts.allow_tf32))
      return SpmmAlgorithm::CudaRowBlocks;
    const auto args = tca_args(space, 1.0, A, B, 0.0, C);
    return to_algorithm(pick(space, A, state(handle), args, opts));
  }

  /// C = alpha * A * B + beta * C with the algorithm the handle's options name.
  template <class BView, class CView>
  static void run(const Space& space, bool scatter, T alpha, const Tensor<T, Enc, Space>& A, const BView& B, T beta,
                  const CView& C, SpmmHandle& handle) {
    const SpmmOptions& opts = handle.options();
    if (opts.algorithm == SpmmAlgorithm::Native || (scatter && opts.algorithm == SpmmAlgorithm::Auto))
      return spmm_portable(space, scatter, alpha, A, B, beta, C, opts);
    if (scatter)
      throw NotCompiled(std::string("tessera::spmm: ") + to_string(opts.algorithm) +
                        " reads the stored arrays row by row; A^T B on a CSR tensor (A B on a CSC one) runs Native");
    if (major_rows(A) == 0 || C.extent(1) == 0) return;
    cuda::SpmmCudaState& st = state(handle);
    const SpmmAlgorithm algorithm = opts.algorithm == SpmmAlgorithm::Auto ? choose(space, false, A, B, C, handle)
                                                                          : opts.algorithm;
    if (algorithm == SpmmAlgorithm::CudaRowBlocks) return run_row_blocks(space, alpha, A, B, beta, C, st);
    // Both TCA kernels use the plan: the row split for its row chunks (long rows split over warps).
    const auto args = tca_args(space, static_cast<double>(alpha), A, B, static_cast<double>(beta), C);
    const cuda::TcaKernel kernel = algorithm == SpmmAlgorithm::TensorCore ? cuda::TcaKernel::TensorCore
                                                                          : cuda::TcaKernel::CudaCoreRowSplit;
    const ProfilingRegion profiling_region(region_name<T>("spmm", to_string(to_algorithm(kernel))));
    cuda::spmm_tca(&tca_plan(space, A, st), kernel, args, space.cuda_stream());
  }

 private:
  // Rows of the stored CSR arrays: A's rows (CSR), or its columns (CSC, read as A^T).
  static std::int64_t major_rows(const Tensor<T, Enc, Space>& A) { return A.extent(Enc::mode_order[0]); }

  static SpmmAlgorithm to_algorithm(cuda::TcaKernel k) {
    return k == cuda::TcaKernel::TensorCore ? SpmmAlgorithm::TensorCore : SpmmAlgorithm::CudaCoreRowSplit;
  }

  static constexpr bool kRowBlockType = std::is_same_v<T, float> || std::is_same_v<T, double>;

  // The row-block SpMM takes float and double, N <= kRowBlockSpmmMaxN, B and C of unit column stride.
  template <class BView, class CView>
  static bool row_blocks_apply(const BView& B, const CView& C) {
    return kRowBlockType && static_cast<std::int64_t>(C.extent(1)) <= cuda::kRowBlockSpmmMaxN &&
           (B.extent(1) <= 1 || B.stride(1) == 1) && (C.extent(1) <= 1 || C.stride(1) == 1);
  }

  template <class BView, class CView>
  static void run_row_blocks(const Space& space, T alpha, const Tensor<T, Enc, Space>& A, const BView& B, T beta,
                             const CView& C, cuda::SpmmCudaState& st) {
    if constexpr (kRowBlockType) {
      if (!row_blocks_apply(B, C))
        throw ShapeError("tessera::spmm: CudaRowBlocks needs N <= " + std::to_string(cuda::kRowBlockSpmmMaxN) +
                         " and B and C of unit column stride (row-major), got N = " + std::to_string(C.extent(1)));
      const auto& s = A.decompose();
      cuda::RowBlockSpmmArgs a;
      a.type = std::is_same_v<T, double> ? cuda::SpmvType::F64 : cuda::SpmvType::F32;
      a.rows = major_rows(A);
      a.cols = A.extent(Enc::mode_order[1]);
      a.n = static_cast<std::int64_t>(C.extent(1));
      a.pos = s.levels[1].pos.data();
      a.crd = s.levels[1].crd.data();
      a.vals = s.vals.data();
      a.B = B.data();
      // A single row has any row stride (Kokkos gives a 1 x N LayoutLeft View a stride of 1).
      a.ldb = B.extent(0) <= 1 ? a.n : static_cast<std::int64_t>(B.stride(0));
      a.C = C.data();
      a.ldc = C.extent(0) <= 1 ? a.n : static_cast<std::int64_t>(C.stride(0));
      a.alpha = static_cast<double>(alpha);
      a.beta = static_cast<double>(beta);
      const int lanes = cuda::spmm_row_blocks_lanes(a.n);
      auto& plan = st.row_block_plans[lanes];
      if (!plan) {
        cuda::require_not_capturing(space.cuda_stream(), "tessera::spmm", "builds the matrix's plan");
        plan = cuda::spmm_row_blocks_plan(a.pos, cuda::SpmvOffset::I32, a.rows, a.n, space.cuda_stream());
      }
      const ProfilingRegion profiling_region(region_name<T>("spmm", "CudaRowBlocks"));
      cuda::spmm_row_blocks(*plan, a, space.cuda_stream());
    } else {
      throw NotCompiled("tessera::spmm: CudaRowBlocks takes float and double");
    }
  }

  template <class BView, class CView>
  static cuda::TcaArgs tca_args(const Space&, double alpha, const Tensor<T, Enc, Space>& A, const BView& B, double beta,
                                const CView& C) {
    const auto& s = A.decompose();
    return cuda::make_tca_args<T>(alpha, s.levels[1].pos, s.levels[1].crd, s.vals, B, beta, C, major_rows(A),
                                  A.extent(Enc::mode_order[1]));
  }

  /// What the handle keeps for A on this space and type (empty until a kernel needs its plan).
  static cuda::SpmmCudaState& state(SpmmHandle& handle) {
    if (auto* kept = handle.state().get<cuda::SpmmCudaState>()) return *kept;
    return handle.state().emplace(cuda::SpmmCudaState{});
  }

  /// A's TCA plan, built on first use (from host copies of the pattern: it synchronizes, so not
  /// while the stream is being captured).
  static const cuda::TcaPlan& tca_plan(const Space& space, const Tensor<T, Enc, Space>& A, cuda::SpmmCudaState& st) {
    if (st.plan) return *st.plan;
    cuda::require_not_capturing(space.cuda_stream(), "tessera::spmm", "builds the matrix's plan");
    const auto& s = A.decompose();
    const auto pos = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), s.levels[1].pos);
    const auto crd = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), s.levels[1].crd);
    st.plan = cuda::TcaPlan::build(pos.data(), major_rows(A), 0, 0, crd.data());
    return *st.plan;
  }

  /// Auto's TCA kernel: the rule on the plan's statistics, or with opts.tune the faster of the
  /// two as timed once per shape (the rule's pick while the stream is being captured).
  static cuda::TcaKernel pick(const Space& space, const Tensor<T, Enc, Space>& A, cuda::SpmmCudaState& st,
                              const cuda::TcaArgs& args, const SpmmOptions& opts) {
    const cuda::TcaPlan& plan = tca_plan(space, A, st);
    if (!opts.tune) return cuda::tca_choose(plan, args, opts.allow_tf32);
    const auto cache =
        opts.tune_cache == SpmmTuneCache::WarmL2 ? cuda::TcaTuneCache::WarmL2 : cuda::TcaTuneCache::ColdL2;
    const cuda::SpmmCudaState::TuneKey key{static_cast<int>(args.type), args.n, cuda::tca_b_in_place(args),
                                           args.c_col_stride == 1, opts.allow_tf32, static_cast<int>(cache)};
    if (const auto found = st.tuned.find(key); found != st.tuned.end()) return found->second;
    if (cuda::stream_is_capturing(space.cuda_stream())) return cuda::tca_choose(plan, args, opts.allow_tf32);
    return st.tuned[key] = cuda::tca_tune(plan, args, opts.allow_tf32, space.cuda_stream(), cache);
  }
};

}  // namespace tessera::kernels
#endif
