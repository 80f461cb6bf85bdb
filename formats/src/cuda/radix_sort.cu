// CUB's stable radix sort behind the raw API of tessera/formats/cuda/radix_sort.hpp.
#include "tessera/formats/cuda/radix_sort.hpp"


#include <cub/device/device_radix_sort.cuh>

#include "check_status.hpp"
#include "tessera/core/error.hpp"

namespace tessera::formats::cuda {
namespace {

void check(cudaError_t status, const char* what) { check_status(status, "tessera radix sort", what); }

}  // namespace

template <class Key, class Value>
std::size_t sort_pairs_workspace_bytes(std::int64_t n, int end_bit) {
  cub::DoubleBuffer<Key> keys(nullptr, nullptr);
  cub::DoubleBuffer<Value> values(nullptr, nullptr);
  std::size_t bytes = 0;
  check(cub::DeviceRadixSort::SortPairs(nullptr, bytes, keys, values, n, 0, end_bit), "cub::DeviceRadixSort (size)");
  return bytes;
}

template <class Key, class Value>
bool sort_pairs(Key* keys, Key* keys_alt, Value* values, Value* values_alt, std::int64_t n, int end_bit,
                void* workspace, std::size_t workspace_bytes, cudaStream_t stream) {
  cub::DoubleBuffer<Key> key_buffers(keys, keys_alt);
  cub::DoubleBuffer<Value> value_buffers(values, values_alt);
  check(cub::DeviceRadixSort::SortPairs(workspace, workspace_bytes, key_buffers, value_buffers, n, 0, end_bit, stream),
        "cub::DeviceRadixSort::SortPairs");
  return key_buffers.selector != 0;
}

#define TESSERA_SORT_PAIRS(Key, Value)                                            \
  template std::size_t sort_pairs_workspace_bytes<Key, Value>(std::int64_t, int); \
  template bool sort_pairs<Key, Value>(Key*, Key*, Value*, Value*, std::int64_t, int, void*, std::size_t, cudaStream_t);
TESSERA_SORT_PAIRS(std::uint32_t, std::uint32_t)
TESSERA_SORT_PAIRS(std::uint64_t, std::uint32_t)
TESSERA_SORT_PAIRS(std::uint64_t, std::uint64_t)
#undef TESSERA_SORT_PAIRS

}  // namespace tessera::formats::cuda
