#pragma once
// SpGEMM through a second-order workspace over (a range of) the whole output, keys
// (major, minor) in the result's storage order:
//   outer product  A column-major, B row-major: C += A(:, k) * B(k, :) for every k;
//   transposed     A, B row-major, C column-major (row-wise iteration, CSC result).
// The major output coordinate is split into flop-balanced chunks; a chunk sees only
// the products that land in its range (binary search in the sorted segments).
#include <algorithm>
#include <cstdint>
#include <vector>

#include <Kokkos_Core.hpp>

#include "tessera/kernels/common/chunked_workspaces.hpp"
#include "tessera/kernels/common/clip.hpp"
#include "tessera/kernels/common/row_partition.hpp"
#include "tessera/workspace/key_space.hpp"

namespace tessera::kernels::impl {

enum class SecondOrderVariant { OuterRowMajorOut, OuterColumnMajorOut, RowWiseColumnMajorOut };

// f(pa, pb) for every outer coordinate k stored in both A and B.
template <class MA, class MB, class F>
void for_each_shared_outer(const MA& A, const MB& B, F&& f) {
  std::int64_t pa = A.outer_begin(), pb = B.outer_begin();
  while (pa < A.outer_end() && pb < B.outer_end()) {
    const std::int64_t ka = A.outer_coord(pa), kb = B.outer_coord(pb);
    if (ka < kb) ++pa;
    else if (kb < ka) ++pb;
    else f(pa++, pb++);
  }
}

// Products landing on each major output coordinate, as a prefix sum (extent + 1).
template <SecondOrderVariant V, class MA, class MB>
Kokkos::View<std::int64_t*, Kokkos::HostSpace> major_flops_prefix(const MA& A, const MB& B, std::int64_t majors) {
  Kokkos::View<std::int64_t*, Kokkos::HostSpace> prefix("tessera::spgemm_flops", majors + 1);
  if constexpr (V == SecondOrderVariant::OuterRowMajorOut) {
    for_each_shared_outer(A, B, [&](std::int64_t pa, std::int64_t pb) {
      for (std::int64_t q = A.begin(pa); q < A.end(pa); ++q) prefix(A.crd[q] + 1) += B.end(pb) - B.begin(pb);
    });
  } else if constexpr (V == SecondOrderVariant::OuterColumnMajorOut) {
    for_each_shared_outer(A, B, [&](std::int64_t pa, std::int64_t pb) {
      for (std::int64_t r = B.begin(pb); r < B.end(pb); ++r) prefix(B.crd[r] + 1) += A.end(pa) - A.begin(pa);
    });
  } else {
    for (std::int64_t pa = A.outer_begin(); pa < A.outer_end(); ++pa)
      for (std::int64_t q = A.begin(pa); q < A.end(pa); ++q) {
        const std::int64_t k = A.crd[q];  // B has a Dense outer level here
        for (std::int64_t r = B.begin(k); r < B.end(k); ++r) ++prefix(B.crd[r] + 1);
      }
  }
  for (std::int64_t m = 0; m < majors; ++m) prefix(m + 1) += prefix(m);
  return prefix;
}

template <class Policy, SecondOrderVariant V, class T, class Space, class MA, class MB>
std::vector<SortedChunk<T, 2>> spgemm_second_order(const Space& space, const MA& A, const MB& B,
                                                   const workspace::IsmOptions& options, workspace::Report* report) {
  constexpr bool row_major_out = V == SecondOrderVariant::OuterRowMajorOut;
  const std::int64_t rows = V == SecondOrderVariant::OuterRowMajorOut || V == SecondOrderVariant::OuterColumnMajorOut
                                ? A.inner_extent
                                : A.outer_extent;
  const std::int64_t cols = B.inner_extent;
  const std::int64_t majors = row_major_out ? rows : cols, minors = row_major_out ? cols : rows;
  const auto prefix = major_flops_prefix<V>(A, B, majors);
  const auto bounds = balanced_row_chunks(prefix, majors, host_threads(space));
  const std::int64_t chunks = majors == 0 ? 0 : static_cast<std::int64_t>(bounds.extent(0)) - 1;
  return run_chunks<Policy, T, 2, 2>(
      space, chunks, options, report, "tessera::spgemm[second_order]",
      [&](std::int64_t c, auto& ws, SortedChunk<T, 2>& out) {
        const std::int64_t lo = bounds(c), hi = bounds(c + 1);
        const std::int64_t flops = prefix(hi) - prefix(lo);
        if (flops == 0) return;
        const workspace::KeySpace<2> space2({hi - lo, minors});
        ws.reset(space2, std::min(flops, space2.size()));
        // key = (major - lo) * minors + minor
        if constexpr (V == SecondOrderVariant::OuterRowMajorOut) {
          for_each_shared_outer(A, B, [&](std::int64_t pa, std::int64_t pb) {
            const auto [q0, q1] = clip(A.crd, A.begin(pa), A.end(pa), lo, hi);
            for (std::int64_t q = q0; q < q1; ++q) {
              const std::int64_t base = (A.crd[q] - lo) * minors;
              const T a = A.vals[q];
              for (std::int64_t r = B.begin(pb); r < B.end(pb); ++r) ws.add(base + B.crd[r], a * B.vals[r]);
            }
          });
        } else if constexpr (V == SecondOrderVariant::OuterColumnMajorOut) {
          for_each_shared_outer(A, B, [&](std::int64_t pa, std::int64_t pb) {
            const auto [r0, r1] = clip(B.crd, B.begin(pb), B.end(pb), lo, hi);
            for (std::int64_t r = r0; r < r1; ++r) {
              const std::int64_t base = (B.crd[r] - lo) * minors;
              const T b = B.vals[r];
              for (std::int64_t q = A.begin(pa); q < A.end(pa); ++q) ws.add(base + A.crd[q], A.vals[q] * b);
            }
          });
        } else {
          for (std::int64_t pa = A.outer_begin(); pa < A.outer_end(); ++pa) {
            const std::int64_t i = A.outer_coord(pa);
            for (std::int64_t q = A.begin(pa); q < A.end(pa); ++q) {
              const std::int64_t k = A.crd[q];
              const T a = A.vals[q];
              const auto [r0, r1] = clip(B.crd, B.begin(k), B.end(k), lo, hi);
              for (std::int64_t r = r0; r < r1; ++r) ws.add((B.crd[r] - lo) * minors + i, a * B.vals[r]);
            }
          }
        }
        ws.drain([&](std::int64_t key, T v) { out.push({lo + key / minors, key % minors}, v); });
      });
}

}  // namespace tessera::kernels::impl
