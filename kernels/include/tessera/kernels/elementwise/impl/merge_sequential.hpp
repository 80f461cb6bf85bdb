#pragma once
/// \file
/// One thread merges two sorted slices (rows of CSR, columns of CSC) in order: the host spaces'
/// kernels, the device's for blocks of short slices (merge_row_blocks.hpp) and where zeros are
/// dropped, and the sparse-result MTTKRP's intersections.
#include <cstdint>
#include <limits>

#include <Kokkos_Core.hpp>

namespace tessera::kernels::impl {

/// Which coordinates C keeps: those of either operand, or those of both.
enum class MergeKind { Union, Intersection };

/// Walks the coordinates of two sorted slices in order, calling
/// visit(coordinate, a, b, in_a, in_b) once per coordinate (a or b zero where absent).
template <class Crd, class Vals, class Visit>
KOKKOS_INLINE_FUNCTION void walk_slices(std::int64_t p, std::int64_t p_end, std::int64_t q, std::int64_t q_end,
                                        const Crd& crd_a, const Vals& vals_a, const Crd& crd_b, const Vals& vals_b,
                                        Visit&& visit) {
  using T = typename Vals::non_const_value_type;
  constexpr std::int64_t kEnd = std::numeric_limits<std::int64_t>::max();
  while (p < p_end || q < q_end) {
    const std::int64_t i = p < p_end ? static_cast<std::int64_t>(crd_a(p)) : kEnd;
    const std::int64_t j = q < q_end ? static_cast<std::int64_t>(crd_b(q)) : kEnd;
#ifdef __CUDA_ARCH__
    // The lanes of a warp merge different slices: comparisons, not branches, keep them together.
    const bool in_a = i <= j, in_b = j <= i;
    visit(in_a ? i : j, in_a ? vals_a(p) : T(0), in_b ? vals_b(q) : T(0), in_a, in_b);
    p += in_a;
    q += in_b;
#else
    if (i == j) visit(i, vals_a(p++), vals_b(q++), true, true);
    else if (i < j) visit(i, vals_a(p++), T(0), true, false);
    else visit(j, T(0), vals_b(q++), false, true);
#endif
  }
}

/// Writes the entries of one merged slice that `keep(v, in_a, in_b)` accepts, from position e
/// on; returns the position after the last.
template <class Crd, class Vals, class OutCrd, class OutVals, class Combine, class Keep>
KOKKOS_INLINE_FUNCTION std::int64_t write_merged(std::int64_t p, std::int64_t p_end, std::int64_t q,
                                                 std::int64_t q_end, const Crd& crd_a, const Vals& vals_a,
                                                 const Crd& crd_b, const Vals& vals_b, const Combine& combine,
                                                 const Keep& keep, const OutCrd& crd_c, const OutVals& vals_c,
                                                 std::int64_t e) {
  using T = typename Vals::non_const_value_type;
  using Ordinal = typename OutCrd::non_const_value_type;
  walk_slices(p, p_end, q, q_end, crd_a, vals_a, crd_b, vals_b,
              [&](std::int64_t coordinate, T x, T y, bool in_a, bool in_b) {
                const T v = combine(x, y);
                if (!keep(v, in_a, in_b)) return;
                crd_c(e) = static_cast<Ordinal>(coordinate);
                vals_c(e++) = v;
              });
  return e;
}

/// The number of coordinates of two sorted slices that C keeps by Kind, from the coordinates
/// alone (no values: what C keeps when no zero is dropped).
template <MergeKind Kind, class Crd>
KOKKOS_INLINE_FUNCTION std::int64_t count_merged(std::int64_t p, std::int64_t p_end, std::int64_t q,
                                                 std::int64_t q_end, const Crd& crd_a, const Crd& crd_b) {
  std::int64_t both = 0;
  const std::int64_t total = (p_end - p) + (q_end - q);
  while (p < p_end && q < q_end) {
    const auto i = crd_a(p), j = crd_b(q);
#ifdef __CUDA_ARCH__
    both += i == j;  // as in walk_slices: no branches within a warp
    p += i <= j;
    q += j <= i;
#else
    // Branches, not arithmetic on the comparisons: equal runs (A + A^T of a symmetric pattern)
    // are predicted and the next loads need not wait for this one's comparison.
    if (i == j) {
      ++both;
      ++p;
      ++q;
    } else if (i < j) {
      ++p;
    } else {
      ++q;
    }
#endif
  }
  return Kind == MergeKind::Union ? total - both : both;
}

}  // namespace tessera::kernels::impl
