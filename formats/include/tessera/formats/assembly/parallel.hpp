#pragma once
/// \file
/// Small parallel building blocks of tensor assembly, in any Kokkos space: the device of a
/// space, 64-bit range policies, offsets from counts, and index arrays (iota, gather through a
/// permutation).
#include <cstdint>
#include <string>
#include <type_traits>

#include <Kokkos_Core.hpp>

#include "tessera/core/allocation.hpp"

#if defined(KOKKOS_ENABLE_CUDA) && defined(TESSERA_HAVE_FORMATS_CUDA)
#include "tessera/formats/cuda/prefix_sum.hpp"
#endif

namespace tessera::detail {

// The Kokkos device (execution space + its memory space) of Space.
template <class Space>
using DeviceOf = Kokkos::Device<Space, typename Space::memory_space>;

// [0, n) with 64-bit indices: entry counts pass 2^31.
template <class Space>
Kokkos::RangePolicy<Space, Kokkos::IndexType<std::int64_t>> range(std::int64_t n) {
  return Kokkos::RangePolicy<Space, Kokkos::IndexType<std::int64_t>>(0, n);
}

// Whether the counts-to-offsets scans of `Space` run CUB's (Kokkos 3's parallel_scan on CUDA
// costs tens of microseconds even on small inputs).
template <class Space, class Offset>
inline constexpr bool scans_with_cub_v =
#if defined(KOKKOS_ENABLE_CUDA) && defined(TESSERA_HAVE_FORMATS_CUDA)
    std::is_same_v<Space, Kokkos::Cuda> && (std::is_same_v<Offset, int> || std::is_same_v<Offset, std::int64_t>);
#else
    false;
#endif

// out(i), i in [0, n), holds a count: turns out's n + 1 entries into the offsets of the counts
// (out(n) becomes their total; its input is not read), on `space`.
template <class Space, class Offset>
void counts_to_offsets(const Space& space, const Kokkos::View<Offset*, DeviceOf<Space>>& out, std::int64_t n) {
  if constexpr (scans_with_cub_v<Space, Offset>) {
#if defined(KOKKOS_ENABLE_CUDA) && defined(TESSERA_HAVE_FORMATS_CUDA)
    formats::cuda::exclusive_sum_in_place(out.data(), n + 1, space.cuda_stream());
#endif
  } else {
    Kokkos::parallel_scan(
        "tessera::offsets", Kokkos::RangePolicy<Space, Kokkos::IndexType<std::int64_t>>(space, 0, n + 1),
        KOKKOS_LAMBDA(const std::int64_t i, std::int64_t& sum, const bool final) {
          const std::int64_t count = i < n ? static_cast<std::int64_t>(out(i)) : 0;
          if (final) out(i) = static_cast<Offset>(sum);
          sum += count;
        });
  }
}

// out(i) = count(0) + ... + count(i - 1) for i in [0, n]: the n + 1 offsets of n counts into
// `out`, `count` a device-callable function of the index.
template <class Offset, class Space, class Count>
void offsets_into(const Kokkos::View<Offset*, DeviceOf<Space>>& out, std::int64_t n, const Count& count,
                  const std::string& label) {
  if constexpr (scans_with_cub_v<Space, Offset>) {
    Kokkos::parallel_for(
        label, range<Space>(n), KOKKOS_LAMBDA(const std::int64_t i) { out(i) = static_cast<Offset>(count(i)); });
    counts_to_offsets(Space(), out, n);
  } else {
    Kokkos::parallel_scan(
        label, range<Space>(n + 1), KOKKOS_LAMBDA(const std::int64_t i, std::int64_t& sum, const bool final) {
          if (final) out(i) = static_cast<Offset>(sum);
          if (i < n) sum += count(i);
        });
  }
}

// The n + 1 offsets of n counts in a new array (see offsets_into).
template <class Offset, class Space, class Count>
Kokkos::View<Offset*, DeviceOf<Space>> offsets_of(const std::string& label, std::int64_t n, const Count& count) {
  const auto out = uninitialized_view<Kokkos::View<Offset*, DeviceOf<Space>>>(label, n + 1);
  offsets_into<Offset, Space>(out, n, count, label);
  return out;
}

// The last of a view of offsets (their total), read back to the host.
template <class View>
std::int64_t total_of(const View& offsets) {
  typename View::non_const_value_type last = 0;
  Kokkos::deep_copy(Kokkos::View<typename View::non_const_value_type, Kokkos::HostSpace>(&last),
                    Kokkos::subview(offsets, offsets.extent(0) - 1));
  return static_cast<std::int64_t>(last);
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
