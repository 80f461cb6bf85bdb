// nv24_tune and its per-shape cache (tessera/kernels/nm_spmm/cuda/nv24_spmm_cuda.hpp): the
// launch of an NV24 product measured instead of estimated. nv24_choose's time model is 1.6%
// from the fastest launch over the LLM set in geometric mean but up to 15% on single shapes
// (perf_tests/results/nv24_h100.md); a layer multiplied many times with one shape can afford to
// time the candidates once.
#include <algorithm>
#include <vector>

#include "tessera/kernels/nm_spmm/cuda/nv24_spmm_cuda.hpp"
#include "../../common/cuda_support.hpp"
#include "../../common/gpu_busy_wait.cuh"
#include "nv24_launch_cache.hpp"

namespace tessera::kernels::cuda {

Nv24Launch nv24_tune(const Nv24Args& args, cudaStream_t stream) {
  const std::vector<Nv24Launch> candidates = nv24_candidates(args);  // nv24_choose's first
  if (args.m == 0 || args.n == 0 || candidates.size() == 1) return candidates.front();
  require_not_capturing(stream, "nv24_tune", "times its candidates");
  DeviceBuffer<unsigned char> scratch(static_cast<std::size_t>(args.m * args.n) * 2, stream);  // 2-byte elements
  Nv24Args t = args;
  t.C = scratch.ptr;
  t.ldc = args.n;
  for (const Nv24Launch& l : candidates) nv24_spmm(t, stream, l);  // warm-up: first launches, pool growth
  EventPair ev;
  // One sample: `calls` calls back to back behind the busy wait, as a layer's calls run. Short
  // products get several per sample (about kSampleMs in all): with one call per sample, the
  // launch that won the screen at 2048^3 ran 0.93x as fast back to back (H100).
  const auto sample_ms = [&](const Nv24Launch& l, int calls) {
    TESSERA_CUDA_CHECK(enqueue_gpu_busy_wait(stream));
    TESSERA_CUDA_CHECK(cudaEventRecord(ev.start, stream));
    for (int c = 0; c < calls; ++c) nv24_spmm(t, stream, l);
    TESSERA_CUDA_CHECK(cudaEventRecord(ev.stop, stream));
    TESSERA_CUDA_CHECK(cudaEventSynchronize(ev.stop));
    float elapsed = 0;
    TESSERA_CUDA_CHECK(cudaEventElapsedTime(&elapsed, ev.start, ev.stop));
    return elapsed / static_cast<float>(calls);
  };
  constexpr float kSampleMs = 0.1f;
  constexpr int kMaxCalls = 8, kSamples = 5;
  const int calls = std::clamp(static_cast<int>(kSampleMs / std::max(sample_ms(candidates[0], 1), 1e-3f)) + 1, 1,
                               kMaxCalls);
  std::vector<std::vector<float>> ms(candidates.size());
  for (int s = 0; s < kSamples; ++s)
    for (std::size_t j = 0; j < candidates.size(); ++j) {
      const std::size_t i = (s + j) % candidates.size();  // each sample starts at another candidate
      ms[i].push_back(sample_ms(candidates[i], calls));
    }
  const auto median_of = [](std::vector<float> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
  };
  std::vector<float> median(candidates.size());
  for (std::size_t i = 0; i < candidates.size(); ++i) median[i] = median_of(ms[i]);
  const std::size_t fastest = std::min_element(median.begin(), median.end()) - median.begin();
  // Leave the estimate's launch only for a clear gain: a percent or two is within the spread.
  if (fastest == 0 || !(median[fastest] < kNv24TuneMinGain * median[0])) return candidates[0];
  // Confirmed against it in samples of kConfirmSampleMs back to back, closer to the load of a
  // layer run again and again: screened with short samples alone, two launches that won the
  // screen ran 0.91x as fast under that load (H100, 4096 x 8192 x 22016 and 4096 x 11008 x 4096).
  constexpr float kConfirmSampleMs = 5.0f;
  constexpr int kMaxConfirmCalls = 64;
  const int long_calls =
      std::clamp(static_cast<int>(kConfirmSampleMs / std::max(median[0], 1e-3f)) + 1, calls, kMaxConfirmCalls);
  std::vector<float> estimate_ms, fastest_ms;
  for (int s = 0; s < kSamples; ++s)
    for (int j = 0; j < 2; ++j)
      ((s + j) % 2 == 0 ? estimate_ms : fastest_ms)
          .push_back(sample_ms(candidates[(s + j) % 2 == 0 ? 0 : fastest], long_calls));
  return median_of(fastest_ms) < kNv24TuneMinGain * median_of(estimate_ms) ? candidates[fastest] : candidates[0];
}

namespace {
nv24_detail::LaunchCache tuned_launches;
}  // namespace

Nv24Launch nv24_tuned(const Nv24Args& args, cudaStream_t stream) {
  const auto key = nv24_detail::LaunchCache::key(args, Nv24Tile::Auto);
  if (const auto found = tuned_launches.find(key)) return *found;
  if (stream_is_capturing(stream)) return nv24_choose(args);
  const Nv24Launch picked = nv24_tune(args, stream);  // unlocked: it synchronizes
  tuned_launches.store(key, picked);
  return picked;
}

std::size_t nv24_tuned_shapes() { return tuned_launches.size(); }

}  // namespace tessera::kernels::cuda
