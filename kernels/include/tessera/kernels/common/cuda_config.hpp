#pragma once
/// \file
/// The one place that decides whether the compiled CUDA kernels are there: Kokkos built with
/// CUDA, and the build linking tessera_kernels_cuda (which defines TESSERA_HAVE_CUDA_KERNELS).
/// Everything else tests TESSERA_CUDA_KERNELS or the constants below.
#include <type_traits>

#include <Kokkos_Core.hpp>

#if defined(TESSERA_HAVE_CUDA_KERNELS) && defined(KOKKOS_ENABLE_CUDA)
/// 1 when the compiled CUDA kernels are there, 0 otherwise.
#define TESSERA_CUDA_KERNELS 1
#else
#define TESSERA_CUDA_KERNELS 0
#endif

namespace tessera::kernels {

/// True when the compiled CUDA kernels are there.
inline constexpr bool cuda_kernels_compiled = TESSERA_CUDA_KERNELS == 1;

/// Whether Space is Kokkos::Cuda with its memory in device memory (the compiled kernels take
/// raw device pointers and run on the instance's stream).
template <class Space>
constexpr bool is_cuda_space_v =
#if defined(KOKKOS_ENABLE_CUDA)
    std::is_same_v<Space, Kokkos::Cuda> && std::is_same_v<typename Space::memory_space, Kokkos::CudaSpace>;
#else
    false;
#endif

/// Space runs the compiled CUDA kernels.
template <class Space>
constexpr bool runs_cuda_kernels_v = cuda_kernels_compiled && is_cuda_space_v<Space>;

}  // namespace tessera::kernels
