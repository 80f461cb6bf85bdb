#pragma once
/// \file
/// A set of columns held in Space as a bitmap over all columns, for ghost-column sets too large to
/// sort on the host: a column's slot is the number of set bits before it, so slots ascend with
/// the columns. Used by the splits of rows into DistTensor's blocks.
#include <cstdint>

#include <Kokkos_Core.hpp>

#include "tessera/core/allocation.hpp"
#include "tessera/formats/assembly/parallel.hpp"
#include "tessera/formats/assembly/result_arrays.hpp"

namespace tessera::dist::detail {

KOKKOS_INLINE_FUNCTION int bits_set(std::uint32_t word) {
#if defined(__CUDA_ARCH__)
  return __popc(word);
#else
  return __builtin_popcount(word);
#endif
}

template <class Space>
struct GhostBitmap {
  using Index = Kokkos::View<std::int64_t*, tessera::detail::DeviceOf<Space>>;
  Kokkos::View<std::uint32_t*, tessera::detail::DeviceOf<Space>> bits;
  Index before;  // set bits in the words before w; filled by number_slots()

  KOKKOS_INLINE_FUNCTION void mark(std::int64_t j) const {
    const std::uint32_t bit = 1u << (j & 31);
    if ((bits(j >> 5) & bit) == 0) Kokkos::atomic_fetch_or(&bits(j >> 5), bit);  // most marks repeat a set bit
  }
  KOKKOS_INLINE_FUNCTION bool marked(std::int64_t j) const { return (bits(j >> 5) >> (j & 31)) & 1u; }
  KOKKOS_INLINE_FUNCTION std::int64_t slot(std::int64_t j) const {
    return before(j >> 5) + bits_set(bits(j >> 5) & ((1u << (j & 31)) - 1u));
  }
  std::int64_t words() const { return static_cast<std::int64_t>(bits.extent(0)); }
};

/// An empty set over `columns` columns, its arrays in `scratch`.
template <class Space>
GhostBitmap<Space> empty_ghost_bitmap(std::int64_t columns, tessera::detail::ResultArrays<Space>& scratch) {
  GhostBitmap<Space> map;
  map.bits = scratch.template take<decltype(map.bits)>("tessera::DistTensor ghost bitmap", (columns + 31) / 32);
  Kokkos::deep_copy(Space(), map.bits, std::uint32_t{0});
  return map;
}

/// Numbers the marked columns (slot() works after this); returns how many there are.
template <class Space>
std::int64_t number_slots(GhostBitmap<Space>& map, tessera::detail::ResultArrays<Space>& scratch) {
  using Index = typename GhostBitmap<Space>::Index;
  const auto bits = map.bits;
  map.before = scratch.template take<Index>("tessera::DistTensor ghost slots", map.words() + 1);
  tessera::detail::offsets_into<std::int64_t, Space>(
      map.before, map.words(), KOKKOS_LAMBDA(std::int64_t w) { return bits_set(bits(w)); },
      "tessera::DistTensor ghost slots");
  return tessera::detail::total_of(map.before);
}

/// The marked columns, ascending (`count` of them, from number_slots), in `scratch`.
template <class Space>
typename GhostBitmap<Space>::Index marked_columns(const GhostBitmap<Space>& map, std::int64_t count,
                                                  tessera::detail::ResultArrays<Space>& scratch) {
  using Index = typename GhostBitmap<Space>::Index;
  const auto list = scratch.template take<Index>("tessera::DistTensor ghost columns", count);
  const auto bits = map.bits;
  const auto before = map.before;
  Kokkos::parallel_for(
      "tessera::DistTensor[ghost columns]", tessera::detail::range<Space>(map.words()),
      KOKKOS_LAMBDA(const std::int64_t w) {
        std::int64_t g = before(w);
        for (std::uint32_t m = bits(w); m != 0; m &= m - 1) list(g++) = 32 * w + bits_set((m & (~m + 1)) - 1);
      });
  return list;
}

}  // namespace tessera::dist::detail
