#pragma once
/// \file
/// NV24 storage layout: 2:4 sparsity along k, values and metadata exactly as the sparse
/// tensor-core instruction mma.sp.m16n8k32 (fp16/bf16) consumes them. Kokkos-free so the
/// CUDA kernels (kernels/src/nm_spmm/cuda/nv24_spmm_mma.cu, nv24_spmm_wgmma.cu) and the formats
/// module share it.
///
/// The weight B (k x n) is stored transposed: row r of the storage is column r of B, i.e.
/// the n x k matrix W = B^T, whose rows are compressed along k. The kernel computes
/// C^T = W * A^T with W as mma.sp's sparse operand A (M = rows of W, K = k).
///
///   * k is padded with zeros to k_padded, a multiple of kKTile = 64 (one metadata tile);
///   * a *group* (window) is 4 consecutive entries of a row along k: group G of row r
///     covers B(4G .. 4G+3, r). At most 2 of them are nonzero;
///   * vals (n x k_padded/2, row-major): vals(r, 2G), vals(r, 2G+1) are the two kept
///     entries of group G in increasing k order (zeros where fewer than 2 are nonzero);
///   * each group has a 4-bit nibble i0 | i1 << 2 with i0 < i1 the positions (0..3) inside
///     the group of vals(r, 2G) and vals(r, 2G+1); groups with fewer than two nonzeros use
///     the first unused positions, an all-zero group is 0x4 (positions 0 and 1);
///   * meta (uint32): one *tile* of 32 words per 16 rows x 64 k (16 groups), tiles ordered
///     row-tile major: tile (R, T) starts at word (R * k_padded/64 + T) * 32. Word `lane`
///     of a tile is the metadata register of warp lane `lane` for both k32 halves of the
///     tile: with g = lane / 4, s = (lane % 4) / 2 (which k32 half, = mma.sp sparsity
///     selector), h = lane % 2,
///        bits 4q .. 4q+3      : row 16R + g,     group 16T + 8s + 4h + q   (q = 0..3)
///        bits 16+4q .. 16+4q+3: row 16R + g + 8, group 16T + 8s + 4h + q
///     so a warp loads its metadata registers with one coalesced 128-byte read per tile
///     (lanes with s = 0 serve selector 0, lanes with s = 1 selector 1). Checked on the GPU
///     against every (lane, nibble) position.
///     The same words feed the sm_90a wgmma.mma_async.sp m64nNk32 unchanged: warp w of a
///     warpgroup holds rows 16w .. 16w+15 of the instruction's 64 and loads word `lane` of
///     their tile, the two k32 halves again through selectors 0 and 1 (checked by
///     perf_tests/nv24/nv24_wgmma_probe, fp16 and bf16), so one stored order serves both
///     kernels.
///   * rows past n in the last row tile have zero values and nibbles 0x4.
#include <cstdint>

#if defined(__CUDACC__)
#define TESSERA_NV24_HD __host__ __device__
#else
#define TESSERA_NV24_HD
#endif

namespace tessera::nv24 {

inline constexpr int kGroup = 4;                    ///< window length along k
inline constexpr int kKept = 2;                     ///< entries kept per window
inline constexpr int kKTile = 64;                   ///< k padding unit: k extent of one metadata tile
inline constexpr int kRowTile = 16;                 ///< rows of W per metadata tile (mma.sp M)
inline constexpr int kTileWords = 32;               ///< metadata words per tile (one per warp lane)
inline constexpr std::uint32_t kEmptyNibble = 0x4;  ///< positions 0 and 1

/// k rounded up to a multiple of kKTile.
TESSERA_NV24_HD constexpr std::int64_t padded_k(std::int64_t k) { return (k + kKTile - 1) / kKTile * kKTile; }
/// Metadata tiles along the n rows of W.
TESSERA_NV24_HD constexpr std::int64_t row_tiles(std::int64_t n) { return (n + kRowTile - 1) / kRowTile; }
/// Length of the meta array of an n x k_padded W.
TESSERA_NV24_HD constexpr std::int64_t meta_words(std::int64_t n, std::int64_t k_padded) {
  return row_tiles(n) * (k_padded / kKTile) * kTileWords;
}

/// Where the nibble of (row, group) lives: word index into meta and bit shift.
struct MetaSlot {
  std::int64_t word;  ///< index into meta
  int shift;          ///< bit shift of the nibble in that word
};
/// Word and shift of the nibble of group `group` of row `row`.
TESSERA_NV24_HD constexpr MetaSlot meta_slot(std::int64_t row, std::int64_t group, std::int64_t k_padded) {
  const std::int64_t tile = (row / kRowTile) * (k_padded / kKTile) + group / (kKTile / kGroup);
  const int r = static_cast<int>(row % kRowTile), gl = static_cast<int>(group % (kKTile / kGroup));
  const int lane = 4 * (r % 8) + 2 * (gl / 8) + (gl % 8) / 4;
  return MetaSlot{tile * kTileWords + lane, 16 * (r / 8) + 4 * (gl % 4)};
}
/// Nibble of the kept positions i0 < i1 of a group.
TESSERA_NV24_HD constexpr int nibble(int i0, int i1) { return i0 | (i1 << 2); }
/// First kept position (i0) of a nibble.
TESSERA_NV24_HD constexpr int nibble_first(std::uint32_t nib) { return static_cast<int>(nib & 3u); }
/// Second kept position (i1) of a nibble.
TESSERA_NV24_HD constexpr int nibble_second(std::uint32_t nib) { return static_cast<int>((nib >> 2) & 3u); }

}  // namespace tessera::nv24
