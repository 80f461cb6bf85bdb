#pragma once
/// \file
/// Stable sort of (key, value) pairs by the low `end_bit` bits of unsigned keys, in a Kokkos
/// space: on Kokkos::Cuda CUB's radix sort (formats/cuda/radix_sort.hpp) on the instance's stream;
/// on host spaces an LSD radix sort over contiguous chunks, one per thread (per-chunk digit
/// histograms, offsets digit-major then chunk, an in-order scatter per chunk: stable).
/// Stability is what keeps duplicates of a COO input in input order.
#include <algorithm>
#include <cstdint>
#include <type_traits>
#include <utility>

#include <Kokkos_Core.hpp>

#include "tessera/core/allocation.hpp"
#include "tessera/core/error.hpp"
#include "tessera/formats/assembly/parallel.hpp"

#if defined(KOKKOS_ENABLE_CUDA) && defined(TESSERA_HAVE_FORMATS_CUDA)
#include "tessera/formats/cuda/radix_sort.hpp"
#endif

namespace tessera::detail {

// Host spaces: 11-bit digits at most, as few passes as end_bit needs, passes whose digit is
// the same for every key skipped.
template <class Space, class Key, class Value>
void host_radix_sort_pairs(Kokkos::View<Key*, DeviceOf<Space>>& keys, Kokkos::View<Value*, DeviceOf<Space>>& values,
                           int end_bit) {
  using Keys = Kokkos::View<Key*, DeviceOf<Space>>;
  using Values = Kokkos::View<Value*, DeviceOf<Space>>;
  const std::int64_t n = static_cast<std::int64_t>(keys.extent(0));
  const int passes = (end_bit + 10) / 11;
  const int digit_bits = (end_bit + passes - 1) / passes;
  const std::int64_t radix = std::int64_t{1} << digit_bits;
  // Small inputs in one chunk: a histogram per thread would cost more than it saves.
  const std::int64_t chunks = std::max<std::int64_t>(1, std::min<std::int64_t>(Space().concurrency(), n / 65536));
  const std::int64_t chunk = (n + chunks - 1) / chunks;
  Kokkos::View<std::int64_t**, Kokkos::LayoutRight, DeviceOf<Space>> offset("tessera::sort histograms", chunks, radix);
  Keys keys_alt = uninitialized_view<Keys>("tessera::sort keys", n);
  Values values_alt = uninitialized_view<Values>("tessera::sort values", n);
  for (int pass = 0; pass < passes; ++pass) {
    const int shift = pass * digit_bits;
    const Key digit_mask = static_cast<Key>(radix - 1);
    const Key* in_keys = keys.data();
    Kokkos::parallel_for("tessera::radix_sort[count]", Kokkos::RangePolicy<Space>(0, chunks),
                         [=](const std::int64_t c) {
                           std::int64_t* count = &offset(c, 0);
                           std::fill(count, count + radix, std::int64_t{0});
                           const std::int64_t end = std::min(n, (c + 1) * chunk);
                           for (std::int64_t i = c * chunk; i < end; ++i) ++count[(in_keys[i] >> shift) & digit_mask];
                         });
    Kokkos::fence();
    // Offsets, digit-major then chunk: radix * chunks values, a serial scan.
    bool one_digit = false;
    std::int64_t running = 0;
    for (std::int64_t d = 0; d < radix; ++d) {
      const std::int64_t before = running;
      for (std::int64_t c = 0; c < chunks; ++c) {
        const std::int64_t count = offset(c, d);
        offset(c, d) = running;
        running += count;
      }
      one_digit = one_digit || running - before == n;
    }
    if (one_digit) continue;  // the pass would keep the order
    const Value* in_values = values.data();
    Key* out_keys = keys_alt.data();
    Value* out_values = values_alt.data();
    Kokkos::parallel_for("tessera::radix_sort[scatter]", Kokkos::RangePolicy<Space>(0, chunks),
                         [=](const std::int64_t c) {
                           std::int64_t* next = &offset(c, 0);
                           const std::int64_t end = std::min(n, (c + 1) * chunk);
                           for (std::int64_t i = c * chunk; i < end; ++i) {
                             const std::int64_t o = next[(in_keys[i] >> shift) & digit_mask]++;
                             out_keys[o] = in_keys[i];
                             out_values[o] = in_values[i];
                           }
                         });
    Kokkos::fence();
    std::swap(keys, keys_alt);
    std::swap(values, values_alt);
  }
}

#if defined(KOKKOS_ENABLE_CUDA) && defined(TESSERA_HAVE_FORMATS_CUDA)
template <class Key, class Value>
void cuda_radix_sort_pairs(const Kokkos::Cuda& space, Kokkos::View<Key*, DeviceOf<Kokkos::Cuda>>& keys,
                           Kokkos::View<Value*, DeviceOf<Kokkos::Cuda>>& values, int end_bit) {
  using Keys = Kokkos::View<Key*, DeviceOf<Kokkos::Cuda>>;
  using Values = Kokkos::View<Value*, DeviceOf<Kokkos::Cuda>>;
  using Bytes = Kokkos::View<unsigned char*, DeviceOf<Kokkos::Cuda>>;
  const std::int64_t n = static_cast<std::int64_t>(keys.extent(0));
  const std::size_t bytes = formats::cuda::sort_pairs_workspace_bytes<Key, Value>(n, end_bit);
  Keys keys_alt = uninitialized_view<Keys>("tessera::sort keys", n);
  Values values_alt = uninitialized_view<Values>("tessera::sort values", n);
  const Bytes workspace = uninitialized_view<Bytes>("tessera::sort workspace", std::max<std::size_t>(bytes, 1));
  if (formats::cuda::sort_pairs(keys.data(), keys_alt.data(), values.data(), values_alt.data(), n, end_bit,
                                workspace.data(), bytes, space.cuda_stream())) {
    std::swap(keys, keys_alt);
    std::swap(values, values_alt);
  }
  space.fence();  // the workspace and a spare buffer are freed on return
}
#endif

// Sorts (keys, values) by keys' bits [0, end_bit), stably; keys and values may come back as
// other Views (the sorted buffers of a double-buffered sort).
template <class Space, class Key, class Value>
void sort_pairs(const Space& space, Kokkos::View<Key*, DeviceOf<Space>>& keys,
                Kokkos::View<Value*, DeviceOf<Space>>& values, int end_bit) {
  static_assert(std::is_unsigned_v<Key> && std::is_unsigned_v<Value>, "radix sort of unsigned keys and values");
  if (keys.extent(0) < 2 || end_bit <= 0) return;
  if constexpr (Kokkos::SpaceAccessibility<Kokkos::HostSpace, typename Space::memory_space>::accessible) {
    (void)space;
    host_radix_sort_pairs<Space>(keys, values, end_bit);
  } else {
#if defined(KOKKOS_ENABLE_CUDA)
    static_assert(std::is_same_v<Space, Kokkos::Cuda>, "tensor assembly runs on host spaces and Kokkos::Cuda");
#if defined(TESSERA_HAVE_FORMATS_CUDA)
    cuda_radix_sort_pairs(space, keys, values, end_bit);
#else
    throw NotCompiled("tensor assembly on Kokkos::Cuda needs tessera_formats_cuda (link Tessera::formats)");
#endif
#else
    static_assert(std::is_void_v<Space>, "tensor assembly runs on host spaces and Kokkos::Cuda");
#endif
  }
}

}  // namespace tessera::detail
