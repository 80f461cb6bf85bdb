#pragma once
// Runs body(chunk, workspace, out) for every chunk on a host execution space, each
// thread with its own workspace (Kokkos UniqueToken), each chunk writing only its
// own SortedChunk: the result does not depend on the schedule. for_each_chunk is
// the underlying loop, for kernels that keep other per-thread state or outputs.
#include <cstdint>
#include <vector>

#include <Kokkos_Core.hpp>

#include "tessera/kernels/common/sorted_chunks.hpp"
#include "tessera/workspace/policies.hpp"
#include "tessera/workspace/workspace.hpp"

namespace tessera::kernels {

// Slots of per-thread state a host space needs (the range of for_each_chunk's thread ids).
template <class Space>
std::int64_t host_thread_slots(const Space& space) {
  return Kokkos::Experimental::UniqueToken<Space>(space).size();
}

// Calls body(chunk, thread) for every chunk in [0, chunks), dynamically scheduled;
// thread in [0, host_thread_slots(space)) is held by one body at a time.
template <class Space, class Body>
void for_each_chunk(const Space& space, std::int64_t chunks, const char* label, Body&& body) {
  static_assert(Kokkos::SpaceAccessibility<Kokkos::HostSpace, typename Space::memory_space>::accessible,
                "host execution spaces only");
  Kokkos::Experimental::UniqueToken<Space> token(space);
  Kokkos::parallel_for(label, Kokkos::RangePolicy<Space, Kokkos::Schedule<Kokkos::Dynamic>>(space, 0, chunks),
                       [&](std::int64_t c) {
                         const int id = token.acquire();
                         body(c, static_cast<std::int64_t>(id));
                         token.release(id);
                       });
  space.fence();
}

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
