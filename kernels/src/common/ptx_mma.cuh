#pragma once
// Private PTX wrappers (sm_80+) for the warp-level dense MMA (mma.sync) and its TF32 operand
// conversion, shared by the compiled CUDA kernels; the copy wrappers that feed them are in
// ptx_copy.cuh. Not installed.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

namespace tessera::kernels::cuda {

// D (16 x 8, fp32) += A (16 x 16) * B (16 x 8), fp16 operands (CUTLASS SM80_16x8x16_F32F16F16F32_TN);
// the last argument only picks the element type.
__device__ __forceinline__ void mma_16816(float (&d)[4], const unsigned (&a)[4], const unsigned (&b)[2], __half) {
  asm volatile(
      "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
      "{%0,%1,%2,%3};\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}
// The same with bf16 operands (SM80_16x8x16_F32BF16BF16F32_TN).
__device__ __forceinline__ void mma_16816(float (&d)[4], const unsigned (&a)[4], const unsigned (&b)[2],
                                          __nv_bfloat16) {
  asm volatile(
      "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
      "{%0,%1,%2,%3};\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}
// D (16 x 8, fp32) += A (16 x 8) * B (8 x 8), TF32 operands (SM80_16x8x8_F32TF32TF32F32_TN). The
// tensor core truncates fp32 bits passed as operands to TF32; to_tf32 rounds instead.
__device__ __forceinline__ void mma_1688_tf32(float (&d)[4], const unsigned (&a)[4], const unsigned (&b)[2]) {
  asm volatile(
      "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
      "{%0,%1,%2,%3};\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}
// fp32 -> TF32, rounded to nearest (ties away from zero), as the bits of an MMA operand.
__device__ __forceinline__ unsigned to_tf32(float x) {
  unsigned r;
  asm("cvt.rna.tf32.f32 %0, %1;\n" : "=r"(r) : "f"(x));
  return r;
}

}  // namespace tessera::kernels::cuda
