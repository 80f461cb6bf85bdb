#pragma once
// What the NV24 host code (the checks and dispatch in nv24_spmm.cu, the launch choice in
// nv24_choose.cu) knows of the two kernels: the tiles' extents and the launches.
// nv24_spmm_mma.cu implements the portable mma.sp kernel's part, nv24_spmm_wgmma.cu the sm_90a
// wgmma.sp kernel's. Not installed.
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <utility>

#include "tessera/formats/nv24/layout.hpp"
#include "tessera/kernels/nm_spmm/cuda/nv24_spmm.hpp"
#include "../../common/device_info.hpp"

namespace tessera::kernels::cuda::nv24_detail {

// The portable mma.sp tiles, Auto's candidates on every device but compute capability 9.0.
inline constexpr Nv24Tile kMmaTiles[] = {Nv24Tile::Large, Nv24Tile::Medium, Nv24Tile::Small};
// The sm_90a wgmma.sp tiles, Auto's candidates on compute capability 9.0.
inline constexpr Nv24Tile kHopperTiles[] = {Nv24Tile::HopperWide, Nv24Tile::HopperSquare, Nv24Tile::HopperTall,
                                            Nv24Tile::HopperLarge};
inline bool is_hopper_tile(Nv24Tile t) {
  return std::find(std::begin(kHopperTiles), std::end(kHopperTiles), t) != std::end(kHopperTiles);
}
// Throws tessera::NotCompiled when the current device (d) cannot run `tile`'s kernel.
void require_runnable(Nv24Tile tile, const DeviceInfo& d);

// K splits of a wgmma.sp launch: the blocks of one output tile form a cluster (the portable limit).
inline constexpr int kMaxClusterSplits = 8;

// A block tile: bn weight rows x bm activation rows, ksub k tiles of 64 per pipeline stage
// (the unit of K splitting) and its dynamic shared memory.
struct TileInfo {
  int bn, bm, ksub, smem_bytes;
};

inline std::int64_t k_tiles(const Nv24Args& a) { return a.k_padded / nv24::kKTile; }

// `splits` K splits over `stages` pipeline stages as launched: (splits, stages per split),
// at most `stages` splits and none empty (k == 0: one split).
inline std::pair<int, int> split_extent(int splits, std::int64_t stages) {
  splits = static_cast<int>(std::max<std::int64_t>(1, std::min<std::int64_t>(splits, stages)));
  const int split_stages = static_cast<int>(std::max<std::int64_t>(1, (stages + splits - 1) / splits));
  return {static_cast<int>(std::max<std::int64_t>(1, (stages + split_stages - 1) / split_stages)), split_stages};
}

// The mma.sp kernel (nv24_spmm_mma.cu). K splits add their partial tiles to an fp32 workspace
// of mma_workspace_bytes from the stream-ordered pool, converted into C afterwards.
TileInfo mma_tile_info(Nv24Tile tile);
std::size_t mma_workspace_bytes(Nv24Tile tile, const Nv24Args& a, int splits);
void mma_launch(Nv24Tile tile, const Nv24Args& a, int splits, cudaStream_t stream);

// The wgmma.sp kernel (nv24_spmm_wgmma.cu): blocks of the tiles_m x tiles_n grid along x,
// `splits` K splits along y (at most kMaxClusterSplits, one cluster per output tile), each
// running split_stages k tiles. dependent (one split only): launched as the programmatic
// dependent of the wgmma.sp launch before it on the stream (whose blocks allow it at once),
// which it must not read from.
TileInfo wgmma_tile_info(Nv24Tile tile);
// Clusters of `splits` blocks of `tile` the current device runs at once (its GPCs hold whole
// clusters only, so this can be less than the multiprocessors / splits). Cached per device.
int wgmma_max_active_clusters(Nv24Tile tile, int splits);
void wgmma_launch(Nv24Tile tile, const Nv24Args& a, int splits, int split_stages, bool dependent,
                  cudaStream_t stream);

inline TileInfo tile_info(Nv24Tile t) { return is_hopper_tile(t) ? wgmma_tile_info(t) : mma_tile_info(t); }

}  // namespace tessera::kernels::cuda::nv24_detail
