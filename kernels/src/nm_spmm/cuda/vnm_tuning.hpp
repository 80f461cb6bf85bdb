#pragma once
// The fitted constants of the VNM launch choice (vnm_choose_launch, vnm_spmm.cu): one row per
// compute capability they were measured on (with perf_tests/vnm), and the rule for a GPU
// without a row. Not installed.
#include "../../common/device_info.hpp"
#include "tuning_table.hpp"

namespace tessera::kernels::cuda::vnm_detail {

struct VnmTuning {
  int major, minor;  // compute capability measured on
  // Auto stages a row-major A as boxes of its rows (VnmAStaging::RowBoxes) where each element
  // of A feeds at most this many products, n * N / M: they save the panel pass and cost more
  // shared loads per stored row.
  int row_boxes_max_products;
  // The estimate of a launch in stages of an SM: a block's stages, plus fill_stages per block
  // (filling the pipeline) and split_sum_stages per block of a split-K launch (the atomic sums),
  // each split keeping at least two stages, at most max_split_k splits.
  double fill_stages, split_sum_stages;
  int max_split_k;
  double rows64_cost;  // a 64-row block's stage against a 128-row one's: it copies B twice as often per FMA
};

inline constexpr VnmTuning kVnmTunings[] = {
    {9, 0, /*row boxes*/ 512, /*fill, split sum*/ 1.0, 1.0, /*max split*/ 16, /*64 rows*/ 1.05},
};

// The row of the device's compute capability, else tuning_row's nearest one: its numbers are
// ratios of one kernel's costs, which carry over to a GPU that has not been measured.
inline const VnmTuning& vnm_tuning(const DeviceInfo& d) { return tuning_row(kVnmTunings, d); }

}  // namespace tessera::kernels::cuda::vnm_detail
