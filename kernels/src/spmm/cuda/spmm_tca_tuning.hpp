#pragma once
// TCA-SpMM launch facts that belong to one GPU generation, as data: a row per compute
// capability they were measured on, and a rule from the device's own report for the others.
// Private to kernels/src/spmm/cuda; not installed.
#include "../../common/device_info.hpp"

namespace tessera::kernels::cuda::tca_detail {

// Clusters of more blocks than this need an opt-in per kernel (CUDA's portable cluster size).
constexpr int kPortableClusterBlocks = 8;

struct TcaArchTuning {
  int major, minor;  // compute capability
  // Largest cluster a plan sums a split window in (1: no clusters): the device's largest.
  int cluster_blocks;
  // Clusters run only where blocks x column tiles x cluster blocks is at most this many per SM:
  // a cluster's blocks are scheduled together and wait for each other, so over several waves
  // the workspace wins. For clusters of 16 this is about one wave (TF32 holds 8 blocks per SM).
  long long cluster_launch_budget;
};

inline constexpr TcaArchTuning kTcaMeasuredArchs[] = {
    {9, 0, 16, 150},
};

// The row measured for this device, else: clusters from compute capability 9.0 on, of the
// portable size, with the budget measured on 9.0.
inline TcaArchTuning tca_arch_tuning(const DeviceInfo& d) {
  for (const TcaArchTuning& t : kTcaMeasuredArchs)
    if (t.major == d.major && t.minor == d.minor) return t;
  return {d.major, d.minor, d.major >= 9 ? kPortableClusterBlocks : 1, kTcaMeasuredArchs[0].cluster_launch_budget};
}

// The current device's.
inline TcaArchTuning tca_tuning() { return tca_arch_tuning(device_info()); }

}  // namespace tessera::kernels::cuda::tca_detail
