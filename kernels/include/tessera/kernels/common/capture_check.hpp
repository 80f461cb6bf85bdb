#pragma once
/// \file
/// Calls that synchronize the device (building a plan, fingerprinting a tensor, timing
/// candidates) cannot run while the Kokkos::Cuda instance's stream is being captured into a
/// CUDA graph: they check first and raise tessera::Error with what to do instead.
#include "tessera/kernels/common/cuda_config.hpp"
#if TESSERA_CUDA_KERNELS
#include "tessera/kernels/common/cuda/stream_capture.hpp"
#endif

namespace tessera::kernels {

/// Throws tessera::Error naming `who` and `what` when Space's stream is being captured into a CUDA graph.
template <class Space>
void require_can_synchronize(const Space& space, const char* who, const char* what) {
#if TESSERA_CUDA_KERNELS
  if constexpr (is_cuda_space_v<Space>) cuda::require_not_capturing(space.cuda_stream(), who, what);
#endif
  (void)space, (void)who, (void)what;
}

}  // namespace tessera::kernels
