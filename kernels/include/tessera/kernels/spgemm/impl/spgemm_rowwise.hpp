#pragma once
// Row-wise (Gustavson) SpGEMM, C = A * B with A, B and C row-major: row i of C
// accumulates a_ik * B(k, :) and is written straight into its chunk's output arrays
// (no row index per entry: the row's length goes to C's pos array). Rows are split
// into nnz-balanced chunks; chunks are concatenated in order, so the result does not
// depend on the schedule.
//   Dense policy   GustavsonRow below: values and row stamps over all columns; the
//                  row's column list is built in place in the output and ordered by a
//                  scan of its column range when that range is narrow, else by a sort.
//   other policies the policy's first-order workspace (keys = column j), drained per row.
#include <algorithm>
#include <cstdint>
#include <limits>
#include <memory>
#include <type_traits>
#include <vector>

#include <Kokkos_Core.hpp>

#include "tessera/core/error.hpp"
#include "tessera/core/tensor.hpp"
#include "tessera/formats/encoding.hpp"
#include "tessera/formats/host_levels.hpp"
#include "tessera/kernels/common/chunked_workspaces.hpp"
#include "tessera/kernels/common/row_partition.hpp"
#include "tessera/workspace/growable_array.hpp"
#include "tessera/workspace/key_space.hpp"
#include "tessera/workspace/workspace.hpp"

namespace tessera::kernels::impl {

// The entries of one chunk of rows, concatenated in row order.
template <class T, class Ordinal>
struct RowChunk {
  workspace::GrowableArray<Ordinal> crd;  // (entries)
  workspace::GrowableArray<T> vals;       // (entries)
};

// Gustavson's dense accumulator for one output row at a time (one per thread).
// The row's column list is built in place in the output and ordered only as much
// as needed (see row()).
// stamp_[j] == current row's stamp marks column j as touched, so nothing is cleared
// between rows; stamps are a per-thread row counter (restarted, with the stamps
// refilled, before it would overflow).
template <class T, class Ordinal>
class GustavsonRow {
 public:
  GustavsonRow() : acc_(&meter_), stamp_(&meter_), scratch_(&meter_), bucket_start_(&meter_) {}
  GustavsonRow(const GustavsonRow&) = delete;
  GustavsonRow& operator=(const GustavsonRow&) = delete;

  void reserve(std::int64_t cols) {
    if (cols <= stamp_.capacity()) return;
    acc_.release();
    stamp_.release();
    scratch_.release();
    bucket_start_.release();
    acc_.reserve_exact(cols);
    stamp_.reserve_exact(cols);
    scratch_.reserve_exact(cols);
    bucket_start_.reserve_exact(cols + 1);
    stamp_.fill(-1);
    row_ = 0;
  }

  // Row i of A * B into crd[0, n), vals[0, n), sorted by column; returns n. crd and
  // vals hold at least min(products of the row, cols) entries.
  template <class MA, class MB>
  std::int64_t row(const MA& A, const MB& B, std::int64_t i, Ordinal* crd, T* vals) {
    if (row_ == std::numeric_limits<std::int32_t>::max()) {
      stamp_.fill(-1);
      row_ = 0;
    }
    if (A.end(i) - A.begin(i) == 1) {
      // One term: the row is a scaled, already sorted row of B.
      const std::int64_t q = A.begin(i), k = A.crd[q];
      const T a = A.vals[q];
      std::int64_t n = 0;
      for (std::int64_t r = B.begin(k); r < B.end(k); ++r, ++n) {
        crd[n] = B.crd[r];
        vals[n] = a * B.vals[r];
      }
      return n;
    }
    const std::int32_t stamp = row_++;
    std::int32_t* mark = stamp_.data();
    T* acc = acc_.data();
    std::int64_t n = 0;
    Ordinal lo = std::numeric_limits<Ordinal>::max(), hi = 0;
    for (std::int64_t q = A.begin(i); q < A.end(i); ++q) {
      const std::int64_t k = A.crd[q];
      const T a = A.vals[q];
      for (std::int64_t r = B.begin(k); r < B.end(k); ++r) {
        const Ordinal j = B.crd[r];
        if (mark[j] != stamp) {
          mark[j] = stamp;
          acc[j] = a * B.vals[r];
          crd[n++] = j;
          lo = std::min(lo, j);
          hi = std::max(hi, j);
        } else {
          acc[j] += a * B.vals[r];
        }
      }
    }
    // Order the columns: a scan of the stamps over [lo, hi] when that range is
    // narrow (about 3 instructions per column scanned against about 6 per element
    // and level of a comparison sort), else a bucket sort (bucket_sort()).
    if (n > 1) {
      const std::int64_t range = std::int64_t{hi} - lo + 1;
      std::int64_t log2n = 1;
      while ((std::int64_t{1} << log2n) < n) ++log2n;
      if (range <= 2 * n * log2n) {
        std::int64_t m = 0;
        for (Ordinal j = lo; m < n; ++j)
          if (mark[j] == stamp) crd[m++] = j;
      } else {
        bucket_sort(crd, n, lo, range, log2n);
      }
    }
    for (std::int64_t t = 0; t < n; ++t) vals[t] = acc[crd[t]];
    return n;
  }

  std::int64_t peak_bytes() const { return meter_.peak(); }

 private:
  // Sorts the n distinct columns crd[0, n), all in [lo, lo + range), range > n: one
  // counting pass into about n buckets by the high bits of j - lo (through scratch_),
  // then each bucket, a few columns when they are spread, sorted in place.
  void bucket_sort(Ordinal* crd, std::int64_t n, Ordinal lo, std::int64_t range, std::int64_t log2n) {
    std::int64_t range_bits = 0;
    while ((std::int64_t{1} << range_bits) < range) ++range_bits;
    const std::int64_t bucket_bits = log2n - 1;  // buckets <= n <= cols
    const int shift = static_cast<int>(range_bits - bucket_bits);
    const std::int64_t buckets = std::int64_t{1} << bucket_bits;
    std::int32_t* start = bucket_start_.data();
    Ordinal* tmp = scratch_.data();
    std::fill(start, start + buckets + 1, 0);
    for (std::int64_t t = 0; t < n; ++t) ++start[((crd[t] - lo) >> shift) + 1];
    for (std::int64_t b = 0; b < buckets; ++b) start[b + 1] += start[b];
    for (std::int64_t t = 0; t < n; ++t) tmp[start[(crd[t] - lo) >> shift]++] = crd[t];
    // start[b] is now the end of bucket b.
    for (std::int64_t b = 0, begin = 0; b < buckets; begin = start[b++]) {
      const std::int64_t end = start[b];
      if (end - begin > 16) {
        std::sort(tmp + begin, tmp + end);
        continue;
      }
      for (std::int64_t t = begin + 1; t < end; ++t) {  // insertion sort
        const Ordinal x = tmp[t];
        std::int64_t u = t;
        for (; u > begin && tmp[u - 1] > x; --u) tmp[u] = tmp[u - 1];
        tmp[u] = x;
      }
    }
    std::copy(tmp, tmp + n, crd);
  }

  workspace::ByteMeter meter_;
  workspace::GrowableArray<T> acc_;                // (cols)
  workspace::GrowableArray<std::int32_t> stamp_;  // (cols)
  workspace::GrowableArray<Ordinal> scratch_;             // (cols) bucket sort output
  workspace::GrowableArray<std::int32_t> bucket_start_;  // (cols + 1)
  std::int32_t row_ = 0;
};

// The per-thread accumulator of the row-wise kernel for a policy.
template <class Policy, class T, class Ordinal>
struct RowAccumulator {
  using type = workspace::WorkspaceFor<Policy, T, 1>;
};
template <class T, class Ordinal>
struct RowAccumulator<workspace::Dense, T, Ordinal> {
  using type = GustavsonRow<T, Ordinal>;
};

// C (row-major, {Dense|Compressed, Compressed}) from the row lengths in
// `row_pos` (rows + 1, row i's length at i + 1) and the chunks' entries.
template <class T, class OutEnc, class Space>
Tensor<T, OutEnc, Space> assemble_rows(const Shape<2>& shape, typename Tensor<T, OutEnc, Space>::pos_view row_pos,
                                       const std::vector<RowChunk<T, typename OutEnc::ordinal_type>>& chunks,
                                       const Space& space) {
  using Result = Tensor<T, OutEnc, Space>;
  using Offset = typename OutEnc::offset_type;
  const std::int64_t rows = shape[0];
  std::vector<std::int64_t> chunk_start(chunks.size() + 1, 0);
  for (std::size_t c = 0; c < chunks.size(); ++c) chunk_start[c + 1] = chunk_start[c] + chunks[c].vals.size();
  const std::int64_t nnz = chunk_start.back();
  tessera::detail::check_fits<Offset>(nnz, "number of entries");
  typename Result::Storage s;
  s.levels[1].crd = typename Result::crd_view(Kokkos::view_alloc(Kokkos::WithoutInitializing, "tessera::crd1"), nnz);
  s.vals = typename Result::vals_view(Kokkos::view_alloc(Kokkos::WithoutInitializing, "tessera::vals"), nnz);
  auto* crd = s.levels[1].crd.data();
  T* vals = s.vals.data();
  Kokkos::parallel_for("tessera::spgemm[rowwise,assemble]", Kokkos::RangePolicy<Space>(space, 0, chunks.size()),
                       [&](std::int64_t c) {
                         const auto& chunk = chunks[c];
                         std::copy(chunk.crd.data(), chunk.crd.data() + chunk.crd.size(), crd + chunk_start[c]);
                         std::copy(chunk.vals.data(), chunk.vals.data() + chunk.vals.size(), vals + chunk_start[c]);
                       });
  space.fence();
  Offset* pos = row_pos.data();
  if constexpr (OutEnc::level_kinds[0] == LevelKind::Dense) {
    for (std::int64_t r = 0; r < rows; ++r) pos[r + 1] += pos[r];
    s.levels[1].pos = row_pos;
  } else {
    // DCSR: only rows with entries are stored.
    std::int64_t stored = 0;
    for (std::int64_t r = 0; r < rows; ++r) stored += pos[r + 1] > 0;
    s.levels[0].pos = typename Result::pos_view("tessera::pos0", 2);
    s.levels[0].pos(1) = static_cast<Offset>(stored);
    s.levels[0].crd = typename Result::crd_view(Kokkos::view_alloc(Kokkos::WithoutInitializing, "tessera::crd0"), stored);
    s.levels[1].pos = typename Result::pos_view(Kokkos::view_alloc(Kokkos::WithoutInitializing, "tessera::pos1"),
                                                stored + 1);
    s.levels[1].pos(0) = 0;
    for (std::int64_t r = 0, p = 0; r < rows; ++r)
      if (pos[r + 1] > 0) {
        s.levels[0].crd(p) = static_cast<typename OutEnc::ordinal_type>(r);
        s.levels[1].pos(p + 1) = s.levels[1].pos(p) + pos[r + 1];
        ++p;
      }
  }
  return Result(shape, std::move(s));
}

// A and B are HostMatrix views with a Dense outer level (CSR); a_pos is A's pos View.
template <class Policy, class T, class OutEnc, class Space, class MA, class MB, class PosView>
Tensor<T, OutEnc, Space> spgemm_rowwise(const Space& space, const MA& A, const PosView& a_pos, const MB& B,
                                        const workspace::IsmOptions& options, workspace::Report* report) {
  using Ordinal = typename OutEnc::ordinal_type;
  using Offset = typename OutEnc::offset_type;
  using Accumulator = typename RowAccumulator<Policy, T, Ordinal>::type;
  const std::int64_t rows = A.outer_extent, cols = B.inner_extent;
  const workspace::KeySpace<1> row_space({cols});  // checks that columns fit 32 bits
  const auto bounds = balanced_row_chunks(a_pos, rows, host_chunk_count(space));
  const std::int64_t chunks = rows == 0 ? 0 : static_cast<std::int64_t>(bounds.extent(0)) - 1;
  typename Tensor<T, OutEnc, Space>::pos_view row_pos("tessera::pos1", rows + 1);
  Offset* lengths = row_pos.data() + 1;
  std::vector<RowChunk<T, Ordinal>> out(chunks);
  std::vector<std::unique_ptr<Accumulator>> accumulators(host_thread_slots(space));
  for (auto& acc : accumulators) {
    if constexpr (std::is_same_v<Policy, workspace::Dense>) acc = std::make_unique<Accumulator>();
    else acc = std::make_unique<Accumulator>(options);
  }
  for_each_chunk(space, chunks, "tessera::spgemm[rowwise]", [&](std::int64_t c, std::int64_t thread) {
    Accumulator& ws = *accumulators[thread];
    RowChunk<T, Ordinal>& chunk = out[c];
    if constexpr (std::is_same_v<Policy, workspace::Dense>) ws.reserve(cols);
    auto products = [&](std::int64_t i) {
      std::int64_t p = 0;
      for (std::int64_t q = A.begin(i); q < A.end(i); ++q) p += B.end(A.crd[q]) - B.begin(A.crd[q]);
      return p;
    };
    // Symbolic upper bound of the chunk (min(products, cols) per row), reserved once:
    // rows then write without checks or reallocation. Untouched capacity stays
    // unmapped, so a loose bound costs address space, not memory traffic.
    std::int64_t chunk_bound = 0;
    for (std::int64_t i = bounds(c); i < bounds(c + 1); ++i) chunk_bound += std::min(products(i), cols);
    chunk.crd.reserve_exact(chunk_bound);
    chunk.vals.reserve_exact(chunk_bound);
    for (std::int64_t i = bounds(c); i < bounds(c + 1); ++i) {
      const std::int64_t bound = std::min(products(i), cols);
      if (bound == 0) continue;
      const std::int64_t at = chunk.vals.size();
      chunk.crd.resize(at + bound);
      chunk.vals.resize(at + bound);
      Ordinal* crd = chunk.crd.data() + at;
      T* vals = chunk.vals.data() + at;
      std::int64_t n = 0;
      if constexpr (std::is_same_v<Policy, workspace::Dense>) {
        n = ws.row(A, B, i, crd, vals);
      } else {
        ws.reset(row_space, bound);
        for (std::int64_t q = A.begin(i); q < A.end(i); ++q) {
          const std::int64_t k = A.crd[q];
          const T a = A.vals[q];
          for (std::int64_t r = B.begin(k); r < B.end(k); ++r) ws.add(B.crd[r], a * B.vals[r]);
        }
        ws.drain([&](std::int64_t j, T v) {
          crd[n] = static_cast<Ordinal>(j);
          vals[n++] = v;
        });
      }
      chunk.crd.resize(at + n);
      chunk.vals.resize(at + n);
      lengths[i] = static_cast<Offset>(n);
    }
  });
  if (report) {
    report->peak_bytes = 0;
    for (const auto& acc : accumulators) report->peak_bytes += acc->peak_bytes();
    report->policy = workspace::policy_name<Policy>;
  }
  return assemble_rows<T, OutEnc>({rows, cols}, row_pos, out, space);
}

}  // namespace tessera::kernels::impl
