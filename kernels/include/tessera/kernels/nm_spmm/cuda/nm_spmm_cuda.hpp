#pragma once
/// \file
/// NmSpmmImpl for Kokkos::Cuda: the tiled CUDA-core kernel for float VNM weights
/// (cuda/vnm_spmm.hpp) and the sparse-tensor-core kernel for half_t / bf16_t NV24 weights
/// (cuda/nv24_spmm.hpp), on the instance's stream. The VNM stage plan and the NV24
/// launches live in the caller's NmSpmmHandle.
#include "tessera/kernels/common/cuda_config.hpp"
#include "tessera/kernels/nm_spmm/impl/nm_spmm_impl.hpp"

#if TESSERA_CUDA_KERNELS
#include <algorithm>
#include <cstdint>
#include <map>
#include <string>
#include <tuple>
#include <type_traits>

#include "tessera/kernels/common/cuda/stream_capture.hpp"
#include "tessera/kernels/nm_spmm/cuda/nv24_spmm.hpp"
#include "tessera/kernels/nm_spmm/cuda/vnm_spmm.hpp"

namespace tessera::kernels {

namespace cuda {

/// True for LayoutRight and LayoutLeft Views (the layouts the CUDA kernels take).
template <class View>
constexpr bool is_right_or_left_v = std::is_same_v<typename View::array_layout, Kokkos::LayoutRight> ||
                                    std::is_same_v<typename View::array_layout, Kokkos::LayoutLeft>;

/// The raw arguments of vnm_spmm for C = A * B with `stages`, B's stage plan.
template <class AView, class CView>
VnmSpmmArgs make_vnm_args(const AView& A, const Tensor<float, VNM, Kokkos::Cuda>& B,
                          const VnmStages<Kokkos::Cuda>& stages, const CView& C) {
  const auto& e = B.extents();
  const auto& p = B.pattern();
  VnmSpmmArgs a;
  a.m = static_cast<std::int64_t>(C.extent(0));
  a.k = e.rows;
  a.n = e.cols;
  a.N = p.n;
  a.M = p.m;
  a.L = p.l;
  a.A = A.data();
  a.a_col_major = std::is_same_v<typename AView::array_layout, Kokkos::LayoutLeft>;
  a.lda = static_cast<std::int64_t>(a.a_col_major ? A.stride(1) : A.stride(0));
  a.vals = B.values().data();
  a.stored_rows = e.stored_rows;
  a.padded_cols = e.padded_cols;
  a.packed = stages.packed;
  a.tile_stage_pos = stages.tile_stage_pos.data();
  a.stage = reinterpret_cast<const int4*>(stages.stage.data());
  a.column_list = stages.packed ? stages.column_list.data() : nullptr;
  a.offsets = stages.offsets.data();
  a.offsets_ld = stages.offsets_ld;
  a.max_tile_stages = stages.max_tile_stages;
  a.C = C.data();
  a.c_col_major = std::is_same_v<typename CView::array_layout, Kokkos::LayoutLeft>;
  a.ldc = static_cast<std::int64_t>(a.c_col_major ? C.stride(1) : C.stride(0));
  return a;
}

/// What an NmSpmmHandle keeps for an NV24 weight: the launch per value type, batch size m and
/// whether it was timed (the weight fixes n and k).
struct Nv24CudaState {
  std::map<std::tuple<int, std::int64_t, bool>, Nv24Launch> launches;  ///< launch per (value type, m, timed)
};

}  // namespace cuda

/// VNM weights on Kokkos::Cuda, float: the tiled CUDA-core kernel (vnm_spmm).
template <>
struct NmSpmmImpl<Kokkos::Cuda, Tensor<float, VNM, Kokkos::Cuda>> {
  using Space = Kokkos::Cuda;                ///< The execution space.
  using Weight = Tensor<float, VNM, Space>;  ///< The weight's type.

  /// C = A * B with the algorithm the handle's options name (Auto: CudaTiled for these layouts).
  template <class AView, class CView>
  static void run(const Space& space, const AView& A, const Weight& B, const CView& C, NmSpmmHandle& handle) {
    constexpr bool layouts_apply = cuda::is_right_or_left_v<AView> && cuda::is_right_or_left_v<CView>;
    NmSpmmAlgorithm a = handle.options().algorithm;
    if (a == NmSpmmAlgorithm::Auto) a = layouts_apply ? NmSpmmAlgorithm::CudaTiled : NmSpmmAlgorithm::Native;
    if constexpr (layouts_apply) {
      if (a == NmSpmmAlgorithm::CudaTiled) {
        const ProfilingRegion profiling_region(region_name<float>("nm_spmm", "vnm/CudaTiled"));
        cuda::vnm_spmm(cuda::make_vnm_args(A, B, stages(space, B, handle), C), space.cuda_stream());
        return;
      }
    }
    if (a != NmSpmmAlgorithm::Native) return NmSpmmImpl<Space, Weight, int>::run(space, A, B, C, handle);
    nm_spmm_portable(space, A, B, C);
  }

 private:
  /// The handle's stage plan for B, built on first use (from a host copy of B's meta).
  static const VnmStages<Space>& stages(const Space& space, const Weight& B, NmSpmmHandle& handle) {
    if (const auto* kept = handle.state().get<VnmStages<Space>>()) return *kept;
    cuda::require_not_capturing(space.cuda_stream(), "tessera::nm_spmm", "builds the weight's stage plan");
    const auto& p = B.pattern();
    const VnmLayout layout = handle.options().layout;
    const bool packed =
        layout == VnmLayout::Packed || (layout == VnmLayout::Auto && cuda::vnm_prefers_packed(p.n, p.m, p.l));
    return handle.state().emplace(prepare_vnm_stages(B, cuda::kVnmTileCols, packed));
  }
};

/// NV24 weights on Kokkos::Cuda, half_t or bf16_t: the sparse-tensor-core kernel (nv24_spmm).
template <class T>
struct NmSpmmImpl<Kokkos::Cuda, Nv24Tensor<T, Kokkos::Cuda>, std::enable_if_t<is_nv24_tensor_core_value_v<T>>> {
  using Space = Kokkos::Cuda;           ///< The execution space.
  using Weight = Nv24Tensor<T, Space>;  ///< The weight's type.

  /// C = A * B with the algorithm the handle's options name (Auto: SparseTensorCore).
  template <class AView, class CView>
  static void run(const Space& space, const AView& A, const Weight& B, const CView& C, NmSpmmHandle& handle) {
    const NmSpmmAlgorithm a = handle.options().algorithm;
    if (a == NmSpmmAlgorithm::Native) return nm_spmm_portable(space, A, B, C);
    if (a == NmSpmmAlgorithm::CudaTiled) return NmSpmmImpl<Space, Weight, int>::run(space, A, B, C, handle);
    const ProfilingRegion profiling_region(region_name<T>("nm_spmm", "nv24/SparseTensorCore"));
    namespace kc = cuda;
    using Mat = Kokkos::View<T**, Kokkos::LayoutRight, Kokkos::CudaSpace>;
    const std::int64_t m = static_cast<std::int64_t>(A.extent(0)), k = B.extent(0), n = B.extent(1);
    const std::int64_t kp = B.k_padded();
    // A: in place when row-major with an aligned row stride, else packed into (m x k_padded)
    const T* a_ptr = A.data();
    std::int64_t lda = m > 0 ? static_cast<std::int64_t>(A.stride(0)) : kp;
    Mat packed;
    if (m > 0 && k > 0 && (A.stride(1) != 1 || !kc::nv24_a_in_place(A.data(), lda, k))) {
      packed = Mat(Kokkos::view_alloc(Kokkos::WithoutInitializing, "tessera::nv24_packed_A"), m, kp);
      Kokkos::parallel_for(
          "tessera::nm_spmm[nv24 pack A]",
          Kokkos::MDRangePolicy<Space, Kokkos::Rank<2>, Kokkos::IndexType<std::int64_t>>(space, {0, 0}, {m, kp}),
          KOKKOS_LAMBDA(std::int64_t i, std::int64_t kk) { packed(i, kk) = kk < k ? T(A(i, kk)) : T(0.0f); });
      a_ptr = packed.data();
      lda = kp;
    }
    // C: in place when row-major, else through a row-major temporary
    const bool c_direct = m == 0 || n == 0 || C.stride(1) == 1;
    Mat tmp;
    if (!c_direct) tmp = Mat(Kokkos::view_alloc(Kokkos::WithoutInitializing, "tessera::nv24_C"), m, n);
    T* c_ptr = c_direct ? C.data() : tmp.data();
    const std::int64_t ldc = c_direct ? (m > 0 ? static_cast<std::int64_t>(C.stride(0)) : n) : n;
    const auto& s = B.decompose();
    const kc::Nv24Args args{std::is_same_v<T, bf16_t> ? kc::Nv24Type::BF16 : kc::Nv24Type::F16,
                            m, n, k, kp, a_ptr, lda, s.vals.data(), s.meta.data(), c_ptr,
                            std::max<std::int64_t>(ldc, n)};
    kc::nv24_spmm(args, space.cuda_stream(), launch(space, args, handle));
    if (!c_direct) Kokkos::deep_copy(space, C, tmp);
  }

 private:
  /// The handle's launch for this batch size: estimated, or with options().tune timed, once
  /// (the estimate while the stream is being captured, without keeping it).
  static cuda::Nv24Launch launch(const Space& space, const cuda::Nv24Args& args, NmSpmmHandle& handle) {
    const bool tune = handle.options().tune;
    cuda::Nv24CudaState* st = handle.state().get<cuda::Nv24CudaState>();
    if (!st) st = &handle.state().emplace(cuda::Nv24CudaState{});
    const std::tuple<int, std::int64_t, bool> key{static_cast<int>(args.type), args.m, tune};
    if (const auto found = st->launches.find(key); found != st->launches.end()) return found->second;
    if (tune && cuda::stream_is_capturing(space.cuda_stream())) return cuda::nv24_choose(args);
    return st->launches[key] = tune ? cuda::nv24_tune(args, space.cuda_stream()) : cuda::nv24_choose(args);
  }
};

}  // namespace tessera::kernels
#endif
