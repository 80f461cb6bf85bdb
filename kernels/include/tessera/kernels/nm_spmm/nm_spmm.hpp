#pragma once
// tessera::nm_spmm(A, B, C): C = A * B with B an N:M structured-sparse weight, one entry
// point for both encodings (overloaded on B's type):
//   Tensor<T, VNM, Space>   vector-wise N:M (fp32 CUDA-core kernel on Kokkos::Cuda)
//   Tensor<T, NV24, Space>  2:4 in the mma.sp layout (sparse tensor cores on Kokkos::Cuda)
// and a portable Kokkos kernel for every other space.
#include "tessera/kernels/nm_spmm/nv24_spmm.hpp"
#include "tessera/kernels/nm_spmm/vnm_spmm.hpp"
