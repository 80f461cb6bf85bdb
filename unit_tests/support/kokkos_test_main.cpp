// GoogleTest main for every Tessera test: initializes Kokkos once for the whole
// binary. In CUDA builds a machine without a GPU skips the binary (exit 77,
// which ctest reports as skipped) instead of letting Kokkos fail to start.
#include <cstdio>

#include <Kokkos_Core.hpp>
#include <gtest/gtest.h>

#ifdef KOKKOS_ENABLE_CUDA
#include <cuda_runtime.h>
#endif

int main(int argc, char** argv) {
#ifdef KOKKOS_ENABLE_CUDA
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::printf("SKIPPED: this build uses CUDA and no CUDA device is present\n");
    return 77;
  }
#endif
  ::testing::InitGoogleTest(&argc, argv);
  Kokkos::ScopeGuard kokkos(argc, argv);
  return RUN_ALL_TESTS();
}
