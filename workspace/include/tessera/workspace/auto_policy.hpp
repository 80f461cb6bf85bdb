#pragma once
// Auto's choice between a dense and a sparse (Hash) workspace for one kernel call.
#include <cstdint>

namespace tessera::workspace {

struct AutoInputs {
  std::int64_t positions = 0;     // output positions one dense workspace covers
  std::int64_t nnz_estimate = 0;  // entries one workspace accumulates before a drain
  std::int64_t products = 0;      // products one workspace accumulates over the call (0: unknown)
  std::int64_t value_bytes = 8;
  std::int64_t workspaces = 1;    // dense workspaces alive at once (threads)
  std::int64_t budget_bytes = 0;
};

// Dense only if every thread's flag array fits the budget; then dense when
//  - the workspace is reused over at least an eighth as many products as it has
//    positions: its one-time setup (a first touch of ~9 bytes per position) is then
//    amortized, and each product costs one random access instead of a hash probe.
//    Measured on the row-wise SpGEMM of the real matrices (B * S(B)^T,
//    perf_tests/results/spgemm_host.md): Dense beats Hash by 1.3-2x even where its
//    arrays spill out of L2 (email-Enron: 37k columns, about 0.7 MB, rows of about
//    290 entries), which the older size-only rule sent to Hash. On the SpTTM
//    crossover (tensor_workspaces_host.md, 2 threads) Dense wins at 0.25 products per
//    position (N1024_dedup256) and loses from 0.06 down (N4096); the threshold sits
//    between the two, away from both (a quarter, the earlier threshold, sat within
//    2% of N1024_dedup256 and sent it to Hash);
//  - it is cache-resident (random updates stay cheap);
//  - or the accumulation touches a sizable fraction of it (a hash table would
//    approach the same size anyway).
inline bool auto_prefers_dense(const AutoInputs& in) {
  const std::int64_t dense_bytes = in.positions * (in.value_bytes + 1);
  if (dense_bytes > in.budget_bytes / (in.workspaces > 0 ? in.workspaces : 1)) return false;
  constexpr std::int64_t cache_resident_bytes = std::int64_t{1} << 18;
  return in.products * 8 >= in.positions || dense_bytes <= cache_resident_bytes || in.nnz_estimate * 16 >= in.positions;
}

}  // namespace tessera::workspace
