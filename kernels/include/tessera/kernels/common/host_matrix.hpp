#pragma once
/// \file
/// HostMatrix: raw host pointers to a two-level matrix encoding whose inner level is
/// Compressed (CSR, CSC, DCSR, DCSC): `outer` is the first storage level's mode,
/// Dense (every coordinate present) or Compressed (only stored ones).
#include <cstdint>

#include "tessera/core/tensor.hpp"
#include "tessera/formats/encoding.hpp"

namespace tessera::kernels {

/// Raw host pointers to a {Dense or Compressed, Compressed} matrix (see the file's comment).
template <class T, class Ordinal, class Offset>
struct HostMatrix {
  /// Extent of the outer (first storage level's) mode.
  std::int64_t outer_extent = 0, inner_extent = 0;  ///< Extent of the inner mode.
  const Offset* outer_pos = nullptr;                ///< (2) when the outer level is Compressed, else null
  const Ordinal* outer_crd = nullptr;               ///< (stored outer coordinates) or null
  const Offset* pos = nullptr;                      ///< (outer positions + 1)
  const Ordinal* crd = nullptr;                     ///< (nnz)
  const T* vals = nullptr;                          ///< (nnz)

  /// First position of the outer level.
  std::int64_t outer_begin() const { return outer_crd ? outer_pos[0] : 0; }
  /// One past the last position of the outer level.
  std::int64_t outer_end() const { return outer_crd ? outer_pos[1] : outer_extent; }
  /// Outer coordinate at outer position `p`.
  std::int64_t outer_coord(std::int64_t p) const { return outer_crd ? outer_crd[p] : p; }
  /// First inner position under outer position `p`.
  std::int64_t begin(std::int64_t p) const { return pos[p]; }
  /// One past the last inner position under outer position `p`.
  std::int64_t end(std::int64_t p) const { return pos[p + 1]; }
};

/// True for {Dense or Compressed, Compressed} matrix encodings: CSR, CSC, DCSR, DCSC.
template <class Enc>
inline constexpr bool is_two_level_compressed_v =
    is_encoding_v<Enc> && Enc::order == 2 && Enc::level_kinds[1] == LevelKind::Compressed &&
    (Enc::level_kinds[0] == LevelKind::Dense || Enc::level_kinds[0] == LevelKind::Compressed);
/// Two-level compressed, rows outer (CSR, DCSR).
template <class Enc>
inline constexpr bool is_row_major_v = is_two_level_compressed_v<Enc> && Enc::mode_order[0] == 0;
/// Two-level compressed, columns outer (CSC, DCSC).
template <class Enc>
inline constexpr bool is_column_major_v = is_two_level_compressed_v<Enc> && Enc::mode_order[0] == 1;

/// The raw pointers of `M`, whose arrays the host must be able to read.
template <class T, class Enc, class Space>
auto host_matrix(const Tensor<T, Enc, Space>& M) {
  static_assert(is_two_level_compressed_v<Enc>, "a {Dense|Compressed, Compressed} matrix encoding");
  HostMatrix<T, typename Enc::ordinal_type, typename Enc::offset_type> h;
  const auto& s = M.decompose();
  h.outer_extent = M.extent(Enc::mode_order[0]);
  h.inner_extent = M.extent(Enc::mode_order[1]);
  if constexpr (Enc::level_kinds[0] == LevelKind::Compressed) {
    h.outer_pos = s.levels[0].pos.data();
    h.outer_crd = s.levels[0].crd.data();
  }
  h.pos = s.levels[1].pos.data();
  h.crd = s.levels[1].crd.data();
  h.vals = s.vals.data();
  return h;
}

}  // namespace tessera::kernels
