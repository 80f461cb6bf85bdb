#include "tessera/formats/cuda/prefix_sum.hpp"

#include <cstddef>

#include <cub/device/device_scan.cuh>

#include "check_status.hpp"
#include "tessera/formats/cuda/device_scratch.hpp"

namespace tessera::formats::cuda {

template <class Offset>
void exclusive_sum_in_place(Offset* data, std::int64_t n, cudaStream_t stream) {
  if (n <= 0) return;
  std::size_t bytes = 0;
  check_status(cub::DeviceScan::ExclusiveSum(nullptr, bytes, data, data, n, stream), "tessera prefix sum",
               "cub::DeviceScan (size)");
  const DeviceScratch temp("tessera prefix sum", bytes, stream);
  check_status(cub::DeviceScan::ExclusiveSum(temp.data(), bytes, data, data, n, stream), "tessera prefix sum",
               "cub::DeviceScan");
}

template void exclusive_sum_in_place<int>(int*, std::int64_t, cudaStream_t);
template void exclusive_sum_in_place<std::int64_t>(std::int64_t*, std::int64_t, cudaStream_t);

}  // namespace tessera::formats::cuda
