// The VNM kernel with a producer warpgroup, for Hopper (sm_90a only: this source is compiled
// with -gencode arch=compute_90a,code=sm_90a, as setmaxnreg needs it). vnm_spmm.cu launches it
// on compute capability 9.0 devices.
#include "vnm_spmm_kernel.cuh"

#if defined(__CUDA_ARCH__) && !defined(__CUDA_ARCH_FEAT_SM90_ALL)
#error "vnm_spmm_sm90a.cu needs the sm_90a target (-gencode arch=compute_90a,code=sm_90a)"
#endif

namespace tessera::kernels::cuda::vnm_detail {

void launch_producer_warpgroup(const Params& p, int bm, dim3 grid, cudaStream_t stream, std::size_t bytes) {
  launch_kernel<VnmCopier::ProducerWarpgroup>(p, bm, grid, stream, bytes);
}

}  // namespace tessera::kernels::cuda::vnm_detail
