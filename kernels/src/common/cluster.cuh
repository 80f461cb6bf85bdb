#pragma once
// Thread-block clusters (compute capability 9.0+): the blocks of one cluster run at the same
// time on one GPC and read each other's shared memory. Private to the compiled CUDA kernels;
// not installed. The device helpers trap when compiled for older GPUs, where no launch asks
// for clusters (launch_clustered with cluster_blocks > 1 is only called on 9.0+ devices).
#include <cuda_runtime.h>

#include <cstddef>
#include <utility>

#include "cuda_support.hpp"
#include "grid_dependency.cuh"

namespace tessera::kernels::cuda {

// This block's rank within its cluster.
__device__ __forceinline__ unsigned cluster_block_rank() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  unsigned r;
  asm volatile("mov.u32 %0, %%cluster_ctarank;\n" : "=r"(r));
  return r;
#else
  __trap();
  return 0;
#endif
}

// Waits until every thread of the cluster that has not exited got here; shared-memory writes
// made before it by any of them are visible after it (release / acquire at cluster scope).
__device__ __forceinline__ void cluster_sync() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("barrier.cluster.arrive.release;\nbarrier.cluster.wait.acquire;\n" ::: "memory");
#else
  __trap();
#endif
}

// The two halves of a cluster barrier without memory ordering (a release fence costs the
// arriving warps microseconds): arrive, then wait until every thread of the cluster that has
// not exited arrived. For blocks that only need to know where the others are.
__device__ __forceinline__ void cluster_arrive_unordered() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("barrier.cluster.arrive.relaxed;\n" ::: "memory");
#else
  __trap();
#endif
}
__device__ __forceinline__ void cluster_wait() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("barrier.cluster.wait;\n" ::: "memory");
#else
  __trap();
#endif
}

// The 16 bytes at shared-memory address `local` (this block's layout) in block `rank` of the
// cluster.
__device__ __forceinline__ float4 load_cluster_shared_f4(unsigned local, unsigned rank) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  unsigned remote;
  float4 v;
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;\n" : "=r"(remote) : "r"(local), "r"(rank));
  asm volatile("ld.shared::cluster.v4.f32 {%0, %1, %2, %3}, [%4];\n"
               : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w)
               : "r"(remote)
               : "memory");
  return v;
#else
  __trap();
  return float4{};
#endif
}

// kernel<<<grid, block, smem, stream>>>(args...) in clusters of cluster.x x cluster.y x
// cluster.z blocks (each grid extent a multiple of the cluster's; one block: no clusters). Checked.
template <class... Params, class... Args>
void launch_clustered(void (*kernel)(Params...), dim3 grid, dim3 block, std::size_t smem, cudaStream_t stream,
                      dim3 cluster, Args&&... args) {
  cudaLaunchAttribute attribute{};
  attribute.id = cudaLaunchAttributeClusterDimension;
  attribute.val.clusterDim.x = cluster.x;
  attribute.val.clusterDim.y = cluster.y;
  attribute.val.clusterDim.z = cluster.z;
  launch_kernel_with(&attribute, cluster.x * cluster.y * cluster.z > 1 ? 1 : 0, kernel, grid, block, smem, stream,
                     std::forward<Args>(args)...);
}

}  // namespace tessera::kernels::cuda
