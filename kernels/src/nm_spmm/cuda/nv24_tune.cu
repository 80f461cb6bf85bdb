// nv24_tune (tessera/kernels/nm_spmm/cuda/nv24_spmm.hpp): the launch of an NV24 product
// measured instead of estimated. nv24_choose's time model is close to the fastest launch on
// average but can miss it on single shapes; a layer multiplied many times with one shape can
// afford to time the candidates once (and its handle keeps the launch).
#include <algorithm>
#include <cstddef>
#include <vector>

#include "tessera/kernels/nm_spmm/cuda/nv24_spmm.hpp"
#include "../../common/autotune.hpp"
#include "../../common/cuda_support.hpp"
#include "../../common/gpu_busy_wait.cuh"

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
  // A sample is `calls` calls back to back behind the busy wait, as a layer's calls run. Short
  // products get several per sample (about kSampleMs in all): one call alone does not show how
  // a launch runs back to back.
  const auto busy_wait = [&] { TESSERA_CUDA_CHECK(enqueue_gpu_busy_wait(stream)); };
  const auto run_calls = [&](const Nv24Launch& l, int calls) {
    for (int c = 0; c < calls; ++c) nv24_spmm(t, stream, l);
    return calls;
  };
  constexpr float kSampleMs = 0.1f;
  constexpr int kMaxCalls = 8, kSamples = 5;
  const float one_call_ms = sample_ms(stream, EventPair(), busy_wait, [&] { return run_calls(candidates[0], 1); });
  const int calls = std::clamp(static_cast<int>(kSampleMs / std::max(one_call_ms, 1e-3f)) + 1, 1, kMaxCalls);
  const std::vector<float> median = median_sample_ms(
      candidates.size(), kSamples, stream, [&](int) { busy_wait(); },
      [&](std::size_t i) { return run_calls(candidates[i], calls); });
  // Leave the estimate's launch only for a clear gain: a percent or two is within the spread.
  const std::size_t fastest = pick_clear_winner(median, kNv24TuneMinGain);
  if (fastest == 0) return candidates[0];
  // Confirmed against it in samples of kConfirmSampleMs back to back, closer to the load of a
  // layer run again and again, under which a launch that won the short samples can lose.
  constexpr float kConfirmSampleMs = 5.0f;
  constexpr int kMaxConfirmCalls = 64;
  const int long_calls =
      std::clamp(static_cast<int>(kConfirmSampleMs / std::max(median[0], 1e-3f)) + 1, calls, kMaxConfirmCalls);
  const Nv24Launch pair[] = {candidates[0], candidates[fastest]};
  const std::vector<float> confirmed = median_sample_ms(
      2, kSamples, stream, [&](int) { busy_wait(); }, [&](std::size_t i) { return run_calls(pair[i], long_calls); });
  return pair[pick_clear_winner(confirmed, kNv24TuneMinGain)];
}

}  // namespace tessera::kernels::cuda
