#pragma once
/// \file
/// Triplets in a space's memory -> tensor, in that space: the parallel from_coo.
///   1. the first entry with a coordinate outside the shape (a min-reduction) is an IndexError;
///   2. each entry's storage-order coordinates become key words (key_layout.hpp);
///   3. unless the keys already rise strictly, a stable radix sort of (key, entry id) pairs,
///      word by word from the least significant (radix_sort.hpp);
///   4. runs of equal keys are summed, one thread per run in input order, in the triplets'
///      precision, then converted: bit for bit what a sequential loop over the sorted triplets gives;
///   5. the sorted unique entries are packed into the level arrays (pack.hpp).
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>

#include <Kokkos_Core.hpp>

#include "tessera/core/allocation.hpp"
#include "tessera/core/error.hpp"
#include "tessera/core/tensor.hpp"
#include "tessera/formats/assembly/key_layout.hpp"
#include "tessera/formats/assembly/pack.hpp"
#include "tessera/formats/assembly/parallel.hpp"
#include "tessera/formats/assembly/radix_sort.hpp"

namespace tessera::detail {

template <class Space>
using CoordsView = Kokkos::View<const std::int64_t**, Kokkos::LayoutRight, DeviceOf<Space>>;

// IndexError naming the first entry (and its first mode) with a coordinate outside `shape`.
template <class Space, int N>
void check_coordinates(const Shape<N>& shape, const CoordsView<Space>& coords) {
  const std::int64_t nnz = static_cast<std::int64_t>(coords.extent(0));
  Kokkos::Array<std::int64_t, N> extent;
  for (int m = 0; m < N; ++m) extent[m] = shape[m];
  std::int64_t first = std::numeric_limits<std::int64_t>::max();
  Kokkos::parallel_reduce(
      "tessera::from_coo[check]", range<Space>(nnz),
      KOKKOS_LAMBDA(const std::int64_t n, std::int64_t& bad) {
        for (int m = 0; m < N; ++m)
          if (coords(n, m) < 0 || coords(n, m) >= extent[m]) bad = n < bad ? n : bad;
      },
      Kokkos::Min<std::int64_t>(first));
  if (first >= nnz) return;
  const auto entry =
      Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), Kokkos::subview(coords, first, Kokkos::ALL));
  for (int m = 0; m < N; ++m)
    if (entry(m) < 0 || entry(m) >= shape[m])
      throw IndexError("entry " + std::to_string(first) + " has coordinate " + std::to_string(entry(m)) + " in mode " +
                       std::to_string(m) + ", outside [0, " + std::to_string(shape[m]) + ")");
}

// Key word w of every entry.
template <class Space, int N>
Kokkos::View<std::uint64_t*, DeviceOf<Space>> key_words(const KeyLayout<N>& layout, int w,
                                                        const CoordsView<Space>& coords) {
  const auto out = uninitialized_view<Kokkos::View<std::uint64_t*, DeviceOf<Space>>>("tessera::keys", coords.extent(0));
  Kokkos::parallel_for(
      "tessera::from_coo[keys]", range<Space>(coords.extent(0)),
      KOKKOS_LAMBDA(const std::int64_t n) { out(n) = layout.pack(w, [&](int m) { return coords(n, m); }); });
  return out;
}

// Whether entries rise strictly in key order (sorted and unique: nothing to sort or sum).
template <class Space, int N>
bool strictly_rising(const SortedKeys<N, DeviceOf<Space>>& keys, std::int64_t nnz) {
  std::int64_t falls = 0;
  Kokkos::parallel_reduce(
      "tessera::from_coo[sorted?]", Kokkos::RangePolicy<Space, Kokkos::IndexType<std::int64_t>>(1, nnz > 1 ? nnz : 1),
      KOKKOS_LAMBDA(const std::int64_t n, std::int64_t& count) {
        for (int w = 0; w < keys.layout.words; ++w) {
          const std::uint64_t a = keys.word[w](n - 1), b = keys.word[w](n);
          if (a != b) {
            count += a > b;
            return;
          }
        }
        ++count;  // equal keys
      },
      falls);
  return falls == 0;
}

// Sorts the entries by their keys (stable), then sums runs of equal keys in U and converts
// them to T. keys are the unsorted words on entry, the sorted unique ones on return; returns the values.
template <class T, class Space, class Index, class U, int N>
Kokkos::View<T*, DeviceOf<Space>> sort_and_sum(const Space& space, SortedKeys<N, DeviceOf<Space>>& keys,
                                               std::int64_t& nnz,
                                               const Kokkos::View<const U*, DeviceOf<Space>>& values) {
  using Words = Kokkos::View<std::uint64_t*, DeviceOf<Space>>;
  using Perm = Kokkos::View<Index*, DeviceOf<Space>>;
  using Vals = Kokkos::View<T*, DeviceOf<Space>>;
  const int words = keys.layout.words;
  Perm perm = iota<Space, Index>("tessera::permutation", nnz);
  Words sorted;
  for (int w = words - 1; w >= 0; --w) {
    sorted = words == 1 ? keys.word[0] : gather<Space, std::uint64_t, Index>("tessera::keys", keys.word[w], perm);
    sort_pairs(space, sorted, perm, keys.layout.word_bits[w]);
  }
  for (int w = 1; w < words; ++w)
    keys.word[w] = gather<Space, std::uint64_t, Index>("tessera::keys", keys.word[w], perm);
  keys.word[0] = sorted;

  const SortedKeys<N, DeviceOf<Space>> all = keys;
  std::int64_t runs = 0;
  Kokkos::parallel_reduce(
      "tessera::from_coo[count runs]", range<Space>(nnz),
      KOKKOS_LAMBDA(const std::int64_t n, std::int64_t& count) { count += n == 0 || all.differs(n); }, runs);
  const Vals vals = uninitialized_view<Vals>("tessera::vals", runs);
  if (runs == nnz) {
    Kokkos::parallel_for(
        "tessera::from_coo[values]", range<Space>(nnz),
        KOKKOS_LAMBDA(const std::int64_t n) { vals(n) = static_cast<T>(values(perm(n))); });
    return vals;
  }
  using Starts = Kokkos::View<std::int64_t*, DeviceOf<Space>>;
  const Starts start = uninitialized_view<Starts>("tessera::runs", runs + 1);
  const std::int64_t count = nnz;
  Kokkos::parallel_scan(
      "tessera::from_coo[runs]", range<Space>(nnz),
      KOKKOS_LAMBDA(const std::int64_t n, std::int64_t& r, const bool final) {
        const bool head = n == 0 || all.differs(n);
        if (final && head) start(r) = n;
        r += head;
        if (final && n == count - 1) start(runs) = count;
      });
  SortedKeys<N, DeviceOf<Space>> unique = keys;
  for (int w = 0; w < words; ++w) unique.word[w] = uninitialized_view<Words>("tessera::keys", runs);
  Kokkos::parallel_for(
      "tessera::from_coo[sum duplicates]", range<Space>(runs), KOKKOS_LAMBDA(const std::int64_t r) {
        const std::int64_t begin = start(r), end = start(r + 1);
        U sum = values(perm(begin));
        for (std::int64_t n = begin + 1; n < end; ++n) sum += values(perm(n));
        vals(r) = static_cast<T>(sum);
        for (int w = 0; w < all.layout.words; ++w) unique.word[w](r) = all.word[w](begin);
      });
  keys = unique;
  nnz = runs;
  return vals;
}

// Checked triplets (shape and index types already checked) in Space's memory -> tensor.
template <class T, class Enc, class Space, class U>
Tensor<T, Enc, Space> assemble(const Shape<Enc::order>& shape, const CoordsView<Space>& coords,
                               const Kokkos::View<const U*, DeviceOf<Space>>& values) {
  constexpr int N = Enc::order;
  const Space space;
  check_coordinates<Space, N>(shape, coords);
  std::int64_t nnz = static_cast<std::int64_t>(values.extent(0));
  SortedKeys<N, DeviceOf<Space>> keys;
  keys.layout = KeyLayout<N>::make(Enc::mode_order, shape);
  for (int w = 0; w < keys.layout.words; ++w) keys.word[w] = key_words<Space>(keys.layout, w, coords);
  Kokkos::View<T*, DeviceOf<Space>> vals;
  if (strictly_rising<Space>(keys, nnz)) {
    vals = uninitialized_view<Kokkos::View<T*, DeviceOf<Space>>>("tessera::vals", nnz);
    Kokkos::parallel_for(
        "tessera::from_coo[values]", range<Space>(nnz),
        KOKKOS_LAMBDA(const std::int64_t n) { vals(n) = static_cast<T>(values(n)); });
  } else if (nnz <= std::int64_t{std::numeric_limits<std::uint32_t>::max()}) {
    vals = sort_and_sum<T, Space, std::uint32_t>(space, keys, nnz, values);
  } else {
    vals = sort_and_sum<T, Space, std::uint64_t>(space, keys, nnz, values);
  }
  return pack_keys<T, Enc, Space>(shape, keys, nnz, vals);
}

}  // namespace tessera::detail
