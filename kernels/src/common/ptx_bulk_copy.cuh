#pragma once
// Private PTX wrappers (sm_90+) for the copy engine (TMA): shared-memory mbarriers, bulk copies
// global -> shared that complete on them, and the proxy fence between ordinary shared-memory
// writes and the async proxy. Shared by the compiled CUDA kernels; not installed.
#include <cstdint>

#include "ptx_copy.cuh"

namespace tessera::kernels::cuda {

// Shared memory written through the generic proxy (st.shared, cp.async) and then read or
// written by the async proxy (wgmma, bulk copies) needs this in each writing thread first.
__device__ __forceinline__ void fence_proxy_async() { asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory"); }
// Shared-memory mbarrier expecting `count` arrivals per phase.
__device__ __forceinline__ void mbarrier_init(std::uint64_t* bar, unsigned count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(smem_addr(bar)), "r"(count) : "memory");
}
// Makes the initialised mbarriers visible to the copy engine (then a block barrier).
__device__ __forceinline__ void mbarrier_init_fence() {
  asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
}
// This thread's arrival, announcing `bytes` more bytes for the phase to complete.
__device__ __forceinline__ void mbarrier_arrive_expect_tx(std::uint64_t* bar, unsigned bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(smem_addr(bar)), "r"(bytes)
               : "memory");
}
// This thread's arrival (no transaction bytes); releases its earlier shared-memory accesses.
__device__ __forceinline__ void mbarrier_arrive(std::uint64_t* bar) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];\n" ::"r"(smem_addr(bar)) : "memory");
}
// Waits until the phase with parity `parity` of the mbarrier completed.
__device__ __forceinline__ void mbarrier_wait(std::uint64_t* bar, unsigned parity) {
  asm volatile(
      "{\n.reg .pred done;\nwait_%=:\n"
      "mbarrier.try_wait.parity.shared::cta.b64 done, [%0], %1;\n"
      "@!done bra wait_%=;\n}\n" ::"r"(smem_addr(bar)),
      "r"(parity)
      : "memory");
}
// Bulk copy of `bytes` contiguous bytes global -> shared (both 16-byte aligned, bytes a
// multiple of 16), completing `bytes` of the mbarrier's transaction count.
__device__ __forceinline__ void bulk_copy_g2s(void* dst, const void* src, unsigned bytes, std::uint64_t* bar) {
  asm volatile(
      "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];\n" ::"r"(smem_addr(dst)),
      "l"(src), "r"(bytes), "r"(smem_addr(bar))
      : "memory");
}
// 2D bulk tensor copy global -> shared (box at (c0, c1) of the tensor map; out-of-range
// elements are zero-filled), completing `bytes` of the mbarrier's transaction count.
__device__ __forceinline__ void tma_load_2d(void* dst, const void* tensor_map, int c0, int c1, std::uint64_t* bar) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];\n" ::"r"(
          smem_addr(dst)),
      "l"(tensor_map), "r"(c0), "r"(c1), "r"(smem_addr(bar))
      : "memory");
}

// The same for a 3D tensor map, box at (c0, c1, c2).
__device__ __forceinline__ void tma_load_3d(void* dst, const void* tensor_map, int c0, int c1, int c2,
                                            std::uint64_t* bar) {
  asm volatile(
      "cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3, %4}], [%5];\n" ::"r"(
          smem_addr(dst)),
      "l"(tensor_map), "r"(c0), "r"(c1), "r"(c2), "r"(smem_addr(bar))
      : "memory");
}

}  // namespace tessera::kernels::cuda
