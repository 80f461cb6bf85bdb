// The scratch pools of formats/cuda/device_scratch.hpp: one cudaMemPool per device and use, created
// on first use, each keeping up to an eighth of the device's memory between calls.
#include "tessera/formats/cuda/device_scratch.hpp"

#include <array>
#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include "check_status.hpp"
#include "tessera/core/error.hpp"

namespace tessera::formats::cuda {
namespace {

void check(cudaError_t status, const char* what) { check_status(status, "tessera device scratch", what); }

}  // namespace

cudaMemPool_t device_scratch_pool(ScratchUse use) {
  static std::mutex mutex;
  static std::vector<std::array<cudaMemPool_t, 2>> pools;  // by device id, then use; null until created
  int device = 0;
  check(cudaGetDevice(&device), "cudaGetDevice");
  const std::lock_guard<std::mutex> lock(mutex);
  if (pools.size() <= static_cast<std::size_t>(device)) pools.resize(device + 1, {nullptr, nullptr});
  cudaMemPool_t& slot = pools[device][use == ScratchUse::Result ? 1 : 0];
  if (slot == nullptr) {
    cudaMemPoolProps props{};
    props.allocType = cudaMemAllocationTypePinned;
    props.location.type = cudaMemLocationTypeDevice;
    props.location.id = device;
    cudaMemPool_t pool = nullptr;
    check(cudaMemPoolCreate(&pool, &props), "cudaMemPoolCreate");
    try {
      std::size_t free_bytes = 0, total_bytes = 0;
      check(cudaMemGetInfo(&free_bytes, &total_bytes), "cudaMemGetInfo");
      std::uint64_t keep = total_bytes / 8;
      check(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep), "cudaMemPoolSetAttribute");
    } catch (...) {
      cudaMemPoolDestroy(pool);
      throw;
    }
    slot = pool;
  }
  return slot;
}

DeviceScratch::DeviceScratch(const std::string& label, std::size_t bytes, cudaStream_t stream, ScratchUse use)
    : bytes_(bytes), stream_(stream) {
  if (bytes == 0) return;
  const cudaError_t status = cudaMallocFromPoolAsync(&data_, bytes, device_scratch_pool(use), stream);
  if (status == cudaErrorMemoryAllocation) {
    (void)cudaGetLastError();
    throw OutOfMemoryError(label, bytes, "CUDA device memory (scratch pool)");
  }
  check(status, "cudaMallocFromPoolAsync");
}

DeviceScratch::~DeviceScratch() {
  if (data_ != nullptr) (void)cudaFreeAsync(data_, stream_);  // a destructor reports nothing
}

void trim_device_scratch() {
  check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
  for (const ScratchUse use : {ScratchUse::Temporary, ScratchUse::Result})
    check(cudaMemPoolTrimTo(device_scratch_pool(use), 0), "cudaMemPoolTrimTo");
}

}  // namespace tessera::formats::cuda
