#pragma once
// Lookup in the per-architecture tables of fitted constants (nv24_time_model.hpp,
// vnm_tuning.hpp): rows that carry the compute capability they were measured on. Not installed.
#include <cstddef>

#include "../../common/device_info.hpp"

namespace tessera::kernels::cuda {

// The row measured on d's compute capability (*exact true), else the newest one below it, else
// the oldest (a GPU older than every row).
template <class Row, std::size_t N>
const Row& tuning_row(const Row (&table)[N], const DeviceInfo& d, bool* exact = nullptr) {
  const auto before = [](int major, int minor, const Row& r) {
    return r.major < major || (r.major == major && r.minor < minor);
  };
  const Row *below = nullptr, *oldest = &table[0];
  for (const Row& row : table) {
    const bool same = row.major == d.major && row.minor == d.minor;
    if (exact) *exact = same;
    if (same) return row;
    if (before(d.major, d.minor, row) && (!below || before(row.major, row.minor, *below))) below = &row;
    if (before(oldest->major, oldest->minor, row)) oldest = &row;
  }
  return below ? *below : *oldest;
}

}  // namespace tessera::kernels::cuda
