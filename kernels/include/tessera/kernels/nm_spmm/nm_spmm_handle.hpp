#pragma once
/// \file
/// Options of tessera::nm_spmm and the handle that keeps what a sequence of products with one
/// N:M weight reuses (on Kokkos::Cuda: the VNM stage plan, the NV24 launch per batch size).
#include "tessera/kernels/common/basic_handle.hpp"

namespace tessera {

/// Native: the portable Kokkos kernel, every space and value type. CudaTiled: the tiled
/// CUDA-core kernel for VNM weights (Kokkos::Cuda, float). SparseTensorCore: the mma.sp kernel
/// for NV24 weights (Kokkos::Cuda, half_t or bf16_t). Auto: the CUDA kernel of the weight's
/// encoding where it applies, Native otherwise.
enum class NmSpmmAlgorithm { Auto, Native, CudaTiled, SparseTensorCore };
/// Stage plan layout of the VNM CUDA kernel: Auto asks vnm_prefers_packed.
enum class VnmLayout { Auto, Plain, Packed };

/// Name of an algorithm, e.g. "CudaTiled".
inline const char* to_string(NmSpmmAlgorithm a) {
  switch (a) {
    case NmSpmmAlgorithm::Auto: return "Auto";
    case NmSpmmAlgorithm::Native: return "Native";
    case NmSpmmAlgorithm::CudaTiled: return "CudaTiled";
    case NmSpmmAlgorithm::SparseTensorCore: return "SparseTensorCore";
  }
  return "?";
}

/// Options of tessera::nm_spmm.
struct NmSpmmOptions {
  NmSpmmAlgorithm algorithm = NmSpmmAlgorithm::Auto;  ///< NmSpmmAlgorithm says which
  VnmLayout layout = VnmLayout::Auto;                 ///< VNM weights on Kokkos::Cuda
  /// NV24 weights on Kokkos::Cuda: run the launch (block tile, K splits, tail) that
  /// kernels::cuda::nv24_tune measured to be the fastest for a batch size instead of the time
  /// model's estimate; timed on the handle's first call with that batch size (a scratch output,
  /// so C is untouched; that call synchronizes). For layers multiplied many times with one batch
  /// size. Ignored elsewhere and while the stream is being captured into a graph.
  bool tune = false;
};

/// Kept across products with one weight B: which tensor it serves (checked on every call, see
/// kernels::PatternBinding) and what the CUDA kernels reuse. A call given NmSpmmOptions instead
/// builds what it needs for that call alone. Not thread-safe: one handle per thread.
class NmSpmmHandle : public kernels::BasicHandle<NmSpmmOptions> {
 public:
  using BasicHandle::BasicHandle;
};

}  // namespace tessera
