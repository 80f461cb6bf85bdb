#pragma once
/// \file
/// What a handle checks on every call: that it is used with the tensor it was built for. The
/// first call binds it to the tensor's extents, nonzero count and index arrays. Later calls
/// with the same arrays pass at no cost; calls with other arrays of the same extents and count
/// (a copy, a tensor moved to another space and back) pass when a fingerprint of their index
/// arrays, computed in their space, matches; anything else raises ShapeError instead of
/// computing with a plan made for another pattern. Rewriting the bound arrays in place cannot
/// be seen without reading them: reset() the handle after doing that.
#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include <Kokkos_Core.hpp>

#include "tessera/core/error.hpp"

namespace tessera::kernels {

namespace detail {

KOKKOS_INLINE_FUNCTION std::uint64_t mix64(std::uint64_t x) {  // splitmix64's finalizer
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ULL;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

// Order-sensitive fingerprint of an index array: a sum of mixed (position, value) pairs, so one
// parallel reduction in the array's own space computes it.
template <class View>
std::uint64_t index_fingerprint(const View& v) {
  using V = typename View::non_const_value_type;
  static_assert(std::is_integral_v<V>, "fingerprints are taken of index arrays");
  using Space = typename View::execution_space;
  const Kokkos::View<const V*, typename View::memory_space, Kokkos::MemoryTraits<Kokkos::Unmanaged>> flat(v.data(),
                                                                                                           v.span());
  std::uint64_t sum = 0;
  Kokkos::parallel_reduce(
      "tessera::pattern_fingerprint", Kokkos::RangePolicy<Space, Kokkos::IndexType<std::int64_t>>(0, v.span()),
      KOKKOS_LAMBDA(const std::int64_t i, std::uint64_t& s) {
        s += mix64(static_cast<std::uint64_t>(i) * 0x9e3779b97f4a7c15ULL ^
                   static_cast<std::uint64_t>(static_cast<std::int64_t>(flat(i))));
      },
      sum);
  return mix64(sum ^ static_cast<std::uint64_t>(v.span()));
}

inline std::string extents_text(const std::vector<std::int64_t>& extents, std::int64_t nnz) {
  std::string s;
  for (std::size_t i = 0; i < extents.size(); ++i) s += (i ? " x " : "") + std::to_string(extents[i]);
  return s + " tensor with " + std::to_string(nnz) + " stored entries";
}

}  // namespace detail

/// Which tensor a handle serves (see the file's comment).
class PatternBinding {
 public:
  /// Binds on the first call (returns true: the caller builds its state) and checks on later
  /// ones (returns false). `who` names the call in errors; `views` are the index arrays.
  template <class... Views>
  bool bind(const char* who, const std::vector<std::int64_t>& extents, std::int64_t nnz, const Views&... views) {
    const std::vector<const void*> arrays{static_cast<const void*>(views.data())...};
    if (!bound_) {
      extents_ = extents;
      nnz_ = nnz;
      arrays_ = arrays;
      if (!single_call_) fingerprint_ = fingerprint(views...);
      bound_ = true;
      return true;
    }
    if (extents != extents_ || nnz != nnz_)
      throw ShapeError(std::string(who) + ": the handle was built for a " + detail::extents_text(extents_, nnz_) +
                       ", not a " + detail::extents_text(extents, nnz) +
                       "; use one handle per tensor, or reset() it to rebind");
    if (arrays == arrays_) return false;
    if (fingerprint(views...) != fingerprint_)
      throw ShapeError(std::string(who) + ": the handle was built for another sparsity pattern of the same " +
                       detail::extents_text(extents_, nnz_) + "; use one handle per tensor, or reset() it to rebind");
    arrays_ = arrays;  // the same pattern in other arrays: serve them from now on
    return false;
  }
  /// Whether bind() with these arrays would read them (a first call, or other arrays), which
  /// synchronizes their space.
  template <class... Views>
  bool would_read(const Views&... views) const {
    if (single_call_) return false;
    return !bound_ || std::vector<const void*>{static_cast<const void*>(views.data())...} != arrays_;
  }
  /// True once bind() has bound a tensor.
  bool bound() const noexcept { return bound_; }
  /// Forgets the tensor (keeps serve_single_call()).
  void reset() noexcept {
    const bool single_call = single_call_;
    *this = PatternBinding();
    single_call_ = single_call;
  }
  /// For the handle a call given options makes for itself: it serves that call alone, so no
  /// fingerprint is taken.
  void serve_single_call() noexcept { single_call_ = true; }
  /// True when it serves one call alone (serve_single_call()): nothing it keeps is reused.
  bool single_call() const noexcept { return single_call_; }

 private:
  template <class... Views>
  static std::uint64_t fingerprint(const Views&... views) {
    std::uint64_t f = 0;
    ((f = detail::mix64(f ^ detail::index_fingerprint(views))), ...);
    return f;
  }
  bool bound_ = false, single_call_ = false;
  std::vector<std::int64_t> extents_;
  std::int64_t nnz_ = 0;
  std::vector<const void*> arrays_;
  std::uint64_t fingerprint_ = 0;
};

}  // namespace tessera::kernels
