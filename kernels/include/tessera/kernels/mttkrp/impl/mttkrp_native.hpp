#pragma once
// SpMTTKRP A(i,j) = sum_{k,l} B(k,l,i) * C(k,j) * D(l,j), B in CSF (levels k, l, i).
// Each chunk of B's k fibers scatters into its thread's second-order workspace
// (keys (i, j)); the sorted chunk results are merged in chunk order.
#include <algorithm>
#include <cstdint>
#include <vector>

#include "tessera/kernels/common/chunked_workspaces.hpp"
#include "tessera/kernels/common/row_partition.hpp"
#include "tessera/workspace/key_space.hpp"

namespace tessera::kernels::impl {

template <class Policy, class T, class Space, class Csf, class Rows>
std::vector<SortedChunk<T, 2>> mttkrp_native(const Space& space, const Csf& B, const Rows& C, const Rows& D,
                                             std::int64_t I, const workspace::IsmOptions& options,
                                             workspace::Report* report) {
  const std::int64_t J = C.cols;
  const std::int64_t fibers = B.pos[0][1];  // stored k coordinates
  const std::int64_t chunks = std::min<std::int64_t>(fibers, host_threads(space));
  const workspace::KeySpace<2> keys({I, J});
  return run_chunks<Policy, T, 2, 2>(
      space, chunks, options, report, "tessera::mttkrp", [&](std::int64_t c, auto& ws, SortedChunk<T, 2>& out) {
        const std::int64_t p0 = fibers * c / chunks, p1 = fibers * (c + 1) / chunks;
        std::int64_t estimate = 0;  // upper bound of distinct (i, j): products in this chunk
        for (std::int64_t p = p0; p < p1; ++p)
          for (std::int64_t q = B.pos[1][p]; q < B.pos[1][p + 1]; ++q)
            estimate += (B.pos[2][q + 1] - B.pos[2][q]) * std::min(C.row_length(B.crd[0][p]), D.row_length(B.crd[1][q]));
        if (estimate == 0) return;
        ws.reset(keys, std::min(estimate, keys.size()));
        for (std::int64_t p = p0; p < p1; ++p) {
          const std::int64_t k = B.crd[0][p];
          for (std::int64_t q = B.pos[1][p]; q < B.pos[1][p + 1]; ++q) {
            const std::int64_t l = B.crd[1][q];
            for (std::int64_t r = B.pos[2][q]; r < B.pos[2][q + 1]; ++r) {
              const std::int64_t base = static_cast<std::int64_t>(B.crd[2][r]) * J;
              const T b = B.vals[r];
              C.for_each_shared(k, D, l, [&](std::int64_t j, T c_kj, T d_lj) { ws.add(base + j, b * c_kj * d_lj); });
            }
          }
        }
        ws.drain([&](std::int64_t key, T v) { out.push({key / J, key % J}, v); });
      });
}

}  // namespace tessera::kernels::impl
