#pragma once
// SpTTM A(i,j,l) = sum_k B(k,i,j) * C(k,l), B in CSF (levels k, i, j), result in
// storage order (i, j, l) through a third-order workspace.
// The contracted mode is B's outermost level, so every k fiber scatters over the
// whole output. Rather than per-thread partial results and a merge, the output's
// first coordinate i is split into flop-balanced chunks and a chunk accumulates only
// the products landing in its range (binary search in each fiber's sorted i
// segment). Chunks are disjoint and every entry sums its products in ascending k
// whatever the chunking, so the result does not depend on the thread count, and a
// Dense workspace spans one chunk, not the whole output.
#include <algorithm>
#include <cstdint>
#include <vector>

#include <Kokkos_Core.hpp>

#include "tessera/kernels/common/chunked_workspaces.hpp"
#include "tessera/kernels/common/clip.hpp"
#include "tessera/kernels/common/row_partition.hpp"
#include "tessera/workspace/key_space.hpp"

namespace tessera::kernels::impl {

// How the output's i range is split, and the work and workspace size that implies.
struct TtmPlan {
  Kokkos::View<std::int64_t*, Kokkos::HostSpace> prefix;  // (I + 1) products landing on rows [0, i)
  Kokkos::View<std::int64_t*, Kokkos::HostSpace> bounds;  // (chunks + 1) first i of each chunk
  std::int64_t chunks = 0;
  std::int64_t max_chunk_rows = 0;  // widest chunk: a Dense workspace covers max_chunk_rows * J * L
};

template <class Csf, class Rows>
TtmPlan ttm_plan(const Csf& B, const Rows& C, std::int64_t I, std::int64_t chunk_count) {
  TtmPlan plan;
  plan.prefix = Kokkos::View<std::int64_t*, Kokkos::HostSpace>("tessera::ttm_flops", I + 1);
  const std::int64_t fibers = B.pos[0][1];
  for (std::int64_t p = 0; p < fibers; ++p) {
    const std::int64_t row = C.row_length(B.crd[0][p]);
    for (std::int64_t q = B.pos[1][p]; q < B.pos[1][p + 1]; ++q)
      plan.prefix(B.crd[1][q] + 1) += (B.pos[2][q + 1] - B.pos[2][q]) * row;
  }
  for (std::int64_t i = 0; i < I; ++i) plan.prefix(i + 1) += plan.prefix(i);
  plan.bounds = balanced_row_chunks(plan.prefix, I, chunk_count);
  plan.chunks = I == 0 ? 0 : static_cast<std::int64_t>(plan.bounds.extent(0)) - 1;
  for (std::int64_t c = 0; c < plan.chunks; ++c)
    plan.max_chunk_rows = std::max(plan.max_chunk_rows, plan.bounds(c + 1) - plan.bounds(c));
  return plan;
}

template <class Policy, class T, class Space, class Csf, class Rows>
std::vector<SortedChunk<T, 3>> ttm_native(const Space& space, const Csf& B, const Rows& C, const TtmPlan& plan,
                                          std::int64_t J, const workspace::IsmOptions& options,
                                          workspace::Report* report) {
  const std::int64_t L = C.cols;
  const std::int64_t fibers = B.pos[0][1];
  return run_chunks<Policy, T, 3, 3>(
      space, plan.chunks, options, report, "tessera::ttm", [&](std::int64_t c, auto& ws, SortedChunk<T, 3>& out) {
        const std::int64_t lo = plan.bounds(c), hi = plan.bounds(c + 1);
        const std::int64_t flops = plan.prefix(hi) - plan.prefix(lo);
        if (flops == 0) return;
        const workspace::KeySpace<3> keys({hi - lo, J, L});
        ws.reset(keys, std::min(flops, keys.size()));
        for (std::int64_t p = 0; p < fibers; ++p) {
          const std::int64_t k = B.crd[0][p];
          if (C.row_length(k) == 0) continue;
          const auto [q0, q1] = clip(B.crd[1], B.pos[1][p], B.pos[1][p + 1], lo, hi);
          for (std::int64_t q = q0; q < q1; ++q) {
            const std::int64_t row = static_cast<std::int64_t>(B.crd[1][q] - lo) * J;
            for (std::int64_t r = B.pos[2][q]; r < B.pos[2][q + 1]; ++r) {
              const std::int64_t base = (row + B.crd[2][r]) * L;  // key = ((i - lo) * J + j) * L + l
              const T b = B.vals[r];
              C.for_each(k, [&](std::int64_t l, T c_kl) { ws.add(base + l, b * c_kl); });
            }
          }
        }
        ws.drain([&](std::int64_t key, T v) {
          const auto ijl = keys.coords(key);
          out.push({lo + ijl[0], ijl[1], ijl[2]}, v);
        });
      });
}

}  // namespace tessera::kernels::impl
