#pragma once
// Shared-memory layout and occupancy of the tensor-core kernel's variants: the per-warp B
// stages (swizzled), the staging areas for a work item's column ids and values, and the
// minimum blocks per SM its launch bounds ask for. Private to kernels/src/spmm/cuda.
#include "tessera/kernels/spmm/cuda/spmm_tca.hpp"

namespace tessera::kernels::cuda::tca_detail {

// cp.async pipeline depth (chunk buffers per warp): 2, not 3, as the smaller footprint leaves
// room for more resident warps and for more L1, which serves the gathers.
constexpr int kStages = 2;

// Plans whose work items all have at most this many nonzeros run the kernel variant with the
// small (or medium) staging area, which leaves more of the SM's unified shared memory / L1 to
// L1; occupancy stays as it is (fp16 at BN = 64 and TF32 at BN = 32 are register-bound, at 9
// and 8 blocks per SM, with any of the three).
constexpr int kShortItemNnz = 48;
constexpr int kMediumItemNnz = 128;

// CAP: largest work item (values) the per-warp shared-memory staging holds; a small CAP
// keeps the footprint (and so the occupancy) of plans whose items are all short. SHARED:
// the plan's K slots are shared columns (spmm_tca.hpp), each with a row mask and value offset.
template <class T, int BN, int CAP, bool SHARED>
struct TcTile {
  static constexpr int kVec = 16 / int(sizeof(T));          // elements per 16-byte load
  static constexpr int kStageElems = kChunkNnz * BN;        // (kChunkNnz, BN), swizzled (below)
  static constexpr int kOutStride = BN + 4;                 // output tile row (floats)
  static constexpr int kVecPerRow = BN / kVec;
  static constexpr int kLoadsPerLane = kChunkNnz * kVecPerRow / 32;
  static constexpr int kStageBytes = kStages * kStageElems * int(sizeof(T));
  // per warp: B stages | item column ids (CAP ints) | SHARED: slot rows and value offsets
  // (CAP ints) | item values (CAP T)
  static constexpr int kWarpSmemBytes = kStageBytes + CAP * (4 + (SHARED ? 4 : 0) + int(sizeof(T)));
  static_assert(BN % 16 == 0, "BN is a multiple of the MMA M tile");
  static_assert((kChunkNnz * kVecPerRow) % 32 == 0, "whole loads per lane");
  static_assert(kWindowRows * kOutStride * 4 <= kStageBytes, "output tile fits the stages");
  static_assert(kStageBytes % 16 == 0 && kWarpSmemBytes % 16 == 0, "16-byte aligned regions");
  static_assert(CAP % kChunkNnz == 0 && CAP <= kSegmentNnz, "whole chunks staged");
  static_assert(kWindowRows == 8 && kChunkNnz == 16, "MMA shape: window rows = N = 8, chunk = K = 16");
  // Element offset of the 16-byte column chunk cv of staged row k. Rows are not padded: chunk
  // cv is stored at cv ^ swizzle(k), so the rows read together hit distinct banks (fp16/bf16:
  // the 8 rows of one ldmatrix matrix; TF32: rows t4 = 0..3 of one quarter-warp's 16-byte
  // loads). Without the 8-element pad a TF32 warp holds 1 KB less (8 blocks per SM instead of
  // 7 with the 256-nnz staging) and every variant leaves more shared memory to L1. The XOR
  // acts inside the row (cv * kVec < BN, a power of two).
  __host__ __device__ static constexpr int swizzle(int k) {
    if constexpr (sizeof(T) == 4) return 2 * (k & 3);
    else if constexpr (kVecPerRow >= 8) return k & 7;
    else return (k >> 1) & 3;
  }
  __device__ static int at(int k, int cv) { return (k * BN + cv * kVec) ^ (swizzle(k) * kVec); }
  static_assert(sizeof(T) == 4 ? kVecPerRow % 8 == 0 : (kVecPerRow % 8 == 0 || kVecPerRow == 4),
                "the swizzle stays inside the row");
  // A lane copies rows k0 .. k0 + kLoadsPerLane - 1 with k0 a multiple of kLoadsPerLane; for
  // them swizzle(k0 + i) == swizzle(k0) ^ swizzle(i), so its copies land at one per-lane
  // offset XOR a per-load constant (issue() in the kernel).
  static constexpr bool swizzle_splits() {
    for (int k0 = 0; k0 < kChunkNnz; k0 += kLoadsPerLane)
      for (int i = 0; i < kLoadsPerLane; ++i)
        if (swizzle(k0 + i) != (swizzle(k0) ^ swizzle(i))) return false;
    return true;
  }
  static_assert(swizzle_splits(), "per-load swizzle constants");
  static_assert(kVec * sizeof(T) == 16, "16-byte column chunks");
};

// The minimum blocks per SM cap the registers (fp16/bf16 56 at BN = 64, 48 at BN = 32; TF32 at
// most 64): left to itself ptxas takes 64-72 and each variant loses one resident block. The
// widest tiles (fp16/bf16 128, TF32 64 columns) hold 34-40 KB of shared memory per block, so 6
// blocks is all an SM can take of them anyway.
constexpr int min_blocks_per_sm(int elem_bytes, int bn) {
  if (elem_bytes == 2) return bn == 32 ? 10 : bn == 64 ? 9 : 6;
  return bn == 32 ? 8 : 6;
}

}  // namespace tessera::kernels::cuda::tca_detail
