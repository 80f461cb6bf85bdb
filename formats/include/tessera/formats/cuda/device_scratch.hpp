#pragma once
/// \file
/// Device scratch memory for Tessera's temporaries on a CUDA stream (conversions, kernel
/// workspaces), from a stream-ordered pool of Tessera's own, one per device, that keeps freed
/// memory for the next call, up to an eighth of the device's memory: neither the allocation nor the
/// free costs a device synchronization. trim_device_scratch() hands the kept memory back.
#include <cstddef>
#include <string>

#include <cuda_runtime_api.h>

namespace tessera::formats::cuda {

/// The scratch pool of the current device, for cudaMallocFromPoolAsync.
cudaMemPool_t device_scratch_pool();

/// `bytes` bytes of scratch on the current device, usable on `stream` until destruction, when they
/// return to the pool in stream order. Failure to allocate raises tessera::OutOfMemoryError
/// naming `label`.
class DeviceScratch {
 public:
  /// Takes `bytes` bytes (none for 0) from the pool in stream order on `stream`.
  DeviceScratch(const std::string& label, std::size_t bytes, cudaStream_t stream);
  /// Returns the memory to the pool in stream order.
  ~DeviceScratch();
  DeviceScratch(const DeviceScratch&) = delete;
  DeviceScratch& operator=(const DeviceScratch&) = delete;

  /// The scratch's device address (null for 0 bytes).
  void* data() const noexcept { return data_; }
  /// Its size in bytes.
  std::size_t size() const noexcept { return bytes_; }

 private:
  void* data_ = nullptr;
  std::size_t bytes_ = 0;
  cudaStream_t stream_ = nullptr;
};

/// Returns the memory the scratch pool of the current device keeps to the device (after the
/// work that used it has finished).
void trim_device_scratch();

}  // namespace tessera::formats::cuda
