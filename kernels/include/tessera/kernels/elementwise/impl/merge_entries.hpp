#pragma once
/// \file
/// The element-wise merge entry by entry, for device operands with long slices. The row blocks'
/// kernels (merge_row_blocks.hpp) walk a block's entries chunk after chunk in one team, so one
/// slice of many thousand entries keeps one team busy long after the rest of the device is idle.
/// Here a thread takes one input entry: it finds its slice and its partner in the other operand
/// by binary search, and a scan of A's matched entries gives every entry its place in C.
#include <cstdint>

#include <Kokkos_Core.hpp>

#include "tessera/core/allocation.hpp"
#include "tessera/formats/assembly/parallel.hpp"
#include "tessera/kernels/elementwise/impl/merge_row_blocks.hpp"

namespace tessera::kernels::impl {

/// Where A's entries meet B: partner(e), the first position of B's slice not below A's entry e;
/// matched(e), the matched entries of A before e (over all slices: a slice's own count starts at
/// matched(pos_a(s))), nnz(A) + 1 of them.
template <class Space, class Offset>
struct EntryMatches {
  Kokkos::View<Offset*, tessera::detail::DeviceOf<Space>> partner, matched;
};

/// The slice of entry e, given the slices' offsets.
template <class Pos>
KOKKOS_INLINE_FUNCTION std::int64_t slice_of(const Pos& pos, std::int64_t slices, std::int64_t e) {
  return lower_bound(pos, 0, slices + 1, e + 1) - 1;  // the last slice starting at or before e
}

/// Where coordinate x of slice s meets Y: k, the first position of Y's slice s not below x, and
/// whether Y holds x there.
struct Partner {
  std::int64_t k;
  bool matched;
};
template <class Pos, class Crd, class X>
KOKKOS_INLINE_FUNCTION Partner partner_in(const Pos& pos_y, const Crd& crd_y, std::int64_t s, X x) {
  const std::int64_t end = pos_y(s + 1);
  const std::int64_t k = lower_bound(crd_y, pos_y(s), end, x);
  return {k, k < end && crd_y(k) == x};
}

template <class Space, class Pos, class Crd>
EntryMatches<Space, typename Pos::non_const_value_type> match_entries(const Space& space, std::int64_t slices,
                                                                      std::int64_t nnz_a, const Pos& pos_a,
                                                                      const Crd& crd_a, const Pos& pos_b,
                                                                      const Crd& crd_b) {
  using Offset = typename Pos::non_const_value_type;
  using Offsets = Kokkos::View<Offset*, tessera::detail::DeviceOf<Space>>;
  EntryMatches<Space, Offset> m;
  m.partner = tessera::detail::uninitialized_view<Offsets>("tessera::elementwise partners", nnz_a);
  m.matched = tessera::detail::uninitialized_view<Offsets>("tessera::elementwise matched", nnz_a + 1);
  const auto partner = m.partner, matched = m.matched;
  using Policy = Kokkos::RangePolicy<Space, Kokkos::IndexType<std::int64_t>>;
  Kokkos::parallel_for(
      "tessera::elementwise[match entries]", Policy(space, 0, nnz_a), KOKKOS_LAMBDA(const std::int64_t e) {
        const Partner p = partner_in(pos_b, crd_b, slice_of(pos_a, slices, e), crd_a(e));
        partner(e) = static_cast<Offset>(p.k);
        matched(e) = p.matched;  // a count until the scan below
      });
  tessera::detail::counts_to_offsets(space, m.matched, nnz_a);
  return m;
}

/// counts(s) = the entries of slice s of C (the union or the intersection), from the matches.
template <bool Union, class Space, class Pos, class Matches, class Counts>
void count_by_entries(const Space& space, std::int64_t slices, const Pos& pos_a, const Pos& pos_b,
                      const Matches& m, const Counts& counts) {
  using Count = typename Counts::non_const_value_type;
  const auto matched = m.matched;
  Kokkos::parallel_for(
      "tessera::elementwise[count entries]",
      Kokkos::RangePolicy<Space, Kokkos::IndexType<std::int64_t>>(space, 0, slices),
      KOKKOS_LAMBDA(const std::int64_t s) {
        const std::int64_t both = matched(pos_a(s + 1)) - matched(pos_a(s));
        const std::int64_t total = (pos_a(s + 1) - pos_a(s)) + (pos_b(s + 1) - pos_b(s));
        counts(s) = static_cast<Count>(Union ? total - both : both);
      });
}

/// Writes C from positions pos_c: A's entries (the union) or those matched in B (the
/// intersection) with combine(a, b or 0), then B's unmatched entries with combine(0, b) (the
/// union). An entry's place in its slice counts the coordinates of A and of B below its own, less
/// those in both (matched entries of A before it).
template <bool Union, class Space, class Pos, class Crd, class Vals, class Matches, class OutPos, class OutCrd,
          class OutVals, class Combine>
void write_by_entries(const Space& space, std::int64_t slices, std::int64_t nnz_a, std::int64_t nnz_b,
                      const Pos& pos_a, const Crd& crd_a, const Vals& vals_a, const Pos& pos_b, const Crd& crd_b,
                      const Vals& vals_b, const Combine& combine, const Matches& m, const OutPos& pos_c,
                      const OutCrd& crd_c, const OutVals& vals_c) {
  using T = typename OutVals::non_const_value_type;
  using Policy = Kokkos::RangePolicy<Space, Kokkos::IndexType<std::int64_t>>;
  const auto partner = m.partner, matched = m.matched;
  Kokkos::parallel_for(
      "tessera::elementwise[write entries of A]", Policy(space, 0, nnz_a), KOKKOS_LAMBDA(const std::int64_t e) {
        const std::int64_t s = slice_of(pos_a, slices, e);
        const std::int64_t before = matched(e) - matched(pos_a(s));
        const bool both = matched(e + 1) != matched(e);
        const std::int64_t k = partner(e);
        std::int64_t c = pos_c(s);
        if (Union) c += (e - pos_a(s)) + (k - pos_b(s)) - before;
        else if (both) c += before;
        else return;
        crd_c(c) = crd_a(e);
        vals_c(c) = combine(vals_a(e), both ? vals_b(k) : T(0));
      });
  if (!Union) return;
  Kokkos::parallel_for(
      "tessera::elementwise[write entries of B]", Policy(space, 0, nnz_b), KOKKOS_LAMBDA(const std::int64_t f) {
        const std::int64_t s = slice_of(pos_b, slices, f);
        const Partner p = partner_in(pos_a, crd_a, s, crd_b(f));
        if (p.matched) return;  // written with A's entry
        const std::int64_t c = pos_c(s) + (f - pos_b(s)) + (p.k - pos_a(s)) - (matched(p.k) - matched(pos_a(s)));
        crd_c(c) = crd_b(f);
        vals_c(c) = combine(T(0), vals_b(f));
      });
}

}  // namespace tessera::kernels::impl
