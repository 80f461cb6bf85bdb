#pragma once
/// \file
/// AllArray<T, N>: the sorted, duplicate-free entries merged so far, as COO in
/// structure-of-arrays form (one coordinate array per output level + values).
/// merge() folds a SortedRun in; with double buffering the merge writes into a
/// retained second set of arrays and swaps, otherwise into a fresh allocation.
#include <array>
#include <cstdint>
#include <limits>

#include "tessera/workspace/growable_array.hpp"
#include "tessera/workspace/key_space.hpp"
#include "tessera/workspace/sorted_run.hpp"

namespace tessera::workspace {

/// The merged entries of an IsmWorkspace (see the file's comment).
template <class T, int N>
class AllArray {
 public:
  /// Arrays report their bytes to `meter`; `double_buffer` keeps the second set of arrays.
  AllArray(ByteMeter* meter, bool double_buffer) : double_buffer_(double_buffer) {
    for (int l = 0; l < N; ++l) {
      crd_[l].set_meter(meter);
      spare_crd_[l].set_meter(meter);
    }
    vals_.set_meter(meter);
    spare_vals_.set_meter(meter);
  }

  /// Starts over for outputs of `space`.
  void reset(const KeySpace<N>& space) {
    space_ = space;
    clear();
  }
  /// Empties the array, keeping its memory.
  void clear() {
    for (auto& c : crd_) c.clear();
    vals_.clear();
  }
  /// Number of entries.
  std::int64_t size() const { return vals_.size(); }
  /// No entry.
  bool empty() const { return vals_.empty(); }

  /// Folds `run` in, summing equal keys.
  void merge(const SortedRun<T>& run) {
    if (run.size == 0) return;
    if (!double_buffer_) {
      for (auto& c : spare_crd_) c.release();
      spare_vals_.release();
    }
    const std::int64_t bound = size() + run.size;
    for (auto& c : spare_crd_) c.resize(bound);
    spare_vals_.resize(bound);
    std::int64_t a = 0, r = 0, out = 0;
    const std::int64_t na = size();
    while (a < na || r < run.size) {
      const std::int64_t ka = a < na ? key_at(a) : std::numeric_limits<std::int64_t>::max();
      const std::int64_t kr = r < run.size ? run.key_at(r) : std::numeric_limits<std::int64_t>::max();
      if (ka < kr) {
        for (int l = 0; l < N; ++l) spare_crd_[l][out] = crd_[l][a];
        spare_vals_[out++] = vals_[a++];
        continue;
      }
      T sum = ka == kr ? vals_[a++] : T(0);
      for (; r < run.size && run.key_at(r) == kr; ++r) sum += run.val_at(r);
      const auto c = space_.coords(kr);
      for (int l = 0; l < N; ++l) spare_crd_[l][out] = static_cast<std::int32_t>(c[l]);
      spare_vals_[out++] = sum;
    }
    for (int l = 0; l < N; ++l) {
      spare_crd_[l].resize(out);
      crd_[l].swap(spare_crd_[l]);
    }
    spare_vals_.resize(out);
    vals_.swap(spare_vals_);
    if (!double_buffer_) {
      for (auto& c : spare_crd_) c.release();
      spare_vals_.release();
    }
  }

  /// Key of entry `n`.
  std::int64_t key_at(std::int64_t n) const {
    std::int64_t k = crd_[0][n];
    for (int l = 1; l < N; ++l) k = k * space_.extent(l) + crd_[l][n];
    return k;
  }
  /// Value of entry `n`.
  T value_at(std::int64_t n) const { return vals_[n]; }

 private:
  KeySpace<N> space_;
  bool double_buffer_;
  std::array<GrowableArray<std::int32_t>, N> crd_, spare_crd_;
  GrowableArray<T> vals_, spare_vals_;
};

}  // namespace tessera::workspace
