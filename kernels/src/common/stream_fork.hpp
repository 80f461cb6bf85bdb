#pragma once
// Independent launches of one call run side by side: forked from the caller's stream onto side
// streams, then joined back, so that launches too small to fill the device (a bin of a few rows,
// a launch's last wave) overlap. Not installed.
#include <cuda_runtime.h>

#include <array>
#include <map>
#include <mutex>

#include "cuda_support.hpp"

namespace tessera::kernels::cuda {

constexpr int kSideStreams = 4;

// The current device's side streams, made once and kept; non-blocking, so that work on the legacy
// default stream does not order them.
inline const std::array<cudaStream_t, kSideStreams>& side_streams() {
  static std::mutex mutex;
  static std::map<int, std::array<cudaStream_t, kSideStreams>> made;
  int device = 0;
  TESSERA_CUDA_CHECK(cudaGetDevice(&device));
  std::lock_guard<std::mutex> lock(mutex);
  if (const auto found = made.find(device); found != made.end()) return found->second;
  std::array<cudaStream_t, kSideStreams> streams{};
  for (cudaStream_t& s : streams) TESSERA_CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  return made.emplace(device, streams).first->second;  // std::map: references stay valid
}

// next() hands out the side streams in turn, each first waiting for the caller's stream as it was
// at construction; join() (or the destructor, on an exception's path) makes the caller's stream
// wait for all of them.
class StreamFork {
 public:
  explicit StreamFork(cudaStream_t caller) : caller_(caller), streams_(side_streams()) {
    TESSERA_CUDA_CHECK(cudaEventCreateWithFlags(&forked_, cudaEventDisableTiming));
    TESSERA_CUDA_CHECK(cudaEventRecord(forked_, caller_));
  }
  ~StreamFork() {
    if (!joined_) join_streams();
    cudaEventDestroy(forked_);
  }
  StreamFork(const StreamFork&) = delete;
  StreamFork& operator=(const StreamFork&) = delete;

  cudaStream_t next() {
    const int i = used_ % kSideStreams;
    if (used_ < kSideStreams) TESSERA_CUDA_CHECK(cudaStreamWaitEvent(streams_[i], forked_, 0));
    ++used_;
    return streams_[i];
  }

  void join() {
    joined_ = true;
    TESSERA_CUDA_CHECK(join_streams());
  }

 private:
  cudaError_t join_streams() {
    cudaError_t first = cudaSuccess;
    for (int i = 0; i < used_ && i < kSideStreams; ++i) {
      cudaEvent_t done = nullptr;
      cudaError_t e = cudaEventCreateWithFlags(&done, cudaEventDisableTiming);
      if (e == cudaSuccess) e = cudaEventRecord(done, streams_[i]);
      if (e == cudaSuccess) e = cudaStreamWaitEvent(caller_, done, 0);
      if (done) cudaEventDestroy(done);  // released once the wait is satisfied
      if (first == cudaSuccess) first = e;
    }
    return first;
  }

  cudaStream_t caller_;
  const std::array<cudaStream_t, kSideStreams>& streams_;
  cudaEvent_t forked_ = nullptr;
  int used_ = 0;
  bool joined_ = false;
};

}  // namespace tessera::kernels::cuda
