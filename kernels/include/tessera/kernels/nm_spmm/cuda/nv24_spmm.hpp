#pragma once
/// \file
/// NV24 sparse-tensor-core product for CUDA: C (m x n) = A (m x k, dense) * B (k x n, 2:4
/// along k, stored in the NV24 layout of tessera/formats/nv24/layout.hpp).
/// Raw-pointer interface (no Kokkos): the Kokkos front end (tessera::nm_spmm) and the
/// stand-alone programs in perf_tests/nv24 call the same code.
///
/// Algorithm (kernels/src/nm_spmm/cuda/nv24_spmm_mma.cu): C^T = W * A^T with W = B^T (n x k)
/// the sparse operand of mma.sp::ordered_metadata.sync.m16n8k32 (fp32 accumulation).
/// A thread block computes a (BN weight rows) x (BM activation rows) tile of C^T; per
/// k tile of 64 it stages W's values (BN x 32), its metadata tile words and A (BM x 64) in
/// shared memory with 16-byte cp.async in a multistage pipeline (one or two k tiles per
/// stage; XOR-swizzled rows, no bank conflicts for ldmatrix), reads fragments with
/// ldmatrix.x4 and the metadata registers with one 32-bit load per 16 rows and k tile
/// (both k32 halves through the sparsity selector).
/// The tile is written back through shared memory with 16-byte stores. When the grid would
/// leave multiprocessors idle (small m, or a last wave that is mostly empty), K is split
/// across blocks and the partial tiles are summed in an fp32 workspace.
/// On compute capability 9.0 (Hopper) a second kernel (nv24_spmm_wgmma.cu, built for sm_90a
/// only) issues wgmma.mma_async.sp m64nNk32 instead: two warpgroups per block, each 64 or 128
/// weight rows x 128 or 256 activation rows, operands read by the tensor cores from 64-/128-byte
/// swizzled shared memory through matrix descriptors, one wgmma group kept in flight while
/// the next k tile is copied. Same layout; its K splits are the blocks of one thread-block
/// cluster, which sum their partial tiles in each other's shared memory. Where the last wave of a
/// large tile would leave most multiprocessors idle, the last rows of C may run as a second
/// launch of a smaller tile that starts on them (Nv24Launch::tail_rows).
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <cuda_runtime_api.h>

#include "tessera/kernels/common/cuda/kernel_status.hpp"

namespace tessera::kernels::cuda {

/// Element types of the raw interface, passed as tags so this header needs no CUDA half
/// headers: __half (Kokkos::Experimental::half_t) and __nv_bfloat16 (tessera::bf16_t).
enum class Nv24Type : int { F16 = 0, BF16 = 1 };

/// Block tile, (weight rows n) x (activation rows m). mma.sp kernel (any sm_80+ device):
/// Large 256 x 128, Medium 128 x 128, Small 64 x 64. wgmma.sp kernel (compute capability 9.0
/// only; forcing it elsewhere throws tessera::NotCompiled): HopperWide 128 x 256,
/// HopperSquare 128 x 128, HopperTall 256 x 128, HopperLarge 256 x 192. Auto picks by an
/// estimate of waves x tile time on the current device among the tiles it can run.
enum class Nv24Tile : int {
  Auto = 0,
  Large = 1,
  Medium = 2,
  Small = 3,
  HopperWide = 4,
  HopperSquare = 5,
  HopperTall = 6,
  HopperLarge = 7
};

/// Raw arguments of nv24_spmm: C = A * B, B a 2:4 weight in the NV24 layout.
struct Nv24Args {
  Nv24Type type;  ///< element type of A, B and C
  /// \var m
  /// Rows of A and C (batch size).
  /// \var n
  /// Columns of B and C.
  std::int64_t m, n, k;          ///< C is m x n, A m x k, B k x n
  std::int64_t k_padded;         ///< nv24::padded_k(k)
  const void* A;                 ///< (m x k) row-major, row stride lda
  std::int64_t lda;              ///< >= k, a multiple of 8, A 16-byte aligned
  const void* vals;              ///< (n x k_padded/2) row-major
  const std::uint32_t* meta;     ///< (nv24::meta_words(n, k_padded))
  void* C;                       ///< (m x n) row-major, row stride ldc >= n
  std::int64_t ldc;              ///< row stride of C
};

/// Whether A can be read in place (lda a multiple of 8, >= k, 16-byte aligned base);
/// otherwise the caller packs it first.
bool nv24_a_in_place(const void* A, std::int64_t lda, std::int64_t k);
/// How a product runs: the tile shape and the number of K splits (> 1: the wgmma.sp tiles
/// (Hopper*) run a tile's splits as one thread-block cluster that sums their fp32 partial
/// products in shared memory, at most 8 splits; the mma.sp tiles add them to an fp32
/// workspace with atomics, then convert it into C). tail_rows > 0
/// (wgmma.sp tiles, one split): the last tail_rows rows of C are a second launch of
/// tail_tile, whose blocks start on the multiprocessors that the first launch's last wave
/// leaves idle (programmatic dependent launch), so that a mostly empty last wave of large
/// tiles becomes a short one of smaller tiles.
struct Nv24Launch {
  Nv24Tile tile;                        ///< block tile
  int splits;                           ///< K splits
  Nv24Tile tail_tile = Nv24Tile::Auto;  ///< tile of the tail launch
  std::int64_t tail_rows = 0;           ///< rows of C the tail launch covers (0: no tail)
};
/// The launch nv24_spmm makes for `tile` (Auto: the shape and a tail too) on the current
/// device, from an estimate of waves x per-block time plus the split-K reduction. Estimated on
/// every call (microseconds of host time) and kept nowhere: a caller that runs a shape again
/// keeps the launch and passes it to nv24_spmm. Throws tessera::NotCompiled for a tile the
/// device cannot run.
Nv24Launch nv24_choose(const Nv24Args& args, Nv24Tile tile = Nv24Tile::Auto);
/// Name of a tile, e.g. "HopperLarge".
const char* to_string(Nv24Tile t);
/// A block tile's extent (`tile` not Auto): columns of C (weight rows) and rows of C
/// (activation rows) per block. A tail's head covers whole multiples of its tile's rows.
struct Nv24TileShape {
  /// weight rows (columns of C) per block
  int weight_rows, activation_rows;  ///< activation rows per block
};
/// The extent of `tile` (not Auto).
Nv24TileShape nv24_tile_shape(Nv24Tile tile);
/// "HopperLarge(256x192) /3 K", "HopperLarge(256x192) + 1024 rows HopperTall(256x128)".
std::string to_string(const Nv24Launch& l);

/// The launches nv24_tune weighs for this shape on the current device: nv24_choose's first,
/// then every tile the device runs at 1, 2, 3, 4, 6 and 8 K splits (as far as K allows two
/// stages per split) and, on compute capability 9.0, the head + tail pairs whose tail starts in
/// the head's last rows of tiles (the range nv24_choose's estimate searches).
std::vector<Nv24Launch> nv24_candidates(const Nv24Args& args);

/// \fn Nv24Launch nv24_tune(const Nv24Args& args, cudaStream_t stream)
/// Measures instead of estimating: times every nv24_candidates launch on these arguments
/// (one warm-up call each, then five samples, the candidates interleaved so that all run in the
/// same power state; a sample is enqueued behind a kernel that only waits, so that short calls
/// are not timed with the host's launch latency, and holds up to 8 calls back to back where one
/// takes under 0.1 ms) into a scratch C of its own: args.C is neither read nor written. Returns
/// nv24_choose's launch unless another one's median time is less than kNv24TuneMinGain of its
/// own, both in that screen and in five more samples of each of the two, alternating, of about
/// 5 ms of back-to-back calls each. Synchronous, and keeps nothing: a shape's caller keeps the
/// launch. Allocates an m x n scratch C (and the mma.sp tiles' split-K workspaces) while it
/// runs (tenths of a second per shape); throws tessera::Error while `stream` is being captured
/// into a graph.
inline constexpr double kNv24TuneMinGain = 0.98;  ///< least gain for nv24_tune to leave nv24_choose's launch
Nv24Launch nv24_tune(const Nv24Args& args, cudaStream_t stream);

/// Whether nv24_spmm runs these arguments (and `launch`) on the current device: `reason` is the
/// message of the tessera::ShapeError or tessera::NotCompiled that nv24_spmm would throw.
KernelStatus nv24_can_implement(const Nv24Args& args);
/// The same checks for `launch`.
KernelStatus nv24_can_implement(const Nv24Args& args, const Nv24Launch& launch);
/// Bytes that the run takes from the stream-ordered workspace pool (the mma.sp tiles' split-K
/// fp32 workspace; 0 for the wgmma.sp tiles, which sum K splits in clusters): for `launch` (one
/// that nv24_can_implement accepts), or without one for nv24_choose's.
std::size_t nv24_workspace_bytes(const Nv24Args& args);
/// The same for `launch`.
std::size_t nv24_workspace_bytes(const Nv24Args& args, const Nv24Launch& launch);

/// Runs on `stream`. splits > 0 forces the K split count (clamped to the k tiles; no tail; at
/// most 8 for the wgmma.sp tiles). Throws tessera::ShapeError on bad arguments,
/// tessera::NotCompiled for a tile the device cannot run, tessera::CudaError on any CUDA
/// failure. m, n or k may be 0 (k == 0 writes zeros). Without a launch it runs nv24_choose's,
/// estimated on every call: fine for a product made once; a caller that repeats a shape picks
/// its launch once (nv24_choose or nv24_tune) and runs it with the overload below.
void nv24_spmm(const Nv24Args& args, cudaStream_t stream, Nv24Tile tile = Nv24Tile::Auto, int splits = 0);
/// Runs exactly `launch` (its tile not Auto; a tail needs wgmma.sp tiles, one split and
/// 0 < tail_rows < m, else tessera::ShapeError).
void nv24_spmm(const Nv24Args& args, cudaStream_t stream, const Nv24Launch& launch);

}  // namespace tessera::kernels::cuda
