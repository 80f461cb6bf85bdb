#pragma once
/// \file
/// The kernels behind tessera::add and tessera::multiply_elementwise: the sorted slices (rows of
/// CSR, columns of CSC) of A and B merged pairwise, so that C comes out sorted and free of
/// duplicates, in the operands' own space, in two passes (count, then write). On a device a team
/// takes a block of slices (merge_row_blocks.hpp; a thread an entry where slices are long,
/// merge_entries.hpp), or a thread a slice where zeros are dropped; on host spaces a thread takes
/// a slice, and small operands are merged in one pass over chunks of slices into scratch, each
/// chunk's block then copied into place. (A handle's values-only calls gather instead:
/// value_sources.hpp.)
#include <algorithm>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include <Kokkos_Core.hpp>

#include "tessera/core/error.hpp"
#include "tessera/core/tensor.hpp"
#include "tessera/formats/assembly/parallel.hpp"
#include "tessera/formats/assembly/result_arrays.hpp"
#include "tessera/kernels/elementwise/impl/merge_entries.hpp"
#include "tessera/kernels/elementwise/impl/merge_row_blocks.hpp"
#include "tessera/kernels/elementwise/impl/merge_sequential.hpp"

namespace tessera::kernels::impl {

/// Host spaces: C in one merge pass. Slices are cut into chunks of about equal nnz(A) + nnz(B);
/// a chunk writes its slices one after another into scratch from its upper-bound offset (so no
/// counting pass), then the slice lengths are scanned into C's positions and each chunk's block
/// is copied into place. `keep(v, in_a, in_b)` says which entries C holds.
template <class T, class Enc, class Space, class Combine, class Keep>
Tensor<T, Enc, Space> merge_slices_one_pass(const Space& space, const Tensor<T, Enc, Space>& A,
                                            const Tensor<T, Enc, Space>& B, const Combine& combine,
                                            const Keep& keep) {
  using Tens = Tensor<T, Enc, Space>;
  using Offset = typename Enc::offset_type;
  const std::int64_t slices = A.extent(Enc::mode_order[0]);
  const auto& a = A.decompose();
  const auto& b = B.decompose();
  const auto pos_a = a.levels[1].pos, pos_b = b.levels[1].pos;
  const auto crd_a = a.levels[1].crd, crd_b = b.levels[1].crd;
  const auto vals_a = a.vals, vals_b = b.vals;
  const auto bound = [&](std::int64_t s) { return static_cast<std::int64_t>(pos_a(s)) + pos_b(s); };
  const std::int64_t total = A.nnz() + B.nnz();
  const std::int64_t chunks = std::min<std::int64_t>(slices, 4 * static_cast<std::int64_t>(space.concurrency()));
  std::vector<std::int64_t> first(static_cast<std::size_t>(chunks) + 1, slices), length(static_cast<std::size_t>(chunks));
  for (std::int64_t k = 0, s = 0; k < chunks; ++k) {  // first slice whose bound reaches k / chunks of the total
    while (s < slices && bound(s) * chunks < k * total) ++s;
    first[k] = s;
  }
  typename Tens::crd_view scratch_crd =
      tessera::detail::uninitialized_view<typename Tens::crd_view>("tessera::elementwise scratch crd", total);
  typename Tens::vals_view scratch_vals =
      tessera::detail::uninitialized_view<typename Tens::vals_view>("tessera::elementwise scratch vals", total);
  typename Tens::Storage c;
  c.levels[1].pos = tessera::detail::uninitialized_view<typename Tens::pos_view>("tessera::elementwise pos", slices + 1);
  const auto pos_c = c.levels[1].pos;
  using Chunks = Kokkos::RangePolicy<Space, Kokkos::IndexType<std::int64_t>>;
  Kokkos::parallel_for("tessera::elementwise[merge]", Chunks(space, 0, chunks), [&](const std::int64_t k) {
    std::int64_t e = bound(first[k]);
    const std::int64_t start = e;
    for (std::int64_t s = first[k]; s < first[k + 1]; ++s) {
      const std::int64_t slice_start = e;
      e = write_merged(pos_a(s), pos_a(s + 1), pos_b(s), pos_b(s + 1), crd_a, vals_a, crd_b, vals_b, combine, keep,
                       scratch_crd, scratch_vals, e);
      pos_c(s) = static_cast<Offset>(e - slice_start);  // a length until the scan below
    }
    length[k] = e - start;
  });
  tessera::detail::counts_to_offsets(space, pos_c, slices);
  const std::int64_t entries = pos_c(slices);
  c.levels[1].crd = tessera::detail::uninitialized_view<typename Tens::crd_view>("tessera::elementwise crd", entries);
  c.vals = tessera::detail::uninitialized_view<typename Tens::vals_view>("tessera::elementwise vals", entries);
  const auto crd_c = c.levels[1].crd;
  const auto vals_c = c.vals;
  Kokkos::parallel_for("tessera::elementwise[place]", Chunks(space, 0, chunks), [&](const std::int64_t k) {
    const std::int64_t from = bound(first[k]), to = pos_c(first[k]);
    std::copy(scratch_crd.data() + from, scratch_crd.data() + from + length[k], crd_c.data() + to);
    std::copy(scratch_vals.data() + from, scratch_vals.data() + from + length[k], vals_c.data() + to);
  });
  space.fence();
  return Tens(A.shape(), std::move(c));
}

/// Input entries up to which host spaces merge in one pass through scratch (12 bytes each for
/// int coordinates and double values: a few MB).
inline constexpr std::int64_t kOnePassMaxEntries = std::int64_t{1} << 19;

/// Bytes up to which device spaces size each of C's arrays for nnz(A) + nnz(B) entries before
/// counting, so that the count, the scan and the writes are queued back to back and the host
/// waits once, for nnz(C) at the end, instead of between the count and the writes: small calls
/// are all fixed cost. Larger arrays are allocated once nnz(C) is known, so that C holds at most
/// 4 MiB per array it does not need (and long slices are looked for first: merge_entries.hpp).
inline constexpr std::int64_t kSizedAheadMaxBytes = std::int64_t{4} << 20;

/// C with A's shape and encoding: coordinate c of a slice is kept by Kind (and, with drop_zeros,
/// where combine(a, b) != 0), its value combine(a, b).
template <MergeKind Kind, class T, class Enc, class Space, class Combine>
Tensor<T, Enc, Space> merge_slices(const Space& space, const Tensor<T, Enc, Space>& A, const Tensor<T, Enc, Space>& B,
                                   const Combine& combine, bool drop_zeros) {
  using Tens = Tensor<T, Enc, Space>;
  using Offset = typename Enc::offset_type;
  using Policy = Kokkos::RangePolicy<Space, Kokkos::IndexType<std::int64_t>>;
  const std::int64_t slices = A.extent(Enc::mode_order[0]);
  const auto& a = A.decompose();
  const auto& b = B.decompose();
  const auto pos_a = a.levels[1].pos, pos_b = b.levels[1].pos;
  const auto crd_a = a.levels[1].crd, crd_b = b.levels[1].crd;
  const auto vals_a = a.vals, vals_b = b.vals;
  const auto keep = KOKKOS_LAMBDA(T v, bool in_a, bool in_b) {
    return (Kind == MergeKind::Union || (in_a && in_b)) && !(drop_zeros && v == T(0));
  };
  constexpr bool host = Kokkos::SpaceAccessibility<Kokkos::HostSpace, typename Space::memory_space>::accessible;
  const bool by_blocks = !host && !drop_zeros;
  const RowBlocks blocks = RowBlocks::of(space, slices, A.nnz() + B.nnz());
  tessera::detail::ResultArrays<Space> arrays(space);
  typename Tens::Storage c;
  // At most nnz(A) + nnz(B) entries: where that passes the offset type, C might too.
  if (A.nnz() + B.nnz() > static_cast<std::int64_t>(std::numeric_limits<Offset>::max()))
    throw OverflowError("element-wise: " + std::to_string(A.nnz()) + " + " + std::to_string(B.nnz()) +
                        " entries may pass the encoding's offset type; use 64-bit offsets");
  // One pass while its scratch stays in cache; past that, faulting in the scratch's fresh pages
  // costs more than the counting pass it saves.
  if constexpr (host)
    if (A.nnz() + B.nnz() <= kOnePassMaxEntries) return merge_slices_one_pass(space, A, B, combine, keep);
  std::int64_t entries = -1;                            // nnz(C), once read back
  std::optional<EntryMatches<Space, Offset>> matches;  // where long slices go entry by entry
  if (by_blocks) {
    // One slot past C's offsets holds the long slices' flag (below).
    const auto pos_and_flag =
        arrays.template take<typename Tens::pos_view>("tessera::elementwise pos", slices + 2);
    c.levels[1].pos = Kokkos::subview(pos_and_flag, Kokkos::make_pair(std::int64_t{0}, slices + 1));
    const auto pos_c = c.levels[1].pos;
    const std::int64_t bound = A.nnz() + B.nnz();
    const bool sized_ahead =
        bound * static_cast<std::int64_t>(std::max(sizeof(T), sizeof(typename Enc::ordinal_type))) <=
        kSizedAheadMaxBytes;
    if (sized_ahead) {
      c.levels[1].crd = arrays.template take<typename Tens::crd_view>("tessera::elementwise crd", bound);
      c.vals = arrays.template take<typename Tens::vals_view>("tessera::elementwise vals", bound);
    }
    // Past the sized-ahead bound the host waits for nnz(C) anyway: blocks that would walk a long
    // slice flag it instead of counting, the flag comes back with nnz(C), and then the merge goes
    // entry by entry (merge_entries.hpp).
    Offset* const long_walk = sized_ahead ? nullptr : pos_and_flag.data() + slices + 1;
    if (long_walk)
      Kokkos::parallel_for(
          "tessera::elementwise[clear flag]", Policy(space, 0, 1), KOKKOS_LAMBDA(std::int64_t) { *long_walk = 0; });
    count_row_blocks<Kind == MergeKind::Union>(space, blocks, pos_a, crd_a, pos_b, crd_b, pos_c, long_walk);
    tessera::detail::counts_to_offsets(space, pos_c, slices);
    if (sized_ahead) {
      write_row_blocks<Kind == MergeKind::Union>(space, blocks, pos_a, crd_a, vals_a, pos_b, crd_b, vals_b, combine,
                                                 pos_c, c.levels[1].crd, c.vals);
      Offset written = 0;
      Kokkos::deep_copy(Kokkos::View<Offset, Kokkos::HostSpace>(&written), Kokkos::subview(pos_c, slices));
      const auto first = Kokkos::make_pair(std::int64_t{0}, static_cast<std::int64_t>(written));
      c.levels[1].crd = Kokkos::subview(c.levels[1].crd, first);
      c.vals = Kokkos::subview(c.vals, first);
      return Tens(A.shape(), std::move(c), arrays.owner());
    }
    Offset tail[2] = {0, 0};  // nnz(C) and the flag
    Kokkos::deep_copy(Kokkos::View<Offset*, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>(tail, 2),
                      Kokkos::subview(pos_and_flag, Kokkos::make_pair(slices, slices + 2)));
    entries = tail[0];
    if (tail[1]) {
      matches.emplace(match_entries(space, slices, A.nnz(), pos_a, crd_a, pos_b, crd_b));
      count_by_entries<Kind == MergeKind::Union>(space, slices, pos_a, pos_b, *matches, pos_c);
      tessera::detail::counts_to_offsets(space, pos_c, slices);
      entries = -1;
    }
  } else {
    c.levels[1].pos = tessera::detail::offsets_of<Offset, Space>(
        "tessera::elementwise pos", slices, KOKKOS_LAMBDA(std::int64_t s) {
          if (!drop_zeros) return count_merged<Kind>(pos_a(s), pos_a(s + 1), pos_b(s), pos_b(s + 1), crd_a, crd_b);
          std::int64_t count = 0;
          walk_slices(pos_a(s), pos_a(s + 1), pos_b(s), pos_b(s + 1), crd_a, vals_a, crd_b, vals_b,
                      [&](std::int64_t, T x, T y, bool in_a, bool in_b) {
                        count += keep(combine(x, y), in_a, in_b);
                      });
          return count;
        });
  }
  const auto pos_c = c.levels[1].pos;
  if (entries < 0) {
    Offset last = 0;
    Kokkos::deep_copy(Kokkos::View<Offset, Kokkos::HostSpace>(&last), Kokkos::subview(pos_c, slices));
    entries = last;
  }
  c.levels[1].crd = arrays.template take<typename Tens::crd_view>("tessera::elementwise crd", entries);
  c.vals = arrays.template take<typename Tens::vals_view>("tessera::elementwise vals", entries);
  const auto crd_c = c.levels[1].crd;
  const auto vals_c = c.vals;
  if (matches)
    write_by_entries<Kind == MergeKind::Union>(space, slices, A.nnz(), B.nnz(), pos_a, crd_a, vals_a, pos_b, crd_b,
                                               vals_b, combine, *matches, pos_c, crd_c, vals_c);
  else if (by_blocks)
    write_row_blocks<Kind == MergeKind::Union>(space, blocks, pos_a, crd_a, vals_a, pos_b, crd_b, vals_b, combine,
                                               pos_c, crd_c, vals_c);
  else
    Kokkos::parallel_for(
        "tessera::elementwise", Policy(space, 0, slices), KOKKOS_LAMBDA(const std::int64_t s) {
          write_merged(pos_a(s), pos_a(s + 1), pos_b(s), pos_b(s + 1), crd_a, vals_a, crd_b, vals_b, combine, keep,
                       crd_c, vals_c, pos_c(s));
        });
  return Tens(A.shape(), std::move(c), arrays.owner());
}

}  // namespace tessera::kernels::impl
