#pragma once
/// \file
/// Stable radix sort of (key, value) pairs on a CUDA stream: CUB's DeviceRadixSort over the
/// low `end_bit` bits of the keys. Raw device pointers, no Kokkos; compiled into
/// tessera_formats_cuda (formats/src/cuda/radix_sort.cu) for the (Key, Value) pairs tensor
/// assembly uses: (uint32, uint32), (uint64, uint32), (uint64, uint64). Failures raise
/// tessera::CudaError.
#include <cstddef>
#include <cstdint>

#include <cuda_runtime_api.h>

namespace tessera::formats::cuda {

/// Bytes of workspace that sort_pairs needs for `n` pairs sorted on bits [0, end_bit).
template <class Key, class Value>
std::size_t sort_pairs_workspace_bytes(std::int64_t n, int end_bit);

/// Sorts `n` pairs by their keys' bits [0, end_bit), keeping the input order of equal keys.
/// Both buffers of each array are read and written; returns true where the sorted pairs are in
/// (keys_alt, values_alt), false where they are in (keys, values). `workspace` holds at least
/// sort_pairs_workspace_bytes(n, end_bit) bytes. Asynchronous on `stream`.
template <class Key, class Value>
bool sort_pairs(Key* keys, Key* keys_alt, Value* values, Value* values_alt, std::int64_t n, int end_bit,
                void* workspace, std::size_t workspace_bytes, cudaStream_t stream);

}  // namespace tessera::formats::cuda
