#pragma once
/// \file
/// Bucket accumulation array: L = extent of the first output level buckets, h = i
/// (the level-0 coordinate). Each bucket chains its slots; sorting visits the
/// touched buckets in order and sorts only within a bucket, by the remaining key.
#include <algorithm>
#include <cstdint>

#include "tessera/workspace/growable_array.hpp"
#include "tessera/workspace/key_space.hpp"
#include "tessera/workspace/sorted_run.hpp"

namespace tessera::workspace {

/// Accumulation array of the Bucket policy (see the file's comment).
template <class T, int N>
class BucketAccumulation {
 public:
  /// Arrays report their bytes to `meter`.
  explicit BucketAccumulation(ByteMeter* meter)
      : heads_(meter), touched_(meter), keys_(meter), vals_(meter), next_(meter), order_(meter) {}

  /// Every head is `none` between accumulations: clear() resets only touched buckets.
  void reset(const KeySpace<N>& space, std::int64_t capacity) {
    space_ = space;
    capacity_ = std::max<std::int64_t>(capacity, 1);
    const std::int64_t buckets = std::max<std::int64_t>(space.extent(0), 1);
    if (buckets > heads_.capacity()) {
      heads_.release();
      heads_.reserve_exact(buckets);
      heads_.fill(none);
    }
    keys_.reserve_exact(capacity_);
    vals_.reserve_exact(capacity_);
    next_.reserve_exact(capacity_);
    order_.reserve_exact(capacity_);
    clear();
  }
  /// No entry since the last clear().
  bool empty() const { return keys_.empty(); }

  /// Appends one entry to the chain of its bucket; false: full, nothing inserted.
  bool insert(std::int64_t key, T v) {
    const std::int64_t slot = keys_.size();
    if (slot == capacity_) return false;
    const std::int64_t b = N == 1 ? key : space_.first(key);
    if (heads_[b] == none) touched_.push_back(static_cast<std::int32_t>(b));
    keys_.push_back(key);
    vals_.push_back(v);
    next_.push_back(heads_[b]);
    heads_[b] = static_cast<std::int32_t>(slot);
    return true;
  }

  /// The entries by ascending key (equal keys may repeat).
  SortedRun<T> sort() {
    std::int32_t* touched = touched_.data();
    std::sort(touched, touched + touched_.size());
    order_.resize(keys_.size());
    std::int32_t* order = order_.data();
    const std::int64_t* keys = keys_.data();
    std::int64_t n = 0;
    for (std::int64_t t = 0; t < touched_.size(); ++t) {
      const std::int64_t begin = n;
      for (std::int32_t s = heads_[touched[t]]; s != none; s = next_[s]) order[n++] = s;
      // Chains run newest first; restore insertion order so that sums are taken in it.
      std::reverse(order + begin, order + n);
      if (N > 1)
        std::stable_sort(order + begin, order + n, [keys](std::int32_t a, std::int32_t b) { return keys[a] < keys[b]; });
    }
    return {keys, vals_.data(), order, n};
  }

  /// Empties the array, keeping its memory.
  void clear() {
    for (std::int64_t t = 0; t < touched_.size(); ++t) heads_[touched_[t]] = none;
    touched_.clear();
    keys_.clear();
    vals_.clear();
    next_.clear();
  }

 private:
  static constexpr std::int32_t none = -1;
  KeySpace<N> space_;
  std::int64_t capacity_ = 1;
  GrowableArray<std::int32_t> heads_, touched_;
  GrowableArray<std::int64_t> keys_;
  GrowableArray<T> vals_;
  GrowableArray<std::int32_t> next_, order_;
};

}  // namespace tessera::workspace
