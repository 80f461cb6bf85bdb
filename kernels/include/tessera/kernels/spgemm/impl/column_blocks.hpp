#pragma once
// B's rows as column blocks, for a cheap symbolic pass of the row-wise SpGEMM: each
// row's sorted columns become pairs (block j / 32, mask of its columns in the block).
// Counting a row of A * B then ORs masks per block and popcounts, visiting a block of
// neighbouring columns once instead of each column: banded and finite-element
// matrices fold several columns into each block, scattered graphs about one.
#include <algorithm>
#include <cstdint>

#include <Kokkos_Core.hpp>

#include "tessera/kernels/common/host_matrix.hpp"
#include "tessera/workspace/growable_array.hpp"

namespace tessera::kernels::impl {

inline constexpr int kColumnBlockBits = 5;  // 32 columns per block: one 32-bit mask

// Row k's blocks are [B.begin(k), end[k]) (a row has at most as many blocks as entries).
// Block indices fit 32 bits: the kernel checks that columns do.
struct ColumnBlocks {
  workspace::GrowableArray<std::int64_t> end;    // (rows of B)
  workspace::GrowableArray<std::int32_t> block;  // (nnz of B) j >> kColumnBlockBits
  workspace::GrowableArray<std::uint32_t> mask;  // (nnz of B) bit j % 32 per column j
};

// Columns per block of B's rows, from an evenly spaced sample of at most 1024 rows
// (1 when the sample holds no entries). One thread, no writes: a decision input only.
template <class MB>
double sampled_columns_per_block(const MB& B) {
  const std::int64_t rows = B.outer_extent, stride = std::max<std::int64_t>(1, rows / 1024);
  std::int64_t columns = 0, blocks = 0;
  for (std::int64_t k = stride / 2; k < rows; k += stride) {
    std::int64_t last = -1;
    for (std::int64_t r = B.begin(k); r < B.end(k); ++r) {
      const std::int64_t b = static_cast<std::int64_t>(B.crd[r]) >> kColumnBlockBits;
      blocks += b != last;
      last = b;
    }
    columns += B.end(k) - B.begin(k);
  }
  return blocks == 0 ? 1.0 : static_cast<double>(columns) / static_cast<double>(blocks);
}

template <class Space, class MB>
ColumnBlocks column_blocks(const Space& space, const MB& B) {
  ColumnBlocks cb;
  const std::int64_t rows = B.outer_extent, nnz = rows == 0 ? 0 : B.end(rows - 1);
  cb.end.reserve_exact(rows);
  cb.block.reserve_exact(nnz);
  cb.mask.reserve_exact(nnz);
  std::int64_t* end = cb.end.data();
  std::int32_t* block = cb.block.data();
  std::uint32_t* mask = cb.mask.data();
  Kokkos::parallel_for("tessera::spgemm[column_blocks]", Kokkos::RangePolicy<Space>(space, 0, rows),
                       [&](std::int64_t k) {
                         std::int64_t out = B.begin(k) - 1;
                         std::int32_t last = -1;
                         for (std::int64_t r = B.begin(k); r < B.end(k); ++r) {
                           const auto b = static_cast<std::int32_t>(B.crd[r] >> kColumnBlockBits);
                           const std::uint32_t bit = std::uint32_t{1} << (B.crd[r] & ((1 << kColumnBlockBits) - 1));
                           if (b != last) {
                             block[++out] = b;
                             mask[out] = bit;
                             last = b;
                           } else {
                             mask[out] |= bit;
                           }
                         }
                         end[k] = out + 1;
                       });
  space.fence();
  return cb;
}

}  // namespace tessera::kernels::impl
