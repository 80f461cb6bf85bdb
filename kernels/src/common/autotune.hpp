#pragma once
// The timing loop of the tuners (tca_tune, nv24_tune): samples bracketed by CUDA events,
// candidates interleaved, medians compared. Not installed.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <vector>

#include "cuda_support.hpp"

namespace tessera::kernels::cuda {

inline float median_of(std::vector<float> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0.0f : v[v.size() / 2];
}

// One sample: `prepare()` enqueues what sets the state the call is timed from (an L2 flush,
// or a busy wait that lets the host enqueue the call while the GPU works), then the events
// bracket `run()`, which enqueues the calls and returns how many. Milliseconds per call.
template <class Prepare, class Run>
float sample_ms(cudaStream_t stream, const EventPair& ev, Prepare&& prepare, Run&& run) {
  prepare();
  TESSERA_CUDA_CHECK(cudaEventRecord(ev.start, stream));
  const int calls = run();
  TESSERA_CUDA_CHECK(cudaEventRecord(ev.stop, stream));
  TESSERA_CUDA_CHECK(cudaEventSynchronize(ev.stop));
  float elapsed = 0;
  TESSERA_CUDA_CHECK(cudaEventElapsedTime(&elapsed, ev.start, ev.stop));
  return elapsed / static_cast<float>(std::max(calls, 1));
}

// The median of `samples` samples of each of `candidates` candidates; round s starts at
// candidate s (mod candidates), so that every candidate runs early and late in a round and
// all see the same power state. `prepare(round)` as above; `run(candidate)` enqueues it.
template <class Prepare, class Run>
std::vector<float> median_sample_ms(std::size_t candidates, int samples, cudaStream_t stream, Prepare&& prepare,
                                    Run&& run) {
  EventPair ev;
  std::vector<std::vector<float>> ms(candidates);
  for (int s = 0; s < samples; ++s)
    for (std::size_t j = 0; j < candidates; ++j) {
      const std::size_t i = (static_cast<std::size_t>(s) + j) % candidates;
      ms[i].push_back(sample_ms(stream, ev, [&] { prepare(s); }, [&] { return run(i); }));
    }
  std::vector<float> median(candidates);
  for (std::size_t i = 0; i < candidates; ++i) median[i] = median_of(ms[i]);
  return median;
}

// Index of the candidate to run: the fastest, unless it is not faster than candidate 0 (the
// estimate's pick) by more than the spread of such samples (min_gain, e.g. 0.97).
inline std::size_t pick_clear_winner(const std::vector<float>& median_ms, double min_gain) {
  const std::size_t fastest = std::min_element(median_ms.begin(), median_ms.end()) - median_ms.begin();
  return fastest != 0 && median_ms[fastest] < min_gain * median_ms[0] ? fastest : 0;
}

}  // namespace tessera::kernels::cuda
