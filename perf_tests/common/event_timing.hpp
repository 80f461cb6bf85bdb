#pragma once
// Median time per call of a GPU operation, measured with CUDA events, for the
// stand-alone GPU harnesses (spmm_tca, vnm, nv24). Each harness keeps its own
// methodology through EventTiming; the loop is shared.
#include <cuda_runtime.h>

#include <algorithm>
#include <vector>

#include "harness_check.hpp"

struct EventTiming {
  int warmups = 3;           // untimed calls first
  int samples = 7;           // the median is taken over these
  int calls_per_sample = 1;  // back-to-back calls inside one timed span
  cudaStream_t stream = nullptr;
};

// before_sample() runs before each sample's timed span, outside it (e.g. an L2 flush
// enqueued on the same stream).
template <class F, class BeforeSample>
double median_event_ms(F&& f, const EventTiming& how, BeforeSample&& before_sample) {
  for (int w = 0; w < how.warmups; ++w) f();
  HARNESS_CHECK(cudaDeviceSynchronize());
  cudaEvent_t start, stop;
  HARNESS_CHECK(cudaEventCreate(&start));
  HARNESS_CHECK(cudaEventCreate(&stop));
  std::vector<float> per_call;
  for (int s = 0; s < how.samples; ++s) {
    before_sample();
    HARNESS_CHECK(cudaEventRecord(start, how.stream));
    for (int c = 0; c < how.calls_per_sample; ++c) f();
    HARNESS_CHECK(cudaEventRecord(stop, how.stream));
    HARNESS_CHECK(cudaEventSynchronize(stop));
    float ms = 0;
    HARNESS_CHECK(cudaEventElapsedTime(&ms, start, stop));
    per_call.push_back(ms / static_cast<float>(how.calls_per_sample));
  }
  HARNESS_CHECK(cudaEventDestroy(start));
  HARNESS_CHECK(cudaEventDestroy(stop));
  std::sort(per_call.begin(), per_call.end());
  return per_call[per_call.size() / 2];
}

template <class F>
double median_event_ms(F&& f, const EventTiming& how) {
  return median_event_ms(f, how, [] {});
}
