#pragma once
// A Kokkos profiling region that closes on every way out of its scope. Kokkos 3.4 has no
// scoped region, and a bare push/pop pair leaves a profiling tool's region stack one deeper
// each time the kernel between them throws (a caught shape, budget or CUDA error), so every
// later region that tool reports would nest under the failed call.
#include <string>

#include <Kokkos_Core.hpp>

namespace tessera::kernels {

class ProfilingRegion {
 public:
  explicit ProfilingRegion(const std::string& name) { Kokkos::Profiling::pushRegion(name); }
  ~ProfilingRegion() { Kokkos::Profiling::popRegion(); }
  ProfilingRegion(const ProfilingRegion&) = delete;
  ProfilingRegion& operator=(const ProfilingRegion&) = delete;
};

}  // namespace tessera::kernels
