#pragma once
// Programmatic dependent launch (sm_90+; no-ops when compiled for older GPUs, where kernels
// run one after the other anyway): a kernel launched with
// cudaLaunchAttributeProgrammaticStreamSerialization may start while the kernel before it on
// the stream still runs, once every block of that kernel has called
// allow_dependent_grid_launch() or exited. Also the checked launch with any launch attributes
// (launch_kernel_with). Private to the compiled CUDA kernels; not installed.
#include <cuda_runtime.h>

#include <cstddef>
#include <utility>

#include "cuda_support.hpp"
#include "device_info.hpp"

namespace tessera::kernels::cuda {

// Programmatic dependent launches need compute capability 9.0 on the current device.
inline bool programmatic_launches() { return device_info().major >= 9; }

// In the earlier kernel: blocks of the dependent kernel may be scheduled from now on.
__device__ __forceinline__ void allow_dependent_grid_launch() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.launch_dependents;\n" ::: "memory");
#endif
}

// In the dependent kernel: waits until the earlier kernel has completed and its writes are
// visible to this thread (returns at once where there is no such kernel). Every thread that
// reads or writes what the earlier kernel touches must pass it first.
__device__ __forceinline__ void wait_for_prerequisite_grid() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.wait;\n" ::: "memory");
#endif
}

// kernel<<<grid, block, smem, stream>>>(args...) with the launch attributes attrs[0 .. count). Checked.
template <class... Params, class... Args>
void launch_kernel_with(const cudaLaunchAttribute* attrs, unsigned count, void (*kernel)(Params...), dim3 grid,
                        dim3 block, std::size_t smem, cudaStream_t stream, Args&&... args) {
  cudaLaunchConfig_t config{};
  config.gridDim = grid;
  config.blockDim = block;
  config.dynamicSmemBytes = smem;
  config.stream = stream;
  config.attrs = const_cast<cudaLaunchAttribute*>(attrs);
  config.numAttrs = count;
  TESSERA_CUDA_CHECK(cudaLaunchKernelEx(&config, kernel, std::forward<Args>(args)...));
}

// kernel<<<grid, block, smem, stream>>>(args...), as the programmatic dependent of the kernel
// before it on the stream where `dependent` (the caller knows that kernel allows it and the
// device has compute capability 9.0), plainly otherwise. Checked.
template <class... Params, class... Args>
void launch_kernel_after(bool dependent, void (*kernel)(Params...), dim3 grid, dim3 block, std::size_t smem,
                         cudaStream_t stream, Args&&... args) {
  cudaLaunchAttribute attribute{};
  attribute.id = cudaLaunchAttributeProgrammaticStreamSerialization;
  attribute.val.programmaticStreamSerializationAllowed = 1;
  launch_kernel_with(&attribute, dependent ? 1 : 0, kernel, grid, block, smem, stream, std::forward<Args>(args)...);
}

}  // namespace tessera::kernels::cuda
