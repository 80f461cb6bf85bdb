#pragma once
/// \file
/// Auto's choice between a dense and a sparse (Hash) workspace for one kernel call.
#include <cstdint>
#include <limits>

namespace tessera::workspace {

/// What Auto's choice reads about one kernel call.
struct AutoInputs {
  std::int64_t positions = 0;     ///< output positions one dense workspace covers
  std::int64_t nnz_estimate = 0;  ///< entries one workspace accumulates before a drain
  std::int64_t products = 0;      ///< products one workspace accumulates over the call (0: unknown)
  std::int64_t value_bytes = 8;   ///< bytes per value
  std::int64_t workspaces = 1;    ///< dense workspaces alive at once (threads)
  std::int64_t budget_bytes = 0;  ///< memory budget of all dense workspaces together
};

/// Dense only if every thread's flag array fits the budget; then dense when
///  - the workspace is reused over at least an eighth as many products as it has
///    positions: its one-time setup (a first touch of ~9 bytes per position) is then
///    amortized, and each product costs one random access instead of a hash probe.
///    Measured on the row-wise SpGEMM of the real matrices (B * S(B)^T,
///    perf_tests/results/spgemm_host.md): Dense beats Hash by 1.3-2x even where its
///    arrays spill out of L2 (email-Enron: 37k columns, about 0.7 MB, rows of about
///    290 entries), which the older size-only rule sent to Hash. On the SpTTM
///    crossover (tensor_workspaces_host.md, 2 threads) Dense wins at 0.25 products per
///    position (N1024_dedup256) and loses from 0.06 down (N4096); the threshold sits
///    between the two, away from both (a quarter, the earlier threshold, sat within
///    2% of N1024_dedup256 and sent it to Hash);
///  - it is cache-resident (random updates stay cheap);
///  - or the accumulation touches a sizable fraction of it (a hash table would
///    approach the same size anyway).
/// Counts in double: positions near 2^63 (saturating_product's ceiling) wrapped the byte
/// count negative, and Auto took a Dense workspace of that size.
inline bool auto_prefers_dense(const AutoInputs& in) {
  const double positions = static_cast<double>(in.positions);
  const double dense_bytes = positions * static_cast<double>(in.value_bytes + 1);
  if (dense_bytes > static_cast<double>(in.budget_bytes) / static_cast<double>(in.workspaces > 0 ? in.workspaces : 1))
    return false;
  constexpr double cache_resident_bytes = 1 << 18;
  return static_cast<double>(in.products) * 8 >= positions || dense_bytes <= cache_resident_bytes ||
         static_cast<double>(in.nnz_estimate) * 16 >= positions;
}

/// a * b for non-negative operands, at most INT64_MAX: the workspace sizes that Auto and the
/// Dense budget checks read, where a product that wrapped negative passed for a small one.
inline std::int64_t saturating_product(std::int64_t a, std::int64_t b) {
  constexpr std::int64_t largest = std::numeric_limits<std::int64_t>::max();
  return a != 0 && b > largest / a ? largest : a * b;
}

}  // namespace tessera::workspace
