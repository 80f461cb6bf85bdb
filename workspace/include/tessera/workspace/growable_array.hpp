#pragma once
/// \file
/// GrowableArray: a host array that grows by the piecewise-linear reallocation
/// heuristic and reports its bytes to a ByteMeter, so that a workspace can state
/// what it allocated at peak.
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstring>
#include <memory>
#include <type_traits>

namespace tessera::workspace {

/// Bytes currently held and the most ever held by the arrays of one workspace.
/// Atomic: with pipelining, the helper thread grows the all array while the
/// inserting thread grows its accumulation array.
class ByteMeter {
 public:
  /// Adds `delta` bytes (negative: freed).
  void change(std::int64_t delta) {
    const std::int64_t now = current_.fetch_add(delta) + delta;
    std::int64_t seen = peak_.load();
    while (now > seen && !peak_.compare_exchange_weak(seen, now)) {
    }
  }
  /// Most bytes ever held.
  std::int64_t peak() const { return peak_.load(); }

 private:
  std::atomic<std::int64_t> current_{0}, peak_{0};
};

/// Capacity for `needed` elements. Growth is piecewise linear in the size: +50% while
/// small, then steps of at most 4 Mi elements. Doubling would over-allocate large
/// all arrays by up to half, which is exactly the memory a sparse workspace saves.
inline std::int64_t grown_capacity(std::int64_t needed) {
  constexpr std::int64_t min_step = std::int64_t{1} << 8, max_step = std::int64_t{1} << 22;
  return needed + std::clamp(needed / 2, min_step, max_step);
}

/// Host array of plain numbers that reports its bytes to a ByteMeter (see the file's comment).
template <class V>
class GrowableArray {
  static_assert(std::is_trivially_copyable_v<V>, "workspace arrays hold plain numbers");

 public:
  /// Empty; bytes go to `meter` when given.
  explicit GrowableArray(ByteMeter* meter = nullptr) : meter_(meter) {}
  /// Not copyable.
  GrowableArray(const GrowableArray&) = delete;
  GrowableArray& operator=(const GrowableArray&) = delete;
  /// Takes over `other`'s memory.
  GrowableArray(GrowableArray&& other) noexcept { *this = std::move(other); }
  /// Frees this array's memory, then takes over `other`'s.
  GrowableArray& operator=(GrowableArray&& other) noexcept {
    release();
    data_ = std::move(other.data_);
    size_ = other.size_;
    capacity_ = other.capacity_;
    meter_ = other.meter_;
    other.size_ = other.capacity_ = 0;
    return *this;
  }
  /// Frees the memory.
  ~GrowableArray() { release(); }

  /// Bytes go to `meter` from now on.
  void set_meter(ByteMeter* meter) { meter_ = meter; }
  /// First element.
  V* data() { return data_.get(); }
  /// First element.
  const V* data() const { return data_.get(); }
  /// Element `i` (unchecked).
  V& operator[](std::int64_t i) { return data_[i]; }
  /// Element `i` (unchecked).
  const V& operator[](std::int64_t i) const { return data_[i]; }
  /// Number of elements.
  std::int64_t size() const { return size_; }
  /// Elements allocated.
  std::int64_t capacity() const { return capacity_; }
  /// No element.
  bool empty() const { return size_ == 0; }
  /// Size 0, memory kept.
  void clear() { size_ = 0; }

  /// Exactly `capacity` elements (fixed-size arrays: hash tables, flag arrays).
  void reserve_exact(std::int64_t capacity) {
    if (capacity > capacity_) reallocate(capacity);
  }
  /// Keeps the contents; grows by grown_capacity() when needed.
  void resize(std::int64_t size) {
    if (size > capacity_) reallocate(grown_capacity(size));
    size_ = size;
  }
  /// Appends `v`, growing by grown_capacity() when needed.
  void push_back(V v) {
    if (size_ == capacity_) reallocate(grown_capacity(size_ + 1));
    data_[size_++] = v;
  }
  /// Sets every allocated element to `v`.
  void fill(V v) { std::fill(data_.get(), data_.get() + capacity_, v); }
  /// Exchanges contents with `other` (meters stay).
  void swap(GrowableArray& other) noexcept {
    std::swap(data_, other.data_);
    std::swap(size_, other.size_);
    std::swap(capacity_, other.capacity_);
  }
  /// Frees the memory.
  void release() {
    if (meter_) meter_->change(-capacity_ * static_cast<std::int64_t>(sizeof(V)));
    data_.reset();
    size_ = capacity_ = 0;
  }

 private:
  void reallocate(std::int64_t capacity) {
    std::unique_ptr<V[]> grown(new V[capacity]);
    if (size_ > 0) std::memcpy(grown.get(), data_.get(), sizeof(V) * size_);
    if (meter_) meter_->change((capacity - capacity_) * static_cast<std::int64_t>(sizeof(V)));
    data_ = std::move(grown);
    capacity_ = capacity;
  }

  std::unique_ptr<V[]> data_;
  std::int64_t size_ = 0, capacity_ = 0;
  ByteMeter* meter_ = nullptr;
};

}  // namespace tessera::workspace
