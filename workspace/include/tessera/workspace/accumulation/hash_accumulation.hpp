#pragma once
/// \file
/// Hash accumulation array: open addressing with linear probing over L = 2^ceil(log2 nnz)
/// slots, h = key mod L (key = i*J + j for a matrix), where nnz is the number of entries
/// the table must hold below its 3/4 load limit. Duplicates are summed on insert,
/// so a run has unique keys; sorting orders only the occupied slot ids.
#include <algorithm>
#include <cstdint>

#include "tessera/workspace/growable_array.hpp"
#include "tessera/workspace/key_space.hpp"
#include "tessera/workspace/sorted_run.hpp"

namespace tessera::workspace {

/// Accumulation array of the Hash policy (see the file's comment).
template <class T, int N>
class HashAccumulation {
 public:
  /// Arrays report their bytes to `meter`.
  explicit HashAccumulation(ByteMeter* meter) : keys_(meter), vals_(meter), used_(meter) {}

  /// Every slot holds empty_key between accumulations: clear() resets only used slots.
  void reset(const KeySpace<N>&, std::int64_t nnz) {
    std::int64_t slots = 2;
    while (slots < nnz + nnz / 3) slots *= 2;
    mask_ = slots - 1;
    // Linear probing slows down sharply near a full table (and never ends in a full
    // one): a table counts as full at 3/4.
    limit_ = slots / 4 * 3 + (slots == 2 ? 1 : 0);
    if (slots > keys_.capacity()) {
      keys_.release();
      vals_.release();
      keys_.reserve_exact(slots);
      vals_.reserve_exact(slots);
      keys_.fill(empty_key);
    }
    used_.reserve_exact(limit_);
    clear();
  }
  /// No entry since the last clear().
  bool empty() const { return used_.empty(); }

  /// Adds `v` to the slot of `key`; false: full, nothing inserted.
  bool insert(std::int64_t key, T v) {
    std::int64_t* keys = keys_.data();
    for (std::int64_t h = key & mask_;; h = (h + 1) & mask_) {
      if (keys[h] == key) {
        vals_[h] += v;
        return true;
      }
      if (keys[h] == empty_key) {
        if (used_.size() == limit_) return false;
        keys[h] = key;
        vals_[h] = v;
        used_.push_back(static_cast<std::int32_t>(h));
        return true;
      }
    }
  }

  /// The occupied slots by ascending key (keys are unique).
  SortedRun<T> sort() {
    std::int32_t* used = used_.data();
    const std::int64_t* keys = keys_.data();
    std::sort(used, used + used_.size(), [keys](std::int32_t a, std::int32_t b) { return keys[a] < keys[b]; });
    return {keys, vals_.data(), used, used_.size()};
  }

  /// Empties the table, keeping its memory.
  void clear() {
    for (std::int64_t u = 0; u < used_.size(); ++u) keys_[used_[u]] = empty_key;
    used_.clear();
  }

 private:
  static constexpr std::int64_t empty_key = -1;
  std::int64_t mask_ = 0, limit_ = 1;
  GrowableArray<std::int64_t> keys_;
  GrowableArray<T> vals_;
  GrowableArray<std::int32_t> used_;  ///< occupied slots, in insertion order until sorted
};

}  // namespace tessera::workspace
