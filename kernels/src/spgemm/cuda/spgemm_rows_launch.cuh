#pragma once
// Host side shared by the two phases of the row-wise SpGEMM: the group-size dispatch and the
// shared-memory opt-in of the hash kernels.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <vector>

#include "../../common/cuda_support.hpp"
#include "../../common/device_info.hpp"
#include "spgemm_rows_kernels.cuh"

namespace tessera::kernels::cuda::spgemm_detail {

inline unsigned blocks_for(std::int64_t items, std::int64_t per_block) {
  return static_cast<unsigned>(std::max<std::int64_t>(1, (items + per_block - 1) / per_block));
}

// Calls f(std::integral_constant<int, G>{}) for the bin's group size.
template <class F>
void with_group(int group, F&& f) {
  switch (group) {
    case 8: return f(std::integral_constant<int, 8>{});
    case 16: return f(std::integral_constant<int, 16>{});
    case 32: return f(std::integral_constant<int, 32>{});
    default: return f(std::integral_constant<int, 0>{});
  }
}

// Calls f(std::integral_constant<int, G>{}, first, count, table_log2, launch) for every hash-table
// bin that has rows: `count` rows from `first` in the binned row list.
template <class F>
void for_each_table_bin(const std::vector<std::int64_t>& starts, F&& f) {
  for (int bin = 1; bin < kDenseBin; ++bin) {
    const std::int64_t count = starts[bin + 1] - starts[bin];
    if (!count) continue;
    const int log2 = table_log2_of_bin(bin);
    const BinLaunch launch = bin_launch(log2);
    with_group(launch.group, [&](auto g) { f(g, starts[bin], count, log2, launch); });
  }
}

// Lets `kernel` take the device's whole opt-in shared memory beside its static shared memory
// (once per device).
template <class Kernel>
void allow_large_tables(Kernel* kernel) {
  once_per_device(reinterpret_cast<const void*>(kernel), [&] {
    cudaFuncAttributes attributes{};
    TESSERA_CUDA_CHECK(cudaFuncGetAttributes(&attributes, kernel));
    TESSERA_CUDA_CHECK(cudaFuncSetAttribute(
        kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
        static_cast<int>(device_info().max_shared_per_block - attributes.sharedSizeBytes)));
  });
}

// Tables of the numeric phase from which the dense accumulator may take over (BinRule).
constexpr int kNumericDenseFromLog2 = 11;

// Largest table of the numeric phase that fits one block's shared memory on this device.
inline int numeric_max_log2(SpgemmType type) {
  const std::size_t slot = (type == SpgemmType::F64 ? 8 : 4) + sizeof(unsigned);
  int l = kMaxTableLog2;
  while (l > kMinTableLog2 && (std::size_t{1} << l) * slot > device_info().max_shared_per_block) --l;
  return l;
}

// Blocks of a dense-accumulator launch over `rows` rows taking `per_block` bytes each: enough to
// fill every multiprocessor at most, as many as `budget` allows, at least one.
inline unsigned dense_blocks(std::int64_t rows, std::size_t per_block, std::size_t budget) {
  const std::int64_t most = std::min<std::int64_t>(rows, 2048 / kDenseThreads * std::int64_t{device_info().sms});
  const std::int64_t afford = static_cast<std::int64_t>(budget / std::max<std::size_t>(per_block, 1));
  return static_cast<unsigned>(std::max<std::int64_t>(1, std::min(most, afford)));
}

// Rows of a grid at most (gridDim.y): the split rows' launches take a row each.
constexpr std::int64_t kMaxGridRows = 65535;

// Split rows run at a time: as many as `budget` allows `per_row` bytes each (at least one, at
// most a grid's rows).
inline std::int64_t split_batch(std::int64_t rows, std::size_t per_row, std::size_t budget) {
  const std::int64_t afford = static_cast<std::int64_t>(budget / std::max<std::size_t>(per_row, 1));
  return std::max<std::int64_t>(1, std::min({rows, afford, kMaxGridRows}));
}

inline std::size_t aligned(std::size_t bytes) { return (bytes + 255) / 256 * 256; }

}  // namespace tessera::kernels::cuda::spgemm_detail
