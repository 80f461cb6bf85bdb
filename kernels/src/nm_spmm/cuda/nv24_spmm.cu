// NV24 entry points (tessera/kernels/nm_spmm/cuda/nv24_spmm.hpp): the checks of arguments
// and launches, the workspace a launch takes, and the dispatch to the two kernels
// (nv24_launch.hpp). The launch choice is in nv24_choose.cu, the measured one in nv24_tune.cu.
#include "tessera/kernels/nm_spmm/cuda/nv24_spmm.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>

#include "tessera/core/error.hpp"
#include "tessera/formats/nv24/layout.hpp"
#include "../../common/device_info.hpp"
#include "nv24_launch.hpp"

namespace tessera::kernels::cuda {
namespace {
using namespace nv24_detail;

constexpr const char* kWho = "tessera::nv24_spmm";


KernelStatus unrunnable(Nv24Tile tile, const DeviceInfo& d) {
  if (!is_hopper_tile(tile) || d.sm90a()) return {};
  return KernelStatus::not_runnable(std::string("tile ") + to_string(tile) +
                     " runs the sm_90a wgmma.sp kernel, which needs a compute capability 9.0 device");
}

KernelStatus check_args(const Nv24Args& a) {
  if (!(a.m >= 0 && a.n >= 0 && a.k >= 0)) return KernelStatus::refused("negative extent");
  if (a.k_padded != nv24::padded_k(a.k))
    return KernelStatus::refused("k_padded is " + std::to_string(a.k_padded) + ", expected " + std::to_string(nv24::padded_k(a.k)));
  if (a.ldc < a.n) return KernelStatus::refused("ldc " + std::to_string(a.ldc) + " < n " + std::to_string(a.n));
  if (!(a.m * std::max(a.lda, a.k) < (std::int64_t(1) << 31) && a.m * a.ldc < (std::int64_t(1) << 31) &&
        a.n * a.k_padded < (std::int64_t(1) << 31)))
    return KernelStatus::refused("operands of 2^31 elements or more are not supported");
  if (!(a.m == 0 || a.n == 0 || a.k == 0 || nv24_a_in_place(a.A, a.lda, a.k)))
    return KernelStatus::refused("A needs a row stride >= k that is a multiple of 8 and a 16-byte aligned base (lda " +
                   std::to_string(a.lda) + ", k " + std::to_string(a.k) + ")");
  return {};
}

KernelStatus check_launch(const Nv24Args& a, const Nv24Launch& l) {
  if (KernelStatus r = check_args(a); !r.ok) return r;
  if (l.tile == Nv24Tile::Auto) return KernelStatus::refused("a launch needs its tile");
  if (l.splits < 1) return KernelStatus::refused("a launch needs splits >= 1, not " + std::to_string(l.splits));
  // The wgmma.sp kernel sums a tile's K splits in one cluster, whose portable size limit is 8.
  if (is_hopper_tile(l.tile) && l.splits > kMaxClusterSplits)
    return KernelStatus::refused(std::string("tile ") + to_string(l.tile) + " runs at most " + std::to_string(kMaxClusterSplits) +
                   " K splits (one cluster per output tile), not " + std::to_string(l.splits));
  const DeviceInfo& d = device_info();
  if (KernelStatus r = unrunnable(l.tile, d); !r.ok) return r;
  if (l.tail_rows == 0) return {};
  if (!(is_hopper_tile(l.tile) && is_hopper_tile(l.tail_tile) && l.splits == 1))
    return KernelStatus::refused("a tail needs wgmma.sp tiles (Hopper*) and one split");
  if (!(l.tail_rows > 0 && l.tail_rows < a.m))
    return KernelStatus::refused("tail_rows " + std::to_string(l.tail_rows) + " not in (0, m = " + std::to_string(a.m) + ")");
  return unrunnable(l.tail_tile, d);
}

void run(const Nv24Args& a, const Nv24Launch& l, cudaStream_t stream) {
  if (a.m == 0 || a.n == 0) return;
  if (l.tail_rows > 0) {
    // Rows [0, m - tail_rows) with the head tile, the rest with the tail tile as its dependent.
    const std::int64_t head_rows = a.m - l.tail_rows, tiles = std::max<std::int64_t>(1, k_tiles(a));
    Nv24Args head = a, tail = a;
    head.m = head_rows;
    tail.m = l.tail_rows;
    if (a.k > 0) tail.A = static_cast<const char*>(a.A) + head_rows * a.lda * 2;  // 2-byte elements; k 0: unread
    tail.C = static_cast<char*>(a.C) + head_rows * a.ldc * 2;
    wgmma_launch(l.tile, head, 1, static_cast<int>(tiles), false, stream);
    wgmma_launch(l.tail_tile, tail, 1, static_cast<int>(tiles), true, stream);
    return;
  }
  if (is_hopper_tile(l.tile)) {
    const auto [splits, split_stages] = split_extent(l.splits, k_tiles(a));
    wgmma_launch(l.tile, a, splits, split_stages, false, stream);  // splits summed in clusters
    return;
  }
  mma_launch(l.tile, a, l.splits, stream);
}

}  // namespace

namespace nv24_detail {
void require_runnable(Nv24Tile tile, const DeviceInfo& d) { require_ok(unrunnable(tile, d), kWho); }
}  // namespace nv24_detail

bool nv24_a_in_place(const void* A, std::int64_t lda, std::int64_t k) {
  return lda >= k && lda % 8 == 0 && reinterpret_cast<std::uintptr_t>(A) % 16 == 0;
}

const char* to_string(Nv24Tile t) {
  switch (t) {
    case Nv24Tile::Auto: return "Auto";
    case Nv24Tile::Large: return "Large(256x128)";
    case Nv24Tile::Medium: return "Medium(128x128)";
    case Nv24Tile::Small: return "Small(64x64)";
    case Nv24Tile::HopperWide: return "HopperWide(128x256)";
    case Nv24Tile::HopperSquare: return "HopperSquare(128x128)";
    case Nv24Tile::HopperTall: return "HopperTall(256x128)";
    case Nv24Tile::HopperLarge: return "HopperLarge(256x192)";
  }
  return "?";
}

std::string to_string(const Nv24Launch& l) {
  std::string s = to_string(l.tile);
  if (l.splits > 1) s += " /" + std::to_string(l.splits) + " K";
  if (l.tail_rows > 0) s += " + " + std::to_string(l.tail_rows) + " rows " + to_string(l.tail_tile);
  return s;
}

Nv24TileShape nv24_tile_shape(Nv24Tile tile) {
  if (tile == Nv24Tile::Auto) require_ok(KernelStatus::refused("Auto has no block tile"), kWho);
  const TileInfo t = tile_info(tile);
  return {t.bn, t.bm};
}

KernelStatus nv24_can_implement(const Nv24Args& args) { return check_args(args); }
KernelStatus nv24_can_implement(const Nv24Args& args, const Nv24Launch& launch) {
  return check_launch(args, launch);
}

std::size_t nv24_workspace_bytes(const Nv24Args& args) {
  return args.m == 0 || args.n == 0 ? 0 : nv24_workspace_bytes(args, nv24_choose(args));
}
std::size_t nv24_workspace_bytes(const Nv24Args& args, const Nv24Launch& launch) {
  // The wgmma.sp tiles sum their K splits in clusters and tails run unsplit: no workspace.
  if (is_hopper_tile(launch.tile) || launch.tail_rows > 0) return 0;
  return mma_workspace_bytes(launch.tile, args, launch.splits);
}

void nv24_spmm(const Nv24Args& a, cudaStream_t stream, Nv24Tile tile, int splits) {
  require_ok(check_args(a), kWho);
  if (a.m == 0 || a.n == 0) return;
  Nv24Launch l = nv24_choose(a, tile);
  if (splits > 0) l = {l.tile, splits};  // a forced split count runs without a tail
  nv24_spmm(a, stream, l);
}

void nv24_spmm(const Nv24Args& a, cudaStream_t stream, const Nv24Launch& l) {
  require_ok(check_launch(a, l), kWho);
  run(a, l, stream);
}

}  // namespace tessera::kernels::cuda
