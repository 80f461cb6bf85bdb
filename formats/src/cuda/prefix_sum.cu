#include "tessera/formats/cuda/prefix_sum.hpp"

#include <cstddef>

#include <cub/block/block_scan.cuh>
#include <cub/device/device_scan.cuh>

#include "check_status.hpp"
#include "tessera/formats/cuda/device_scratch.hpp"

namespace tessera::formats::cuda {
namespace {

constexpr int kThreads = 1024;
constexpr int kItems = 4;
// Up to this many offsets one block scans them tile by tile: one launch, no workspace, where
// CUB's two-kernel scan costs more in launches and workspace than the scan itself.
constexpr std::int64_t kOneBlockMax = 4 * kThreads * kItems;

// The running total of earlier tiles, handed to each tile's scan by thread 0.
template <class Offset>
struct TileCarry {
  Offset total;
  __device__ Offset operator()(Offset tile_sum) {
    const Offset before = total;
    total += tile_sum;
    return before;
  }
};

template <class Offset>
__global__ void __launch_bounds__(kThreads) exclusive_sum_one_block(Offset* data, std::int64_t n) {
  using Scan = cub::BlockScan<Offset, kThreads>;
  __shared__ typename Scan::TempStorage temp;
  TileCarry<Offset> carry{0};
  for (std::int64_t tile = 0; tile < n; tile += kThreads * kItems) {
    const std::int64_t first = tile + static_cast<std::int64_t>(threadIdx.x) * kItems;
    Offset items[kItems];
    for (int j = 0; j < kItems; ++j) items[j] = first + j < n ? data[first + j] : Offset(0);
    Scan(temp).ExclusiveSum(items, items, carry);
    for (int j = 0; j < kItems; ++j)
      if (first + j < n) data[first + j] = items[j];
    __syncthreads();  // temp is reused by the next tile
  }
}

}  // namespace

template <class Offset>
void exclusive_sum_in_place(Offset* data, std::int64_t n, cudaStream_t stream) {
  if (n <= 0) return;
  if (n <= kOneBlockMax) {
    exclusive_sum_one_block<<<1, kThreads, 0, stream>>>(data, n);
    check_status(cudaGetLastError(), "tessera prefix sum", "one-block scan launch");
    return;
  }
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
