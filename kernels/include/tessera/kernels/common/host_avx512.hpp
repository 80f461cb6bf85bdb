#pragma once
/// \file
/// Host kernels' AVX-512 loops: compiled wherever GCC or Clang builds for x86-64 (not
/// under nvcc), each function marked target("avx512f"), and run only on CPUs that
/// report the instructions at run time, so one binary serves every x86-64 CPU.
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__)) && !defined(__CUDACC__)
#define TESSERA_HOST_AVX512 1
#include <immintrin.h>
#endif

namespace tessera::kernels {

/// True when this build has the AVX-512 loops and this CPU can run them.
inline bool cpu_has_avx512f() {
#ifdef TESSERA_HOST_AVX512
  static const bool has = __builtin_cpu_supports("avx512f");
  return has;
#else
  return false;
#endif
}

}  // namespace tessera::kernels
