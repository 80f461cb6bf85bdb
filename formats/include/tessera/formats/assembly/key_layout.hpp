#pragma once
/// \file
/// Sort keys of tensor assembly: the coordinates of an entry in storage order, packed into as
/// few 64-bit words as their bits allow (one word whenever the extents' bits sum to 64 or less,
/// e.g. any matrix with int indices). Comparing words compares storage-order tuples, so a radix
/// sort of the words sorts the entries, and the bits above a level's field hold the entry's
/// prefix of levels 0..l.
#include <array>
#include <cstdint>

#include <Kokkos_Core.hpp>

#include "tessera/core/tensor.hpp"

namespace tessera::detail {

// Bits that hold every coordinate in [0, extent): 0 for extents 0 and 1.
inline int coordinate_bits(std::int64_t extent) {
  int bits = 0;
  while (bits < 63 && (std::int64_t{1} << bits) < extent) ++bits;
  return bits;
}

// Where each storage level's coordinate sits: word 0 holds the most significant levels.
template <int N>
struct KeyLayout {
  int words = 1;                         // words per entry
  Kokkos::Array<int, N> mode;            // mode held by storage level l
  Kokkos::Array<int, N> word;            // word holding level l
  Kokkos::Array<int, N> shift;           // bit offset of level l in its word (64: a 0-bit level below a full word)
  Kokkos::Array<std::uint64_t, N> mask;  // (1 << bits of level l) - 1
  Kokkos::Array<int, N> word_bits;       // significant bits of word w: a radix sort's end bit

  // Levels fill words from the least significant one up; a level that does not fit starts a new word.
  static KeyLayout make(const std::array<int, N>& mode_order, const Shape<N>& shape) {
    KeyLayout k;
    int w = 0, used = 0;
    for (int l = N - 1; l >= 0; --l) {
      const int bits = coordinate_bits(shape[mode_order[l]]);
      if (used + bits > 64) {
        ++w;
        used = 0;
      }
      k.mode[l] = mode_order[l];
      k.word[l] = w;
      k.shift[l] = used;
      k.mask[l] = bits == 0 ? 0 : ~std::uint64_t{0} >> (64 - bits);
      used += bits;
      k.word_bits[w] = used;
    }
    k.words = w + 1;
    Kokkos::Array<int, N> bits_of_word = k.word_bits;
    for (int l = 0; l < N; ++l) k.word[l] = k.words - 1 - k.word[l];
    for (int v = 0; v < k.words; ++v) k.word_bits[v] = bits_of_word[k.words - 1 - v];
    return k;
  }

  // Word w of the entry whose mode-order coordinates are c(0) .. c(N-1).
  template <class Coord>
  KOKKOS_INLINE_FUNCTION std::uint64_t pack(int w, Coord&& c) const {
    std::uint64_t key = 0;
    for (int l = 0; l < N; ++l)
      if (word[l] == w && mask[l] != 0) key |= static_cast<std::uint64_t>(c(mode[l])) << shift[l];
    return key;
  }
};

// Entries as key words in Space's memory, word[w](n) for w < layout.words.
template <int N, class Device>
struct SortedKeys {
  KeyLayout<N> layout;
  Kokkos::Array<Kokkos::View<std::uint64_t*, Device>, N> word;

  // Coordinate of entry n at storage level l.
  KOKKOS_INLINE_FUNCTION std::int64_t coord(std::int64_t n, int l) const {
    if (layout.mask[l] == 0) return 0;
    return static_cast<std::int64_t>((word[layout.word[l]](n) >> layout.shift[l]) & layout.mask[l]);
  }
  // Entries n-1 and n differ at some level 0..l (n >= 1).
  KOKKOS_INLINE_FUNCTION bool differs(std::int64_t n, int l) const {
    const int last = layout.word[l];
    for (int w = 0; w < last; ++w)
      if (word[w](n) != word[w](n - 1)) return true;
    const int s = layout.shift[l];
    return s < 64 && ((word[last](n) ^ word[last](n - 1)) >> s) != 0;
  }
  // Entries n-1 and n differ anywhere (n >= 1).
  KOKKOS_INLINE_FUNCTION bool differs(std::int64_t n) const {
    for (int w = 0; w < layout.words; ++w)
      if (word[w](n) != word[w](n - 1)) return true;
    return false;
  }
};

}  // namespace tessera::detail
