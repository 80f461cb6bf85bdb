#pragma once
/// \file
/// Host-side assembly of level arrays: pack_sorted() turns entries that are sorted in storage
/// order and unique into the (pos, crd, vals) host vectors of an encoding, for host code that
/// builds small results itself (kernels' sorted chunks). Tensors from triplets, dense arrays
/// or other encodings are built in their own space by formats/assembly/.
#include <array>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "tessera/core/allocation.hpp"
#include "tessera/core/checked_count.hpp"
#include "tessera/core/error.hpp"
#include "tessera/formats/encoding.hpp"

namespace tessera::detail {

template <class Enc, class T>
struct HostLevels {
  static constexpr int order = Enc::order;
  using Ordinal = typename Enc::ordinal_type;
  using Offset = typename Enc::offset_type;
  std::array<std::vector<Offset>, order> pos;
  std::array<std::vector<Ordinal>, order> crd;
  std::vector<T> vals;
};

template <class Int>
void check_fits(std::int64_t value, const char* what) {
  if (value > static_cast<std::int64_t>(std::numeric_limits<Int>::max()))
    throw OverflowError(std::string(what) + " " + std::to_string(value) + " does not fit the encoding's " +
                        std::to_string(8 * sizeof(Int)) + "-bit index type (max " +
                        std::to_string(std::numeric_limits<Int>::max()) + ")");
}

// keys[l][n]: coordinate of entry n at storage level l. Entries are sorted
// lexicographically in storage order and unique. shape is in mode order.
template <class Enc, class T>
HostLevels<Enc, T> pack_sorted(const std::array<std::int64_t, Enc::order>& shape,
                               const std::array<std::vector<std::int64_t>, Enc::order>& keys,
                               const std::vector<T>& values) {
  using Offset = typename Enc::offset_type;
  constexpr int order = Enc::order;
  const std::int64_t nnz = static_cast<std::int64_t>(values.size());
  HostLevels<Enc, T> out;
  std::vector<std::int64_t> parent(nnz, 0);  // position of each entry at the previous level
  std::int64_t parent_count = 1;             // positions at the previous level
  for (int l = 0; l < order; ++l) {
    const std::int64_t extent = shape[Enc::mode_order[l]];
    const auto& key = keys[l];
    switch (Enc::level_kinds[l]) {
      case LevelKind::Dense: {
        parent_count = checked_count_product(parent_count, extent, "dense level " + std::to_string(l));
        check_fits<Offset>(parent_count, "dense level size");
        for (std::int64_t n = 0; n < nnz; ++n) parent[n] = parent[n] * extent + key[n];
        break;
      }
      case LevelKind::Compressed:
      case LevelKind::CompressedNonUnique: {
        const bool unique = Enc::level_kinds[l] == LevelKind::Compressed;
        auto& pos = out.pos[l];
        auto& crd = out.crd[l];
        check_fits<Offset>(nnz, "number of entries");
        pos = host_vector<Offset>("tessera::pos" + std::to_string(l), parent_count + 1, 0);
        crd.reserve(nnz);
        std::int64_t q = -1, previous_parent = -1;
        for (std::int64_t n = 0; n < nnz; ++n) {
          const bool same = unique && n > 0 && parent[n] == previous_parent && key[n] == key[n - 1];
          if (!same) {
            ++q;
            crd.push_back(static_cast<typename Enc::ordinal_type>(key[n]));
            ++pos[parent[n] + 1];
          }
          previous_parent = parent[n];
          parent[n] = q;
        }
        for (std::int64_t p = 0; p < parent_count; ++p) pos[p + 1] += pos[p];
        parent_count = q + 1;
        break;
      }
      case LevelKind::Singleton: {
        auto& crd = out.crd[l];
        crd = host_vector<typename Enc::ordinal_type>("tessera::crd" + std::to_string(l), parent_count, 0);
        for (std::int64_t n = 0; n < nnz; ++n) crd[parent[n]] = static_cast<typename Enc::ordinal_type>(key[n]);
        break;
      }
    }
  }
  out.vals = host_vector<T>("tessera::vals", parent_count, T(0));
  for (std::int64_t n = 0; n < nnz; ++n) out.vals[parent[n]] = values[n];
  return out;
}

}  // namespace tessera::detail
