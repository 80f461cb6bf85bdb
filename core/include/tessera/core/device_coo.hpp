#pragma once
/// \file
/// DeviceCoo: coordinate triplets in a Kokkos space's memory, what from_coo reads without a
/// copy and to_device_coo writes. Like HostCoo it carries no ordering or uniqueness guarantee.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <Kokkos_Core.hpp>

#include "tessera/core/allocation.hpp"
#include "tessera/core/coo.hpp"

namespace tessera {

/// Coordinate list in Space's memory: one extent per mode, then (coordinates, value) per entry.
template <class T, class Space = Kokkos::DefaultExecutionSpace>
struct DeviceCoo {
  using value_type = T;                                                                ///< Value type of the entries.
  using execution_space = Space;                                                       ///< Space the arrays belong to.
  using device_type = Kokkos::Device<Space, typename Space::memory_space>;             ///< Kokkos device of the arrays.
  using coords_view = Kokkos::View<std::int64_t**, Kokkos::LayoutRight, device_type>;  ///< (nnz, order), 0-based
  using values_view = Kokkos::View<T*, device_type>;                                   ///< (nnz)

  std::vector<std::int64_t> shape;  ///< one extent per mode
  coords_view coords;               ///< entry n, mode m at coords(n, m)
  values_view values;               ///< value of entry n at values(n)

  /// Number of modes.
  int order() const { return static_cast<int>(shape.size()); }
  /// Number of entries.
  std::int64_t nnz() const { return static_cast<std::int64_t>(values.extent(0)); }
};

/// The triplets of `coo` copied into Space's memory (one copy of each array).
template <class Space, class T>
DeviceCoo<T, Space> to_device(const HostCoo<T>& coo) {
  using Result = DeviceCoo<T, Space>;
  Result out;
  out.shape = coo.shape;
  const std::size_t order = coo.shape.size();
  const std::size_t nnz = coo.values.size();
  // A coordinate array that does not hold order values per entry is copied whole and refused
  // by from_coo with the same message as the host triplets.
  const std::size_t rows = order == 0 ? 0 : coo.coords.size() / order;
  out.coords = detail::uninitialized_view<typename Result::coords_view>("tessera::coo_coords", rows, order);
  out.values = detail::uninitialized_view<typename Result::values_view>("tessera::coo_values", nnz);
  using HostCoords =
      Kokkos::View<const std::int64_t**, Kokkos::LayoutRight, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>;
  using HostValues = Kokkos::View<const T*, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>;
  Kokkos::deep_copy(out.coords, HostCoords(coo.coords.data(), rows, order));
  Kokkos::deep_copy(out.values, HostValues(coo.values.data(), nnz));
  return out;
}

/// The triplets of `coo` copied to a HostCoo.
template <class T, class Space>
HostCoo<T> to_host(const DeviceCoo<T, Space>& coo) {
  HostCoo<T> out;
  out.shape = coo.shape;
  out.coords = detail::host_vector<std::int64_t>("tessera::coo_coords (host)", coo.coords.size());
  out.values = detail::host_vector<T>("tessera::coo_values (host)", coo.values.size());
  using HostCoords = Kokkos::View<std::int64_t**, Kokkos::LayoutRight, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>;
  using HostValues = Kokkos::View<T*, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>;
  Kokkos::deep_copy(HostCoords(out.coords.data(), coo.coords.extent(0), coo.coords.extent(1)), coo.coords);
  Kokkos::deep_copy(HostValues(out.values.data(), out.values.size()), coo.values);
  return out;
}

}  // namespace tessera
