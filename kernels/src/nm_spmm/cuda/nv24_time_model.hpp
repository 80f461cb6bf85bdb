#pragma once
// The constants of nv24_choose's time model (nv24_choose.cu): one row per compute capability
// they were fitted on (with perf_tests/nv24: nv24_bench --sweep for the mma.sp tiles, --sweep-set
// for the wgmma.sp ones and the splits), and the rule for a GPU without a row. Not installed.
#include <cstdint>

#include "tessera/kernels/nm_spmm/cuda/nv24_spmm.hpp"
#include "../../common/device_info.hpp"
#include "tuning_table.hpp"

namespace tessera::kernels::cuda::nv24_detail {

// Relative throughput of a full multiprocessor running one tile shape, in (tile element x
// k tile of 64) per unit of time; from m = switch_m on (0: never), rate_from_switch_m instead.
struct TileRate {
  double rate;
  std::int64_t switch_m = 0;
  double rate_from_switch_m = 0;
  double at(std::int64_t m) const { return switch_m > 0 && m >= switch_m ? rate_from_switch_m : rate; }
};

// Costs are in the rates' unit of time.
struct Nv24TimeModel {
  int major, minor;  // compute capability fitted on
  int sms;           // multiprocessors of the GPU fitted on
  TileRate large, medium, small;                                  // mma.sp tiles
  TileRate hopper_wide, hopper_square, hopper_tall, hopper_large;  // wgmma.sp tiles
  // The mma.sp tiles' K splits through the fp32 workspace, per output element: per split (an
  // 8-byte atomic) and once (zeroing and conversion into C).
  double split_cost_per_element, reduce_cost_per_element;
  // The wgmma.sp tiles' K splits summed in a cluster: a block's cost in k tiles of its main loop,
  // once (the first tile's latency, writing its partial tile) and per split (the cluster barrier,
  // summing its share from the other blocks' shared memory).
  double cluster_reduce_stages, cluster_reduce_stages_per_split;
  double tail_launch_cost;  // the second launch of a head + tail pair (Nv24Launch::tail_rows)

  double rate(Nv24Tile t, std::int64_t m) const {
    switch (t) {
      case Nv24Tile::Large: return large.at(m);
      case Nv24Tile::Medium: return medium.at(m);
      case Nv24Tile::HopperWide: return hopper_wide.at(m);
      case Nv24Tile::HopperSquare: return hopper_square.at(m);
      case Nv24Tile::HopperTall: return hopper_tall.at(m);
      case Nv24Tile::HopperLarge: return hopper_large.at(m);
      default: return small.at(m);
    }
  }
};

inline constexpr Nv24TimeModel kNv24TimeModels[] = {
    {9, 0, 132,
     /*Large, Medium, Small*/ {1.0}, {0.9}, {0.55},
     /*HopperWide, HopperSquare*/ {2.3}, {1.7},
     /*HopperTall, HopperLarge, faster from m = 2048 / 1024*/ {1.8, 2048, 2.4}, {1.8, 1024, 2.7},
     /*split-K workspace per output element: per split, once*/ 0.044, 0.1,
     /*cluster sum in k tiles: once, per split*/ 1.0, 6.0,
     /*tail launch: about one k tile of the HopperLarge block*/ 256 * 192 / 2.7},
};

// The row of the device's compute capability, else tuning_row's nearest one with the split-K
// workspace costs scaled by the multiprocessors: that reduction runs on the whole GPU, while
// the rates and the other costs are per multiprocessor. (Off compute capability 9.0 only the
// mma.sp tiles run.)
inline Nv24TimeModel nv24_time_model(const DeviceInfo& d) {
  bool exact = false;
  Nv24TimeModel model = tuning_row(kNv24TimeModels, d, &exact);
  if (!exact) {
    const double fitted_per_device = static_cast<double>(model.sms) / d.sms;
    model.split_cost_per_element *= fitted_per_device;
    model.reduce_cost_per_element *= fitted_per_device;
  }
  return model;
}

}  // namespace tessera::kernels::cuda::nv24_detail
