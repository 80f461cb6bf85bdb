#pragma once
/// \file
/// DenseWorkspace<T, N>: Gustavson's flag array over every output position, plus the
/// list of touched keys. Draining sorts the touched list, or scans the flags when
/// most positions were touched.
#include <algorithm>
#include <cmath>
#include <cstdint>

#include "tessera/workspace/growable_array.hpp"
#include "tessera/workspace/key_space.hpp"
#include "tessera/workspace/policies.hpp"

namespace tessera::workspace {

/// Workspace of the Dense policy (see the file's comment).
template <class T, int N>
class DenseWorkspace {
 public:
  /// The options are for the sparse policies; a dense workspace ignores them.
  explicit DenseWorkspace(const IsmOptions&) : vals_(&meter_), flags_(&meter_), touched_(&meter_) {}
  /// Not copyable.
  DenseWorkspace(const DenseWorkspace&) = delete;
  DenseWorkspace& operator=(const DenseWorkspace&) = delete;

  /// Flags are all clear between accumulations: drain() clears only touched ones.
  void reset(const KeySpace<N>& space, std::int64_t nnz_estimate) {
    const std::int64_t positions = std::max<std::int64_t>(space.size(), 1);
    if (positions > flags_.capacity()) {
      vals_.release();
      flags_.release();
      vals_.reserve_exact(positions);
      flags_.reserve_exact(positions);
      flags_.fill(0);
    }
    positions_ = positions;
    touched_.reserve_exact(std::min(nnz_estimate, positions));
  }

  /// Scatters one product; duplicates are summed.
  void add(std::int64_t key, T v) {
    if (flags_[key]) {
      vals_[key] += v;
      return;
    }
    flags_[key] = 1;
    vals_[key] = v;
    touched_.push_back(key);
  }

  /// emit(key, value) for every accumulated key, ascending; the workspace is then empty.
  template <class Emit>
  void drain(Emit&& emit) {
    const std::int64_t n = touched_.size();
    const double sort_cost = static_cast<double>(n) * std::log2(static_cast<double>(n) + 2);
    if (sort_cost < static_cast<double>(positions_)) {
      std::int64_t* touched = touched_.data();
      std::sort(touched, touched + n);
      for (std::int64_t t = 0; t < n; ++t) {
        const std::int64_t k = touched[t];
        emit(k, vals_[k]);
        flags_[k] = 0;
      }
    } else {
      for (std::int64_t k = 0; k < positions_; ++k)
        if (flags_[k]) {
          emit(k, vals_[k]);
          flags_[k] = 0;
        }
    }
    touched_.clear();
  }

  /// Bytes allocated at peak.
  std::int64_t peak_bytes() const { return meter_.peak(); }

 private:
  ByteMeter meter_;
  std::int64_t positions_ = 0;
  GrowableArray<T> vals_;
  GrowableArray<unsigned char> flags_;
  GrowableArray<std::int64_t> touched_;
};

}  // namespace tessera::workspace
