#pragma once
/// \file
/// Device scratch memory for Tessera's temporaries on a CUDA stream (conversions, kernel
/// workspaces) and for the arrays of results, from stream-ordered pools of Tessera's own, per
/// device, that keep freed memory for the next call, up to an eighth of the device's memory each:
/// neither the allocation nor the free costs a device synchronization. trim_device_scratch()
/// hands the kept memory back.
#include <cstddef>
#include <string>

#include <cuda_runtime_api.h>

namespace tessera::formats::cuda {

/// What a block holds, which picks its pool. Results (arrays a caller keeps past the call) and
/// temporaries (returned before the call ends) are pooled apart: a temporary placed in the memory
/// that a freed result left would split it, and the next result of that size, taken while the
/// caller still holds the last one, would need memory mapped afresh (about a millisecond per GB).
enum class ScratchUse { Temporary, Result };

/// The current device's pool for `use`, for cudaMallocFromPoolAsync.
cudaMemPool_t device_scratch_pool(ScratchUse use = ScratchUse::Temporary);

/// `bytes` bytes of scratch on the current device, usable on `stream` until destruction, when they
/// return to the pool in stream order. Failure to allocate raises tessera::OutOfMemoryError
/// naming `label`.
class DeviceScratch {
 public:
  /// Takes `bytes` bytes (none for 0) from the pool of `use` in stream order on `stream`.
  DeviceScratch(const std::string& label, std::size_t bytes, cudaStream_t stream,
                ScratchUse use = ScratchUse::Temporary);
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

/// Returns the memory the scratch pools of the current device keep to the device (after the
/// work that used it has finished).
void trim_device_scratch();

}  // namespace tessera::formats::cuda
