#pragma once
// Programmatic dependent launch (sm_90+): a kernel launched with
// cudaLaunchAttributeProgrammaticStreamSerialization may start while the kernel before it on
// the stream still runs, once every block of that kernel has called
// allow_dependent_grid_launch() or exited. Private to the compiled CUDA kernels; not installed.

namespace tessera::kernels::cuda {

// In the earlier kernel: blocks of the dependent kernel may be scheduled from now on.
__device__ __forceinline__ void allow_dependent_grid_launch() {
  asm volatile("griddepcontrol.launch_dependents;\n" ::: "memory");
}

// In the dependent kernel: waits until the earlier kernel has completed and its writes are
// visible to this thread (returns at once where there is no such kernel). Every thread that
// reads or writes what the earlier kernel touches must pass it first.
__device__ __forceinline__ void wait_for_prerequisite_grid() { asm volatile("griddepcontrol.wait;\n" ::: "memory"); }

}  // namespace tessera::kernels::cuda
