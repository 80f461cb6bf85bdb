#pragma once
// Private helpers of the compiled CUDA kernels (not installed): CUDA error checks that
// raise tessera::CudaError, and stream-ordered device temporaries.
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <mutex>
#include <set>
#include <string>
#include <utility>

#include "tessera/core/error.hpp"
#include "tessera/formats/cuda/device_scratch.hpp"
#include "tessera/kernels/common/cuda/kernel_status.hpp"
#include "tessera/kernels/common/cuda/stream_capture.hpp"

#define TESSERA_CUDA_CHECK(expr)                                                                         \
  do {                                                                                                   \
    const cudaError_t tessera_err_ = (expr);                                                             \
    if (tessera_err_ != cudaSuccess) {                                                                   \
      (void)cudaGetLastError(); /* not blamed on the next launch check after the caller recovers */    \
      throw ::tessera::CudaError(std::string(#expr) + " failed: " + cudaGetErrorString(tessera_err_) +  \
                                 " (" __FILE__ ":" + std::to_string(__LINE__) + ")");                    \
    }                                                                                                    \
  } while (0)
// After a kernel launch: launch-configuration errors surface here, named, not at the next call.
#define TESSERA_CUDA_CHECK_LAUNCH(kernel_name)                                                           \
  do {                                                                                                   \
    const cudaError_t tessera_err_ = cudaGetLastError();                                                 \
    if (tessera_err_ != cudaSuccess)                                                                     \
      throw ::tessera::CudaError(std::string("launch of ") + (kernel_name) + " failed: " +               \
                                 cudaGetErrorString(tessera_err_) + " (" __FILE__ ":" +                  \
                                 std::to_string(__LINE__) + ")");                                        \
  } while (0)

namespace tessera::kernels::cuda {

// Throws what a refused status stands for (NotCompiled or ShapeError), its reason after `who`.
inline void require_ok(const KernelStatus& s, const char* who) {
  if (s.ok) return;
  const std::string what = std::string(who) + ": " + s.reason;
  if (s.not_compiled) throw NotCompiled(what);
  throw ShapeError(what);
}

// Runs `configure` (e.g. setting a kernel's function attributes, which hold per device) the
// first time `key` is met on the current device; thread-safe. A configure that throws is
// tried again next time.
template <class Configure>
void once_per_device(const void* key, Configure&& configure) {
  static std::mutex mutex;
  static std::set<std::pair<const void*, int>> done;
  int device = 0;
  TESSERA_CUDA_CHECK(cudaGetDevice(&device));
  std::lock_guard<std::mutex> lock(mutex);
  if (done.count({key, device})) return;
  configure();
  done.insert({key, device});
}

// Stream-ordered temporary of `count` T, freed in stream order when it goes out of
// scope: from `pool` when given (formats::cuda::device_scratch_pool(), which keeps its memory
// between calls), else from the device's default pool.
template <class T>
struct DeviceBuffer {
  T* ptr = nullptr;
  cudaStream_t stream;
  DeviceBuffer(std::size_t count, cudaStream_t s, cudaMemPool_t pool = nullptr) : stream(s) {
    if (!count) return;
    if (pool)
      TESSERA_CUDA_CHECK(cudaMallocFromPoolAsync(reinterpret_cast<void**>(&ptr), count * sizeof(T), pool, stream));
    else
      TESSERA_CUDA_CHECK(cudaMallocAsync(reinterpret_cast<void**>(&ptr), count * sizeof(T), stream));
  }
  ~DeviceBuffer() {
    if (ptr) cudaFreeAsync(ptr, stream);
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
};

// CUDA events destroyed on every exit path, including a failed check (the tuners' timing).
struct EventPair {
  cudaEvent_t start = nullptr, stop = nullptr;
  EventPair() {
    TESSERA_CUDA_CHECK(cudaEventCreate(&start));
    try {
      TESSERA_CUDA_CHECK(cudaEventCreate(&stop));
    } catch (...) {  // the destructor does not run for a constructor that throws
      cudaEventDestroy(start);
      throw;
    }
  }
  ~EventPair() {
    if (start) cudaEventDestroy(start);
    if (stop) cudaEventDestroy(stop);
  }
  EventPair(const EventPair&) = delete;
  EventPair& operator=(const EventPair&) = delete;
};

}  // namespace tessera::kernels::cuda
