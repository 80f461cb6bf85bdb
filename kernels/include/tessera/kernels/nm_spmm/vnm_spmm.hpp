#pragma once
// tessera::nm_spmm for VNM weights — C = A * B with A (m x k) a dense View, B (k x n) a
// Tensor<T, VNM, Space> (formats/vnm.hpp) and C (m x n) a dense View, C overwritten.
// Algorithms (NmSpmmOptions::algorithm):
//   Native     portable Kokkos kernel (impl/vnm_spmm_native.hpp), every space and value type;
//   CudaTiled  the tiled CUDA-core kernel (cuda/vnm_spmm.hpp), Kokkos::Cuda, float, A and C
//              LayoutRight or LayoutLeft (each its own); runs on the space instance's stream. A
//              LayoutLeft A skips the pass that rewrites A into column panels (2.5-10% of a call
//              at 4096^3): its columns are already contiguous;
//   Auto       CudaTiled where it applies, Native otherwise.
// The CUDA kernel reads B through a stage plan (prepare_vnm_stages); nm_spmm builds one per call
// unless given one: build it once with vnm_spmm_prepare(B) for repeated products. A plan serves
// the tensor it was built from (or one sharing its arrays) and nm_spmm refuses it for any other;
// after rewriting B's meta in place, build the plan again.
#include <string>
#include <type_traits>

#include <Kokkos_Core.hpp>

#include "tessera/core/error.hpp"
#include "tessera/formats/vnm.hpp"
#include "tessera/kernels/common/profiling_region.hpp"
#include "tessera/kernels/nm_spmm/weight_product_checks.hpp"
#include "tessera/kernels/nm_spmm/impl/vnm_spmm_native.hpp"
#if defined(TESSERA_HAVE_CUDA_KERNELS) && defined(KOKKOS_ENABLE_CUDA)
#include "tessera/kernels/nm_spmm/cuda/vnm_spmm_kokkos.hpp"
#endif

namespace tessera {

enum class NmSpmmAlgorithm { Auto, Native, CudaTiled };
// Stage plan layout of the CUDA kernel: Auto asks vnm_prefers_packed (plain on the GPUs measured).
enum class VnmLayout { Auto, Plain, Packed };

inline const char* to_string(NmSpmmAlgorithm a) {
  switch (a) {
    case NmSpmmAlgorithm::Auto: return "Auto";
    case NmSpmmAlgorithm::Native: return "Native";
    case NmSpmmAlgorithm::CudaTiled: return "CudaTiled";
  }
  return "?";
}

struct NmSpmmOptions {
  NmSpmmAlgorithm algorithm = NmSpmmAlgorithm::Auto;
  VnmLayout layout = VnmLayout::Auto;  // used when nm_spmm builds the stage plan itself
};

namespace kernels::detail {
template <class T, class Space, class AView, class CView>
constexpr bool has_vnm_cuda_v =
#if defined(TESSERA_HAVE_CUDA_KERNELS) && defined(KOKKOS_ENABLE_CUDA)
    std::is_same_v<Space, Kokkos::Cuda> && std::is_same_v<T, float> &&
    (std::is_same_v<typename AView::array_layout, Kokkos::LayoutRight> ||
     std::is_same_v<typename AView::array_layout, Kokkos::LayoutLeft>) &&
    (std::is_same_v<typename CView::array_layout, Kokkos::LayoutRight> ||
     std::is_same_v<typename CView::array_layout, Kokkos::LayoutLeft>);
#else
    false;
#endif
}  // namespace kernels::detail

// The stage plan the CUDA kernel reads (empty Views on spaces without it).
template <class T, class Space>
VnmStages<Space> vnm_spmm_prepare(const Tensor<T, VNM, Space>& B, VnmLayout layout = VnmLayout::Auto) {
#if defined(TESSERA_HAVE_CUDA_KERNELS) && defined(KOKKOS_ENABLE_CUDA)
  if constexpr (std::is_same_v<Space, Kokkos::Cuda>) {
    const auto& p = B.pattern();
    const bool packed = layout == VnmLayout::Packed ||
                        (layout == VnmLayout::Auto && kernels::cuda::vnm_prefers_packed(p.n, p.m, p.l));
    return prepare_vnm_stages(B, kernels::cuda::kVnmTileCols, packed);
  }
#endif
  (void)B, (void)layout;
  return {};
}

template <class Space, class AView, class T, class CView>
void nm_spmm(const Space& space, const AView& A, const Tensor<T, VNM, Space>& B, const VnmStages<Space>* stages,
             const CView& C, const NmSpmmOptions& opts = {}) {
  kernels::require_weight_product<T, Space>(A, B.extent(0), B.extent(1), C);
  constexpr bool cuda = kernels::detail::has_vnm_cuda_v<T, Space, AView, CView>;
  const NmSpmmAlgorithm algorithm =
      opts.algorithm != NmSpmmAlgorithm::Auto ? opts.algorithm : cuda ? NmSpmmAlgorithm::CudaTiled : NmSpmmAlgorithm::Native;
  const auto& s = B.decompose();
  if (algorithm == NmSpmmAlgorithm::Native) {
    const kernels::ProfilingRegion profiling_region("tessera::nm_spmm[vnm,native]");
    kernels::impl::vnm_spmm_native(space, A, s.vals, s.meta, B.pattern(), B.extents(), C);
    return;
  }
#if defined(TESSERA_HAVE_CUDA_KERNELS) && defined(KOKKOS_ENABLE_CUDA)
  if constexpr (cuda) {
    const kernels::ProfilingRegion profiling_region("tessera::nm_spmm[vnm,CudaTiled]");
    VnmStages<Space> own;
    if (!stages) {
      own = vnm_spmm_prepare(B, opts.layout);
      stages = &own;
    }
    if (stages->tile_cols != kernels::cuda::kVnmTileCols)
      throw ShapeError("nm_spmm: stage plan built for column tiles of " + std::to_string(stages->tile_cols) +
                       ", the CUDA kernel uses " + std::to_string(kernels::cuda::kVnmTileCols));
    // Two weights of one shape and pattern (consecutive layers) differ only in their meta.
    if (stages->source_meta.data() != s.meta.data())
      throw ShapeError("nm_spmm: the stage plan was built from another matrix (vnm_spmm_prepare(B) builds B's)");
    kernels::cuda::vnm_spmm(kernels::cuda::make_vnm_args(A, B, *stages, C), space.cuda_stream());
  } else
#endif
  {
    (void)stages;
    throw NotCompiled(std::string("tessera::nm_spmm: algorithm ") + to_string(algorithm) +
                      " needs Kokkos::Cuda with CUDA kernels compiled in (tessera_kernels_cuda), float values and "
                      "LayoutRight or LayoutLeft A and C");
  }
}

template <class Space, class AView, class T, class CView>
void nm_spmm(const Space& space, const AView& A, const Tensor<T, VNM, Space>& B, const CView& C,
             const NmSpmmOptions& opts = {}) {
  nm_spmm(space, A, B, static_cast<const VnmStages<Space>*>(nullptr), C, opts);
}

template <class AView, class T, class Space, class CView>
void nm_spmm(const AView& A, const Tensor<T, VNM, Space>& B, const CView& C, const NmSpmmOptions& opts = {}) {
  nm_spmm(Space(), A, B, C, opts);
}

}  // namespace tessera
