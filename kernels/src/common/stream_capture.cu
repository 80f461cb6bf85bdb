#include "tessera/kernels/common/cuda/stream_capture.hpp"

#include <string>

#include "cuda_support.hpp"

namespace tessera::kernels::cuda {

bool stream_is_capturing(cudaStream_t stream) {
  cudaStreamCaptureStatus capture = cudaStreamCaptureStatusNone;
  TESSERA_CUDA_CHECK(cudaStreamIsCapturing(stream, &capture));
  return capture != cudaStreamCaptureStatusNone;
}

void require_not_capturing(cudaStream_t stream, const char* who, const char* what) {
  if (stream_is_capturing(stream))
    throw Error(std::string(who) + ": the stream is being captured into a CUDA graph, and this call " + what +
                ", which synchronizes the device; make the same call once before the capture");
}

}  // namespace tessera::kernels::cuda
