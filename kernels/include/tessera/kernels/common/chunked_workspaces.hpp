#pragma once
// Runs body(chunk, workspace, out) for every chunk on a host execution space, each
// thread with its own workspace (Kokkos UniqueToken), each chunk writing only its
// own SortedChunk: the result does not depend on the schedule.
#include <cstdint>
#include <vector>

#include <Kokkos_Core.hpp>

#include "tessera/kernels/common/sorted_chunks.hpp"
#include "tessera/workspace/policies.hpp"
#include "tessera/workspace/workspace.hpp"

namespace tessera::kernels {

template <class Policy, class T, int WorkspaceOrder, int OutOrder, class Space, class Body>
std::vector<SortedChunk<T, OutOrder>> run_chunks(const Space& space, std::int64_t chunks,
                                                 const workspace::IsmOptions& options, workspace::Report* report,
                                                 const char* label, Body&& body) {
  static_assert(Kokkos::SpaceAccessibility<Kokkos::HostSpace, typename Space::memory_space>::accessible,
                "host execution spaces only");
  std::vector<SortedChunk<T, OutOrder>> out(chunks);
  Kokkos::Experimental::UniqueToken<Space> token(space);
  workspace::PerThread<Policy, T, WorkspaceOrder> workspaces(token.size(), options);
  Kokkos::parallel_for(label, Kokkos::RangePolicy<Space, Kokkos::Schedule<Kokkos::Dynamic>>(space, 0, chunks),
                       [&](std::int64_t c) {
                         const int id = token.acquire();
                         body(c, workspaces[id], out[c]);
                         token.release(id);
                       });
  space.fence();
  if (report) {
    report->peak_bytes = workspaces.peak_bytes();
    report->policy = workspace::policy_name<Policy>;
  }
  return out;
}

}  // namespace tessera::kernels
