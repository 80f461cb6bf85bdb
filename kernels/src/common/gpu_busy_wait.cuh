#pragma once
// A one-thread kernel that keeps the GPU busy for a while without touching memory. Enqueued
// before a timed call, it lets the host enqueue the call (and its events) while the GPU is
// still busy, so a call of a few microseconds is timed at the GPU's working clock and without
// the host's launch latency, and the L2 keeps what the previous call left there. Not
// installed; used by tca_tune, nv24_tune and the SpMM benchmark.
#include <cuda_runtime.h>

#include <cstdint>

namespace tessera::kernels::cuda {

// static: each translation unit that includes this header keeps a kernel of its own.
static __global__ void gpu_busy_wait_kernel(std::int64_t nanoseconds) {
  std::uint64_t start, now;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
  do asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
  while (static_cast<std::int64_t>(now - start) < nanoseconds);
}

// Long enough for the host to enqueue a call of several launches behind it.
inline constexpr std::int64_t kBusyWaitNanoseconds = 50000;

inline cudaError_t enqueue_gpu_busy_wait(cudaStream_t stream, std::int64_t nanoseconds = kBusyWaitNanoseconds) {
  gpu_busy_wait_kernel<<<1, 1, 0, stream>>>(nanoseconds);
  return cudaGetLastError();
}

}  // namespace tessera::kernels::cuda
