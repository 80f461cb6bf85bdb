#pragma once
/// \file
/// The stored entries of a tensor, in its own space: StoredEntries walks from a position q of
/// the last level up to the root (Dense: parent = q / extent; Compressed: the parent p with
/// pos(p) <= q < pos(p+1), precomputed per level; Singleton: parent = q), giving the entry's
/// coordinates; expand_entries() lists them as DeviceCoo triplets in storage order. A dense
/// last level stores zeros as structure: they are not entries and are skipped (explicit zeros
/// of a sparse last level are kept).
#include <cstdint>
#include <string>

#include <Kokkos_Core.hpp>

#include "tessera/core/allocation.hpp"
#include "tessera/core/device_coo.hpp"
#include "tessera/core/tensor.hpp"
#include "tessera/formats/assembly/parallel.hpp"
#include "tessera/formats/encoding.hpp"

namespace tessera::detail {

// parent(q) for the positions q in [0, positions) of a compressed level: the number of
// p in [1, parents) with pos(p) <= q, an inclusive scan of how many pos values fall on each q.
template <class Space, class PosView>
Kokkos::View<std::int64_t*, DeviceOf<Space>> parents_of(const PosView& pos, std::int64_t positions) {
  using Parents = Kokkos::View<std::int64_t*, DeviceOf<Space>>;
  const std::int64_t parents = static_cast<std::int64_t>(pos.extent(0)) - 1;
  const Parents out = guard_allocation("tessera::expand parents", saturated_bytes(positions + 1, sizeof(std::int64_t)),
                                       Space::memory_space::name(),
                                       [&] { return Parents("tessera::expand parents", positions + 1); });  // zeros
  Kokkos::parallel_for(
      "tessera::expand[parent starts]",
      Kokkos::RangePolicy<Space, Kokkos::IndexType<std::int64_t>>(1, parents > 1 ? parents : 1),
      KOKKOS_LAMBDA(const std::int64_t p) { Kokkos::atomic_increment(&out(static_cast<std::int64_t>(pos(p)))); });
  Kokkos::parallel_scan(
      "tessera::expand[parents]", range<Space>(positions),
      KOKKOS_LAMBDA(const std::int64_t q, std::int64_t& sum, const bool final) {
        sum += out(q);
        if (final) out(q) = sum;
      });
  return out;
}

// Device-callable walk from a last-level position to the entry's coordinates.
template <class T, class Enc, class Space>
struct StoredEntries {
  static constexpr int N = Enc::order;
  using Tens = Tensor<T, Enc, Space>;
  Kokkos::Array<typename Tens::crd_view, N> crd;
  Kokkos::Array<Kokkos::View<std::int64_t*, DeviceOf<Space>>, N> parent;  // compressed levels below the root
  Kokkos::Array<std::int64_t, N> extent;                                  // per storage level
  Kokkos::Array<int, N> mode;                                             // Enc::mode_order, readable in device code
  Kokkos::Array<LevelKind, N> kind;                                       // Enc::level_kinds, likewise
  typename Tens::vals_view vals;
  std::int64_t positions = 0;  // of the last level

  explicit StoredEntries(const Tens& t) : vals(t.values()), positions(t.nnz()) {
    for (int l = 0; l < N; ++l) {
      mode[l] = Enc::mode_order[l];
      kind[l] = Enc::level_kinds[l];
      extent[l] = t.shape()[mode[l]];
      crd[l] = t.level(l).crd;
      const bool compressed = kind[l] == LevelKind::Compressed || kind[l] == LevelKind::CompressedNonUnique;
      if (compressed && l > 0)
        parent[l] = parents_of<Space>(t.level(l).pos, static_cast<std::int64_t>(crd[l].extent(0)));
    }
  }

  // Zeros of a dense last level are structure, not entries.
  static constexpr bool skips_zeros = Enc::level_kinds[N - 1] == LevelKind::Dense;
  KOKKOS_INLINE_FUNCTION bool stored(std::int64_t q) const { return !skips_zeros || !(vals(q) == T(0)); }

  // Mode-order coordinates of the entry at last-level position q: c[m] for mode m.
  KOKKOS_INLINE_FUNCTION void coords(std::int64_t q, std::int64_t* c) const {
    for (int l = N - 1; l >= 0; --l) {
      const int m = mode[l];
      switch (kind[l]) {
        case LevelKind::Dense:
          c[m] = q % extent[l];
          q /= extent[l];
          break;
        case LevelKind::Compressed:
        case LevelKind::CompressedNonUnique:
          c[m] = crd[l](q);
          q = l > 0 ? parent[l](q) : 0;
          break;
        case LevelKind::Singleton:
          c[m] = crd[l](q);
          break;
      }
    }
  }
};

// Writes the entry at last-level position q as triplet n.
template <class T, class Enc, class Space>
struct ExpandedEntryWriter {
  StoredEntries<T, Enc, Space> walk;
  typename DeviceCoo<T, Space>::coords_view coords;
  typename DeviceCoo<T, Space>::values_view values;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t q, std::int64_t n) const {
    std::int64_t c[Enc::order];
    walk.coords(q, c);
    for (int m = 0; m < Enc::order; ++m) coords(n, m) = c[m];
    values(n) = walk.vals(q);
  }
};

// Stored entries of `t` as triplets in t's space, in storage order.
template <class T, class Enc, class Space>
DeviceCoo<T, Space> expand_entries(const Tensor<T, Enc, Space>& t) {
  constexpr int N = Enc::order;
  using Coo = DeviceCoo<T, Space>;
  const StoredEntries<T, Enc, Space> walk(t);
  const std::int64_t positions = walk.positions;
  std::int64_t kept = positions;
  if (walk.skips_zeros)
    Kokkos::parallel_reduce(
        "tessera::expand[count]", range<Space>(positions),
        KOKKOS_LAMBDA(const std::int64_t q, std::int64_t& count) { count += walk.stored(q); }, kept);
  Coo out;
  out.shape.assign(t.shape().begin(), t.shape().end());
  out.coords = uninitialized_view<typename Coo::coords_view>("tessera::coo_coords", kept, N);
  out.values = uninitialized_view<typename Coo::values_view>("tessera::coo_values", kept);
  const ExpandedEntryWriter<T, Enc, Space> emit{walk, out.coords, out.values};
  if (walk.skips_zeros) {
    Kokkos::parallel_scan(
        "tessera::expand", range<Space>(positions),
        KOKKOS_LAMBDA(const std::int64_t q, std::int64_t& n, const bool final) {
          if (!walk.stored(q)) return;
          if (final) emit(q, n);
          ++n;
        });
  } else {
    Kokkos::parallel_for(
        "tessera::expand", range<Space>(positions), KOKKOS_LAMBDA(const std::int64_t q) { emit(q, q); });
  }
  return out;
}

}  // namespace tessera::detail
