#pragma once
// A k x n host View whose every element is one value (both strides 0): a matrix of any
// shape that costs no memory, to check how a routine sizes what it allocates for it.
#include <cstddef>
#include <cstdint>

#include <Kokkos_Core.hpp>

namespace tessera_test {

using BroadcastView = Kokkos::View<const double**, Kokkos::LayoutStride, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>;

inline BroadcastView broadcast_view(std::int64_t k, std::int64_t n, const double& value) {
  return BroadcastView(&value, Kokkos::LayoutStride(static_cast<std::size_t>(k), 0, static_cast<std::size_t>(n), 0));
}

}  // namespace tessera_test
