// tca_tune: the TCA-SpMM kernel for a call measured instead of estimated (tca_choose), from the
// L2 state the caller names.
#include <algorithm>
#include <cstddef>
#include <vector>

#include <cuda_runtime.h>

#include "tessera/kernels/spmm/cuda/spmm_tca.hpp"
#include "../../common/autotune.hpp"
#include "../../common/cuda_support.hpp"
#include "../../common/device_info.hpp"
#include "../../common/gpu_busy_wait.cuh"
#include "spmm_tca_internal.cuh"

namespace tessera::kernels::cuda {

TcaKernel tca_tune(const TcaPlan& plan, const TcaArgs& a, bool allow_tf32, cudaStream_t stream, TcaTuneCache cache) {
  const TcaKernel guess = tca_choose(plan, a, allow_tf32);
  const bool tensor_cores = tca_has_tensor_core(a.type) && (a.type != TcaType::F32 || allow_tf32);
  if (!tensor_cores || a.rows == 0 || a.n == 0) return guess;
  require_not_capturing(stream, "tca_tune", "times its candidates");
  // The candidates write a scratch C (beta 0) laid out as the caller's, row- or column-major
  // (their stores cost differently), so the caller's C is neither read nor written.
  DeviceBuffer<unsigned char> scratch(static_cast<std::size_t>(a.rows * a.n) * tca_detail::elem_size(a.type), stream);
  TcaArgs t = a;
  const bool c_row_major = a.c_col_stride == 1;
  t.C = scratch.ptr;
  t.c_row_stride = c_row_major ? a.n : 1;
  t.c_col_stride = c_row_major ? 1 : a.rows;
  t.beta = 0;
  const TcaKernel other = guess == TcaKernel::TensorCore ? TcaKernel::CudaCoreRowSplit : TcaKernel::TensorCore;
  const TcaKernel kernels[2] = {guess, other};
  for (TcaKernel k : kernels) spmm_tca(&plan, k, t, stream);  // warm-up: first launches, pool growth
  // ColdL2: each sample is one call after a write of twice the L2 evicted A and B from it.
  // Timed back to back, with B in L2, the row split comes out ahead on matrices where the
  // tensor cores win from a cold L2, so the state must be the caller's.
  // WarmL2: each sample is one call after a kernel that only waits: A and B stay in L2 from
  // the previous sample, and the call is enqueued while the GPU is busy. Timed right after a
  // host wait, a call of a few microseconds would measure the launch latency and the idle
  // GPU's clock instead.
  // The median of kTuneSamples per kernel, the kernels alternating.
  const bool cold = cache == TcaTuneCache::ColdL2;
  const std::size_t flush_bytes = cold ? 2 * std::max(device_info().l2_bytes, std::size_t{1} << 20) : 0;
  DeviceBuffer<unsigned char> flush(flush_bytes, stream);
  constexpr int kTuneSamples = 5;
  const std::vector<float> median = median_sample_ms(
      2, kTuneSamples, stream,
      [&](int round) {
        if (cold) TESSERA_CUDA_CHECK(cudaMemsetAsync(flush.ptr, round, flush_bytes, stream));
        else TESSERA_CUDA_CHECK(enqueue_gpu_busy_wait(stream));
      },
      [&](std::size_t i) {
        spmm_tca(&plan, kernels[i], t, stream);
        return 1;
      });
  // Leave the guess only for a clear gain: differences of a few percent are within the
  // spread of such short samples.
  return kernels[pick_clear_winner(median, kTuneMinGain)];
}

}  // namespace tessera::kernels::cuda
