#pragma once
// What the launch rules of the compiled kernels ask of the current device, queried once per
// device (thread-safe). Not installed.
#include <cuda_runtime.h>

#include <cstddef>
#include <map>
#include <mutex>

#include "cuda_support.hpp"

namespace tessera::kernels::cuda {

struct DeviceInfo {
  int device = 0;
  int sms = 0;                             // multiprocessors
  int major = 0, minor = 0;                // compute capability
  std::size_t max_shared_per_block = 0;    // opt-in limit of one block
  std::size_t max_shared_per_sm = 0;       // all resident blocks together
  std::size_t l2_bytes = 0;
  // The arch-specific sm_90a kernels (wgmma, setmaxnreg) run on compute capability 9.0 alone.
  bool sm90a() const { return major == 9 && minor == 0; }
};

inline const DeviceInfo& device_info() {
  static std::mutex mutex;
  static std::map<int, DeviceInfo> known;
  int device = 0;
  TESSERA_CUDA_CHECK(cudaGetDevice(&device));
  std::lock_guard<std::mutex> lock(mutex);
  if (const auto found = known.find(device); found != known.end()) return found->second;
  DeviceInfo d;
  d.device = device;
  int smem = 0, smem_sm = 0, l2 = 0;
  TESSERA_CUDA_CHECK(cudaDeviceGetAttribute(&d.sms, cudaDevAttrMultiProcessorCount, device));
  TESSERA_CUDA_CHECK(cudaDeviceGetAttribute(&d.major, cudaDevAttrComputeCapabilityMajor, device));
  TESSERA_CUDA_CHECK(cudaDeviceGetAttribute(&d.minor, cudaDevAttrComputeCapabilityMinor, device));
  TESSERA_CUDA_CHECK(cudaDeviceGetAttribute(&smem, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
  TESSERA_CUDA_CHECK(cudaDeviceGetAttribute(&smem_sm, cudaDevAttrMaxSharedMemoryPerMultiprocessor, device));
  TESSERA_CUDA_CHECK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, device));
  d.max_shared_per_block = static_cast<std::size_t>(smem);
  d.max_shared_per_sm = static_cast<std::size_t>(smem_sm);
  d.l2_bytes = static_cast<std::size_t>(l2);
  return known.emplace(device, d).first->second;  // std::map: references stay valid
}

}  // namespace tessera::kernels::cuda
