#pragma once
// CUDA status checks of tessera_formats_cuda (private): a failure raises tessera::CudaError naming
// the component and the call.
#include <string>

#include <cuda_runtime_api.h>

#include "tessera/core/error.hpp"

namespace tessera::formats::cuda {

inline void check_status(cudaError_t status, const char* component, const char* what) {
  if (status == cudaSuccess) return;
  (void)cudaGetLastError();  // not blamed on the caller's next launch check
  throw CudaError(std::string(component) + ": " + what + " failed: " + cudaGetErrorString(status));
}

}  // namespace tessera::formats::cuda
