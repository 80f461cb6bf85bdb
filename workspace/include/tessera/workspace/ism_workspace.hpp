#pragma once
/// \file
/// IsmWorkspace<Accumulation, T, N>: the insert-sort-merge template. Entries are
/// inserted into an accumulation array; when it is full it is sorted (by index) and
/// merged into the all array; drain() merges the rest and emits the sorted,
/// duplicate-free entries. With pipelining, a helper thread sorts and merges a full
/// accumulation array while insertion continues into a second one.
#include <algorithm>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <thread>

#include "tessera/workspace/all_array.hpp"
#include "tessera/workspace/growable_array.hpp"
#include "tessera/workspace/key_space.hpp"
#include "tessera/workspace/policies.hpp"

namespace tessera::workspace {

/// Workspace of the sparse policies: Bucket, Hash and Coord (see the file's comment).
template <template <class, int> class Accumulation, class T, int N>
class IsmWorkspace {
  using Acc = Accumulation<T, N>;

 public:
  /// Arrays sized and run as `options` says.
  explicit IsmWorkspace(const IsmOptions& options)
      : options_(options), all_(&meter_, options.double_buffer), first_(&meter_), second_(&meter_) {}
  /// Not copyable.
  IsmWorkspace(const IsmWorkspace&) = delete;
  IsmWorkspace& operator=(const IsmWorkspace&) = delete;
  /// Stops the helper thread, if any.
  ~IsmWorkspace() {
    if (!helper_.joinable()) return;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stop_ = true;
    }
    wake_.notify_all();
    helper_.join();
  }

  /// Starts an accumulation over `space`; nnz_estimate bounds (or estimates) the
  /// distinct entries to come and sizes the accumulation array.
  void reset(const KeySpace<N>& space, std::int64_t nnz_estimate) {
    const std::int64_t capacity = options_.accumulation_capacity > 0
                                      ? options_.accumulation_capacity
                                      : std::clamp<std::int64_t>(nnz_estimate, 1, options_.max_accumulation);
    all_.reset(space);
    first_.reset(space, capacity);
    if (options_.pipelining) second_.reset(space, capacity);
    active_ = &first_;
  }

  /// Scatters one product; duplicates are summed.
  void add(std::int64_t key, T v) {
    if (active_->insert(key, v)) return;
    flush();
    active_->insert(key, v);
  }

  /// emit(key, value) for every accumulated key, ascending; the workspace is then empty.
  template <class Emit>
  void drain(Emit&& emit) {
    wait_for_helper();
    if (all_.empty()) {
      active_->sort().for_each_unique(emit);
    } else {
      all_.merge(active_->sort());
      for (std::int64_t n = 0; n < all_.size(); ++n) emit(all_.key_at(n), all_.value_at(n));
      all_.clear();
    }
    active_->clear();
  }

  /// Bytes allocated at peak.
  std::int64_t peak_bytes() const { return meter_.peak(); }

 private:
  void flush() {
    if (!options_.pipelining) {
      all_.merge(active_->sort());
      active_->clear();
      return;
    }
    wait_for_helper();
    if (!helper_.joinable()) helper_ = std::thread([this] { helper_loop(); });
    {
      std::lock_guard<std::mutex> lock(mutex_);
      job_ = active_;
    }
    wake_.notify_all();
    active_ = active_ == &first_ ? &second_ : &first_;
  }

  void wait_for_helper() {
    if (!options_.pipelining) return;
    std::unique_lock<std::mutex> lock(mutex_);
    done_.wait(lock, [this] { return job_ == nullptr; });
  }

  void helper_loop() {
    for (;;) {
      Acc* job;
      {
        std::unique_lock<std::mutex> lock(mutex_);
        wake_.wait(lock, [this] { return job_ != nullptr || stop_; });
        if (stop_) return;
        job = job_;
      }
      all_.merge(job->sort());
      job->clear();
      {
        std::lock_guard<std::mutex> lock(mutex_);
        job_ = nullptr;
      }
      done_.notify_all();
    }
  }

  IsmOptions options_;
  ByteMeter meter_;
  AllArray<T, N> all_;
  Acc first_, second_;
  Acc* active_ = &first_;
  /// Pipelining: the helper owns *job_ and the all array while job_ is set.
  std::thread helper_;
  std::mutex mutex_;
  std::condition_variable wake_, done_;
  Acc* job_ = nullptr;
  bool stop_ = false;
};

}  // namespace tessera::workspace
