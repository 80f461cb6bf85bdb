// Auto's launch choice (nv24_choose, nv24_candidates in
// tessera/kernels/nm_spmm/cuda/nv24_spmm.hpp): each candidate launch's time estimated on the
// current device as waves of blocks times a block's time, plus the cost of its K splits or of
// a tail launch, with the fitted constants of nv24_time_model.hpp. Nothing is kept between
// calls: whoever runs a shape again keeps its launch.
#include <algorithm>
#include <cstdint>
#include <iterator>
#include <map>
#include <utility>
#include <vector>

#include "tessera/kernels/nm_spmm/cuda/nv24_spmm.hpp"
#include "../../common/device_info.hpp"
#include "nv24_launch.hpp"
#include "nv24_time_model.hpp"

namespace tessera::kernels::cuda {
namespace {
using namespace nv24_detail;

// The tiles of a head + tail pair (Nv24Launch::tail_rows). Not HopperSquare: two of its blocks
// share a multiprocessor, which the one-block-per-multiprocessor estimate of a pair ignores.
constexpr Nv24Tile kHeadTailTiles[] = {Nv24Tile::HopperWide, Nv24Tile::HopperTall, Nv24Tile::HopperLarge};
constexpr int kMaxSplits = kMaxClusterSplits;  // the wgmma.sp tiles' limit, the mma.sp ones' too

// One product on the current device, as the time model sees it.
struct Product {
  const Nv24Args& a;
  const DeviceInfo& d;
  Nv24TimeModel fitted;
};

// A block tile as the time model sees it: bn x bm outputs, ksub k tiles of 64 per pipeline
// stage (the unit of K splitting), its shared memory and its relative rate. lone_full_rate:
// one resident block already runs at the multiprocessor's rate (the wgmma.sp kernel, fed by
// the copy engine); a second one only fills its gaps, which `rate` accounts for.
struct TileModel {
  int bn, bm, ksub, smem_bytes;
  double rate;
  bool lone_full_rate = false;
  bool cluster_splits = false;  // K splits summed in a cluster, else through the fp32 workspace
  Nv24Tile tile = Nv24Tile::Auto;

  std::int64_t blocks(const Nv24Args& a) const { return ((a.m + bm - 1) / bm) * ((a.n + bn - 1) / bn); }
  std::int64_t k_stages(const Nv24Args& a) const { return (k_tiles(a) + ksub - 1) / ksub; }
  // One block's time over the whole of K, on a multiprocessor of its own.
  double block_time(const Nv24Args& a) const { return static_cast<double>(k_stages(a)) * bn * bm * ksub / rate; }
  // Blocks that fit on one multiprocessor at once (shared memory bound; the runtime reserves
  // 1 KB per block).
  int per_sm(const DeviceInfo& d) const {
    return lone_full_rate ? 1 : std::max(1, static_cast<int>(d.max_shared_per_sm / (smem_bytes + 1024)));
  }

  // Estimated time with `splits` K splits: waves of blocks, each taking its share of K at the
  // speed of one block (a multiprocessor's rate divided by the blocks that fit on it: a lone
  // small block leaves most of a multiprocessor idle), plus the split-K reduction.
  double estimate(const Product& p, int splits) const {
    const Nv24Args& a = p.a;
    const std::int64_t per = per_sm(p.d);
    const std::int64_t waves = (blocks(a) * splits + p.d.sms * per - 1) / (p.d.sms * per);
    const std::int64_t stages = (k_stages(a) + splits - 1) / splits;
    const double block_stage = static_cast<double>(per) * bn * bm * ksub / rate;
    if (cluster_splits && splits > 1) {
      // One block per multiprocessor (as above), whole clusters per GPC: a split's blocks run
      // as whole clusters on one GPC, so its waves count clusters.
      const std::int64_t concurrent = std::max<std::int64_t>(
          1, std::min<std::int64_t>(wgmma_max_active_clusters(tile, splits), p.d.sms / splits));
      const std::int64_t cluster_waves = (blocks(a) + concurrent - 1) / concurrent;
      return cluster_waves *
             (stages + p.fitted.cluster_reduce_stages + p.fitted.cluster_reduce_stages_per_split * splits) *
             block_stage;
    }
    const double reduce = splits > 1 ? static_cast<double>(a.m * a.n) * (p.fitted.split_cost_per_element * splits +
                                                                          p.fitted.reduce_cost_per_element)
                                     : 0.0;
    return static_cast<double>(waves * stages) * block_stage + reduce;
  }
  // The best split count and its estimated time; each split keeps at least two stages.
  std::pair<int, double> best_split(const Product& p) const {
    std::pair<int, double> best{1, estimate(p, 1)};
    for (int s = 2; s <= kMaxSplits && 2 * s <= k_stages(p.a); ++s) {
      const double t = estimate(p, s);
      if (t < best.second) best = {s, t};
    }
    return best;
  }
};

TileModel tile_model(Nv24Tile t, const Product& p) {
  const TileInfo i = tile_info(t);
  const bool wgmma = is_hopper_tile(t);
  return {i.bn, i.bm, i.ksub, i.smem_bytes, p.fitted.rate(t, p.a.m), wgmma, wgmma, t};
}

// Time to the end of a launch of head_blocks blocks of head_time each followed by a tail
// launch of tail_blocks blocks of tail_time each, one block per multiprocessor (the wgmma.sp
// tiles): the tail's blocks take the multiprocessors the head's last wave leaves idle, then
// each one that comes free (list scheduling of equal blocks), plus the tail launch's cost.
double head_tail_estimate(std::int64_t head_blocks, double head_time, std::int64_t tail_blocks, double tail_time,
                          const Product& p) {
  const std::int64_t sms = p.d.sms;
  const std::int64_t full = head_blocks / sms, rest = head_blocks % sms;
  // multiprocessors free from a time on, by time
  std::multimap<double, std::int64_t> free = {{static_cast<double>(full) * head_time, sms - rest}};
  if (rest > 0) free.emplace(static_cast<double>(full + 1) * head_time, rest);
  double end = static_cast<double>(full + (rest > 0 ? 1 : 0)) * head_time;
  while (tail_blocks > 0) {
    const auto [t, count] = *free.begin();
    free.erase(free.begin());
    const std::int64_t run = std::min(count, tail_blocks);
    tail_blocks -= run;
    end = std::max(end, t + tail_time);
    free.emplace(t + tail_time, run);
    if (count > run) free.emplace(t, count - run);
  }
  return end + p.fitted.tail_launch_cost;
}

// The first head row tile a tail may start at (tails start there up to the last one): a tail
// is there to fill the head's last wave, and one of more than about a wave of head blocks only
// runs more of C on a slower tile.
std::int64_t first_tail_start(std::int64_t row_tiles, std::int64_t head_cols, const DeviceInfo& d) {
  return std::max<std::int64_t>(1, row_tiles - d.sms / head_cols - 2);
}

// The best tail (Nv24Launch::tail_rows) behind whole row tiles of the wgmma.sp tile `head`
// and its estimated time; tail_rows 0 when none beats `time`, the head tile alone.
std::pair<Nv24Launch, double> best_tail(const Product& p, Nv24Tile head, double time) {
  const Nv24Args& a = p.a;
  std::pair<Nv24Launch, double> best{{head, 1}, time};
  const TileModel h = tile_model(head, p);
  const std::int64_t head_cols = (a.n + h.bn - 1) / h.bn, row_tiles = (a.m + h.bm - 1) / h.bm;
  if (h.blocks(a) % p.d.sms == 0) return best;
  for (Nv24Tile tail : kHeadTailTiles) {
    if (tail == head) continue;
    const TileModel t = tile_model(tail, p);
    const std::int64_t tail_cols = (a.n + t.bn - 1) / t.bn;
    for (std::int64_t rows = first_tail_start(row_tiles, head_cols, p.d); rows < row_tiles; ++rows) {
      const std::int64_t tail_rows = a.m - rows * h.bm;
      const double estimate = head_tail_estimate(rows * head_cols, h.block_time(a),
                                                 (tail_rows + t.bm - 1) / t.bm * tail_cols, t.block_time(a), p);
      if (estimate < best.second) best = {{head, 1, tail, tail_rows}, estimate};
    }
  }
  return best;
}

// The tiles Auto weighs on this device: on compute capability 9.0 the wgmma.sp tiles only, as
// the mma.sp ones are slower there and their split-K estimate (a workspace) is another model's.
std::vector<Nv24Tile> auto_tiles(const DeviceInfo& d) {
  return d.sm90a() ? std::vector<Nv24Tile>(std::begin(kHopperTiles), std::end(kHopperTiles))
                   : std::vector<Nv24Tile>(std::begin(kMmaTiles), std::end(kMmaTiles));
}

}  // namespace

Nv24Launch nv24_choose(const Nv24Args& args, Nv24Tile tile) {
  const DeviceInfo& d = device_info();
  require_runnable(tile, d);
  const Product p{args, d, nv24_time_model(d)};
  const std::vector<Nv24Tile> candidates = tile == Nv24Tile::Auto ? auto_tiles(d) : std::vector<Nv24Tile>{tile};
  Nv24Launch best{candidates.front(), 1};
  double best_time = 0;
  for (Nv24Tile t : candidates) {
    const auto [splits, time] = tile_model(t, p).best_split(p);
    if (t == candidates.front() || time < best_time) {
      best = {t, splits};
      best_time = time;
    }
  }
  // Auto: a head of one wgmma.sp tile and a tail of another may beat every single launch.
  if (tile == Nv24Tile::Auto && d.sm90a())
    for (Nv24Tile head : kHeadTailTiles) {
      const auto [launch, time] = best_tail(p, head, tile_model(head, p).estimate(p, 1));
      if (launch.tail_rows > 0 && time < best_time) {
        best = launch;
        best_time = time;
      }
    }
  return best;
}

std::vector<Nv24Launch> nv24_candidates(const Nv24Args& args) {
  const DeviceInfo& d = device_info();
  const Product p{args, d, nv24_time_model(d)};
  std::vector<Nv24Launch> out = {nv24_choose(args)};
  const auto add = [&](const Nv24Launch& l) {
    for (const Nv24Launch& o : out)
      if (o.tile == l.tile && o.splits == l.splits && o.tail_tile == l.tail_tile && o.tail_rows == l.tail_rows) return;
    out.push_back(l);
  };
  for (Nv24Tile t : auto_tiles(d))
    for (int splits : {1, 2, 3, 4, 6, 8})
      if (splits == 1 || 2 * splits <= tile_model(t, p).k_stages(args)) add({t, splits});
  if (d.sm90a())
    for (Nv24Tile head : kHeadTailTiles) {
      const TileModel h = tile_model(head, p);
      const std::int64_t head_cols = (args.n + h.bn - 1) / h.bn, row_tiles = (args.m + h.bm - 1) / h.bm;
      if (h.blocks(args) % d.sms == 0) continue;
      for (Nv24Tile tail : kHeadTailTiles)
        for (std::int64_t rows = first_tail_start(row_tiles, head_cols, d); tail != head && rows < row_tiles; ++rows)
          add({head, 1, tail, args.m - rows * h.bm});
    }
  return out;
}

}  // namespace tessera::kernels::cuda
