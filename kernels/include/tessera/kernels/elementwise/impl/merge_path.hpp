#pragma once
/// \file
/// One long slice merged by a whole team along the merge path: the merged order of A's and B's
/// entries (A's first where coordinates tie) is cut into a piece per thread, each end found by a
/// binary search on its diagonal, and each thread merges its piece in order. A slice of thousands
/// of entries then costs two searches and a few dozen steps per thread, where walking it a chunk
/// of the team's width at a time costs a search and a team scan per chunk.
#include <cstdint>

#include <Kokkos_Core.hpp>

namespace tessera::kernels::impl {

/// A thread's piece of the merged order of A's slice [a0, a0 + na) and B's [b0, b0 + nb): A's
/// entries i to i_end and B's j to j_end (counted from the slices' starts).
struct MergePathPiece {
  std::int64_t a0, na, b0, nb;
  std::int64_t i, j, i_end, j_end;

  /// A's entries among the first d of the merged order.
  template <class Crd>
  KOKKOS_INLINE_FUNCTION static std::int64_t split(const Crd& crd_a, std::int64_t a0, std::int64_t na,
                                                   const Crd& crd_b, std::int64_t b0, std::int64_t nb,
                                                   std::int64_t d) {
    std::int64_t lo = d > nb ? d - nb : 0, hi = d < na ? d : na;
    while (lo < hi) {
      const std::int64_t mid = lo + (hi - lo) / 2;
      if (crd_a(a0 + mid) <= crd_b(b0 + d - mid - 1)) lo = mid + 1;  // A's mid-th goes before B's
      else hi = mid;
    }
    return lo;
  }

  /// Piece `rank` of `pieces` about equal ones of the slices [a0, a1) and [b0, b1).
  template <class Crd>
  KOKKOS_INLINE_FUNCTION static MergePathPiece of(int rank, int pieces, std::int64_t a0, std::int64_t a1,
                                                  const Crd& crd_a, std::int64_t b0, std::int64_t b1,
                                                  const Crd& crd_b) {
    const std::int64_t na = a1 - a0, nb = b1 - b0, total = na + nb;
    const std::int64_t d0 = total * rank / pieces, d1 = total * (rank + 1) / pieces;
    const std::int64_t i = split(crd_a, a0, na, crd_b, b0, nb, d0), i_end = split(crd_a, a0, na, crd_b, b0, nb, d1);
    return {a0, na, b0, nb, i, d0 - i, i_end, d1 - i_end};
  }

  /// Calls emit(p, q) for each entry of C the piece holds, in order: p the entry of A or -1, q that
  /// of B or -1 (both where the coordinates match). Kept: every coordinate (Union) or the matched
  /// ones. A matched pair may straddle two pieces; the piece holding A's entry emits it.
  template <bool Union, class Crd, class Emit>
  KOKKOS_INLINE_FUNCTION void walk(const Crd& crd_a, const Crd& crd_b, const Emit& emit) const {
    std::int64_t p = i, q = j;
    while (p < i_end || q < j_end) {
      if (q == j_end || (p < i_end && crd_a(a0 + p) <= crd_b(b0 + q))) {
        // B's entries before q all go before this one: only B's q-th can match it.
        const bool matched = q < nb && crd_b(b0 + q) == crd_a(a0 + p);
        if (Union || matched) emit(a0 + p, matched ? b0 + q : std::int64_t{-1});
        ++p;
      } else {
        // Only A's entry just before can match it (A's go first on ties); that one emitted the pair.
        const bool matched = p > 0 && crd_a(a0 + p - 1) == crd_b(b0 + q);
        if (Union && !matched) emit(std::int64_t{-1}, b0 + q);
        ++q;
      }
    }
  }

  /// The entries of C the piece holds.
  template <bool Union, class Crd>
  KOKKOS_INLINE_FUNCTION std::int64_t entries(const Crd& crd_a, const Crd& crd_b) const {
    std::int64_t n = 0;
    walk<Union>(crd_a, crd_b, [&](std::int64_t, std::int64_t) { ++n; });
    return n;
  }
};

/// A team thread's piece of one slice and where its entries start in C's slice.
struct TeamMergePiece {
  MergePathPiece piece;
  std::int64_t before;   ///< entries of C's slice in the team's earlier pieces
  std::int64_t entries;  ///< entries of C's slice in this piece
};

/// Thread r of the team takes piece r of the slices [a0, a1) of A and [b0, b1) of B. Every thread
/// of the team calls it (a team scan); the last one's before + entries is C's slice's length.
template <bool Union, class Member, class Crd>
KOKKOS_INLINE_FUNCTION TeamMergePiece team_merge_piece(const Member& member, std::int64_t a0, std::int64_t a1,
                                                       const Crd& crd_a, std::int64_t b0, std::int64_t b1,
                                                       const Crd& crd_b) {
  const auto piece = MergePathPiece::of(member.team_rank(), member.team_size(), a0, a1, crd_a, b0, b1, crd_b);
  const std::int64_t entries = piece.template entries<Union>(crd_a, crd_b);
  return {piece, member.team_scan(entries), entries};
}

}  // namespace tessera::kernels::impl
