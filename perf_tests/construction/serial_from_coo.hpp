#pragma once
// The sequential from_coo that Tessera used before construction ran in the tensor's space: the
// baseline of construction_bench. Entry ids sorted level by level from the least significant
// storage level (a counting sort where the extent is comparable to the entry count, a stable
// comparison sort otherwise), duplicates summed in that order, then the host pack_sorted.
#include <algorithm>
#include <array>
#include <cstdint>
#include <numeric>
#include <vector>

#include "tessera/tessera.hpp"

namespace construction_bench {

template <class KeyOf>
void stable_sort_ids(std::vector<std::int64_t>& perm, std::int64_t extent, KeyOf key_of) {
  const std::int64_t n = static_cast<std::int64_t>(perm.size());
  if (extent <= 4 * n + 4096) {
    std::vector<std::int64_t> start(extent + 1, 0);
    for (std::int64_t id : perm) ++start[key_of(id) + 1];
    for (std::int64_t k = 0; k < extent; ++k) start[k + 1] += start[k];
    std::vector<std::int64_t> sorted(n);
    for (std::int64_t id : perm) sorted[start[key_of(id)]++] = id;
    perm.swap(sorted);
  } else {
    std::stable_sort(perm.begin(), perm.end(), [&](std::int64_t a, std::int64_t b) { return key_of(a) < key_of(b); });
  }
}

// Checked input (coordinates in range) -> tensor in Kokkos::Serial's memory.
template <class T, class Enc>
tessera::Tensor<T, Enc, Kokkos::Serial> serial_from_coo(const tessera::HostCoo<T>& coo) {
  constexpr int N = Enc::order;
  tessera::Shape<N> shape;
  for (int m = 0; m < N; ++m) shape[m] = coo.shape[m];
  const std::int64_t nnz = coo.nnz();
  std::vector<std::int64_t> perm(nnz);
  std::iota(perm.begin(), perm.end(), std::int64_t{0});
  for (int l = N - 1; l >= 0; --l) {
    const int m = Enc::mode_order[l];
    stable_sort_ids(perm, shape[m], [&](std::int64_t id) { return coo.coords[id * N + m]; });
  }
  std::array<std::vector<std::int64_t>, N> keys;
  for (auto& k : keys) k.reserve(nnz);
  std::vector<T> summed;
  summed.reserve(nnz);
  for (std::int64_t s = 0; s < nnz; ++s) {
    const std::int64_t id = perm[s];
    bool duplicate = !summed.empty();
    for (int l = 0; l < N && duplicate; ++l) duplicate = keys[l].back() == coo.coords[id * N + Enc::mode_order[l]];
    if (duplicate) {
      summed.back() += coo.values[id];
      continue;
    }
    for (int l = 0; l < N; ++l) keys[l].push_back(coo.coords[id * N + Enc::mode_order[l]]);
    summed.push_back(coo.values[id]);
  }
  return tessera::detail::upload<T, Enc, Kokkos::Serial>(shape, tessera::detail::pack_sorted<Enc>(shape, keys, summed));
}

}  // namespace construction_bench
