#pragma once
/// \file
/// NV24: a weight B (k x n) with 2:4 sparsity along k, stored as the values and metadata
/// that the sparse tensor cores' mma.sp consumes (layout: formats/nv24/layout.hpp).
///
/// \code
///   auto W  = tessera::prune_nv24(B);          // keep the 2 largest |b| of every 4 along k
///   auto W2 = tessera::nv24_from_dense(B);     // B must already be 2:4, else FormatError
///   auto D  = tessera::to_dense(W);            // k x n, LayoutRight
///   auto& s = W.decompose();                   // s.vals (n x k_padded/2), s.meta (words)
///   auto Wh = W.to<Kokkos::DefaultHostExecutionSpace>();
/// \endcode
///
/// Value types: Kokkos::Experimental::half_t (fp16), tessera::bf16_t (nv24/bf16.hpp), and
/// float/double for the portable kernel. k is padded with zeros to a multiple of 64
/// (k_padded); extent(0) stays the original k.
#include <array>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>

#include <Kokkos_Core.hpp>

#include "tessera/core/checked_count.hpp"
#include "tessera/core/error.hpp"
#include "tessera/core/tensor.hpp"
#include "tessera/formats/nv24/bf16.hpp"
#include "tessera/formats/nv24/host_codec.hpp"
#include "tessera/formats/nv24/layout.hpp"

namespace tessera {

namespace nv24::detail {
// double <-> the value type, through float for the 16-bit types
template <class T>
KOKKOS_INLINE_FUNCTION double to_double(const T& x) {
  if constexpr (std::is_arithmetic_v<T>) return static_cast<double>(x);
  else return static_cast<double>(static_cast<float>(x));
}
template <class T>
KOKKOS_INLINE_FUNCTION T from_double(double x) {
  if constexpr (std::is_arithmetic_v<T>) return static_cast<T>(x);
  else return static_cast<T>(static_cast<float>(x));
}

// A k x n weight's padded extents and arrays fit int64 and the address space (OverflowError
// otherwise): padded_k, row_tiles and meta_words wrap beyond it and would size the arrays,
// or the extents adopted arrays are checked against, from the wrapped numbers.
inline void check_extents(std::int64_t k, std::int64_t n, std::size_t value_bytes) {
  const std::int64_t largest = std::numeric_limits<std::int64_t>::max();
  if (k > largest - (kKTile - 1) || n > largest - (kRowTile - 1))
    throw OverflowError("Nv24Tensor: " + std::to_string(k) + " x " + std::to_string(n) +
                        " cannot be padded to the layout's tiles in int64");
  const std::int64_t kp = padded_k(k);
  tessera::detail::checked_dense_elements(std::array<std::int64_t, 2>{n, kp / 2}, value_bytes,
                                          "Nv24Tensor values (n x k_padded / 2)");
  tessera::detail::checked_dense_elements(std::array<std::int64_t, 3>{row_tiles(n), kp / kKTile, kTileWords},
                                          sizeof(std::uint32_t), "Nv24Tensor metadata");
}
}  // namespace nv24::detail

/// Encoding tag of 2:4 weights in the mma.sp layout: Tensor<T, NV24, Space> (alias
/// Nv24Tensor<T, Space>), like Tensor<T, VNM, Space> for vector-wise N:M.
struct NV24 {
  static constexpr int order = 2;  ///< A matrix.
};

/// 2:4 weight in the mma.sp layout (see the file's comment).
template <class T, class Space = Kokkos::DefaultExecutionSpace>
using Nv24Tensor = Tensor<T, NV24, Space>;

/// 2:4 weight B (k x n) in the mma.sp layout (formats/nv24/layout.hpp).
template <class T, class Space>
class Tensor<T, NV24, Space> {
 public:
  using value_type = T;  ///< Value type: half_t, bf16_t, float or double.
  using encoding_type = NV24;  ///< The encoding tag.
  static constexpr int order = 2;  ///< A matrix.
  using execution_space = Space;  ///< Kokkos execution space the arrays belong to.
  using memory_space = typename Space::memory_space;  ///< Kokkos memory space of the arrays.
  using device_type = Kokkos::Device<execution_space, memory_space>;  ///< Kokkos device of the arrays.
  using vals_view = Kokkos::View<T**, Kokkos::LayoutRight, device_type>;  ///< (n, k_padded / 2)
  using meta_view = Kokkos::View<std::uint32_t*, device_type>;           ///< (nv24::meta_words(n, k_padded))

  /// The plain Views behind the tensor.
  struct Storage {
    vals_view vals;  ///< (n, k_padded / 2) kept values
    meta_view meta;  ///< (nv24::meta_words(n, k_padded)) metadata words
  };

  /// Empty 0 x 0 weight.
  Tensor() = default;
  /// Adopts arrays in the NV24 layout for a k x n weight; checks their extents (ShapeError).
  /// nv24_from_arrays() also checks the metadata.
  Tensor(std::int64_t k, std::int64_t n, Storage storage) : k_(k), n_(n), storage_(std::move(storage)) {
    if (k < 0 || n < 0) throw ShapeError("Nv24Tensor: negative extent (" + std::to_string(k) + " x " + std::to_string(n) + ")");
    nv24::detail::check_extents(k, n, sizeof(T));
    const std::int64_t kp = nv24::padded_k(k);
    auto want = [](const char* what, std::int64_t got, std::int64_t expected) {
      if (got != expected)
        throw ShapeError(std::string("Nv24Tensor: ") + what + " is " + std::to_string(got) + ", expected " +
                         std::to_string(expected));
    };
    want("vals.extent(0)", static_cast<std::int64_t>(storage_.vals.extent(0)), n);
    want("vals.extent(1)", static_cast<std::int64_t>(storage_.vals.extent(1)), kp / 2);
    want("meta.extent(0)", static_cast<std::int64_t>(storage_.meta.extent(0)), nv24::meta_words(n, kp));
  }

  /// extent(0) = k (rows of B), extent(1) = n (columns of B).
  std::int64_t extent(int mode) const {
    if (mode < 0 || mode > 1) throw IndexError("mode " + std::to_string(mode) + " of an NV24 tensor of order 2");
    return mode == 0 ? k_ : n_;
  }
  /// k padded with zeros to a multiple of 64.
  std::int64_t k_padded() const noexcept { return nv24::padded_k(k_); }
  /// The plain Views (vals, meta).
  const Storage& decompose() const noexcept { return storage_; }

  /// The same tensor with its arrays in OtherSpace's memory (shared when the memory space is
  /// the same, deep-copied otherwise).
  template <class OtherSpace>
  Nv24Tensor<T, OtherSpace> to() const {
    using Other = Nv24Tensor<T, OtherSpace>;
    typename Other::Storage out;
    if constexpr (std::is_same_v<typename OtherSpace::memory_space, memory_space>) {
      out.vals = storage_.vals;
      out.meta = storage_.meta;
    } else {
      out.vals = tessera::detail::uninitialized_view<typename Other::vals_view>("nv24_vals", storage_.vals.extent(0),
                                                                               storage_.vals.extent(1));
      out.meta = tessera::detail::uninitialized_view<typename Other::meta_view>("nv24_meta", storage_.meta.extent(0));
      Kokkos::deep_copy(out.vals, storage_.vals);
      Kokkos::deep_copy(out.meta, storage_.meta);
    }
    return Other(k_, n_, std::move(out));
  }

 private:
  std::int64_t k_ = 0, n_ = 0;
  Storage storage_;
};

namespace nv24::detail {
template <class T, class Space, class BView>
Nv24Tensor<T, Space> encode_dense(const BView& B, bool prune) {
  static_assert(Kokkos::is_view<BView>::value && BView::rank == 2, "B must be a rank-2 Kokkos::View (k x n)");
  const std::int64_t k = static_cast<std::int64_t>(B.extent(0)), n = static_cast<std::int64_t>(B.extent(1));
  check_extents(k, n, sizeof(T));
  const std::int64_t kp = padded_k(k);
  auto hB = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), B);
  using Out = Nv24Tensor<T, Space>;
  typename Out::Storage s;
  s.vals = typename Out::vals_view("nv24_vals", n, kp / 2);
  s.meta = typename Out::meta_view(Kokkos::view_alloc(Kokkos::WithoutInitializing, "nv24_meta"), meta_words(n, kp));
  auto hv = Kokkos::create_mirror_view(s.vals);
  auto hm = Kokkos::create_mirror_view(s.meta);
  encode(
      k, n, [&](std::int64_t kk, std::int64_t j) { return to_double(hB(kk, j)); },
      [](double x) { return from_double<T>(x); }, prune, hv.data(), hm.data());
  Kokkos::deep_copy(s.vals, hv);
  Kokkos::deep_copy(s.meta, hm);
  return Out(k, n, std::move(s));
}
}  // namespace nv24::detail

/// Prunes a dense k x n weight to 2:4 along k by magnitude: in every group of 4 consecutive
/// rows of each column the 2 entries of largest |value| are kept (the earlier on ties).
/// T: the stored value type (default: B's); Space: where the result lives (default: B's).
template <class T = void, class Space = void, class BView>
auto prune_nv24(const BView& B) {
  using V = std::conditional_t<std::is_void_v<T>, typename BView::non_const_value_type, T>;
  using S = std::conditional_t<std::is_void_v<Space>, typename BView::execution_space, Space>;
  return nv24::detail::encode_dense<V, S>(B, true);
}

/// Encodes a dense k x n weight that is already 2:4 along k. Throws FormatError naming the
/// first offending group (column, group index and its rows) when a group of 4 consecutive
/// rows of a column holds more than 2 nonzeros.
template <class T = void, class Space = void, class BView>
auto nv24_from_dense(const BView& B) {
  using V = std::conditional_t<std::is_void_v<T>, typename BView::non_const_value_type, T>;
  using S = std::conditional_t<std::is_void_v<Space>, typename BView::execution_space, Space>;
  return nv24::detail::encode_dense<V, S>(B, false);
}

/// The dense k x n weight (zeros where pruned), LayoutRight, in the tensor's space.
template <class T, class Space>
Kokkos::View<T**, Kokkos::LayoutRight, typename Nv24Tensor<T, Space>::device_type> to_dense(
    const Nv24Tensor<T, Space>& W) {
  const std::int64_t k = W.extent(0), n = W.extent(1);
  Kokkos::View<T**, Kokkos::LayoutRight, typename Nv24Tensor<T, Space>::device_type> D("nv24_dense", k, n);
  auto hD = Kokkos::create_mirror_view(D);
  auto hv = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), W.decompose().vals);
  auto hm = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), W.decompose().meta);
  nv24::decode(
      k, n, hv.data(), hm.data(), [](const T& x) { return nv24::detail::to_double(x); },
      [&](std::int64_t kk, std::int64_t j, double v) { hD(kk, j) = nv24::detail::from_double<T>(v); });
  Kokkos::deep_copy(D, hD);
  return D;
}

/// Adopts user arrays in the NV24 layout, checking extents (ShapeError) and every metadata
/// nibble, those of the padding columns included, and the k padding (FormatError naming the
/// column and group).
template <class T, class Space>
Nv24Tensor<T, Space> nv24_from_arrays(std::int64_t k, std::int64_t n, typename Nv24Tensor<T, Space>::Storage s) {
  Nv24Tensor<T, Space> W(k, n, s);
  auto hv = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), s.vals);
  auto hm = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), s.meta);
  nv24::decode(
      k, n, hv.data(), hm.data(), [](const T& x) { return nv24::detail::to_double(x); },
      [](std::int64_t, std::int64_t, double) {});
  nv24::check_padding_nibbles(k, n, hm.data());
  return W;
}

}  // namespace tessera
