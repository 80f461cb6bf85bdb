#pragma once
/// \file
/// Level formats: how one storage level of a sparse tensor maps a parent position
/// p_{k-1} to the positions p_k of its children (TACO's level abstraction).
/// Levels are compile-time types with named capabilities; their arrays live in the
/// tensor (Tensor::LevelArrays: pos, crd), the functions below only describe them.
#include <Kokkos_Core.hpp>

namespace tessera {

/// Kind of a storage level: one per level format of namespace levels.
enum class LevelKind { Dense, Compressed, CompressedNonUnique, Singleton };

namespace levels {

/// Every coordinate in [0, N) is present: p_k = p_{k-1} * N + i. Stores nothing.
struct Dense {
  static constexpr LevelKind kind = LevelKind::Dense;  ///< Level kind.
  static constexpr bool full = true;                   ///< Every coordinate is present.
  static constexpr bool ordered = true;                ///< Coordinates are in increasing order.
  static constexpr bool unique = true;                 ///< No coordinate repeats within a segment.
  static constexpr bool has_pos = false;               ///< No pos array.
  static constexpr bool has_crd = false;               ///< No crd array.
  /// locate(p_{k-1}, i) -> p_k
  template <class Offset, class Ordinal>
  KOKKOS_INLINE_FUNCTION static Offset locate(Offset parent, Ordinal i, Ordinal extent) {
    return parent * static_cast<Offset>(extent) + static_cast<Offset>(i);
  }
};

/// Children of p_{k-1} are positions [pos(p_{k-1}), pos(p_{k-1}+1)) with coordinates
/// crd(p_k), strictly increasing within a segment.
struct Compressed {
  static constexpr LevelKind kind = LevelKind::Compressed;  ///< Level kind.
  static constexpr bool full = false;                       ///< Coordinates may be missing.
  static constexpr bool ordered = true;                     ///< Coordinates are in increasing order.
  static constexpr bool unique = true;                      ///< No coordinate repeats within a segment.
  static constexpr bool has_pos = true;                     ///< Has a pos array.
  static constexpr bool has_crd = true;                     ///< Has a crd array.
  /// pos_bounds(p_{k-1}) -> [begin, end)
  template <class PosView>
  KOKKOS_INLINE_FUNCTION static Kokkos::pair<typename PosView::value_type, typename PosView::value_type>
  pos_bounds(const PosView& pos, typename PosView::value_type parent) {
    return {pos(parent), pos(parent + 1)};
  }
};

/// Like Compressed, but a coordinate may repeat within a segment (one position per
/// stored entry): the top level of COO. Code dispatches on `kind`, never on the type.
struct CompressedNonUnique : Compressed {
  static constexpr LevelKind kind = LevelKind::CompressedNonUnique;  ///< Level kind.
  static constexpr bool unique = false;                              ///< A coordinate may repeat within a segment.
};

/// Exactly one child per parent, at the same position: p_k = p_{k-1}, coordinate crd(p_k).
/// Only valid below a non-unique or singleton level.
struct Singleton {
  static constexpr LevelKind kind = LevelKind::Singleton;  ///< Level kind.
  static constexpr bool full = false;                      ///< Coordinates may be missing.
  static constexpr bool ordered = true;                    ///< Coordinates are in increasing order.
  static constexpr bool unique = true;                     ///< One child per parent.
  static constexpr bool has_pos = false;                   ///< No pos array.
  static constexpr bool has_crd = true;                    ///< Has a crd array.
  /// pos_bounds(p_{k-1}) -> [p_{k-1}, p_{k-1} + 1)
  template <class Offset>
  KOKKOS_INLINE_FUNCTION static Kokkos::pair<Offset, Offset> pos_bounds(Offset parent) {
    return {parent, parent + 1};
  }
};

}  // namespace levels
}  // namespace tessera
