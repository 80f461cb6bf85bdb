#pragma once
/// \file
/// Allocations whose failure is reported as an OutOfMemoryError naming the array and its size.
/// Sizes often come from a file or a user's shape, so a failure is an input problem to report,
/// not a crash: std::bad_alloc and Kokkos' allocation errors (a std::runtime_error in Kokkos 3.4)
/// carry neither the array's role nor, for std::bad_alloc, its size.
#include <cstddef>
#include <limits>
#include <new>
#include <stdexcept>
#include <string>
#include <vector>

#include <Kokkos_Core.hpp>

#include "tessera/core/error.hpp"

namespace tessera::detail {

// Runs `allocate`, which must do nothing but allocate, and turns its failure into an
// OutOfMemoryError for `bytes` bytes of `label` in `space`.
template <class Allocate>
decltype(auto) guard_allocation(const std::string& label, std::size_t bytes, const std::string& space,
                                Allocate&& allocate) {
  try {
    return allocate();
  } catch (const std::bad_alloc&) {  // std::vector, and Kokkos' raw allocation failure
  } catch (const std::length_error&) {  // std::vector beyond max_size()
  } catch (const Error&) {
    throw;
  } catch (const std::runtime_error& e) {  // Kokkos rethrows allocation failures as runtime_error
    if (std::string(e.what()).find("llocat") == std::string::npos) throw;
  }
  throw OutOfMemoryError(label, bytes, space);
}

// n * size, saturated: an overflowing request is reported with the largest size_t.
inline std::size_t saturated_bytes(std::size_t n, std::size_t size) {
  return size != 0 && n > std::numeric_limits<std::size_t>::max() / size ? std::numeric_limits<std::size_t>::max()
                                                                          : n * size;
}

// A host vector of n copies of `fill`.
template <class V>
std::vector<V> host_vector(const std::string& label, std::size_t n, const V& fill = V()) {
  return guard_allocation(label, saturated_bytes(n, sizeof(V)), "host memory",
                          [&] { return std::vector<V>(n, fill); });
}

// A View of the given extents, not initialized.
template <class View, class... Extents>
View uninitialized_view(const std::string& label, Extents... extents) {
  std::size_t elements = 1;
  for (const std::size_t e : {static_cast<std::size_t>(extents)...}) elements = saturated_bytes(elements, e);
  return guard_allocation(label, saturated_bytes(elements, sizeof(typename View::value_type)),
                          View::memory_space::name(), [&] {
                            return View(Kokkos::view_alloc(Kokkos::WithoutInitializing, label), extents...);
                          });
}

}  // namespace tessera::detail
