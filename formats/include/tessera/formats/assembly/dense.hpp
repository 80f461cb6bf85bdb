#pragma once
/// \file
/// Dense arrays and tensors, in the tensor's space: the nonzeros of a row-major array as
/// triplets (a count, then a scan that writes them in row-major order: sorted, unique), and the
/// stored entries of a tensor written into a zero-filled row-major array.
#include <array>
#include <cstddef>
#include <cstdint>

#include <Kokkos_Core.hpp>

#include "tessera/core/allocation.hpp"
#include "tessera/core/device_coo.hpp"
#include "tessera/core/tensor.hpp"
#include "tessera/formats/assembly/parallel.hpp"
#include "tessera/formats/assembly/stored_entries.hpp"

namespace tessera::detail {

// The entries of a dense row-major array of `shape` in Space's memory that are not zero, as triplets in row-major
// order.
template <class Space, class T, std::size_t N>
DeviceCoo<T, Space> dense_entries(const Kokkos::View<const T*, DeviceOf<Space>>& flat,
                                  const std::array<std::int64_t, N>& shape) {
  using Coo = DeviceCoo<T, Space>;
  const std::int64_t size = static_cast<std::int64_t>(flat.extent(0));
  std::int64_t nonzeros = 0;
  Kokkos::parallel_reduce(
      "tessera::from_dense[count]", range<Space>(size),
      KOKKOS_LAMBDA(const std::int64_t i, std::int64_t& count) { count += !(flat(i) == T(0)); }, nonzeros);
  Coo out;
  out.shape.assign(shape.begin(), shape.end());
  out.coords = uninitialized_view<typename Coo::coords_view>("tessera::coo_coords", nonzeros, N);
  out.values = uninitialized_view<typename Coo::values_view>("tessera::coo_values", nonzeros);
  Kokkos::Array<std::int64_t, N> extent;
  for (std::size_t m = 0; m < N; ++m) extent[m] = shape[m];
  const auto coords = out.coords;
  const auto values = out.values;
  Kokkos::parallel_scan(
      "tessera::from_dense", range<Space>(size),
      KOKKOS_LAMBDA(const std::int64_t i, std::int64_t& n, const bool final) {
        if (flat(i) == T(0)) return;
        if (final) {
          std::int64_t rest = i;
          for (int m = static_cast<int>(N) - 1; m >= 0; --m) {
            coords(n, m) = rest % extent[m];
            rest /= extent[m];
          }
          values(n) = flat(i);
        }
        ++n;
      });
  return out;
}

// Writes the stored entries of `tensor` into the zero-filled row-major array `flat`.
template <class T, class Enc, class Space>
void scatter_to_dense(const Tensor<T, Enc, Space>& tensor, const Kokkos::View<T*, DeviceOf<Space>>& flat) {
  constexpr int N = Enc::order;
  const StoredEntries<T, Enc, Space> walk(tensor);
  Kokkos::Array<std::int64_t, N> extent;
  for (int m = 0; m < N; ++m) extent[m] = tensor.shape()[m];
  Kokkos::parallel_for(
      "tessera::to_dense", range<Space>(walk.positions), KOKKOS_LAMBDA(const std::int64_t q) {
        if (!walk.stored(q)) return;  // zeros of a dense last level; entries are written, not added (-0.0 stays)
        std::int64_t c[N];
        walk.coords(q, c);
        std::int64_t linear = 0;
        for (int m = 0; m < N; ++m) linear = linear * extent[m] + c[m];
        flat(linear) = walk.vals(q);
      });
}

}  // namespace tessera::detail
