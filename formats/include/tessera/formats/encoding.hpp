#pragma once
/// \file
/// Encodings: a tuple of level formats, the mode each storage level holds, and the
/// index types of the level arrays. Presets (CSR, CSC, DCSR, DCSC, COO, CSF<N>,
/// Dense<N>) are one-liners over the generic Encoding.
#include <array>
#include <cstdint>
#include <tuple>
#include <type_traits>
#include <utility>

#include "tessera/formats/levels.hpp"

namespace tessera {

/// Storage level l holds tensor mode Modes[l].
template <int... Modes>
struct ModeOrder {};

/// Encoding of a tensor; Order is a ModeOrder (the specialization below).
template <class Ordinal, class Offset, class Order, class... Levels>
struct Encoding;

/// Encoding: index types, the mode each storage level holds, and the level formats.
template <class Ordinal, class Offset, int... Modes, class... Levels>
struct Encoding<Ordinal, Offset, ModeOrder<Modes...>, Levels...> {
  static_assert(sizeof...(Modes) == sizeof...(Levels), "one mode per level");
  static_assert(sizeof...(Levels) >= 1, "an encoding has at least one level");
  static_assert(std::is_integral_v<Ordinal> && std::is_signed_v<Ordinal>, "signed integral ordinals");
  static_assert(std::is_integral_v<Offset> && std::is_signed_v<Offset>, "signed integral offsets");

  static constexpr int order = sizeof...(Levels);                ///< Number of modes (= number of levels).
  using ordinal_type = Ordinal;                                  ///< type of coordinates (crd arrays)
  using offset_type = Offset;                                    ///< type of positions (pos arrays)
  using level_types = std::tuple<Levels...>;                     ///< The level formats, in storage order.
  static constexpr std::array<int, order> mode_order{Modes...};  ///< Mode held by each storage level.
  /// Kind of each storage level.
  static constexpr std::array<LevelKind, order> level_kinds{Levels::kind...};
  /// Whether each storage level has a pos array.
  static constexpr std::array<bool, order> level_has_pos{Levels::has_pos...};
  /// Whether each storage level has a crd array.
  static constexpr std::array<bool, order> level_has_crd{Levels::has_crd...};

 private:
  static constexpr bool modes_are_permutation() {
    std::array<int, order> seen{};
    for (int m : mode_order) {
      if (m < 0 || m >= order || seen[m]) return false;
      seen[m] = 1;
    }
    return true;
  }
  static constexpr bool singletons_have_nonunique_parent() {
    for (int l = 0; l < order; ++l) {
      if (level_kinds[l] != LevelKind::Singleton) continue;
      if (l == 0) return false;
      if (level_kinds[l - 1] != LevelKind::CompressedNonUnique && level_kinds[l - 1] != LevelKind::Singleton)
        return false;
    }
    return true;
  }
  static constexpr bool nonunique_levels_are_followed_by_singletons() {
    for (int l = 0; l < order; ++l) {
      if (level_kinds[l] != LevelKind::CompressedNonUnique) continue;
      for (int k = l + 1; k < order; ++k)
        if (level_kinds[k] != LevelKind::Singleton) return false;
      if (l == order - 1) return false;
    }
    return true;
  }

 public:
  static_assert(modes_are_permutation(), "ModeOrder must be a permutation of 0..order-1");
  static_assert(singletons_have_nonunique_parent(), "a Singleton level must follow a non-unique or Singleton level");
  static_assert(nonunique_levels_are_followed_by_singletons(),
                "a CompressedNonUnique level must be followed only by Singleton levels");

  /// Storage level that holds mode m.
  static constexpr int level_of_mode(int m) {
    for (int l = 0; l < order; ++l)
      if (mode_order[l] == m) return l;
    return -1;
  }
};

/// True (is_encoding_v) when E is an Encoding.
template <class E>
struct is_encoding : std::false_type {};
/// An Encoding.
template <class Ordinal, class Offset, class Order, class... Levels>
struct is_encoding<Encoding<Ordinal, Offset, Order, Levels...>> : std::true_type {};
/// True when E is an Encoding.
template <class E>
inline constexpr bool is_encoding_v = is_encoding<E>::value;

namespace detail {
template <class Ordinal, class Offset, class Level, class Seq>
struct UniformEncoding;
// A level type per mode index. A struct, not an alias template: nvcc rejects packs
// expanded through an alias that ignores its parameter.
template <int, class Level>
struct LevelFor {
  using type = Level;
};
template <class Ordinal, class Offset, class Level, int... I>
struct UniformEncoding<Ordinal, Offset, Level, std::integer_sequence<int, I...>> {
  using type = Encoding<Ordinal, Offset, ModeOrder<I...>, typename LevelFor<I, Level>::type...>;
};
template <class Ordinal, class Offset, class Seq>
struct CooEncoding;
template <class Ordinal, class Offset, int First, int... Rest>
struct CooEncoding<Ordinal, Offset, std::integer_sequence<int, First, Rest...>> {
  using type = Encoding<Ordinal, Offset, ModeOrder<First, Rest...>, levels::CompressedNonUnique,
                        typename LevelFor<Rest, levels::Singleton>::type...>;
};

// Same levels and mode order with other index types.
template <class E, class Ordinal, class Offset>
struct WithIndexTypes;
template <class O0, class F0, class Order, class... Levels, class Ordinal, class Offset>
struct WithIndexTypes<Encoding<O0, F0, Order, Levels...>, Ordinal, Offset> {
  using type = Encoding<Ordinal, Offset, Order, Levels...>;
};
}  // namespace detail

/// Compressed sparse rows.
using CSR = Encoding<int, int, ModeOrder<0, 1>, levels::Dense, levels::Compressed>;
/// Compressed sparse columns.
using CSC = Encoding<int, int, ModeOrder<1, 0>, levels::Dense, levels::Compressed>;
/// Doubly compressed sparse rows (empty rows take no space).
using DCSR = Encoding<int, int, ModeOrder<0, 1>, levels::Compressed, levels::Compressed>;
/// Doubly compressed sparse columns (empty columns take no space).
using DCSC = Encoding<int, int, ModeOrder<1, 0>, levels::Compressed, levels::Compressed>;
/// Coordinate list of any order (COO = the matrix case).
template <int N>
using COOTensor = typename detail::CooEncoding<int, int, std::make_integer_sequence<int, N>>::type;
/// Coordinate list of a matrix.
using COO = COOTensor<2>;
/// Compressed sparse fiber: every level compressed, natural mode order.
template <int N>
using CSF = typename detail::UniformEncoding<int, int, levels::Compressed, std::make_integer_sequence<int, N>>::type;
/// Dense row-major tensor of order N.
template <int N>
using Dense = typename detail::UniformEncoding<int, int, levels::Dense, std::make_integer_sequence<int, N>>::type;

/// E with 64-bit (or other) index types, e.g. WithIndexTypes<CSR, std::int64_t, std::int64_t>.
template <class E, class Ordinal, class Offset>
using WithIndexTypes = typename detail::WithIndexTypes<E, Ordinal, Offset>::type;

/// CSR-like = {Dense, Compressed} in row order, the layout of KokkosSparse::CrsMatrix.
template <class E>
inline constexpr bool is_csr_like_v =
    is_encoding_v<E> && E::order == 2 && E::mode_order[0] == 0 && E::mode_order[1] == 1 &&
    E::level_kinds[0] == LevelKind::Dense && E::level_kinds[1] == LevelKind::Compressed;

/// CSC-like = {Dense, Compressed} in column order: the arrays of a CSR tensor of the transpose.
template <class E>
inline constexpr bool is_csc_like_v =
    is_encoding_v<E> && E::order == 2 && E::mode_order[0] == 1 && E::mode_order[1] == 0 &&
    E::level_kinds[0] == LevelKind::Dense && E::level_kinds[1] == LevelKind::Compressed;

}  // namespace tessera
