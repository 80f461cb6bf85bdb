#pragma once
/// \file
/// KeySpace<N>: the output coordinates of a workspace, (c_0, ..., c_{N-1}) in the
/// result's storage order, as one linear key k = (c_0 * E_1 + c_1) * E_2 + ...
/// Key order is the lexicographic order of the coordinates, so sorting keys sorts
/// entries in storage order.
#include <array>
#include <cstdint>
#include <limits>
#include <string>

#include "tessera/core/checked_count.hpp"
#include "tessera/core/error.hpp"

namespace tessera::workspace {

/// Output coordinates of a workspace as linear keys (see the file's comment).
template <int N>
class KeySpace {
  static_assert(N >= 1, "a workspace has at least one output level");

 public:
  /// Every extent 0.
  KeySpace() { extents_.fill(0); }
  /// Keys over storage-level extents `extents`; OverflowError when one exceeds 32 bits.
  explicit KeySpace(const std::array<std::int64_t, N>& extents) : extents_(extents) {
    for (int l = 0; l < N; ++l) {
      if (extents_[l] > std::numeric_limits<std::int32_t>::max())
        throw OverflowError("workspace: extent " + std::to_string(extents_[l]) + " of output level " +
                            std::to_string(l) + " does not fit 32-bit coordinates");
      size_ = tessera::detail::checked_count_product(size_, extents_[l], "workspace: the output");
    }
  }

  /// Number of distinct keys (positions of a dense output).
  std::int64_t size() const { return size_; }
  /// Extent of storage level `l`.
  std::int64_t extent(int l) const { return extents_[l]; }
  /// Extents of the storage levels.
  const std::array<std::int64_t, N>& extents() const { return extents_; }

  /// Key of coordinates `c`.
  std::int64_t key(const std::array<std::int64_t, N>& c) const {
    std::int64_t k = c[0];
    for (int l = 1; l < N; ++l) k = k * extents_[l] + c[l];
    return k;
  }
  /// Coordinate of storage level 0 (the bucket of the Bucket policy).
  std::int64_t first(std::int64_t key) const { return key / inner_size(); }
  /// Coordinates of `key`.
  std::array<std::int64_t, N> coords(std::int64_t key) const {
    std::array<std::int64_t, N> c{};
    for (int l = N - 1; l > 0; --l) {
      c[l] = key % extents_[l];
      key /= extents_[l];
    }
    c[0] = key;
    return c;
  }
  /// Positions under one coordinate of level 0.
  std::int64_t inner_size() const {
    std::int64_t s = 1;
    for (int l = 1; l < N; ++l) s *= extents_[l];
    return s == 0 ? 1 : s;
  }

 private:
  std::array<std::int64_t, N> extents_;
  std::int64_t size_ = 1;
};

}  // namespace tessera::workspace
