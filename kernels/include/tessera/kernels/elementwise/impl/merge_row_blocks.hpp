#pragma once
/// \file
/// Device kernels of the element-wise merge without dropped zeros. A team takes a block of
/// consecutive slices. Where all of them are short, a thread merges a slice in order
/// (merge_sequential.hpp). Otherwise, on CUDA, threads merge the short ones, a warp walks each of
/// medium length (below) and the whole team merges each long one along the merge path
/// (merge_path.hpp). On other devices the team walks the block's entries of one operand in chunks
/// of one entry per thread (coalesced, whatever the slices' lengths): each entry finds its slice
/// among the block's offsets and its partner in the other operand's slice by binary search. Its
/// place in C is its index in the slice plus the other slice's entries below it, less the matched
/// pairs before it in its slice (a team scan of the matches; a warp's ballot in a warp's walk).
#include <algorithm>
#include <cstdint>
#include <limits>
#include <type_traits>

#include <Kokkos_Core.hpp>

#include "tessera/kernels/elementwise/impl/merge_path.hpp"
#include "tessera/kernels/elementwise/impl/merge_sequential.hpp"

namespace tessera::kernels::impl {

/// The first position in [lo, hi) of the sorted `v` whose value is not below x.
template <class V, class X>
KOKKOS_INLINE_FUNCTION std::int64_t lower_bound(const V& v, std::int64_t lo, std::int64_t hi, X x) {
  while (lo < hi) {
    const std::int64_t mid = lo + (hi - lo) / 2;
    if (v(mid) < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/// How the slices are cut into teams' blocks.
struct RowBlocks {
  static constexpr int kTeamSize = 256;
  static constexpr std::int64_t kBlockEntries = 8 * kTeamSize;  ///< input entries a block aims at
  /// Input entries a block aims at where the mean slice is past kThreadMergeMax (walked a warp
  /// each): the block's fixed work (its offsets' copy, its longest slice) spreads over more slices.
  static constexpr std::int64_t kWalkedBlockEntries = 4 * kBlockEntries;
  static constexpr std::int64_t kMaxSlices = 512;               ///< of a block: bounds the team's scratch
  /// Entries of A and B a slice may have before it counts as long (merge_entries.hpp takes them):
  /// the team that walks it would run on long after the others.
  static constexpr std::int64_t kLongWalk = 16 * kTeamSize;
  /// Entries of both operands up to which every slice of a block lets threads merge a slice each:
  /// the team's walk is bound by its instructions (binary searches and a scan per chunk), a
  /// sequential merge is not. Longer slices are walked: with a thread per slice of 64 entries (a
  /// band of 32 in A + A^T) the merge took twice the walk's time.
  static constexpr std::int64_t kThreadMergeMax = 32;
  /// Entries of both operands up to which, on CUDA, a block's slices longer than kThreadMergeMax
  /// are walked a warp each (the shorter ones merged a thread each): the slice is known (no search
  /// among the block's offsets) and the matches before an entry come from the warp's ballot (no
  /// team scan, no barrier). Past it a block holds too few slices to keep its warps busy: its
  /// longer slices are walked by the team or merged by it (kTeamMergeMin).
  static constexpr std::int64_t kWarpWalkMax = 256;
  /// Entries of both operands past which, on CUDA, a block's longest slice makes the team merge
  /// each slice longer than kWarpWalkMax along the merge path, one after another (the others
  /// merged by threads and warps as above): each such slice costs the team a few binary searches
  /// and scans, which its walk of the block's entries spends per chunk of kTeamSize entries.
  static constexpr std::int64_t kTeamMergeMin = 4 * kTeamSize;
  std::int64_t slices = 0;
  std::int64_t per_block = 1;

  /// Blocks of about kBlockEntries input entries, more of them where that would leave the device
  /// idle.
  template <class Space>
  static RowBlocks of(const Space& space, std::int64_t slices, std::int64_t entries) {
    RowBlocks b;
    b.slices = slices;
    const std::int64_t mean = std::max<std::int64_t>(1, entries / std::max<std::int64_t>(slices, 1));
    const std::int64_t teams_to_fill = std::max<std::int64_t>(1, space.concurrency() / kTeamSize);
    const std::int64_t filling = (slices + teams_to_fill - 1) / teams_to_fill;
    const std::int64_t aim = mean > kThreadMergeMax ? kWalkedBlockEntries : kBlockEntries;
    b.per_block = std::clamp<std::int64_t>(std::min(aim / mean, filling), 1, kMaxSlices);
    return b;
  }
  std::int64_t blocks() const { return (slices + per_block - 1) / per_block; }
};

/// Team scratch of one block: its slices' offsets in A and B, the matches before each slice's first
/// entry, and the running count of matches.
template <class Space, class Offset>
struct BlockScratch {
  using Memory = typename Space::scratch_memory_space;
  using Offsets = Kokkos::View<Offset*, Memory, Kokkos::MemoryUnmanaged>;
  using Counts = Kokkos::View<std::int64_t*, Memory, Kokkos::MemoryUnmanaged>;
  Offsets pos_a, pos_b;
  Counts matched_before_slice, matches;

  static std::size_t bytes(std::int64_t per_block) {
    return 2 * Offsets::shmem_size(per_block + 1) + Counts::shmem_size(per_block) + Counts::shmem_size(1);
  }
  template <class Member, class Pos>
  KOKKOS_INLINE_FUNCTION BlockScratch(const Member& member, std::int64_t s0, std::int64_t n, const Pos& a, const Pos& b)
      : pos_a(member.team_scratch(0), n + 1),
        pos_b(member.team_scratch(0), n + 1),
        matched_before_slice(member.team_scratch(0), n),
        matches(member.team_scratch(0), 1) {
    Kokkos::parallel_for(Kokkos::TeamThreadRange(member, n + 1), [&](const std::int64_t i) {
      pos_a(i) = a(s0 + i);
      pos_b(i) = b(s0 + i);
    });
    member.team_barrier();
  }
};

/// The entries slice `local` of the block has in A and B together.
template <class LocalPos>
KOKKOS_INLINE_FUNCTION std::int64_t slice_entries(const LocalPos& a, const LocalPos& b, std::int64_t local) {
  return (a(local + 1) - a(local)) + (b(local + 1) - b(local));
}

#ifdef __CUDA_ARCH__
/// Lanes of a warp: the team's threads in order (vector length 1).
constexpr int kWarpLanes = 32;

/// Every lane of a warp.
constexpr unsigned kAllLanes = 0xffffffffu;
#endif

/// The most entries a slice of the block has in A and B together. On CUDA a warp reduces in one
/// instruction and the warps meet in a static shared array (Kokkos' team reduction took more
/// instructions per block than a warp's count of a slice of 64 entries); the next call would
/// overwrite the array, so a kernel calls this once, with teams of RowBlocks::kTeamSize (the array's
/// size).
template <class Member, class LocalPos>
KOKKOS_INLINE_FUNCTION std::int64_t longest_slice(const Member& member, std::int64_t n, const LocalPos& a,
                                                  const LocalPos& b) {
#ifdef __CUDA_ARCH__
  __shared__ unsigned warp_longest[RowBlocks::kTeamSize / kWarpLanes];
  unsigned mine = 0;  // clamped: every threshold lies far below 2^32
  for (std::int64_t local = member.team_rank(); local < n; local += member.team_size())
    mine = max(mine, static_cast<unsigned>(min(slice_entries(a, b, local), std::int64_t{0xffffffffu})));
  mine = __reduce_max_sync(kAllLanes, mine);
  const int warps = (member.team_size() + kWarpLanes - 1) / kWarpLanes;
  if (member.team_rank() % kWarpLanes == 0) warp_longest[member.team_rank() / kWarpLanes] = mine;
  member.team_barrier();
  unsigned longest = 0;
  for (int w = 0; w < warps; ++w) longest = max(longest, warp_longest[w]);
  return longest;
#else
  std::int64_t longest = 0;
  Kokkos::parallel_reduce(
      Kokkos::TeamThreadRange(member, n),
      [&](const std::int64_t local, std::int64_t& m) {
        const std::int64_t len = slice_entries(a, b, local);
        if (len > m) m = len;
      },
      Kokkos::Max<std::int64_t>(longest));
  return longest;
#endif
}

/// Runs block(member, s0, n, scratch) over every block of n slices from s0, with its scratch
/// holding their offsets in A and B.
template <class Space, class Pos, class Block>
void for_each_row_block(const char* label, const Space& space, const RowBlocks& blocks, const Pos& pos_a,
                        const Pos& pos_b, const Block& block) {
  // At most 64 registers a thread, so that four teams fit an SM: the write pass took 72 and fit
  // three, which was slower (on a power law + A^T).
  using Policy = Kokkos::TeamPolicy<Space, Kokkos::LaunchBounds<RowBlocks::kTeamSize, 4>>;
  using Scratch = BlockScratch<Space, typename Pos::non_const_value_type>;
  const std::int64_t per_block = blocks.per_block, slices = blocks.slices;
  Kokkos::parallel_for(
      label,
      Policy(space, static_cast<int>(blocks.blocks()), RowBlocks::kTeamSize)
          .set_scratch_size(0, Kokkos::PerTeam(Scratch::bytes(per_block))),
      KOKKOS_LAMBDA(const typename Policy::member_type& member) {
        const std::int64_t s0 = static_cast<std::int64_t>(member.league_rank()) * per_block;
        const std::int64_t n = std::min(per_block, slices - s0);
        block(member, s0, n, Scratch(member, s0, n, pos_a, pos_b));
      });
}

/// Walks the entries of X's slices of a block a chunk at a time (`pos_x`, `pos_y`: the offsets of
/// the block's slices in X and Y), calling visit(local slice, entry, k, matched, matched_before)
/// where k is the first position of Y's slice not below the entry's coordinate, matched whether it
/// is equal, and matched_before the matched entries of X's slice before this one.
template <class Member, class Scratch, class LocalPos, class Crd, class Visit>
KOKKOS_INLINE_FUNCTION void walk_block(const Member& member, const Scratch& scratch, std::int64_t n,
                                       const LocalPos& pos_x, const Crd& crd_x, const LocalPos& pos_y, const Crd& crd_y,
                                       const Visit& visit) {
  const std::int64_t end = pos_x(n);
  Kokkos::single(Kokkos::PerTeam(member), [&] { scratch.matches(0) = 0; });
  for (std::int64_t chunk = pos_x(0); chunk < end; chunk += member.team_size()) {
    const std::int64_t e = chunk + member.team_rank();
    const bool valid = e < end;
    std::int64_t local = 0, k = 0;
    bool matched = false;
    if (valid) {
      local = lower_bound(pos_x, 0, n + 1, e + 1) - 1;  // the last slice starting at or before e
      const auto x = crd_x(e);
      k = lower_bound(crd_y, pos_y(local), pos_y(local + 1), x);
      matched = k < pos_y(local + 1) && crd_y(k) == x;
    }
    // Matched entries of the block before e (the count of earlier chunks included).
    const std::int64_t before = member.team_scan(std::int64_t(matched), &scratch.matches(0));
    if (valid && e == pos_x(local)) scratch.matched_before_slice(local) = before;
    member.team_barrier();
    if (valid) visit(local, e, k, matched, before - scratch.matched_before_slice(local));
  }
}

#ifdef __CUDA_ARCH__
/// warp_walk_slice where Y's slice [y0, y0 + ny) has at most one entry a lane: lane l holds Y's
/// entry l, and each entry of X finds its place among them by shuffles. A binary search through
/// memory waits on a load at each step: in A + A^T of a band of 32 its steps were a third of each
/// pass's instructions and half of its stalls.
template <class Crd, class Visit>
__device__ std::int64_t warp_walk_short_y(int lane, std::int64_t x0, std::int64_t x1, const Crd& crd_x,
                                          std::int64_t y0, int ny, const Crd& crd_y, const Visit& visit) {
  using Coordinate = std::remove_cv_t<typename Crd::value_type>;
  constexpr Coordinate kPast = std::numeric_limits<Coordinate>::max();  // coordinates lie below extents
  const Coordinate y = lane < ny ? crd_y(y0 + lane) : kPast;
  std::int64_t matched_so_far = 0;
  for (std::int64_t chunk = x0; chunk < x1; chunk += kWarpLanes) {
    const std::int64_t e = chunk + lane;
    const bool valid = e < x1;
    const Coordinate x = valid ? crd_x(e) : kPast;
    int below = 0;  // Y's entries below x
#pragma unroll
    for (int step = kWarpLanes / 2; step > 0; step /= 2)
      if (__shfl_sync(kAllLanes, y, below + step - 1) < x) below += step;
    const Coordinate at = __shfl_sync(kAllLanes, y, below);
    below += at < x;  // x past all 32
    const bool matched = valid && at == x;
    const unsigned ballot = __ballot_sync(kAllLanes, matched);
    if (valid) visit(e, y0 + below, matched, matched_so_far + __popc(ballot & ((1u << lane) - 1u)));
    matched_so_far += __popc(ballot);
  }
  return matched_so_far;
}

/// One warp walks X's slice [x0, x1) in chunks of a lane's entry, calling visit(e, k, matched,
/// matched_before) as walk_block does (k the first position of Y's slice [y0, y1) not below the
/// entry's coordinate); returns the matched entries. Every lane of the warp calls it.
template <class Crd, class Visit>
__device__ std::int64_t warp_walk_slice(int lane, std::int64_t x0, std::int64_t x1, const Crd& crd_x,
                                        std::int64_t y0, std::int64_t y1, const Crd& crd_y, const Visit& visit) {
  if (y1 - y0 <= kWarpLanes) return warp_walk_short_y(lane, x0, x1, crd_x, y0, int(y1 - y0), crd_y, visit);
  std::int64_t matched_so_far = 0;
  for (std::int64_t chunk = x0; chunk < x1; chunk += kWarpLanes) {
    const std::int64_t e = chunk + lane;
    std::int64_t k = 0;
    bool matched = false;
    if (e < x1) {
      const auto x = crd_x(e);
      k = lower_bound(crd_y, y0, y1, x);
      matched = k < y1 && crd_y(k) == x;
    }
    const unsigned ballot = __ballot_sync(kAllLanes, matched);
    if (e < x1) visit(e, k, matched, matched_so_far + __popc(ballot & ((1u << lane) - 1u)));
    matched_so_far += __popc(ballot);
  }
  return matched_so_far;
}

/// Calls slice(local, lane) for the block's slices of RowBlocks::kThreadMergeMax to
/// kWarpWalkMax entries, a warp each (the warps' loops are uniform).
template <class Member, class LocalPos, class Slice>
__device__ void for_each_slice_by_warp(const Member& member, std::int64_t n, const LocalPos& a, const LocalPos& b,
                                       const Slice& slice) {
  const int lane = member.team_rank() % kWarpLanes, warps = member.team_size() / kWarpLanes;
  for (std::int64_t local = member.team_rank() / kWarpLanes; local < n; local += warps) {
    const std::int64_t entries = slice_entries(a, b, local);
    if (entries > RowBlocks::kThreadMergeMax && entries <= RowBlocks::kWarpWalkMax) slice(local, lane);
  }
}

/// Calls slice(local) for the block's slices of more than RowBlocks::kWarpWalkMax entries one
/// after another, with the whole team (merge_path.hpp).
template <class Member, class LocalPos, class Slice>
__device__ void for_each_slice_by_team(const Member& member, std::int64_t n, const LocalPos& a, const LocalPos& b,
                                       const Slice& slice) {
  for (std::int64_t local = 0; local < n; ++local)
    if (slice_entries(a, b, local) > RowBlocks::kWarpWalkMax) {
      slice(local);
      member.team_barrier();  // the team scan's scratch is reused by the next slice
    }
}

/// Calls merge(local) for the block's slices of at most RowBlocks::kThreadMergeMax entries, a
/// thread each: in a block of mostly such slices and a few long ones (a power-law matrix), a warp
/// per short slice would leave most of its lanes idle. The warps walk the long ones after.
template <class Member, class LocalPos, class Merge>
__device__ void merge_short_slices(const Member& member, std::int64_t n, const LocalPos& a, const LocalPos& b,
                                   const Merge& merge) {
  Kokkos::parallel_for(Kokkos::TeamThreadRange(member, n), [&](const std::int64_t local) {
    if (slice_entries(a, b, local) <= RowBlocks::kThreadMergeMax) merge(local);
  });
}
#endif

/// counts(s) = the entries of slice s of C (the union or the intersection of the slices'
/// coordinates). A block of short slices merges them a thread each; otherwise (on devices other
/// than CUDA) it walks the operand of fewer entries. With `long_walk` set, a block with a slice of
/// more than RowBlocks::kLongWalk entries sets it to 1 instead and counts nothing.
template <bool Union, class Space, class Pos, class Crd, class Counts>
void count_row_blocks(const Space& space, const RowBlocks& blocks, const Pos& pos_a, const Crd& crd_a, const Pos& pos_b,
                      const Crd& crd_b, const Counts& counts,
                      typename Counts::non_const_value_type* long_walk = nullptr) {
  using Member = typename Kokkos::TeamPolicy<Space>::member_type;
  using Scratch = BlockScratch<Space, typename Pos::non_const_value_type>;
  using Count = typename Counts::non_const_value_type;
  for_each_row_block(
      "tessera::elementwise[count]", space, blocks, pos_a, pos_b,
      KOKKOS_LAMBDA(const Member& member, const std::int64_t s0, const std::int64_t n, const Scratch& scratch) {
        const auto a = scratch.pos_a, b = scratch.pos_b;
        const auto merge_slice = [&](std::int64_t local) {
          counts(s0 + local) = static_cast<Count>(count_merged<Union ? MergeKind::Union : MergeKind::Intersection>(
              a(local), a(local + 1), b(local), b(local + 1), crd_a, crd_b));
        };
        const std::int64_t longest = longest_slice(member, n, a, b);
        if (longest <= RowBlocks::kThreadMergeMax) {
          Kokkos::parallel_for(Kokkos::TeamThreadRange(member, n), merge_slice);
          return;
        }
        if (long_walk && longest > RowBlocks::kLongWalk) {
          Kokkos::single(Kokkos::PerTeam(member), [&] { *long_walk = 1; });
          return;
        }
#ifdef __CUDA_ARCH__
        if (longest <= RowBlocks::kWarpWalkMax || longest > RowBlocks::kTeamMergeMin) {
          merge_short_slices(member, n, a, b, merge_slice);
          for_each_slice_by_warp(member, n, a, b, [&](std::int64_t local, int lane) {
            const std::int64_t na = a(local + 1) - a(local), nb = b(local + 1) - b(local);
            const auto none = [](std::int64_t, std::int64_t, bool, std::int64_t) {};
            const std::int64_t both =
                na <= nb ? warp_walk_slice(lane, a(local), a(local + 1), crd_a, b(local), b(local + 1), crd_b, none)
                         : warp_walk_slice(lane, b(local), b(local + 1), crd_b, a(local), a(local + 1), crd_a, none);
            if (lane == 0) counts(s0 + local) = static_cast<Count>(Union ? na + nb - both : both);
          });
          if (longest > RowBlocks::kWarpWalkMax)
            for_each_slice_by_team(member, n, a, b, [&](std::int64_t local) {
              const auto piece = team_merge_piece<Union>(member, a(local), a(local + 1), crd_a, b(local),
                                                         b(local + 1), crd_b);
              if (member.team_rank() + 1 == member.team_size())
                counts(s0 + local) = static_cast<Count>(piece.before + piece.entries);
            });
          return;
        }
#endif
        const auto count = [&](std::int64_t local, std::int64_t matched) {
          const std::int64_t total = (a(local + 1) - a(local)) + (b(local + 1) - b(local));
          counts(s0 + local) = static_cast<Count>(Union ? total - matched : matched);
        };
        // The last entry of a slice writes its count; slices with no entry in X, here.
        const auto walk = [&](const auto& pos_x, const auto& crd_x, const auto& pos_y, const auto& crd_y) {
          walk_block(member, scratch, n, pos_x, crd_x, pos_y, crd_y,
                     [&](std::int64_t local, std::int64_t e, std::int64_t, bool matched, std::int64_t before) {
                       if (e + 1 == pos_x(local + 1)) count(local, before + matched);
                     });
          Kokkos::parallel_for(Kokkos::TeamThreadRange(member, n), [&](const std::int64_t local) {
            if (pos_x(local) == pos_x(local + 1)) count(local, 0);
          });
        };
        if (a(n) - a(0) <= b(n) - b(0)) walk(a, crd_a, b, crd_b);
        else walk(b, crd_b, a, crd_a);
      });
}

/// Writes the slices of C from positions pos_c: A's entries
/// (the union) or those matched in B (the intersection) with combine(a, b or 0), and B's unmatched
/// entries with combine(0, b) (the union).
template <bool Union, class Space, class Pos, class Crd, class Vals, class OutPos, class OutCrd, class OutVals,
          class Combine>
void write_row_blocks(const Space& space, const RowBlocks& blocks, const Pos& pos_a, const Crd& crd_a,
                      const Vals& vals_a, const Pos& pos_b, const Crd& crd_b, const Vals& vals_b,
                      const Combine& combine, const OutPos& pos_c, const OutCrd& crd_c, const OutVals& vals_c) {
  using Member = typename Kokkos::TeamPolicy<Space>::member_type;
  using Scratch = BlockScratch<Space, typename Pos::non_const_value_type>;
  using T = typename OutVals::non_const_value_type;
  using Ordinal = typename OutCrd::non_const_value_type;
  for_each_row_block(
      "tessera::elementwise[write]", space, blocks, pos_a, pos_b,
      KOKKOS_LAMBDA(const Member& member, const std::int64_t s0, const std::int64_t n, const Scratch& scratch) {
        const auto a = scratch.pos_a, b = scratch.pos_b;
        const auto put = [&](std::int64_t e, Ordinal coordinate, T v) {
          crd_c(e) = coordinate;
          vals_c(e) = v;
        };
        const auto merge_slice = [&](std::int64_t local) {
          const auto keep = [](T, bool in_a, bool in_b) { return Union || (in_a && in_b); };
          write_merged(a(local), a(local + 1), b(local), b(local + 1), crd_a, vals_a, crd_b, vals_b, combine, keep,
                       crd_c, vals_c, pos_c(s0 + local));
        };
        const std::int64_t longest = longest_slice(member, n, a, b);
        if (longest <= RowBlocks::kThreadMergeMax) {
          Kokkos::parallel_for(Kokkos::TeamThreadRange(member, n), merge_slice);
          return;
        }
#ifdef __CUDA_ARCH__
        if (longest <= RowBlocks::kWarpWalkMax || longest > RowBlocks::kTeamMergeMin) {
          merge_short_slices(member, n, a, b, merge_slice);
          for_each_slice_by_warp(member, n, a, b, [&](std::int64_t local, int lane) {
            const std::int64_t c = pos_c(s0 + local);
            warp_walk_slice(lane, a(local), a(local + 1), crd_a, b(local), b(local + 1), crd_b,
                            [&](std::int64_t e, std::int64_t k, bool matched, std::int64_t before) {
                              if (Union)
                                put(c + (e - a(local)) + (k - b(local)) - before, crd_a(e),
                                    combine(vals_a(e), matched ? vals_b(k) : T(0)));
                              else if (matched)
                                put(c + before, crd_a(e), combine(vals_a(e), vals_b(k)));
                            });
            if (Union)
              warp_walk_slice(lane, b(local), b(local + 1), crd_b, a(local), a(local + 1), crd_a,
                              [&](std::int64_t e, std::int64_t k, bool matched, std::int64_t before) {
                                if (!matched)
                                  put(c + (e - b(local)) + (k - a(local)) - before, crd_b(e),
                                      combine(T(0), vals_b(e)));
                              });
          });
          if (longest > RowBlocks::kWarpWalkMax)
            for_each_slice_by_team(member, n, a, b, [&](std::int64_t local) {
              const auto piece = team_merge_piece<Union>(member, a(local), a(local + 1), crd_a, b(local),
                                                         b(local + 1), crd_b);
              std::int64_t e = pos_c(s0 + local) + piece.before;
              piece.piece.template walk<Union>(crd_a, crd_b, [&](std::int64_t p, std::int64_t q) {
                put(e++, p >= 0 ? crd_a(p) : crd_b(q), combine(p >= 0 ? vals_a(p) : T(0), q >= 0 ? vals_b(q) : T(0)));
              });
            });
          return;
        }
#endif
        walk_block(member, scratch, n, a, crd_a, b, crd_b,
                   [&](std::int64_t local, std::int64_t e, std::int64_t k, bool matched, std::int64_t before) {
                     const std::int64_t c = pos_c(s0 + local);
                     if (Union)
                       put(c + (e - a(local)) + (k - b(local)) - before, crd_a(e),
                           combine(vals_a(e), matched ? vals_b(k) : T(0)));
                     else if (matched)
                       put(c + before, crd_a(e), combine(vals_a(e), vals_b(k)));
                   });
        if (!Union) return;
        walk_block(member, scratch, n, b, crd_b, a, crd_a,
                   [&](std::int64_t local, std::int64_t e, std::int64_t k, bool matched, std::int64_t before) {
                     if (!matched)
                       put(pos_c(s0 + local) + (e - b(local)) + (k - a(local)) - before, crd_b(e),
                           combine(T(0), vals_b(e)));
                   });
      });
}

}  // namespace tessera::kernels::impl
