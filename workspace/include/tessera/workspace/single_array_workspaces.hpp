#pragma once
/// \file
/// The two single-array extremes the ISM design is compared against: no accumulation
/// array, no merges.
/// \code{.unparsed}
///   MapWorkspace       one array kept sorted on every insert (binary search + shift).
///   SortOnceWorkspace  one array appended to, sorted once when drained.
/// \endcode
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <numeric>

#include "tessera/workspace/growable_array.hpp"
#include "tessera/workspace/key_space.hpp"
#include "tessera/workspace/policies.hpp"
#include "tessera/workspace/sorted_run.hpp"

namespace tessera::workspace {

/// Workspace of the Map policy: one array kept sorted on every insert.
template <class T, int N>
class MapWorkspace {
 public:
  /// The options are for the ISM policies; this workspace ignores them.
  explicit MapWorkspace(const IsmOptions&) : keys_(&meter_), vals_(&meter_) {}
  /// Not copyable.
  MapWorkspace(const MapWorkspace&) = delete;
  MapWorkspace& operator=(const MapWorkspace&) = delete;

  /// Starts an accumulation (the array is emptied).
  void reset(const KeySpace<N>&, std::int64_t) {
    keys_.clear();
    vals_.clear();
  }

  /// Scatters one product; duplicates are summed.
  void add(std::int64_t key, T v) {
    const std::int64_t n = keys_.size();
    std::int64_t* keys = keys_.data();
    const std::int64_t at = std::lower_bound(keys, keys + n, key) - keys;
    if (at < n && keys[at] == key) {
      vals_[at] += v;
      return;
    }
    keys_.resize(n + 1);
    vals_.resize(n + 1);
    keys = keys_.data();
    std::memmove(keys + at + 1, keys + at, sizeof(std::int64_t) * (n - at));
    std::memmove(vals_.data() + at + 1, vals_.data() + at, sizeof(T) * (n - at));
    keys[at] = key;
    vals_[at] = v;
  }

  /// emit(key, value) for every accumulated key, ascending; the workspace is then empty.
  template <class Emit>
  void drain(Emit&& emit) {
    for (std::int64_t n = 0; n < keys_.size(); ++n) emit(keys_[n], vals_[n]);
    keys_.clear();
    vals_.clear();
  }

  /// Bytes allocated at peak.
  std::int64_t peak_bytes() const { return meter_.peak(); }

 private:
  ByteMeter meter_;
  GrowableArray<std::int64_t> keys_;
  GrowableArray<T> vals_;
};

/// Workspace of the SortOnce policy: one array appended to, sorted once when drained.
template <class T, int N>
class SortOnceWorkspace {
 public:
  /// The options are for the ISM policies; this workspace ignores them.
  explicit SortOnceWorkspace(const IsmOptions&) : keys_(&meter_), vals_(&meter_), order_(&meter_) {}
  /// Not copyable.
  SortOnceWorkspace(const SortOnceWorkspace&) = delete;
  SortOnceWorkspace& operator=(const SortOnceWorkspace&) = delete;

  /// Starts an accumulation (the array is emptied).
  void reset(const KeySpace<N>&, std::int64_t) {
    keys_.clear();
    vals_.clear();
  }

  /// Scatters one product; duplicates are summed when drained.
  void add(std::int64_t key, T v) {
    keys_.push_back(key);
    vals_.push_back(v);
  }

  /// emit(key, value) for every accumulated key, ascending; the workspace is then empty.
  template <class Emit>
  void drain(Emit&& emit) {
    const std::int64_t n = keys_.size();
    order_.resize(n);
    std::int32_t* order = order_.data();
    const std::int64_t* keys = keys_.data();
    sort_order_by_key(keys, order, n);
    SortedRun<T>{keys, vals_.data(), order, n}.for_each_unique(emit);
    keys_.clear();
    vals_.clear();
  }

  /// Bytes allocated at peak.
  std::int64_t peak_bytes() const { return meter_.peak(); }

 private:
  ByteMeter meter_;
  GrowableArray<std::int64_t> keys_;
  GrowableArray<T> vals_;
  GrowableArray<std::int32_t> order_;
};

}  // namespace tessera::workspace
