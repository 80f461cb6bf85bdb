#pragma once
/// \file
/// Coord accumulation array: entries are appended as they come (duplicates kept);
/// when full, the slot ids are sorted lexicographically by coordinates (= by key).
#include <algorithm>
#include <cstdint>
#include <numeric>

#include "tessera/workspace/growable_array.hpp"
#include "tessera/workspace/key_space.hpp"
#include "tessera/workspace/sorted_run.hpp"

namespace tessera::workspace {

/// Accumulation array of the Coord policy (see the file's comment).
template <class T, int N>
class CoordAccumulation {
 public:
  /// Arrays report their bytes to `meter`.
  explicit CoordAccumulation(ByteMeter* meter) : keys_(meter), vals_(meter), order_(meter) {}

  /// Starts an accumulation of at most `capacity` entries.
  void reset(const KeySpace<N>&, std::int64_t capacity) {
    capacity_ = std::max<std::int64_t>(capacity, 1);
    keys_.reserve_exact(capacity_);
    vals_.reserve_exact(capacity_);
    order_.reserve_exact(capacity_);
    clear();
  }
  /// No entry since the last clear().
  bool empty() const { return keys_.empty(); }

  /// false: full, nothing inserted.
  bool insert(std::int64_t key, T v) {
    if (keys_.size() == capacity_) return false;
    keys_.push_back(key);
    vals_.push_back(v);
    return true;
  }

  /// The entries by ascending key (equal keys may repeat).
  SortedRun<T> sort() {
    const std::int64_t n = keys_.size();
    order_.resize(n);
    std::int32_t* order = order_.data();
    const std::int64_t* keys = keys_.data();
    sort_order_by_key(keys, order, n);
    return {keys, vals_.data(), order, n};
  }

  /// Empties the array, keeping its memory.
  void clear() {
    keys_.clear();
    vals_.clear();
  }

 private:
  std::int64_t capacity_ = 1;
  GrowableArray<std::int64_t> keys_;
  GrowableArray<T> vals_;
  GrowableArray<std::int32_t> order_;
};

}  // namespace tessera::workspace
