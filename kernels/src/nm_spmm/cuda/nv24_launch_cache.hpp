// Launches kept per device and shape, for the two ways a launch is picked on every call
// without one: Auto's estimate (nv24_choose) and the measured pick (nv24_tuned).
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <map>
#include <mutex>
#include <optional>
#include <tuple>

#include "tessera/kernels/nm_spmm/cuda/nv24_spmm_cuda.hpp"
#include "../../common/cuda_support.hpp"

namespace tessera::kernels::cuda::nv24_detail {

// At most kNv24KeptShapes shapes (about 100 bytes each): a program that sees more distinct shapes
// (a batch size that varies call by call, say) forgets the oldest first, and pays its estimate or
// timing again if it comes back, instead of growing without end.
class LaunchCache {
 public:
  // device (the current one), element type, requested tile, m, n, k, k_padded
  using Key = std::tuple<int, int, int, std::int64_t, std::int64_t, std::int64_t, std::int64_t>;
  static Key key(const Nv24Args& a, Nv24Tile tile) {
    int device = 0;
    TESSERA_CUDA_CHECK(cudaGetDevice(&device));
    return {device, static_cast<int>(a.type), static_cast<int>(tile), a.m, a.n, a.k, a.k_padded};
  }
  std::optional<Nv24Launch> find(const Key& key) const {
    std::lock_guard<std::mutex> lock(mutex_);
    const auto found = launches_.find(key);
    return found == launches_.end() ? std::nullopt : std::optional<Nv24Launch>(found->second);
  }
  void store(const Key& key, const Nv24Launch& launch) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!launches_.emplace(key, launch).second) return;  // another thread stored it first
    order_.push_back(key);
    if (order_.size() > kNv24KeptShapes) {
      launches_.erase(order_.front());
      order_.pop_front();
    }
  }
  std::size_t size() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return launches_.size();
  }

 private:
  mutable std::mutex mutex_;
  std::map<Key, Nv24Launch> launches_;
  std::deque<Key> order_;  // the keys of launches_, oldest first
};

}  // namespace tessera::kernels::cuda::nv24_detail
