#pragma once
// Raw device memory for the GPU benchmarks that hand arrays to a vendor library: checked CUDA
// runtime calls (tessera::CudaError) and a cudaMalloc'd buffer freed on scope exit.
#include <cuda_runtime_api.h>

#include <cstddef>
#include <string>

#include "tessera/core/error.hpp"

inline void cuda_check(cudaError_t status, const char* what) {
  if (status != cudaSuccess) throw tessera::CudaError(std::string(what) + ": " + cudaGetErrorString(status));
}

struct DeviceBytes {
  void* p = nullptr;
  explicit DeviceBytes(std::size_t bytes) {
    if (bytes) cuda_check(cudaMalloc(&p, bytes), "cudaMalloc");
  }
  ~DeviceBytes() {
    if (p) cudaFree(p);
  }
  DeviceBytes(const DeviceBytes&) = delete;
  DeviceBytes& operator=(const DeviceBytes&) = delete;
};
