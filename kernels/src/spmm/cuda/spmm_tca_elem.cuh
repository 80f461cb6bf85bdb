#pragma once
// Element types of the TCA-SpMM kernels: the accumulator each one sums in, and the 4-element
// vector the epilogues store C with. Private to kernels/src/spmm/cuda; not installed.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

namespace tessera::kernels::cuda::tca_detail {

template <class T>
struct Elem;
template <>
struct Elem<float> {
  using acc = float;
  __device__ static float to_acc(float x) { return x; }
  __device__ static float from_acc(float x) { return x; }
};
template <>
struct Elem<double> {
  using acc = double;
  __device__ static double to_acc(double x) { return x; }
  __device__ static double from_acc(double x) { return x; }
};
template <>
struct Elem<__half> {
  using acc = float;
  __device__ static float to_acc(__half x) { return __half2float(x); }
  __device__ static __half from_acc(float x) { return __float2half_rn(x); }
};
template <>
struct Elem<__nv_bfloat16> {
  using acc = float;
  __device__ static float to_acc(__nv_bfloat16 x) { return __bfloat162float(x); }
  __device__ static __nv_bfloat16 from_acc(float x) { return __float2bfloat16_rn(x); }
};

// Four consecutive elements of C, stored with one 8-byte (fp16/bf16) or 16-byte (fp32) access.
template <class T>
struct alignas(4 * sizeof(T)) Vec4 {
  T e[4];
};

}  // namespace tessera::kernels::cuda::tca_detail
