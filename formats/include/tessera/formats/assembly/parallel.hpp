#pragma once
/// \file
/// Small parallel building blocks of tensor assembly, in any Kokkos space: the device of a
/// space, 64-bit range policies, offsets from counts, and index arrays (iota, gather through a
/// permutation).
#include <cstdint>
#include <string>

#include <Kokkos_Core.hpp>

#include "tessera/core/allocation.hpp"

namespace tessera::detail {

// The Kokkos device (execution space + its memory space) of Space.
template <class Space>
using DeviceOf = Kokkos::Device<Space, typename Space::memory_space>;

// [0, n) with 64-bit indices: entry counts pass 2^31.
template <class Space>
Kokkos::RangePolicy<Space, Kokkos::IndexType<std::int64_t>> range(std::int64_t n) {
  return Kokkos::RangePolicy<Space, Kokkos::IndexType<std::int64_t>>(0, n);
}

// offsets(i) = count(0) + ... + count(i - 1) for i in [0, n]: the n + 1 offsets of n counts,
// `count` a device-callable function of the index.
template <class Offset, class Space, class Count>
Kokkos::View<Offset*, DeviceOf<Space>> offsets_of(const std::string& label, std::int64_t n, const Count& count) {
  const auto out = uninitialized_view<Kokkos::View<Offset*, DeviceOf<Space>>>(label, n + 1);
  Kokkos::parallel_scan(
      label, range<Space>(n + 1), KOKKOS_LAMBDA(const std::int64_t i, std::int64_t& sum, const bool final) {
        if (final) out(i) = static_cast<Offset>(sum);
        if (i < n) sum += count(i);
      });
  return out;
}

// 0, 1, ..., n-1.
template <class Space, class Index>
Kokkos::View<Index*, DeviceOf<Space>> iota(const std::string& label, std::int64_t n) {
  const auto out = uninitialized_view<Kokkos::View<Index*, DeviceOf<Space>>>(label, n);
  Kokkos::parallel_for(
      "tessera::iota", range<Space>(n), KOKKOS_LAMBDA(const std::int64_t i) { out(i) = static_cast<Index>(i); });
  return out;
}

// out(i) = in(perm(i)).
template <class Space, class V, class Index>
Kokkos::View<V*, DeviceOf<Space>> gather(const std::string& label, const Kokkos::View<const V*, DeviceOf<Space>>& in,
                                         const Kokkos::View<const Index*, DeviceOf<Space>>& perm) {
  const auto out = uninitialized_view<Kokkos::View<V*, DeviceOf<Space>>>(label, perm.extent(0));
  Kokkos::parallel_for(
      "tessera::gather", range<Space>(perm.extent(0)), KOKKOS_LAMBDA(const std::int64_t i) { out(i) = in(perm(i)); });
  return out;
}

}  // namespace tessera::detail
