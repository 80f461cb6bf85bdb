#pragma once
/// \file
/// SortedRun: what sorting an accumulation array produces. The entries stay where
/// they were inserted; `order` lists their slots by ascending key (accumulation
/// indexing: sort and merge move 4-byte indices, not keys and values). Equal keys
/// may repeat (Coord, Bucket); readers sum them.
#include <algorithm>
#include <cstdint>
#include <numeric>

namespace tessera::workspace {

/// order = 0..n-1 sorted by keys[order[i]]: sorting moves 4-byte indices, not entries.
inline void sort_order_by_key(const std::int64_t* keys, std::int32_t* order, std::int64_t n) {
  std::iota(order, order + n, 0);
  std::sort(order, order + n, [keys](std::int32_t a, std::int32_t b) { return keys[a] < keys[b]; });
}

/// Entries of an accumulation array in ascending key order (see the file's comment).
template <class T>
struct SortedRun {
  const std::int64_t* keys = nullptr;   ///< (slots)
  const T* vals = nullptr;              ///< (slots)
  const std::int32_t* order = nullptr;  ///< (size) slots by ascending key
  std::int64_t size = 0;                ///< number of entries

  /// Key of the r-th entry in key order.
  std::int64_t key_at(std::int64_t r) const { return keys[order[r]]; }
  /// Value of the r-th entry in key order.
  T val_at(std::int64_t r) const { return vals[order[r]]; }

  /// Calls emit(key, sum of the values of that key) for each distinct key, ascending.
  template <class Emit>
  void for_each_unique(Emit&& emit) const {
    std::int64_t r = 0;
    while (r < size) {
      const std::int64_t k = key_at(r);
      T sum = val_at(r);
      for (++r; r < size && key_at(r) == k; ++r) sum += val_at(r);
      emit(k, sum);
    }
  }
};

}  // namespace tessera::workspace
