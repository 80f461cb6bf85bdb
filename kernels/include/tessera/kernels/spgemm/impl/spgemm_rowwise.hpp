#pragma once
// Row-wise (Gustavson) SpGEMM, C = A * B with A, B and C row-major: row i of C
// accumulates a_ik * B(k, :) in a first-order workspace (keys = column j) that is
// drained, sorted, once per row. Rows are split into nnz-balanced chunks.
#include <algorithm>
#include <cstdint>
#include <vector>

#include "tessera/kernels/common/chunked_workspaces.hpp"
#include "tessera/kernels/common/row_partition.hpp"
#include "tessera/workspace/key_space.hpp"

namespace tessera::kernels::impl {

// A and B are HostMatrix views with a Dense outer level (CSR); a_pos is A's pos View.
template <class Policy, class T, class Space, class MA, class MB, class PosView>
std::vector<SortedChunk<T, 2>> spgemm_rowwise(const Space& space, const MA& A, const PosView& a_pos, const MB& B,
                                              const workspace::IsmOptions& options, workspace::Report* report) {
  const std::int64_t rows = A.outer_extent, cols = B.inner_extent;
  const auto bounds = balanced_row_chunks(a_pos, rows, host_chunk_count(space));
  const std::int64_t chunks = rows == 0 ? 0 : static_cast<std::int64_t>(bounds.extent(0)) - 1;
  const workspace::KeySpace<1> row_space({cols});
  return run_chunks<Policy, T, 1, 2>(
      space, chunks, options, report, "tessera::spgemm[rowwise]", [&](std::int64_t c, auto& ws, SortedChunk<T, 2>& out) {
        for (std::int64_t i = bounds(c); i < bounds(c + 1); ++i) {
          std::int64_t flops = 0;
          for (std::int64_t q = A.begin(i); q < A.end(i); ++q) flops += B.end(A.crd[q]) - B.begin(A.crd[q]);
          if (flops == 0) continue;
          ws.reset(row_space, std::min(flops, cols));
          for (std::int64_t q = A.begin(i); q < A.end(i); ++q) {
            const std::int64_t k = A.crd[q];
            const T a = A.vals[q];
            for (std::int64_t r = B.begin(k); r < B.end(k); ++r) ws.add(B.crd[r], a * B.vals[r]);
          }
          ws.drain([&](std::int64_t j, T v) { out.push({i, j}, v); });
        }
      });
}

}  // namespace tessera::kernels::impl
