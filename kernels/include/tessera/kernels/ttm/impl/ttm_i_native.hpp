#pragma once
// SpTTM-I A(k,j,l) = sum_i B(k,i,j) * C(i,l), B in CSF (levels k, i, j), result in
// storage order (k, j, l). The output's first mode is B's outermost level, so each
// k fiber is one accumulation over the (j, l) plane (a second-order workspace reset
// per fiber); fibers are split into flop-balanced chunks whose results are disjoint
// and concatenated in fiber order.
#include <algorithm>
#include <cstdint>
#include <vector>

#include <Kokkos_Core.hpp>

#include "tessera/kernels/common/chunked_workspaces.hpp"
#include "tessera/kernels/common/row_partition.hpp"
#include "tessera/workspace/key_space.hpp"

namespace tessera::kernels::impl {

struct TtmIPlan {
  Kokkos::View<std::int64_t*, Kokkos::HostSpace> prefix;  // (fibers + 1) products of fibers [0, p)
  Kokkos::View<std::int64_t*, Kokkos::HostSpace> bounds;  // (chunks + 1) first fiber of each chunk
  std::int64_t chunks = 0;
};

template <class Csf, class Rows>
TtmIPlan ttm_i_plan(const Csf& B, const Rows& C, std::int64_t chunk_count) {
  TtmIPlan plan;
  const std::int64_t fibers = B.pos[0][1];
  plan.prefix = Kokkos::View<std::int64_t*, Kokkos::HostSpace>("tessera::ttm_i_flops", fibers + 1);
  for (std::int64_t p = 0; p < fibers; ++p) {
    std::int64_t flops = 0;
    for (std::int64_t q = B.pos[1][p]; q < B.pos[1][p + 1]; ++q)
      flops += (B.pos[2][q + 1] - B.pos[2][q]) * C.row_length(B.crd[1][q]);
    plan.prefix(p + 1) = plan.prefix(p) + flops;
  }
  plan.bounds = balanced_row_chunks(plan.prefix, fibers, chunk_count);
  plan.chunks = fibers == 0 ? 0 : static_cast<std::int64_t>(plan.bounds.extent(0)) - 1;
  return plan;
}

template <class Policy, class T, class Space, class Csf, class Rows>
std::vector<SortedChunk<T, 3>> ttm_i_native(const Space& space, const Csf& B, const Rows& C, const TtmIPlan& plan,
                                            std::int64_t J, const workspace::IsmOptions& options,
                                            workspace::Report* report) {
  const std::int64_t L = C.cols;
  const workspace::KeySpace<2> keys({J, L});  // key = j * L + l
  return run_chunks<Policy, T, 2, 3>(
      space, plan.chunks, options, report, "tessera::ttm_i", [&](std::int64_t c, auto& ws, SortedChunk<T, 3>& out) {
        for (std::int64_t p = plan.bounds(c); p < plan.bounds(c + 1); ++p) {
          const std::int64_t flops = plan.prefix(p + 1) - plan.prefix(p);
          if (flops == 0) continue;
          ws.reset(keys, std::min(flops, keys.size()));
          for (std::int64_t q = B.pos[1][p]; q < B.pos[1][p + 1]; ++q) {
            const std::int64_t i = B.crd[1][q];
            for (std::int64_t r = B.pos[2][q]; r < B.pos[2][q + 1]; ++r) {
              const std::int64_t base = static_cast<std::int64_t>(B.crd[2][r]) * L;
              const T b = B.vals[r];
              C.for_each(i, [&](std::int64_t l, T c_il) { ws.add(base + l, b * c_il); });
            }
          }
          const std::int64_t k = B.crd[0][p];
          ws.drain([&](std::int64_t key, T v) { out.push({k, key / L, key % L}, v); });
        }
      });
}

}  // namespace tessera::kernels::impl
