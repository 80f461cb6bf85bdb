#pragma once
/// \file
/// SpmvImpl for Kokkos::Cuda: the row-block kernels of spmv_csr.hpp for float and double
/// tensors with int column ids and int or int64 row offsets, on the instance's stream. x and y
/// must have unit stride there; other Views run Native. The plan lives in the caller's
/// SpmvHandle.
#include "tessera/kernels/common/cuda_config.hpp"
#include "tessera/kernels/spmv/impl/spmv_impl.hpp"

#if TESSERA_CUDA_KERNELS
#include <cstdint>
#include <memory>
#include <type_traits>

#include "tessera/kernels/common/cuda/stream_capture.hpp"
#include "tessera/kernels/spmv/cuda/spmv_csr.hpp"

namespace tessera::kernels {

namespace cuda {

/// What an SpmvHandle keeps on Kokkos::Cuda: the matrix's plan.
struct SpmvCudaState {
  std::shared_ptr<const SpmvPlan> plan;  ///< long rows cut into chunks
};

}  // namespace cuda

/// T and Enc's index types have CUDA SpMV kernels.
template <class T, class Enc>
constexpr bool has_cuda_spmv_v = (std::is_same_v<T, float> || std::is_same_v<T, double>) &&
                                 std::is_same_v<typename Enc::ordinal_type, int> &&
                                 (std::is_same_v<typename Enc::offset_type, int> ||
                                  std::is_same_v<typename Enc::offset_type, std::int64_t>);

/// CSR- and CSC-like tensors on Kokkos::Cuda that the row-block kernels take.
template <class T, class Enc>
struct SpmvImpl<Kokkos::Cuda, T, Enc, std::enable_if_t<has_cuda_spmv_v<T, Enc>>> {
  using Space = Kokkos::Cuda;  ///< The execution space.

  /// The algorithm run() runs for unit-stride x and y (Auto resolved).
  static SpmvAlgorithm choose(const SpmvHandle& handle) {
    const SpmvAlgorithm a = handle.options().algorithm;
    return a == SpmvAlgorithm::Auto ? SpmvAlgorithm::CudaRowBlocks : a;
  }

  /// y = alpha * op(A) * x + beta * y; `scatter` as in spmv_portable.
  template <class XView, class YView>
  static void run(const Space& space, bool scatter, T alpha, const Tensor<T, Enc, Space>& A, const XView& x, T beta,
                  const YView& y, SpmvHandle& handle) {
    const SpmvAlgorithm a = choose(handle);
    if (a == SpmvAlgorithm::Native || (handle.options().algorithm == SpmvAlgorithm::Auto && !unit_stride(x, y)))
      return spmv_portable(space, scatter, alpha, A, x, beta, y);
    if (!unit_stride(x, y))
      throw ShapeError("tessera::spmv: CudaRowBlocks needs x and y of unit stride; Auto runs Native for others");
    const auto& s = A.decompose();
    cuda::SpmvArgs args;
    args.type = std::is_same_v<T, double> ? cuda::SpmvType::F64 : cuda::SpmvType::F32;
    args.offset = std::is_same_v<typename Enc::offset_type, int> ? cuda::SpmvOffset::I32 : cuda::SpmvOffset::I64;
    args.transpose = scatter;
    args.rows = major_extent(A);
    args.cols = A.extent(Enc::mode_order[1]);
    args.pos = s.levels[1].pos.data();
    args.crd = s.levels[1].crd.data();
    args.vals = s.vals.data();
    args.x = x.data();
    args.y = y.data();
    args.alpha = static_cast<double>(alpha);
    args.beta = static_cast<double>(beta);
    const ProfilingRegion profiling_region(region_name<T>("spmv", scatter ? "CudaRowBlocks,scatter" : "CudaRowBlocks"));
    cuda::spmv_csr(plan(space, A, handle), args, space.cuda_stream());
  }

 private:
  template <class XView, class YView>
  static bool unit_stride(const XView& x, const YView& y) {
    return (x.extent(0) <= 1 || x.stride(0) == 1) && (y.extent(0) <= 1 || y.stride(0) == 1);
  }

  /// The handle's plan for A, built on first use (it synchronizes, so not while the stream is
  /// being captured); none for a call given options alone.
  static const cuda::SpmvPlan* plan(const Space& space, const Tensor<T, Enc, Space>& A, SpmvHandle& handle) {
    if (handle.binding().single_call()) return nullptr;
    if (auto* kept = handle.state().get<cuda::SpmvCudaState>()) return kept->plan.get();
    cuda::require_not_capturing(space.cuda_stream(), "tessera::spmv", "builds the matrix's plan");
    const auto& s = A.decompose();
    const auto offset = std::is_same_v<typename Enc::offset_type, int> ? cuda::SpmvOffset::I32 : cuda::SpmvOffset::I64;
    return handle.state()
        .emplace(cuda::SpmvCudaState{cuda::SpmvPlan::build(s.levels[1].pos.data(), offset, major_extent(A),
                                                           space.cuda_stream())})
        .plan.get();
  }
};

}  // namespace tessera::kernels
#endif
