#pragma once
/// \file
/// The fast path of order-2 conversions that swap the storage order (CSR <-> CSC, transpose):
/// the source's entries are sorted by (major, minor) and unique, so a stable sort by the minor
/// coordinate alone gives (minor, major) order: a key of the minor's bits only, the entries'
/// positions as the payload, no duplicates to sum.
#include <cstdint>
#include <limits>
#include <utility>

#include <Kokkos_Core.hpp>

#include "tessera/core/allocation.hpp"
#include "tessera/core/tensor.hpp"
#include "tessera/formats/assembly/cuda_transpose.hpp"
#include "tessera/formats/assembly/key_layout.hpp"
#include "tessera/formats/assembly/pack.hpp"
#include "tessera/formats/assembly/parallel.hpp"
#include "tessera/formats/assembly/radix_sort.hpp"
#include "tessera/formats/assembly/stored_entries.hpp"
#include "tessera/formats/encoding.hpp"

namespace tessera::detail {

// Whether resort_by_minor applies: order 2, a sparse last level (every position an entry), and
// the new (minor, major) key in one word.
template <class SrcEnc>
bool resorts_by_minor(const Shape<2>& shape) {
  if constexpr (SrcEnc::order != 2 || SrcEnc::level_kinds[1] == LevelKind::Dense) {
    return false;
  } else {
    return coordinate_bits(shape[0]) + coordinate_bits(shape[1]) <= 64;
  }
}

template <class T, class DstEnc, class Space, class Key, class Index, class SrcEnc>
Tensor<T, DstEnc, Space> resort_by_minor_with(const Tensor<T, SrcEnc, Space>& src, const Shape<2>& out_shape) {
  const int major_mode = SrcEnc::mode_order[0], minor_mode = SrcEnc::mode_order[1];
  const int major_bits = coordinate_bits(src.shape()[major_mode]);
  const std::int64_t nnz = src.nnz();
  const StoredEntries<T, SrcEnc, Space> walk(src);
  using Keys = Kokkos::View<Key*, DeviceOf<Space>>;
  Keys minor = uninitialized_view<Keys>("tessera::keys", nnz);
  Kokkos::parallel_for(
      "tessera::resort[keys]", range<Space>(nnz), KOKKOS_LAMBDA(const std::int64_t q) {
        std::int64_t c[2];
        walk.coords(q, c);
        minor(q) = static_cast<Key>(c[minor_mode]);
      });
  auto perm = iota<Space, Index>("tessera::permutation", nnz);
  sort_pairs(Space(), minor, perm, coordinate_bits(src.shape()[minor_mode]));

  SortedKeys<2, DeviceOf<Space>> keys;
  keys.layout = KeyLayout<2>::make(DstEnc::mode_order, out_shape);
  keys.word[0] = uninitialized_view<Kokkos::View<std::uint64_t*, DeviceOf<Space>>>("tessera::keys", nnz);
  const auto vals = uninitialized_view<Kokkos::View<T*, DeviceOf<Space>>>("tessera::vals", nnz);
  const auto word = keys.word[0];
  const Keys sorted_minor = minor;
  Kokkos::parallel_for(
      "tessera::resort[gather]", range<Space>(nnz), KOKKOS_LAMBDA(const std::int64_t n) {
        std::int64_t c[2];
        walk.coords(static_cast<std::int64_t>(perm(n)), c);
        word(n) =
            (static_cast<std::uint64_t>(sorted_minor(n)) << major_bits) | static_cast<std::uint64_t>(c[major_mode]);
        vals(n) = walk.vals(perm(n));
      });
  return pack_keys<T, DstEnc, Space>(out_shape, keys, nnz, vals);
}

// Entries of an order-2 `src` re-sorted with the minor coordinate first, as a DstEnc tensor of
// `out_shape`, whose storage order must be (src's minor coordinate, src's major coordinate).
template <class T, class DstEnc, class SrcEnc, class Space>
Tensor<T, DstEnc, Space> resort_by_minor(const Tensor<T, SrcEnc, Space>& src, const Shape<2>& out_shape) {
  if (auto transposed = dedicated_transpose<T, DstEnc>(src, out_shape)) return *std::move(transposed);
  const bool short_keys = coordinate_bits(src.shape()[SrcEnc::mode_order[1]]) <= 32;
  const bool short_ids = src.nnz() <= std::int64_t{std::numeric_limits<std::uint32_t>::max()};
  // 32-bit keys and ids halve the sort's traffic; anything larger takes 64 bits for both.
  if (short_keys && short_ids)
    return resort_by_minor_with<T, DstEnc, Space, std::uint32_t, std::uint32_t>(src, out_shape);
  return resort_by_minor_with<T, DstEnc, Space, std::uint64_t, std::uint64_t>(src, out_shape);
}

}  // namespace tessera::detail
