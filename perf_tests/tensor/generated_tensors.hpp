#pragma once
// Sparse tensors for the tensor benchmarks: Last.fm from the data folder, and tensors generated on
// the default execution space from a hash of each nonzero's index (the same tensor on every run
// and space). Also the DRAM floor's rate, the bytes of a tensor's arrays and the name of the
// device.
#include <Kokkos_Core.hpp>
#ifdef KOKKOS_ENABLE_CUDA
#include <cuda_runtime_api.h>
#endif

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <type_traits>
#include <vector>

#include "../common/fenced_timing.hpp"
#include "tessera/core/device_coo.hpp"
#include "tessera/core/tensor.hpp"
#include "tessera/core/io/tns.hpp"
#include "tessera/kernels/common/pattern_binding.hpp"

namespace tessera_bench {

using Space = Kokkos::DefaultExecutionSpace;

// A generated tensor: extents, nonzeros and how coordinates are drawn. Fibered tensors group
// their nonzeros into fibers (the coordinates of all modes but the last) of mean length
// `fiber`: each nonzero picks its fiber uniformly (lengths spread around the mean) or by a power
// law (a few fibers of many thousands, most of one or two); the last mode's coordinate is
// uniform. Independent tensors (fiber == 0) draw every coordinate uniformly.
struct Generated {
  std::string name;
  std::vector<std::int64_t> shape;
  std::int64_t nnz;
  int fiber;
  bool power_law;
};

// splitmix64 of the key's successor in the golden-ratio sequence.
KOKKOS_INLINE_FUNCTION std::uint64_t mix(std::uint64_t x) {
  return tessera::kernels::detail::mix64(x + 0x9e3779b97f4a7c15ULL);
}

KOKKOS_INLINE_FUNCTION double uniform01(std::uint64_t key) { return static_cast<double>(mix(key) >> 11) * 0x1.0p-53; }

// The generated triplets, drawn on the device (duplicates possible, summed by from_coo).
inline tessera::DeviceCoo<double, Space> generate(const Generated& g) {
  tessera::DeviceCoo<double, Space> coo;
  coo.shape = g.shape;
  const int order = static_cast<int>(g.shape.size());
  coo.coords = decltype(coo.coords)("coords", g.nnz, order);
  coo.values = decltype(coo.values)("values", g.nnz);
  const auto coords = coo.coords;
  const auto values = coo.values;
  std::array<std::int64_t, 4> shape{};
  for (int m = 0; m < order; ++m) shape[m] = g.shape[m];
  const std::int64_t fibers = g.fiber > 0 ? std::max<std::int64_t>(1, g.nnz / g.fiber) : 0;
  const bool power_law = g.power_law;
  Kokkos::parallel_for(
      "tensor_bench::generate", Kokkos::RangePolicy<Space, Kokkos::IndexType<std::int64_t>>(0, g.nnz),
      KOKKOS_LAMBDA(const std::int64_t e) {
        const auto key = static_cast<std::uint64_t>(e) * 8;
        std::uint64_t fiber_key = key;
        if (fibers > 0) {
          const double u = uniform01(key + 6);
          const auto f = static_cast<std::int64_t>((power_law ? u * u * u * u : u) * static_cast<double>(fibers));
          fiber_key = (static_cast<std::uint64_t>(f) + (std::uint64_t{1} << 40)) * 8;
        }
        for (int m = 0; m < order; ++m) {
          const double u = uniform01(m == order - 1 ? key + m : fiber_key + m);
          coords(e, m) = static_cast<std::int64_t>(u * static_cast<double>(shape[m]));
        }
        values(e) = 1.0 + static_cast<double>(mix(key + 7) >> 40) * 0x1.0p-24;
      });
  return coo;
}

// Calls run(g, coo) for each of `tensors` whose name, its size appended ("fibers3-20M"),
// wanted(name) lets run, `coo` generated just before.
template <class Wanted, class Run>
void for_each_generated(const std::vector<Generated>& tensors, Wanted&& wanted, Run&& run) {
  for (Generated g : tensors) {
    char size[32];
    std::snprintf(size, sizeof size, "-%.3gM", static_cast<double>(g.nnz) * 1e-6);
    g.name += size;
    if (wanted(g.name)) run(g, generate(g));
  }
}

// Device-to-device copy bandwidth (bytes read + written per second), the DRAM floor's rate.
inline double copy_bandwidth(int reps) {
  const std::int64_t n = std::int64_t{1} << 27;  // 1 GiB of doubles
  Kokkos::View<double*, Space> a("a", n), b("b", n);
  const double ms = median_fenced_ms(reps, [&] { Kokkos::deep_copy(b, a); });
  return 2.0 * static_cast<double>(n) * sizeof(double) / (ms * 1e-3);
}

// The device the default space runs on, by name where it is a GPU.
inline std::string device_name() {
#ifdef KOKKOS_ENABLE_CUDA
  cudaDeviceProp prop{};
  if (std::is_same_v<Space, Kokkos::Cuda> && cudaGetDeviceProperties(&prop, 0) == cudaSuccess) return prop.name;
#endif
  return std::string(Space::name()) + " with " + std::to_string(Space().concurrency()) + " threads";
}

// Bytes of a tensor's arrays: values, and the positions and coordinates (int) of every level.
template <class T, class Enc, class S>
std::int64_t tensor_bytes(const tessera::Tensor<T, Enc, S>& t) {
  std::int64_t bytes = static_cast<std::int64_t>(t.values().span() * sizeof(T));
  for (int l = 0; l < Enc::order; ++l)
    bytes += static_cast<std::int64_t>((t.level(l).pos.span() + t.level(l).crd.span()) * sizeof(int));
  return bytes;
}

// The Last.fm user-artist-tag tensor of the data folder ($TESSERA_DATA_DIR, else ../shared/data).
inline tessera::HostCoo<double> read_lastfm() {
  const char* dir = std::getenv("TESSERA_DATA_DIR");
  return tessera::io::read_tns(std::string(dir && *dir ? dir : "../shared/data") +
                               "/tensors/lastfm_user_artist_tag.tns.gz");
}

}  // namespace tessera_bench
