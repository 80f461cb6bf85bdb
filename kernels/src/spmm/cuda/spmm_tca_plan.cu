// TcaPlan::build: the TCA-SpMM plan of one sparsity pattern on the current device (windows cut
// into work items and blocks, split windows in clusters or workspace parts, row chunks of the
// row split, finalize work), uploaded to device memory; and TcaPlan::describe.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <cuda_runtime.h>

#include "tessera/core/error.hpp"
#include "tessera/kernels/spmm/cuda/spmm_tca.hpp"
#include "../../common/cuda_support.hpp"
#include "../../common/device_info.hpp"
#include "spmm_tca_internal.cuh"
#include "spmm_tca_tuning.hpp"

namespace tessera::kernels::cuda {
namespace tca_detail {
namespace {

static_assert([] {
  for (const TcaArchTuning& t : kTcaMeasuredArchs)
    if (t.cluster_blocks > kItemMaxClusterBlocks) return false;
  return kPortableClusterBlocks <= kItemMaxClusterBlocks;
}(), "every cluster size the tuning allows fits WorkItem's cluster fields");

// Warps per split row: enough that none adds more than this many parts, at most a block's.
// The parts per split vary from 2 to hundreds: one thread per C element adding them all can
// take longer than the SpMM, and a fixed 32 warps per element slows plans of many splits of a
// few parts.
constexpr int kFinalizePartsPerWarp = 8;

// Finalize slots of splits with parts [part_begin[s], part_begin[s + 1]) and rows_per_split C
// rows from first_rows[s] (those below `rows`): groups of a power of two warps, the largest
// first, so no group straddles a block; padded to whole blocks.
std::vector<FinalizeSlot> finalize_slots(const std::vector<int>& part_begin, const std::vector<int>& first_rows,
                                         int rows_per_split, std::int64_t rows) {
  std::vector<std::pair<int, int>> groups;  // (warps, split row)
  for (std::size_t s = 0; s + 1 < part_begin.size(); ++s) {
    int warps = 1;
    while (warps < kFinalizeBlockWarps && warps * kFinalizePartsPerWarp < part_begin[s + 1] - part_begin[s]) warps *= 2;
    for (int r = 0; r < rows_per_split && first_rows[s] + r < rows; ++r)
      groups.emplace_back(warps, static_cast<int>(s) * rows_per_split + r);
  }
  std::stable_sort(groups.begin(), groups.end(), [](const auto& x, const auto& y) { return x.first > y.first; });
  std::vector<FinalizeSlot> slots;
  for (const auto& [warps, split_row] : groups)
    for (int k = 0; k < warps; ++k) slots.push_back({split_row, static_cast<short>(warps), static_cast<short>(k)});
  slots.resize((slots.size() + kFinalizeBlockWarps - 1) / kFinalizeBlockWarps * kFinalizeBlockWarps, FinalizeSlot{0, 0, 0});
  return slots;
}

}  // namespace
}  // namespace tca_detail

using namespace tca_detail;

std::shared_ptr<const TcaPlan> TcaPlan::build(const int* pos_host, std::int64_t rows, int segment_nnz,
                                              int row_chunk_nnz, const int* crd_host, double shared_column_min_reuse,
                                              int max_cluster_blocks) {
  auto clustered = build_layout(pos_host, rows, segment_nnz, row_chunk_nnz, crd_host, shared_column_min_reuse,
                                max_cluster_blocks);
  const auto& cs = clustered->stats();
  if (cs.cluster_windows == 0) return clustered;  // the workspace layout: no window fits a cluster
  // Launches with windows in clusters and others in the workspace ran slower than the
  // workspace alone, so such plans keep the workspace layout alone.
  auto plan = build_layout(pos_host, rows, segment_nnz, row_chunk_nnz, crd_host, shared_column_min_reuse, 1);
  if (cs.split_parts == 0) plan->cluster_layout_ = std::move(clustered);
  return plan;
}

std::shared_ptr<TcaPlan> TcaPlan::build_layout(const int* pos_host, std::int64_t rows, int segment_nnz,
                                               int row_chunk_nnz, const int* crd_host, double shared_column_min_reuse,
                                               int max_cluster_blocks) {
  auto plan = std::shared_ptr<TcaPlan>(new TcaPlan());
  TcaPlanStats& st = plan->stats_;
  st.rows = rows;
  st.nnz = rows > 0 ? pos_host[rows] : 0;
  const int sms = device_info().sms;
  st.sm_count = sms;
  const int device_cluster_blocks = tca_tuning().cluster_blocks;
  if (max_cluster_blocks <= 0 || max_cluster_blocks > device_cluster_blocks) max_cluster_blocks = device_cluster_blocks;
  WindowSlots shared;  // shared columns (empty without)
  if (crd_host && st.nnz > 0) {
    st.window_column_reuse = window_column_reuse(pos_host, crd_host, rows);
    st.shared_columns = st.window_column_reuse > 0 && st.window_column_reuse >= shared_column_min_reuse;
  }
  if (st.shared_columns) {
    shared = window_slots(pos_host, crd_host, rows);
    st.slots = static_cast<std::int64_t>(shared.cols.size());
  }
  // Segments count K units: nonzeros, or slots with shared columns (a slot costs a gather and a
  // K slot of an MMA, as a nonzero does without).
  const long long units = st.shared_columns ? st.slots : st.nnz;
  if (segment_nnz <= 0) {  // auto: about kTargetWarpsPerSm items per SM, so small matrices still fill the GPU
    const long long target = (units + static_cast<long long>(sms) * kTargetWarpsPerSm - 1) /
                             (static_cast<long long>(sms) * kTargetWarpsPerSm);
    segment_nnz = static_cast<int>(std::clamp<long long>((target + kChunkNnz - 1) / kChunkNnz * kChunkNnz,
                                                         kMinSegmentNnz, kSegmentNnz));
  }
  if (segment_nnz % kChunkNnz != 0 || segment_nnz > kSegmentNnz)
    throw Error("TcaPlan: segment_nnz must be a multiple of kChunkNnz and at most kSegmentNnz");
  st.segment_nnz = segment_nnz;
  for (std::int64_t r = 0; r < rows; ++r) {
    st.max_row_nnz = std::max<std::int64_t>(st.max_row_nnz, pos_host[r + 1] - pos_host[r]);
    st.nonempty_rows += pos_host[r + 1] > pos_host[r];
  }
  st.mean_row_nnz = rows > 0 ? static_cast<double>(st.nnz) / rows : 0.0;

  // Row chunks of the vectorised row split: rows longer than row_chunk_nnz are cut into
  // pieces of that size (auto: about kRowChunkWarpsPerSm pieces per SM, so that a small
  // matrix of long rows fills the GPU too, within [kMinRowChunkNnz, kMaxRowChunkNnz]).
  if (row_chunk_nnz <= 0) {
    const long long target = (st.nnz + static_cast<long long>(sms) * kRowChunkWarpsPerSm - 1) /
                             (static_cast<long long>(sms) * kRowChunkWarpsPerSm);
    row_chunk_nnz = static_cast<int>(std::clamp<long long>((target + 31) / 32 * 32, kMinRowChunkNnz, kMaxRowChunkNnz));
    // Even rows are balanced as they are; chunks would only add workspace stores and a finalize pass.
    if (st.max_row_nnz <= kRegularRowSpread * st.mean_row_nnz)
      row_chunk_nnz = static_cast<int>(std::max<std::int64_t>(row_chunk_nnz, st.max_row_nnz));
  }
  st.row_chunk_nnz = row_chunk_nnz;
  std::vector<RowChunk> chunks;
  std::vector<int> chunked_rows, chunked_row_first_chunk;
  for (std::int64_t r = 0; r < rows; ++r) {
    const int b = pos_host[r], e = pos_host[r + 1];
    if (e - b <= row_chunk_nnz) continue;
    chunked_rows.push_back(static_cast<int>(r));
    chunked_row_first_chunk.push_back(static_cast<int>(chunks.size()));
    for (long long cb = b; cb < e; cb += row_chunk_nnz)  // 64-bit: cb + row_chunk_nnz may pass INT_MAX
      chunks.push_back({static_cast<int>(r), static_cast<int>(cb), static_cast<int>(std::min<long long>(e, cb + row_chunk_nnz)),
                        static_cast<int>(chunks.size())});
  }
  chunked_row_first_chunk.push_back(static_cast<int>(chunks.size()));
  st.chunked_rows = static_cast<std::int64_t>(chunked_rows.size());
  st.row_chunks = static_cast<std::int64_t>(chunks.size());
  // With chunked rows the row split runs a list: the chunks and the other rows, longest first
  // (tca_row_vec_kernel says why).
  std::vector<RowChunk> row_split_items;
  if (!chunks.empty()) {
    row_split_items = chunks;
    for (std::int64_t r = 0; r < rows; ++r)
      if (pos_host[r + 1] - pos_host[r] <= row_chunk_nnz)
        row_split_items.push_back({static_cast<int>(r), pos_host[r], pos_host[r + 1], -1});
    // Longest first: the 8 warps of a block then run items of about one length (a block holds its
    // slots until its longest warp is done) and the shortest items fill the last wave. Plans
    // without chunks keep row order, in which neighbouring warps share B rows in L1 / L2.
    std::stable_sort(row_split_items.begin(), row_split_items.end(),
                     [](const RowChunk& x, const RowChunk& y) { return x.end - x.begin > y.end - y.begin; });
  }
  st.row_split_items = static_cast<std::int64_t>(row_split_items.size());

  // A work item is a range of at most a segment's K units (nonzeros, or slots with shared
  // columns) holding at most kSegmentNnz values (what the kernel stages), cut between units.
  const auto value_at = [&](int u) { return st.shared_columns ? shared.value_begin[u] : u; };
  const auto pieces = [&](int ub, int ue, int seg) {  // greedy: each piece as long as the limits allow
    std::vector<std::pair<int, int>> out;
    do {
      int cut = std::min(ue, ub + seg);
      if (st.shared_columns && value_at(cut) - value_at(ub) > kSegmentNnz)
        cut = static_cast<int>(std::upper_bound(shared.value_begin.begin() + ub, shared.value_begin.begin() + cut,
                                                value_at(ub) + kSegmentNnz) - shared.value_begin.begin()) - 1;
      out.emplace_back(ub, cut);
      ub = cut;
    } while (ub < ue);
    return out;
  };
  std::vector<WorkItem> items;  // kBlockWarps slots per block
  std::vector<int> split_rows, split_part_begin;
  // Windows split across at most max_cluster_blocks blocks: (first row, pieces), placed in clusters below.
  std::vector<std::pair<int, std::vector<std::pair<int, int>>>> cluster_windows;
  long long padded = 0;
  const WorkItem idle{0, 0, 0, item_meta(-1, 0, 0)};
  auto open_slots = [&] { return static_cast<int>(kBlockWarps - items.size() % kBlockWarps); };
  auto close_block = [&] {
    while (items.size() % kBlockWarps != 0) items.push_back(idle);
  };
  auto count_item = [&](int ub, int ue) {
    padded += (ue - ub + kChunkNnz - 1) / kChunkNnz * kChunkNnz;
    ++st.work_items;
    st.max_item_nnz = std::max(st.max_item_nnz, value_at(ue) - value_at(ub));
  };
  // The pieces [first, last) of p as one group of consecutive warps of one block (part: its
  // workspace tile if the window is split across blocks, else -1).
  auto add_group = [&](int r0, const std::vector<std::pair<int, int>>& p, std::size_t first, std::size_t last,
                       int part) {
    const int group = static_cast<int>(last - first);
    if (open_slots() < group) close_block();
    for (std::size_t i = first; i < last; ++i) {
      const auto [ub, ue] = p[i];
      items.push_back({r0, ub, ue, item_meta(part, group, static_cast<int>(i - first))});
      count_item(ub, ue);
    }
  };
  auto round_chunk = [](long long x) { return static_cast<int>((x + kChunkNnz - 1) / kChunkNnz * kChunkNnz); };
  for (std::int64_t r0 = 0; r0 < rows; r0 += kWindowRows) {
    const std::int64_t w = r0 / kWindowRows;
    const int b = st.shared_columns ? shared.window_first_slot[w] : pos_host[r0];
    const int e = st.shared_columns ? shared.window_first_slot[w + 1] : pos_host[std::min<std::int64_t>(r0 + kWindowRows, rows)];
    const int cnt = e - b, row0 = static_cast<int>(r0);  // K units
    ++st.windows;
    if (cnt <= segment_nnz && value_at(e) - value_at(b) <= kSegmentNnz) {
      add_group(row0, {{b, e}}, 0, 1, -1);
      continue;
    }
    if (cnt <= kBlockWarps * kSegmentNnz) {
      // Split over the warps of one block: as many segment_nnz pieces as fit, else kBlockWarps
      // (pieces cut short by their values may need more units each to stay within kBlockWarps).
      const int want = std::min((cnt + segment_nnz - 1) / segment_nnz, kBlockWarps);
      auto p = pieces(b, e, round_chunk((cnt + want - 1) / want));
      for (int seg = round_chunk((cnt + want - 1) / want); p.size() > kBlockWarps && seg < kSegmentNnz;)
        p = pieces(b, e, seg += kChunkNnz);
      if (p.size() <= kBlockWarps) {
        add_group(row0, p, 0, p.size(), -1);
        ++st.grouped_windows;
        continue;
      }
    }
    // Split over blocks: kBlockWarps pieces of segment_nnz per block (segment_nnz, not
    // kSegmentNnz: on a small matrix such a window's warps would otherwise run the longest items
    // of the launch). Up to max_cluster_blocks blocks are one cluster's, summed in its shared
    // memory; more leave each block's sum in a workspace tile of its own (a part).
    auto p = pieces(b, e, segment_nnz);
    const int parts = static_cast<int>((p.size() + kBlockWarps - 1) / kBlockWarps);
    if (parts <= max_cluster_blocks && max_cluster_blocks > 1) {
      // The blocks of a cluster wait for each other: give each of them kBlockWarps pieces
      // of about the same length, not segment_nnz pieces and a short rest.
      for (int seg = round_chunk((cnt + parts * kBlockWarps - 1) / (parts * kBlockWarps));; seg += kChunkNnz) {
        auto even = pieces(b, e, seg);
        if (even.size() <= static_cast<std::size_t>(parts) * kBlockWarps) {
          p = std::move(even);
          break;
        }
      }
      cluster_windows.emplace_back(row0, std::move(p));
      continue;
    }
    split_rows.push_back(row0);
    split_part_begin.push_back(static_cast<int>(st.split_parts));
    for (std::size_t i = 0; i < p.size(); i += kBlockWarps, ++st.split_parts) {
      if (st.split_parts >= kMaxParts) throw Error("TcaPlan: too many split windows");
      add_group(row0, p, i, std::min(p.size(), i + kBlockWarps), static_cast<int>(st.split_parts));
    }
  }
  split_part_begin.push_back(static_cast<int>(st.split_parts));
  if (static_cast<long long>(split_rows.size()) * kWindowRows > 0x7fffffffLL) throw Error("TcaPlan: too many split windows");
  close_block();
  // Cluster windows go first (the longest work of the launch starts first), each inside one
  // cluster, placed first-fit in window order; a cluster holds nothing else, so no other block
  // keeps its barrier waiting. Clusters are the smallest power of two that holds the largest
  // such window, and the grid a whole number of them.
  st.cluster_blocks = 1;
  for (const auto& [row0, p] : cluster_windows) {
    const int parts = static_cast<int>((p.size() + kBlockWarps - 1) / kBlockWarps);
    while (st.cluster_blocks < parts) st.cluster_blocks *= 2;
  }
  if (!cluster_windows.empty()) {
    const int cb = st.cluster_blocks;
    std::vector<WorkItem> clustered;
    std::vector<int> used;  // blocks taken per cluster
    for (const auto& [row0, p] : cluster_windows) {
      const int parts = static_cast<int>((p.size() + kBlockWarps - 1) / kBlockWarps);
      std::size_t c = 0;
      while (c < used.size() && used[c] + parts > cb) ++c;
      if (c == used.size()) {
        used.push_back(0);
        clustered.resize(clustered.size() + static_cast<std::size_t>(cb) * kBlockWarps, idle);
      }
      for (std::size_t i = 0; i < p.size(); ++i) {
        const int block = used[c] + static_cast<int>(i / kBlockWarps), slot = static_cast<int>(i % kBlockWarps);
        const int group = static_cast<int>(std::min<std::size_t>(p.size() - i / kBlockWarps * kBlockWarps, kBlockWarps));
        clustered[(c * cb + block) * kBlockWarps + slot] = {row0, p[i].first, p[i].second,
                                                            item_meta_cluster(used[c], parts, group, slot)};
        count_item(p[i].first, p[i].second);
      }
      used[c] += parts;
    }
    items.insert(items.begin(), clustered.begin(), clustered.end());
    while (items.size() / kBlockWarps % cb != 0) items.insert(items.end(), kBlockWarps, idle);
  }
  st.cluster_windows = static_cast<std::int64_t>(cluster_windows.size());
  const auto split_slots = finalize_slots(split_part_begin, split_rows, kWindowRows, rows);
  const auto chunk_slots = finalize_slots(chunked_row_first_chunk, chunked_rows, 1, rows);
  st.split_finalize_blocks = static_cast<std::int64_t>(split_slots.size() / kFinalizeBlockWarps);
  st.chunk_finalize_blocks = static_cast<std::int64_t>(chunk_slots.size() / kFinalizeBlockWarps);
  st.blocks = static_cast<std::int64_t>(items.size() / kBlockWarps);
  st.split_windows = static_cast<std::int64_t>(split_rows.size() + cluster_windows.size());
  st.chunk_fill = padded > 0 ? static_cast<double>(st.shared_columns ? st.slots : st.nnz) / padded : 1.0;
  auto upload = [](const void* src, std::size_t bytes) -> std::shared_ptr<void> {
    if (bytes == 0) return nullptr;
    void* p = nullptr;
    TESSERA_CUDA_CHECK(cudaMalloc(&p, bytes));
    std::shared_ptr<void> owned(p, [](void* q) { cudaFree(q); });
    TESSERA_CUDA_CHECK(cudaMemcpy(p, src, bytes, cudaMemcpyHostToDevice));
    return owned;
  };
  plan->items_ = upload(items.data(), items.size() * sizeof(WorkItem));
  plan->split_rows_ = upload(split_rows.data(), split_rows.size() * sizeof(int));
  plan->split_part_begin_ = upload(split_part_begin.data(), split_part_begin.size() * sizeof(int));
  plan->split_finalize_slots_ = upload(split_slots.data(), split_slots.size() * sizeof(FinalizeSlot));
  plan->chunk_finalize_slots_ = upload(chunk_slots.data(), chunk_slots.size() * sizeof(FinalizeSlot));
  plan->row_split_items_ = upload(row_split_items.data(), row_split_items.size() * sizeof(RowChunk));
  plan->chunked_rows_ = upload(chunked_rows.data(), chunked_rows.size() * sizeof(int));
  plan->chunked_row_first_chunk_ =
      upload(chunked_row_first_chunk.data(), chunked_row_first_chunk.size() * sizeof(int));
  plan->slot_cols_ = upload(shared.cols.data(), shared.cols.size() * sizeof(int));
  plan->slot_rows_ = upload(shared.rows.data(), shared.rows.size());
  plan->slot_value_begin_ = upload(shared.value_begin.data(), shared.value_begin.size() * sizeof(int));
  plan->value_perm_ = upload(shared.value_perm.data(), shared.value_perm.size() * sizeof(int));
  // cudaMemcpy from pageable memory may return before its DMA lands; a kernel on a
  // non-blocking stream would then read a partly written plan.
  TESSERA_CUDA_CHECK(cudaStreamSynchronize(0));
  return plan;
}

std::string TcaPlan::describe() const {
  char buf[896];
  std::snprintf(buf, sizeof(buf),
                "TcaPlan{rows=%lld nnz=%lld windows=%lld work_items=%lld blocks=%lld grouped_windows=%lld "
                "split_windows=%lld cluster_windows=%lld cluster_blocks=%d split_parts=%lld max_row_nnz=%lld mean_row_nnz=%.2f nonempty_rows=%lld chunk_fill=%.3f segment_nnz=%d "
                "max_item_nnz=%d sm_count=%d row_chunk_nnz=%d chunked_rows=%lld row_chunks=%lld row_split_items=%lld "
                "window_column_reuse=%.2f shared_columns=%d slots=%lld cluster_layout={cluster_windows=%lld "
                "cluster_blocks=%d blocks=%lld}}",
                static_cast<long long>(stats_.rows), static_cast<long long>(stats_.nnz),
                static_cast<long long>(stats_.windows), static_cast<long long>(stats_.work_items),
                static_cast<long long>(stats_.blocks), static_cast<long long>(stats_.grouped_windows),
                static_cast<long long>(stats_.split_windows), static_cast<long long>(stats_.cluster_windows),
                stats_.cluster_blocks, static_cast<long long>(stats_.split_parts),
                static_cast<long long>(stats_.max_row_nnz),
                stats_.mean_row_nnz, static_cast<long long>(stats_.nonempty_rows), stats_.chunk_fill, stats_.segment_nnz, stats_.max_item_nnz,
                stats_.sm_count, stats_.row_chunk_nnz, static_cast<long long>(stats_.chunked_rows),
                static_cast<long long>(stats_.row_chunks), static_cast<long long>(stats_.row_split_items),
                stats_.window_column_reuse,
                stats_.shared_columns ? 1 : 0, static_cast<long long>(stats_.slots),
                cluster_layout_ ? static_cast<long long>(cluster_layout_->stats_.cluster_windows) : 0LL,
                cluster_layout_ ? cluster_layout_->stats_.cluster_blocks : 1,
                cluster_layout_ ? static_cast<long long>(cluster_layout_->stats_.blocks) : 0LL);
  return buf;
}

}  // namespace tessera::kernels::cuda
