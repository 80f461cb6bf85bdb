#pragma once
/// \file
/// NV24 encoding and decoding on host arrays (Kokkos-free): the single implementation
/// behind tessera::prune_nv24 / nv24_from_dense / to_dense (formats/nv24.hpp) and the
/// stand-alone CUDA programs in perf_tests/nv24. Layout: nv24/layout.hpp.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <utility>

#include "tessera/core/error.hpp"
#include "tessera/formats/magnitude_order.hpp"
#include "tessera/formats/nv24/layout.hpp"

namespace tessera::nv24 {

/// Encodes the k x n weight B (read through get(kk, j) -> double) into vals
/// (n x k_padded/2, row-major, element type T built by to_t(double)) and meta
/// (meta_words(n, k_padded) words). prune: keep the two entries of largest magnitude of each
/// group (the earlier one on ties). Otherwise every group must have at most two nonzeros,
/// else FormatError names the first offending group (column of B, group, its k range).
template <class T, class Get, class ToT>
void encode(std::int64_t k, std::int64_t n, Get&& get, ToT&& to_t, bool prune, T* vals, std::uint32_t* meta) {
  const std::int64_t kp = padded_k(k), groups = kp / kGroup, half = kp / 2;
  const std::int64_t words = meta_words(n, kp);
  for (std::int64_t w = 0; w < words; ++w) meta[w] = 0x44444444u;  // every slot: positions 0 and 1
  for (std::int64_t j = 0; j < n; ++j) {
    for (std::int64_t G = 0; G < groups; ++G) {
      double v[kGroup];
      for (int p = 0; p < kGroup; ++p) {
        const std::int64_t kk = G * kGroup + p;
        v[p] = kk < k ? get(kk, j) : 0.0;
      }
      int i0, i1;
      if (prune) {
        // two largest magnitudes (NaN largest), earlier index on ties
        i0 = 0;
        for (int p = 1; p < kGroup; ++p)
          if (tessera::detail::larger_magnitude(std::fabs(v[p]), std::fabs(v[i0]))) i0 = p;
        i1 = i0 == 0 ? 1 : 0;
        for (int p = 0; p < kGroup; ++p)
          if (p != i0 && tessera::detail::larger_magnitude(std::fabs(v[p]), std::fabs(v[i1]))) i1 = p;
      } else {
        int kept[kGroup], count = 0;
        for (int p = 0; p < kGroup; ++p)
          if (v[p] != 0.0) kept[count++] = p;
        if (count > kKept)
          throw FormatError("nv24: column " + std::to_string(j) + " of the weight, group " + std::to_string(G) +
                            " (rows " + std::to_string(G * kGroup) + ".." +
                            std::to_string(std::min<std::int64_t>(G * kGroup + kGroup, k) - 1) + ") has " +
                            std::to_string(count) + " nonzeros; 2:4 allows at most 2 of every 4");
        // fill up with the first unused positions so that i0 < i1 always holds
        for (int p = 0; p < kGroup && count < kKept; ++p) {
          bool used = false;
          for (int q = 0; q < count; ++q) used = used || kept[q] == p;
          if (!used) kept[count++] = p;
        }
        i0 = kept[0];
        i1 = kept[1];
      }
      if (i0 > i1) std::swap(i0, i1);
      vals[j * half + 2 * G] = to_t(v[i0]);
      vals[j * half + 2 * G + 1] = to_t(v[i1]);
      const MetaSlot slot = meta_slot(j, G, kp);
      meta[slot.word] = (meta[slot.word] & ~(0xFu << slot.shift)) | (std::uint32_t(nibble(i0, i1)) << slot.shift);
    }
  }
  // rows past n in the last row tile: zero values are not stored, their nibbles stay 0x4
}

/// Decodes into put(kk, j, double) for every kk < k, j < n (zeros included). Throws
/// FormatError if a nibble breaks the layout (i0 >= i1), naming the row and group.
template <class T, class FromT, class Put>
void decode(std::int64_t k, std::int64_t n, const T* vals, const std::uint32_t* meta, FromT&& from_t, Put&& put) {
  const std::int64_t kp = padded_k(k), groups = kp / kGroup, half = kp / 2;
  for (std::int64_t j = 0; j < n; ++j)
    for (std::int64_t G = 0; G < groups; ++G) {
      const MetaSlot slot = meta_slot(j, G, kp);
      const std::uint32_t nib = (meta[slot.word] >> slot.shift) & 0xFu;
      const int i0 = nibble_first(nib), i1 = nibble_second(nib);
      if (i0 >= i1)
        throw FormatError("nv24: metadata of column " + std::to_string(j) + ", group " + std::to_string(G) +
                          " is 0x" + "0123456789abcdef"[nib] + " (positions must be increasing)");
      double out[kGroup] = {0, 0, 0, 0};
      out[i0] = from_t(vals[j * half + 2 * G]);
      out[i1] = from_t(vals[j * half + 2 * G + 1]);
      for (int p = 0; p < kGroup; ++p) {
        const std::int64_t kk = G * kGroup + p;
        if (kk < k) put(kk, j, out[p]);
        else if (out[p] != 0.0)
          throw FormatError("nv24: column " + std::to_string(j) + " has a nonzero in the k padding (row " +
                            std::to_string(kk) + " >= k = " + std::to_string(k) + ")");
      }
    }
}

/// The columns past n in the last row tile hold no values, but the tensor cores read their
/// nibbles with the others: those must follow the layout too (i0 < i1). Throws FormatError
/// naming the column and group.
inline void check_padding_nibbles(std::int64_t k, std::int64_t n, const std::uint32_t* meta) {
  const std::int64_t kp = padded_k(k), groups = kp / kGroup;
  for (std::int64_t j = n; j < row_tiles(n) * kRowTile; ++j)
    for (std::int64_t G = 0; G < groups; ++G) {
      const MetaSlot slot = meta_slot(j, G, kp);
      const std::uint32_t nib = (meta[slot.word] >> slot.shift) & 0xFu;
      if (nibble_first(nib) >= nibble_second(nib))
        throw FormatError("nv24: metadata of padding column " + std::to_string(j) + " (n = " + std::to_string(n) +
                          "), group " + std::to_string(G) + " is 0x" + "0123456789abcdef"[nib] +
                          " (positions must be increasing)");
    }
}

}  // namespace tessera::nv24
