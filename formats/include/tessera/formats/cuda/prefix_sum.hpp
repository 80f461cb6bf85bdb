#pragma once
/// \file
/// In-place exclusive prefix sums of offsets on a CUDA stream (one block for short arrays, else
/// CUB's DeviceScan with its workspace from the scratch pool: no allocation, no device
/// synchronization either way): counts to positions in tensor
/// assembly and in the kernels that count their output first. Raw device pointers, no Kokkos;
/// compiled into tessera_formats_cuda for int and int64 offsets. Failures raise tessera::CudaError.
#include <cstdint>

#include <cuda_runtime_api.h>

namespace tessera::formats::cuda {

/// data[i] becomes data[0] + ... + data[i - 1] for i in [0, n) (data[0] becomes 0), in the offsets'
/// own type. Asynchronous on `stream`.
template <class Offset>
void exclusive_sum_in_place(Offset* data, std::int64_t n, cudaStream_t stream);

}  // namespace tessera::formats::cuda
