#pragma once
/// \file
/// Splits the rows of a CSR-like matrix into chunks of roughly equal work
/// (nonzeros + rows), so that host threads stay balanced on power-law matrices.
/// Each chunk finds its own bounds by binary search: no per-call allocation and no
/// shared schedule, so a statically scheduled parallel_for with one chunk per
/// thread needs no rendezvous (dynamic scheduling costs a pool-wide rendezvous per
/// call, which dominated small products on 16 threads).
#include <cstdint>

#include <Kokkos_Core.hpp>

namespace tessera::kernels {

/// First row of chunk c of `chunks` (c == chunks gives rows). Work of rows [0, r) is
/// pos(r) + r: one unit per nonzero and one per row.
template <class PosView>
KOKKOS_INLINE_FUNCTION std::int64_t first_row_of_chunk(const PosView& pos, std::int64_t rows, std::int64_t c,
                                                       std::int64_t chunks) {
  if (c >= chunks) return rows;
  const std::int64_t total = static_cast<std::int64_t>(pos(rows)) + rows;
  const std::int64_t target = total / chunks * c + total % chunks * c / chunks;  // total*c/chunks without overflow
  std::int64_t lo = 0, hi = rows;  // first r with work(r) >= target
  while (lo < hi) {
    const std::int64_t mid = lo + (hi - lo) / 2;
    if (static_cast<std::int64_t>(pos(mid)) + mid < target) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/// The space's thread count, at least 1: Kokkos 3.4's OpenMP started with
/// --kokkos-threads=0 reports a concurrency of 0, and a count of 0 would give zero chunks
/// (the work silently skipped) or a division by zero.
template <class Space>
std::int64_t host_threads(const Space& space) {
  const std::int64_t threads = static_cast<std::int64_t>(space.concurrency());
  return threads < 1 ? 1 : threads;
}

/// One chunk per host thread (the partition is already balanced by work).
template <class Space>
std::int64_t one_chunk_per_thread(const Space& space, std::int64_t rows) {
  const std::int64_t threads = host_threads(space);
  return rows < threads ? (rows > 0 ? rows : 1) : threads;
}

/// All chunk bounds at once, for kernels that plan per chunk: bounds(c) = first row
/// of chunk c, bounds(chunks) = rows. pos must be host-accessible.
template <class PosView>
Kokkos::View<std::int64_t*, Kokkos::HostSpace> balanced_row_chunks(const PosView& pos, std::int64_t rows,
                                                                   std::int64_t chunks) {
  chunks = rows < 1 ? 1 : (chunks < 1 ? 1 : (chunks > rows ? rows : chunks));
  Kokkos::View<std::int64_t*, Kokkos::HostSpace> bounds(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "tessera::row_chunks"), chunks + 1);
  for (std::int64_t c = 0; c <= chunks; ++c) bounds(c) = rows == 0 ? 0 : first_row_of_chunk(pos, rows, c, chunks);
  return bounds;
}

/// Chunks per host thread for dynamically scheduled kernels whose chunks vary in cost.
template <class Space>
std::int64_t host_chunk_count(const Space& space) {
  return host_threads(space) * 8;
}

}  // namespace tessera::kernels
