#pragma once
/// \file
/// Runs body(chunk, workspace, out) for every chunk on a host execution space, each
/// thread with its own workspace (Kokkos UniqueToken), each chunk writing only its
/// own SortedChunk: the result does not depend on the schedule. for_each_chunk is
/// the underlying loop, for kernels that keep other per-thread state or outputs.
#include <atomic>
#include <cstdint>
#include <exception>
#include <mutex>
#include <vector>

#include <Kokkos_Core.hpp>

#include "tessera/kernels/common/sorted_chunks.hpp"
#include "tessera/workspace/policies.hpp"
#include "tessera/workspace/workspace.hpp"

namespace tessera::kernels {

/// Slots of per-thread state a host space needs (the range of for_each_chunk's thread ids).
template <class Space>
std::int64_t host_thread_slots(const Space& space) {
  return Kokkos::Experimental::UniqueToken<Space>(space).size();
}

/// Calls body(chunk, thread) for every chunk in [0, chunks), dynamically scheduled;
/// thread in [0, host_thread_slots(space)) is held by one body at a time. An exception a
/// body throws (a workspace's coordinate limit, an allocation) leaves the loop and is
/// rethrown here, the chunks not yet started skipped: escaping an OpenMP region, it ended
/// the program in std::terminate.
template <class Space, class Body>
void for_each_chunk(const Space& space, std::int64_t chunks, const char* label, Body&& body) {
  static_assert(Kokkos::SpaceAccessibility<Kokkos::HostSpace, typename Space::memory_space>::accessible,
                "host execution spaces only");
  Kokkos::Experimental::UniqueToken<Space> token(space);
  std::atomic<bool> failed{false};
  std::exception_ptr failure;
  std::mutex failure_lock;
  Kokkos::parallel_for(label, Kokkos::RangePolicy<Space, Kokkos::Schedule<Kokkos::Dynamic>>(space, 0, chunks),
                       [&](std::int64_t c) {
                         if (failed.load(std::memory_order_relaxed)) return;
                         const int id = token.acquire();
                         try {
                           body(c, static_cast<std::int64_t>(id));
                         } catch (...) {
                           const std::lock_guard<std::mutex> hold(failure_lock);
                           if (!failure) failure = std::current_exception();
                           failed.store(true, std::memory_order_relaxed);
                         }
                         token.release(id);
                       });
  space.fence();
  if (failure) std::rethrow_exception(failure);
}

/// for_each_chunk with one workspace of Policy per thread: body(chunk, workspace, out[chunk]); fills `report`.
template <class Policy, class T, int WorkspaceOrder, int OutOrder, class Space, class Body>
std::vector<SortedChunk<T, OutOrder>> run_chunks(const Space& space, std::int64_t chunks,
                                                 const workspace::IsmOptions& options, workspace::Report* report,
                                                 const char* label, Body&& body) {
  std::vector<SortedChunk<T, OutOrder>> out(chunks);
  workspace::PerThread<Policy, T, WorkspaceOrder> workspaces(host_thread_slots(space), options);
  for_each_chunk(space, chunks, label, [&](std::int64_t c, std::int64_t id) { body(c, workspaces[id], out[c]); });
  if (report) {
    report->peak_bytes = workspaces.peak_bytes();
    report->policy = workspace::policy_name<Policy>;
  }
  return out;
}

}  // namespace tessera::kernels
