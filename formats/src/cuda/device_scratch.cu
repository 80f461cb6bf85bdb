// The scratch pool of formats/cuda/device_scratch.hpp: one cudaMemPool per device, created on first
// use, keeping up to an eighth of the device's memory between calls.
#include "tessera/formats/cuda/device_scratch.hpp"

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

cudaMemPool_t device_scratch_pool() {
  static std::mutex mutex;
  static std::vector<cudaMemPool_t> pools;  // by device id; null until created
  int device = 0;
  check(cudaGetDevice(&device), "cudaGetDevice");
  const std::lock_guard<std::mutex> lock(mutex);
  if (pools.size() <= static_cast<std::size_t>(device)) pools.resize(device + 1, nullptr);
  if (pools[device] == nullptr) {
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
    pools[device] = pool;
  }
  return pools[device];
}

DeviceScratch::DeviceScratch(const std::string& label, std::size_t bytes, cudaStream_t stream)
    : bytes_(bytes), stream_(stream) {
  if (bytes == 0) return;
  const cudaError_t status = cudaMallocFromPoolAsync(&data_, bytes, device_scratch_pool(), stream);
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
  check(cudaMemPoolTrimTo(device_scratch_pool(), 0), "cudaMemPoolTrimTo");
}

}  // namespace tessera::formats::cuda
