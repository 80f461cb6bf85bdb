#pragma once
/// \file
/// Results of host kernels that drain workspaces chunk by chunk. Chunk c covers a
/// range of the output's first storage level and holds its entries sorted in storage
/// order, so concatenating chunks in order is deterministic and independent of
/// which thread ran which chunk. assemble() turns the chunks into a tensor.
#include <array>
#include <cstdint>
#include <vector>

#include <Kokkos_Core.hpp>

#include "tessera/core/tensor.hpp"
#include "tessera/formats/encoding.hpp"
#include "tessera/formats/host_levels.hpp"
#include "tessera/formats/host_transfer.hpp"

namespace tessera::kernels {

/// Entries of one chunk, sorted in storage order.
template <class T, int N>
struct SortedChunk {
  std::array<std::vector<std::int32_t>, N> crd;  ///< (entries) per storage level
  std::vector<T> vals;                           ///< (entries)
  /// Appends the entry at storage coordinates `c`.
  void push(const std::array<std::int64_t, N>& c, T v) {
    for (int l = 0; l < N; ++l) crd[l].push_back(static_cast<std::int32_t>(c[l]));
    vals.push_back(v);
  }
};

namespace detail {

// {Dense, Compressed}: pos from per-row counts, chunks copied in parallel to their offsets.
template <class T, class Enc, class Space>
Tensor<T, Enc, Space> assemble_dense_compressed(const Shape<2>& shape, const std::vector<SortedChunk<T, 2>>& chunks,
                                                const Space& space) {
  using Result = Tensor<T, Enc, Space>;
  using Offset = typename Enc::offset_type;
  const std::int64_t rows = shape[Enc::mode_order[0]];
  std::vector<std::int64_t> chunk_start(chunks.size() + 1, 0);
  for (std::size_t c = 0; c < chunks.size(); ++c) chunk_start[c + 1] = chunk_start[c] + chunks[c].vals.size();
  const std::int64_t nnz = chunk_start.back();
  tessera::detail::check_fits<Offset>(nnz, "number of entries");
  typename Result::Storage s;
  s.levels[1].pos = typename Result::pos_view("tessera::pos1", rows + 1);
  s.levels[1].crd = typename Result::crd_view(Kokkos::view_alloc(Kokkos::WithoutInitializing, "tessera::crd1"), nnz);
  s.vals = typename Result::vals_view(Kokkos::view_alloc(Kokkos::WithoutInitializing, "tessera::vals"), nnz);
  Offset* pos = s.levels[1].pos.data();
  for (const auto& chunk : chunks)
    for (std::int32_t r : chunk.crd[0]) ++pos[r + 1];
  for (std::int64_t r = 0; r < rows; ++r) pos[r + 1] += pos[r];
  auto* crd = s.levels[1].crd.data();
  T* vals = s.vals.data();
  Kokkos::parallel_for("tessera::assemble", Kokkos::RangePolicy<Space>(space, 0, chunks.size()),
                       [&](std::int64_t c) {
                         const auto& chunk = chunks[c];
                         std::copy(chunk.crd[1].begin(), chunk.crd[1].end(), crd + chunk_start[c]);
                         std::copy(chunk.vals.begin(), chunk.vals.end(), vals + chunk_start[c]);
                       });
  space.fence();
  return Result(shape, std::move(s));
}

}  // namespace detail

/// shape is in mode order; the chunks hold coordinates in Enc's storage order.
template <class T, class Enc, class Space>
Tensor<T, Enc, Space> assemble(const Shape<Enc::order>& shape, const std::vector<SortedChunk<T, Enc::order>>& chunks,
                               const Space& space) {
  constexpr int N = Enc::order;
  if constexpr (N == 2 && Enc::level_kinds[0] == LevelKind::Dense && Enc::level_kinds[1] == LevelKind::Compressed) {
    return detail::assemble_dense_compressed<T, Enc>(shape, chunks, space);
  } else {
    // Other encodings (COO, CSF of tensor results) go through the formats module's packer.
    std::array<std::vector<std::int64_t>, N> keys;
    std::vector<T> vals;
    for (const auto& chunk : chunks) {
      for (int l = 0; l < N; ++l) keys[l].insert(keys[l].end(), chunk.crd[l].begin(), chunk.crd[l].end());
      vals.insert(vals.end(), chunk.vals.begin(), chunk.vals.end());
    }
    return tessera::detail::upload<T, Enc, Space>(shape, tessera::detail::pack_sorted<Enc>(shape, keys, vals));
  }
}

}  // namespace tessera::kernels

namespace tessera::kernels {

/// Folds chunks whose coordinate ranges overlap (per-thread partial results) into
/// one, summing equal coordinates in chunk order: deterministic for a given chunking.
template <class T, int N>
SortedChunk<T, N> merge_sorted_chunks(const std::vector<SortedChunk<T, N>>& chunks) {
  SortedChunk<T, N> merged;
  for (const auto& chunk : chunks) {
    SortedChunk<T, N> next;
    std::size_t a = 0, b = 0;
    auto less = [&](std::size_t x, std::size_t y) {  // merged[x] < chunk[y]
      for (int l = 0; l < N; ++l)
        if (merged.crd[l][x] != chunk.crd[l][y]) return merged.crd[l][x] < chunk.crd[l][y];
      return false;
    };
    auto equal = [&](std::size_t x, std::size_t y) {
      for (int l = 0; l < N; ++l)
        if (merged.crd[l][x] != chunk.crd[l][y]) return false;
      return true;
    };
    auto take = [&](const SortedChunk<T, N>& from, std::size_t n, T v) {
      for (int l = 0; l < N; ++l) next.crd[l].push_back(from.crd[l][n]);
      next.vals.push_back(v);
    };
    while (a < merged.vals.size() || b < chunk.vals.size()) {
      if (b == chunk.vals.size() || (a < merged.vals.size() && less(a, b))) {
        take(merged, a, merged.vals[a]);
        ++a;
      } else if (a < merged.vals.size() && equal(a, b)) {
        take(merged, a, merged.vals[a] + chunk.vals[b]);
        ++a, ++b;
      } else {
        take(chunk, b, chunk.vals[b]);
        ++b;
      }
    }
    merged = std::move(next);
  }
  return merged;
}

}  // namespace tessera::kernels
