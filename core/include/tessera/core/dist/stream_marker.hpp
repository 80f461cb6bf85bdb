#pragma once
/// \file
/// StreamMarker<Space>: a point in the work queued on an execution space instance that the host
/// can wait for later, without waiting for what was queued after it. On Kokkos::Cuda a CUDA event
/// on the instance's stream (the halo waits for its pack and copy while the local product it
/// queued next keeps the GPU busy); on host spaces recording fences the instance.
#include <string>
#include <type_traits>

#include <Kokkos_Core.hpp>

#include "tessera/core/error.hpp"

namespace tessera::dist {

/// A waitable point in an execution space instance's queue (see the file's comment).
template <class Space>
class StreamMarker {
#ifdef KOKKOS_ENABLE_CUDA
  static constexpr bool cuda = std::is_same_v<Space, Kokkos::Cuda>;
#else
  static constexpr bool cuda = false;
#endif

 public:
  StreamMarker() = default;
  StreamMarker(const StreamMarker&) = delete;
  StreamMarker& operator=(const StreamMarker&) = delete;
  ~StreamMarker() {
#ifdef KOKKOS_ENABLE_CUDA
    if (event_) cudaEventDestroy(event_);
#endif
  }

  /// Marks the end of the work queued on `space` so far.
  void record(const Space& space) {
#ifdef KOKKOS_ENABLE_CUDA
    if constexpr (cuda) {
      if (!event_) check(cudaEventCreateWithFlags(&event_, cudaEventDisableTiming), "cudaEventCreateWithFlags");
      check(cudaEventRecord(event_, space.cuda_stream()), "cudaEventRecord");
      recorded_ = true;
      return;
    }
#endif
    space.fence();
  }

  /// Returns once the work before the last record() has finished (at once when none is pending).
  void wait() {
#ifdef KOKKOS_ENABLE_CUDA
    if constexpr (cuda) {
      if (recorded_) check(cudaEventSynchronize(event_), "cudaEventSynchronize");
    }
#endif
    recorded_ = false;
  }

 private:
#ifdef KOKKOS_ENABLE_CUDA
  static void check(cudaError_t status, const char* call) {
    if (status != cudaSuccess) throw CudaError(std::string("dist::Halo: ") + call + ": " + cudaGetErrorString(status));
  }
  cudaEvent_t event_ = nullptr;
#endif
  bool recorded_ = false;
};

}  // namespace tessera::dist
