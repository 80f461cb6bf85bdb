#pragma once
/// \file
/// HostCoo: the plain host-side coordinate list that file readers produce and that
/// encodings are built from. It carries no ordering or uniqueness guarantees.
#include <cstdint>
#include <vector>

namespace tessera {

/// Coordinate list on the host: one extent per mode, then (coordinates, value) per entry.
template <class T = double>
struct HostCoo {
  std::vector<std::int64_t> shape;   ///< one extent per mode
  std::vector<std::int64_t> coords;  ///< (nnz, order) row-major, 0-based: entry n, mode m at coords[n*order + m]
  std::vector<T> values;             ///< (nnz)

  /// Number of modes.
  int order() const { return static_cast<int>(shape.size()); }
  /// Number of entries.
  std::int64_t nnz() const { return static_cast<std::int64_t>(values.size()); }
  /// Coordinate of entry `n` along `mode`.
  std::int64_t coord(std::int64_t n, int mode) const { return coords[n * order() + mode]; }
};

}  // namespace tessera
