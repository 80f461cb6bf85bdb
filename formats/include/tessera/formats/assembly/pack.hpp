#pragma once
/// \file
/// Parallel packing of sorted, unique entries into an encoding's level arrays, in the tensor's
/// space. Level by level, each entry has a position at the previous level (its parent):
///   Dense l:       position = parent * extent + coordinate, folded from the keys when needed
///                  (EntryPositions) rather than stored per entry
///   Compressed l:  a new node where the entry's prefix of levels 0..l differs from the previous
///                  entry's; node numbers by a scan, crd written at new nodes, pos(p) = first node
///                  of parent p (the node that starts a parent also fills the empty parents before it)
///   Singleton l:   crd at the entry's own position (its parent level gave each entry one)
/// The last sparse level gives every entry its own position, so values need no scatter there.
#include <cstdint>
#include <string>

#include <Kokkos_Core.hpp>

#include "tessera/core/allocation.hpp"
#include "tessera/core/checked_count.hpp"
#include "tessera/core/tensor.hpp"
#include "tessera/formats/assembly/key_layout.hpp"
#include "tessera/formats/assembly/parallel.hpp"
#include "tessera/formats/encoding.hpp"
#include "tessera/formats/host_levels.hpp"

namespace tessera::detail {

// Position of entry n at level `to - 1`: its position at level `from - 1` (stored in `base`; the
// root's 0 where base is empty), then the dense levels [from, to) folded in from the keys.
template <class Keys, class Parents, int N>
struct EntryPositions {
  Keys keys;
  Parents base;
  int from = 0, to = 0;
  Kokkos::Array<std::int64_t, N> extent;  // per storage level

  KOKKOS_INLINE_FUNCTION std::int64_t operator()(std::int64_t n) const {
    std::int64_t p = base.data() ? base(n) : 0;
    for (int l = from; l < to; ++l) p = p * extent[l] + keys.coord(n, l);
    return p;
  }
};

// Writes the crd entry of a new node q of compressed level `level` and pos of the parents it starts.
template <class Keys, class Positions, class PosView, class CrdView>
struct CompressedLevelWriter {
  Keys keys;
  int level;
  Positions parent_of;  // entry -> position at level - 1
  PosView pos;
  CrdView crd;

  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t n, std::int64_t q, bool new_node) const {
    if (!new_node) return;  // same prefix, hence same parent: no pos entry starts here
    crd(q) = static_cast<typename CrdView::value_type>(keys.coord(n, level));
    const std::int64_t previous = n == 0 ? -1 : parent_of(n - 1);
    const std::int64_t parent = parent_of(n);
    for (std::int64_t p = previous + 1; p <= parent; ++p) pos(p) = static_cast<typename PosView::value_type>(q);
  }
};

// Entries 0..nnz-1 of `keys` (sorted in Enc's storage order, unique) with values `vals` -> tensor.
template <class T, class Enc, class Space>
Tensor<T, Enc, Space> pack_keys(const Shape<Enc::order>& shape, const SortedKeys<Enc::order, DeviceOf<Space>>& keys,
                                std::int64_t nnz, const Kokkos::View<T*, DeviceOf<Space>>& vals) {
  using Result = Tensor<T, Enc, Space>;
  using Offset = typename Enc::offset_type;
  using Parents = Kokkos::View<std::int64_t*, DeviceOf<Space>>;
  constexpr int N = Enc::order;
  using Keys = SortedKeys<N, DeviceOf<Space>>;
  using Positions = EntryPositions<Keys, Parents, N>;
  typename Result::Storage storage;
  Kokkos::Array<std::int64_t, N> extents;
  for (int l = 0; l < N; ++l) extents[l] = shape[Enc::mode_order[l]];
  Parents parent;      // positions of the entries at level dense_from - 1; empty: the root
  int dense_from = 0;  // levels [dense_from, l) are dense
  std::int64_t parent_count = 1;
  for (int l = 0; l < N; ++l) {
    const std::int64_t extent = extents[l];
    const std::string tag = std::to_string(l);
    switch (Enc::level_kinds[l]) {
      case LevelKind::Dense: {
        parent_count = checked_count_product(parent_count, extent, "dense level " + tag);
        check_fits<Offset>(parent_count, "dense level size");
        break;
      }
      case LevelKind::Compressed:
      case LevelKind::CompressedNonUnique: {
        check_fits<Offset>(nnz, "number of entries");
        // Below the last level and in non-unique levels every entry is a node of its own.
        const bool node_per_entry = l == N - 1 || Enc::level_kinds[l] == LevelKind::CompressedNonUnique;
        std::int64_t nodes = nnz;
        if (!node_per_entry)
          Kokkos::parallel_reduce(
              "tessera::pack[count nodes]", range<Space>(nnz),
              KOKKOS_LAMBDA(const std::int64_t n, std::int64_t& count) { count += n == 0 || keys.differs(n, l); },
              nodes);
        const auto pos = uninitialized_view<typename Result::pos_view>("tessera::pos" + tag, parent_count + 1);
        const auto crd = uninitialized_view<typename Result::crd_view>("tessera::crd" + tag, nodes);
        const CompressedLevelWriter<Keys, Positions, typename Result::pos_view, typename Result::crd_view> write{
            keys, l, Positions{keys, parent, dense_from, l, extents}, pos, crd};
        if (node_per_entry) {
          Kokkos::parallel_for(
              "tessera::pack[compressed]", range<Space>(nnz),
              KOKKOS_LAMBDA(const std::int64_t n) { write(n, n, true); });
        } else {
          const Parents next = uninitialized_view<Parents>("tessera::assembly parents", nnz);
          Kokkos::parallel_scan(
              "tessera::pack[compressed]", range<Space>(nnz),
              KOKKOS_LAMBDA(const std::int64_t n, std::int64_t& count, const bool final) {
                const bool new_node = n == 0 || keys.differs(n, l);
                if (final) {
                  const std::int64_t q = new_node ? count : count - 1;
                  write(n, q, new_node);
                  next(n) = q;
                }
                count += new_node;
              });
          parent = next;
          dense_from = l + 1;
        }
        // Parents after the last entry's start nowhere: they end at the node count.
        Kokkos::parallel_for(
            "tessera::pack[pos tail]", range<Space>(parent_count + 1), KOKKOS_LAMBDA(const std::int64_t p) {
              if (nnz == 0 || p > write.parent_of(nnz - 1)) pos(p) = static_cast<Offset>(nodes);
            });
        storage.levels[l].pos = pos;
        storage.levels[l].crd = crd;
        parent_count = nodes;
        break;
      }
      case LevelKind::Singleton: {
        // Below a non-unique or singleton level: entry n sits at position n.
        const auto crd = uninitialized_view<typename Result::crd_view>("tessera::crd" + tag, parent_count);
        Kokkos::parallel_for(
            "tessera::pack[singleton]", range<Space>(nnz), KOKKOS_LAMBDA(const std::int64_t n) {
              crd(n) = static_cast<typename Enc::ordinal_type>(keys.coord(n, l));
            });
        storage.levels[l].crd = crd;
        break;
      }
    }
  }
  if constexpr (Enc::level_kinds[N - 1] == LevelKind::Dense) {
    // Every position of a dense last level holds a value: zeros, then the entries'.
    using Vals = typename Result::vals_view;
    const Vals out =
        guard_allocation("tessera::vals", saturated_bytes(parent_count, sizeof(T)), Result::memory_space::name(),
                         [&] { return Vals("tessera::vals", parent_count); });
    const Positions at{keys, parent, dense_from, N, extents};
    Kokkos::parallel_for(
        "tessera::pack[dense values]", range<Space>(nnz),
        KOKKOS_LAMBDA(const std::int64_t n) { out(at(n)) = vals(n); });
    storage.vals = out;
  } else {
    storage.vals = vals;
  }
  return Result(shape, std::move(storage));
}

}  // namespace tessera::detail
