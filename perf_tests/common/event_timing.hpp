#pragma once
// Median time per call of GPU operations, measured with CUDA events, for the stand-alone
// GPU harnesses (spmm_tca, vnm, nv24). Each harness keeps its own methodology through
// EventTiming; the loop is shared.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <functional>
#include <vector>

#include "harness_check.hpp"

struct EventTiming {
  int warmups = 3;           // untimed calls first
  int samples = 7;           // the median is taken over these
  int calls_per_sample = 1;  // back-to-back calls inside one timed span
  cudaStream_t stream = nullptr;
};

// Median times of several operations measured in alternation: sample s times every operation
// once, starting at operation s % count, so that all of them run in the same state of the GPU.
// Why: under sustained tensor-core load an H100 reaches its board power limit within about a
// second and lowers its SM clock by up to a quarter (1980 -> 1350-1500 MHz, reason "SW power
// cap"), and it clocks up again after each idle host phase; an operation timed to the end
// before the next one starts would run in a different state from it.
// before_sample() runs before each timed span, outside it (e.g. an L2 flush enqueued on the
// same stream).
template <class BeforeSample>
std::vector<double> median_event_ms_interleaved(const std::vector<std::function<void()>>& ops, const EventTiming& how,
                                                BeforeSample&& before_sample) {
  for (const auto& f : ops)
    for (int w = 0; w < how.warmups; ++w) f();
  HARNESS_CHECK(cudaDeviceSynchronize());
  cudaEvent_t start, stop;
  HARNESS_CHECK(cudaEventCreate(&start));
  HARNESS_CHECK(cudaEventCreate(&stop));
  std::vector<std::vector<float>> per_call(ops.size());
  for (int s = 0; s < how.samples; ++s)
    for (std::size_t j = 0; j < ops.size(); ++j) {
      const std::size_t i = (s + j) % ops.size();
      before_sample();
      HARNESS_CHECK(cudaEventRecord(start, how.stream));
      for (int c = 0; c < how.calls_per_sample; ++c) ops[i]();
      HARNESS_CHECK(cudaEventRecord(stop, how.stream));
      HARNESS_CHECK(cudaEventSynchronize(stop));
      float ms = 0;
      HARNESS_CHECK(cudaEventElapsedTime(&ms, start, stop));
      per_call[i].push_back(ms / static_cast<float>(how.calls_per_sample));
    }
  HARNESS_CHECK(cudaEventDestroy(start));
  HARNESS_CHECK(cudaEventDestroy(stop));
  std::vector<double> medians;
  for (auto& t : per_call) {
    std::sort(t.begin(), t.end());
    medians.push_back(t[t.size() / 2]);
  }
  return medians;
}

inline std::vector<double> median_event_ms_interleaved(const std::vector<std::function<void()>>& ops,
                                                       const EventTiming& how) {
  return median_event_ms_interleaved(ops, how, [] {});
}

template <class F, class BeforeSample>
double median_event_ms(F&& f, const EventTiming& how, BeforeSample&& before_sample) {
  return median_event_ms_interleaved({std::function<void()>(f)}, how, before_sample).front();
}

template <class F>
double median_event_ms(F&& f, const EventTiming& how) {
  return median_event_ms(f, how, [] {});
}

// Device-to-device copy bandwidth, bytes read + written per second, of a 1 GiB cudaMemcpyAsync
// timed by time_ms(op) (each harness's own timing: its warm-ups, L2 state and median).
template <class TimeMs>
double copy_bandwidth(TimeMs&& time_ms) {
  const std::size_t bytes = std::size_t(1) << 30;
  void *a = nullptr, *b = nullptr;
  HARNESS_CHECK(cudaMalloc(&a, bytes));
  HARNESS_CHECK(cudaMalloc(&b, bytes));
  HARNESS_CHECK(cudaMemset(a, 1, bytes));
  const double ms = time_ms([&] { HARNESS_CHECK(cudaMemcpyAsync(b, a, bytes, cudaMemcpyDeviceToDevice)); });
  HARNESS_CHECK(cudaFree(a));
  HARNESS_CHECK(cudaFree(b));
  return 2.0 * bytes / (ms * 1e-3);
}
