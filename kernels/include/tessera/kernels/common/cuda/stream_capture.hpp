#pragma once
/// \file
/// Whether a stream is being captured into a CUDA graph: then nothing may synchronize, so the
/// plan builders and tuners, which do, must not run. Part of tessera_kernels_cuda.
#include <cuda_runtime_api.h>

namespace tessera::kernels::cuda {

/// Throws tessera::CudaError when the query itself fails.
bool stream_is_capturing(cudaStream_t stream);
/// Throws tessera::Error naming `who` when `stream` is being captured: `what` synchronizes
/// (e.g. "builds a plan", "times its candidates") and must run before the capture.
void require_not_capturing(cudaStream_t stream, const char* who, const char* what);

}  // namespace tessera::kernels::cuda
