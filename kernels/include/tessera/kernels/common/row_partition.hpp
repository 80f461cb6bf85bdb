#pragma once
// Splits the rows of a CSR-like matrix into chunks of roughly equal work
// (nonzeros + rows), so that host threads stay balanced on power-law matrices.
#include <algorithm>
#include <cstdint>

#include <Kokkos_Core.hpp>

namespace tessera::kernels {

// bounds(c) = first row of chunk c; bounds(chunks) = rows. pos must be host-accessible.
template <class PosView>
Kokkos::View<std::int64_t*, Kokkos::HostSpace> balanced_row_chunks(const PosView& pos, std::int64_t rows,
                                                                   std::int64_t chunks) {
  chunks = std::max<std::int64_t>(1, std::min(chunks, rows));
  Kokkos::View<std::int64_t*, Kokkos::HostSpace> bounds(Kokkos::view_alloc(Kokkos::WithoutInitializing, "tessera::row_chunks"),
                                                        chunks + 1);
  // Work of rows [0, r) = pos(r) + r: one unit per nonzero and one per row.
  const std::int64_t total = rows == 0 ? 0 : static_cast<std::int64_t>(pos(rows)) + rows;
  bounds(0) = 0;
  for (std::int64_t c = 1; c < chunks; ++c) {
    const std::int64_t target = total * c / chunks;
    std::int64_t lo = bounds(c - 1), hi = rows;  // first r with work(r) >= target
    while (lo < hi) {
      const std::int64_t mid = lo + (hi - lo) / 2;
      if (static_cast<std::int64_t>(pos(mid)) + mid < target) lo = mid + 1; else hi = mid;
    }
    bounds(c) = lo;
  }
  bounds(chunks) = rows;
  return bounds;
}

// Chunks per host thread: several, so dynamic scheduling can absorb imbalance.
template <class Space>
std::int64_t host_chunk_count(const Space& space) {
  return static_cast<std::int64_t>(space.concurrency()) * 8;
}

}  // namespace tessera::kernels
