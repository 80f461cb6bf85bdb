#pragma once
// Row-wise (Gustavson) SpGEMM, C = A * B with A, B and C row-major, in two passes
// over nnz-balanced chunks of rows: pass 1 finds every row's length, a prefix sum
// turns the lengths into C's pos array, and pass 2 puts each row's entries at its
// offset in C's arrays. The result does not depend on the schedule.
//   buffered  pass 1 computes each row into its chunk's buffers, pass 2 copies the
//             chunks (every policy);
//   symbolic  pass 1 counts a row's columns with row stamps only (no values), pass 2
//             computes the row straight into C (Dense policy); chosen when few
//             products fold into each output entry (workspace::RowOutput).
// The Dense policy's accumulator is GustavsonRow below: its column list is built in
// place and ordered through a two-level bitmap of the columns; other policies use
// their first-order workspace (keys = column j).
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
#include "tessera/kernels/spgemm/impl/column_blocks.hpp"
#include "tessera/workspace/growable_array.hpp"
#include "tessera/workspace/key_space.hpp"
#include "tessera/workspace/workspace.hpp"

namespace tessera::kernels::impl {

// The entries of one chunk of rows, concatenated in row order (sparse policies, pass 1).
template <class T, class Ordinal>
struct RowChunk {
  workspace::GrowableArray<Ordinal> crd;  // (entries)
  workspace::GrowableArray<T> vals;       // (entries)
};

// Gustavson's dense accumulator for one output row at a time (one per thread).
// The row's column list is built in place in the output, then ordered by order().
// stamp_[j] == current row's stamp marks column j as touched, so nothing is cleared
// between rows; stamps are a per-thread row counter (restarted, with the stamps
// refilled, before it would overflow).
template <class T, class Ordinal>
class GustavsonRow {
 public:
  GustavsonRow()
      : acc_(&meter_), stamp_(&meter_), column_bits_(&meter_), word_bits_(&meter_), block_stamp_(&meter_),
        block_mask_(&meter_), touched_blocks_(&meter_) {}
  GustavsonRow(const GustavsonRow&) = delete;
  GustavsonRow& operator=(const GustavsonRow&) = delete;

  void reserve(std::int64_t cols) {
    if (cols <= stamp_.capacity()) return;
    acc_.release();
    stamp_.release();
    column_bits_.release();
    word_bits_.release();
    acc_.reserve_exact(cols);
    stamp_.reserve_exact(cols);
    const std::int64_t words = (cols >> kWordBits) + 1;
    column_bits_.reserve_exact(words);
    word_bits_.reserve_exact((words >> kWordBits) + 1);
    column_bits_.fill(0);
    word_bits_.fill(0);
    const std::int64_t blocks = (cols >> kColumnBlockBits) + 1;
    block_stamp_.release();
    block_mask_.release();
    touched_blocks_.release();
    block_stamp_.reserve_exact(blocks);
    block_mask_.reserve_exact(blocks);
    touched_blocks_.reserve_exact(blocks);
    stamp_.fill(-1);
    block_stamp_.fill(-1);
    row_ = 0;
  }

  // The number of entries of row i of A * B (its distinct columns).
  template <class MA, class MB>
  std::int64_t count(const MA& A, const MB& B, std::int64_t i) {
    if (A.end(i) - A.begin(i) == 1) return B.end(A.crd[A.begin(i)]) - B.begin(A.crd[A.begin(i)]);
    const std::int32_t stamp = next_stamp();
    std::int32_t* mark = stamp_.data();
    std::int64_t n = 0;
    for (std::int64_t q = A.begin(i); q < A.end(i); ++q) {
      const std::int64_t k = A.crd[q];
      for (std::int64_t r = B.begin(k); r < B.end(k); ++r) {
        const Ordinal j = B.crd[r];
        n += mark[j] != stamp;
        mark[j] = stamp;
      }
    }
    return n;
  }

  // count(A, B, i) from B's column blocks: one OR per block of 32 columns a product
  // touches, then a popcount per distinct block.
  template <class MA, class MB>
  std::int64_t count_blocks(const MA& A, const MB& B, const ColumnBlocks& blocks, std::int64_t i) {
    if (A.end(i) - A.begin(i) == 1) return B.end(A.crd[A.begin(i)]) - B.begin(A.crd[A.begin(i)]);
    const std::int32_t stamp = next_stamp();
    std::int32_t* mark = block_stamp_.data();
    std::uint32_t* bits = block_mask_.data();
    std::int32_t* touched = touched_blocks_.data();
    const std::int32_t* block = blocks.block.data();
    const std::uint32_t* mask = blocks.mask.data();
    std::int64_t t = 0;
    for (std::int64_t q = A.begin(i); q < A.end(i); ++q) {
      const std::int64_t k = A.crd[q];
      for (std::int64_t e = B.begin(k); e < blocks.end[k]; ++e) {
        const std::int32_t b = block[e];
        if (mark[b] != stamp) {
          mark[b] = stamp;
          bits[b] = mask[e];
          touched[t++] = b;
        } else {
          bits[b] |= mask[e];
        }
      }
    }
    std::int64_t n = 0;
    for (std::int64_t u = 0; u < t; ++u) n += __builtin_popcount(bits[touched[u]]);
    return n;
  }

  // Row i of A * B into crd[0, n), vals[0, n), sorted by column; returns n, which is
  // count(A, B, i). crd and vals hold at least that many entries.
  template <class MA, class MB>
  std::int64_t row(const MA& A, const MB& B, std::int64_t i, Ordinal* crd, T* vals) {
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
    const std::int32_t stamp = next_stamp();
    std::int32_t* mark = stamp_.data();
    T* acc = acc_.data();
    std::int64_t n = 0;
    const std::int64_t a_nnz = A.pos[A.outer_extent];
    for (std::int64_t q = A.begin(i); q < A.end(i); ++q) {
      const std::int64_t k = A.crd[q];
      const T a = A.vals[q];
      if (q + kPrefetchDistance < a_nnz) {
        const std::int64_t ahead = B.begin(A.crd[q + kPrefetchDistance]);
        __builtin_prefetch(B.crd + ahead);
        __builtin_prefetch(B.vals + ahead);
      }
      for (std::int64_t r = B.begin(k); r < B.end(k); ++r) {
        const Ordinal j = B.crd[r];
        if (mark[j] != stamp) {
          mark[j] = stamp;
          acc[j] = a * B.vals[r];
          crd[n++] = j;
        } else {
          acc[j] += a * B.vals[r];
        }
      }
    }
    if (n > 1) order(crd, n);
    for (std::int64_t t = 0; t < n; ++t) vals[t] = acc[crd[t]];
    return n;
  }

  std::int64_t peak_bytes() const { return meter_.peak(); }

 private:
  // A stamp no column (and no block) holds yet.
  std::int32_t next_stamp() {
    if (row_ == std::numeric_limits<std::int32_t>::max()) {
      stamp_.fill(-1);
      block_stamp_.fill(-1);
      row_ = 0;
    }
    return row_++;
  }

  // Sorts the n > 1 distinct columns crd[0, n) through a bitmap of the columns
  // (column_bits_, a bit per column) and a bitmap of its non-zero words (word_bits_):
  // setting the bits is branch-free, and reading them back in order visits the
  // words of word_bits_ over the columns' range (one per 4096 columns), then each
  // non-zero column word once. Comparison sorts of these short rows spent most of
  // their time in mispredicted branches. Reading clears the bits for the next row.
  void order(Ordinal* crd, std::int64_t n) {
    constexpr std::int64_t kLowMask = (std::int64_t{1} << kWordBits) - 1;
    std::uint64_t* column_bits = column_bits_.data();
    std::uint64_t* word_bits = word_bits_.data();
    std::int64_t lo = crd[0], hi = crd[0];
    for (std::int64_t t = 0; t < n; ++t) {
      const std::int64_t j = crd[t], word = j >> kWordBits;
      column_bits[word] |= std::uint64_t{1} << (j & kLowMask);
      word_bits[word >> kWordBits] |= std::uint64_t{1} << (word & kLowMask);
      lo = std::min(lo, j);
      hi = std::max(hi, j);
    }
    std::int64_t m = 0;
    for (std::int64_t top = lo >> (2 * kWordBits); top <= hi >> (2 * kWordBits); ++top) {
      std::uint64_t words = word_bits[top];
      word_bits[top] = 0;
      for (; words != 0; words &= words - 1) {
        const std::int64_t word = (top << kWordBits) + __builtin_ctzll(words);
        std::uint64_t bits = column_bits[word];
        column_bits[word] = 0;
        const std::int64_t base = word << kWordBits;
        for (; bits != 0; bits &= bits - 1) crd[m++] = static_cast<Ordinal>(base + __builtin_ctzll(bits));
      }
    }
  }

  // row() asks for the start of the row of B (columns and values) that A's entry
  // q + kPrefetchDistance (in this row of A or the next ones) multiplies: rows of B
  // are visited in A's column order, too scattered for the hardware prefetcher. The
  // prefetch sits in row()'s loop itself: GCC 12 deletes a call to a helper that holds
  // only prefetches, as free of side effects.
  static constexpr std::int64_t kPrefetchDistance = 4;

  static constexpr int kWordBits = 6;  // 64 bits per bitmap word

  workspace::ByteMeter meter_;
  workspace::GrowableArray<T> acc_;                // (cols)
  workspace::GrowableArray<std::int32_t> stamp_;  // (cols)
  workspace::GrowableArray<std::uint64_t> column_bits_;  // (cols / 64 + 1) order(), zero between rows
  workspace::GrowableArray<std::uint64_t> word_bits_;    // (cols / 4096 + 1)
  workspace::GrowableArray<std::int32_t> block_stamp_;    // (cols / 32 + 1) count_blocks()
  workspace::GrowableArray<std::uint32_t> block_mask_;    // (cols / 32 + 1)
  workspace::GrowableArray<std::int32_t> touched_blocks_;  // (cols / 32 + 1)
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

// C (row-major, {Dense|Compressed, Compressed}) from C's row offsets `row_pos` (CSR's
// pos, rows + 1) and its column and value arrays.
template <class T, class OutEnc, class Space>
Tensor<T, OutEnc, Space> rows_to_tensor(const Shape<2>& shape, typename Tensor<T, OutEnc, Space>::pos_view row_pos,
                                        typename Tensor<T, OutEnc, Space>::crd_view crd,
                                        typename Tensor<T, OutEnc, Space>::vals_view vals) {
  using Result = Tensor<T, OutEnc, Space>;
  using Offset = typename OutEnc::offset_type;
  const std::int64_t rows = shape[0];
  typename Result::Storage s;
  s.levels[1].crd = crd;
  s.vals = vals;
  const Offset* pos = row_pos.data();
  if constexpr (OutEnc::level_kinds[0] == LevelKind::Dense) {
    s.levels[1].pos = row_pos;
  } else {
    // DCSR: only rows with entries are stored.
    std::int64_t stored = 0;
    for (std::int64_t r = 0; r < rows; ++r) stored += pos[r + 1] > pos[r];
    s.levels[0].pos = typename Result::pos_view("tessera::pos0", 2);
    s.levels[0].pos(1) = static_cast<Offset>(stored);
    s.levels[0].crd = typename Result::crd_view(Kokkos::view_alloc(Kokkos::WithoutInitializing, "tessera::crd0"), stored);
    s.levels[1].pos = typename Result::pos_view(Kokkos::view_alloc(Kokkos::WithoutInitializing, "tessera::pos1"),
                                                stored + 1);
    s.levels[1].pos(0) = 0;
    for (std::int64_t r = 0, p = 0; r < rows; ++r)
      if (pos[r + 1] > pos[r]) {
        s.levels[0].crd(p) = static_cast<typename OutEnc::ordinal_type>(r);
        s.levels[1].pos(++p) = pos[r + 1];
      }
  }
  return Result(shape, std::move(s));
}

// Output entries per product of A * B over an evenly spaced sample of rows (1 when
// there is nothing to sample), counted with one accumulator. The sample runs on one
// thread before the parallel passes, so its products are kept to about 1/32 of one
// thread's share of the call (4 to 512 rows).
template <class T, class Ordinal, class MA, class MB, class Products>
double sampled_output_per_product(GustavsonRow<T, Ordinal>& ws, const MA& A, const MB& B, std::int64_t rows,
                                  std::int64_t total_products, std::int64_t threads, const Products& products) {
  const double per_row = std::max(1.0, static_cast<double>(total_products) / static_cast<double>(rows));
  const double budget = static_cast<double>(total_products) / (32.0 * static_cast<double>(threads));
  const std::int64_t sample = std::clamp<std::int64_t>(static_cast<std::int64_t>(budget / per_row), 4, 512);
  const std::int64_t stride = std::max<std::int64_t>(1, rows / sample);
  std::int64_t made = 0, distinct = 0;
  for (std::int64_t i = stride / 2; i < rows; i += stride) {
    made += products(i);
    distinct += ws.count(A, B, i);
  }
  return made == 0 ? 1.0 : static_cast<double>(distinct) / static_cast<double>(made);
}

// A and B are HostMatrix views with a Dense outer level (CSR); a_pos is A's pos View.
template <class Policy, class T, class OutEnc, class Space, class MA, class MB, class PosView>
Tensor<T, OutEnc, Space> spgemm_rowwise(const Space& space, const MA& A, const PosView& a_pos, const MB& B,
                                        const workspace::IsmOptions& options, workspace::RowOutput row_output,
                                        std::int64_t known_products, workspace::Report* report) {
  using Result = Tensor<T, OutEnc, Space>;
  using Ordinal = typename OutEnc::ordinal_type;
  using Offset = typename OutEnc::offset_type;
  using Accumulator = typename RowAccumulator<Policy, T, Ordinal>::type;
  constexpr bool dense = std::is_same_v<Policy, workspace::Dense>;
  const std::int64_t rows = A.outer_extent, cols = B.inner_extent;
  const workspace::KeySpace<1> row_space({cols});  // checks that columns fit 32 bits
  const auto bounds = balanced_row_chunks(a_pos, rows, host_chunk_count(space));
  const std::int64_t chunks = rows == 0 ? 0 : static_cast<std::int64_t>(bounds.extent(0)) - 1;
  typename Result::pos_view row_pos("tessera::pos1", rows + 1);
  Offset* pos = row_pos.data();
  std::vector<std::unique_ptr<Accumulator>> accumulators(host_thread_slots(space));
  for (auto& acc : accumulators) {
    if constexpr (dense) acc = std::make_unique<Accumulator>();
    else acc = std::make_unique<Accumulator>(options);
  }
  auto products = [&](std::int64_t i) {
    std::int64_t p = 0;
    for (std::int64_t q = A.begin(i); q < A.end(i); ++q) p += B.end(A.crd[q]) - B.begin(A.crd[q]);
    return p;
  };

  // Symbolic: a counting pass costs about half a numeric pass per product (per block
  // of B's columns when B's rows fold into column blocks); buffering costs a write, a
  // page fault and a copy per output entry. Counting first pays off unless many
  // products fold into each output entry.
  bool symbolic = false, by_blocks = false;
  ColumnBlocks blocks;
  if constexpr (dense) {
    if (row_output != workspace::RowOutput::Buffered && rows > 0) {
      const double columns_per_block = sampled_columns_per_block(B);
      by_blocks = columns_per_block >= 2.0;
      symbolic = row_output == workspace::RowOutput::Symbolic;
      if (!symbolic) {
        std::int64_t total_products = known_products;
        if (total_products < 0)
          Kokkos::parallel_reduce(
              "tessera::spgemm[rowwise,products]", Kokkos::RangePolicy<Space>(space, 0, rows),
              [&](std::int64_t i, std::int64_t& sum) { sum += products(i); }, total_products);
        accumulators[0]->reserve(cols);
        const double out_per_product = sampled_output_per_product(*accumulators[0], A, B, rows, total_products,
                                                                  host_threads(space), products);
        symbolic = out_per_product * std::max(columns_per_block, 1.0) > workspace::kSymbolicMinOutputPerProduct;
      }
      if (symbolic && by_blocks) blocks = column_blocks(space, B);
    }
  }

  // Row i of A * B into crd[0, n), vals[0, n) sorted by column; returns n. The arrays
  // hold at least min(products(i), cols) entries.
  auto compute_row = [&](Accumulator& ws, std::int64_t i, Ordinal* crd, T* vals) -> std::int64_t {
    if constexpr (dense) {
      return ws.row(A, B, i, crd, vals);
    } else {
      ws.reset(row_space, std::min(products(i), cols));
      for (std::int64_t q = A.begin(i); q < A.end(i); ++q) {
        const std::int64_t k = A.crd[q];
        const T a = A.vals[q];
        for (std::int64_t r = B.begin(k); r < B.end(k); ++r) ws.add(B.crd[r], a * B.vals[r]);
      }
      std::int64_t n = 0;
      ws.drain([&](std::int64_t j, T v) {
        crd[n] = static_cast<Ordinal>(j);
        vals[n++] = v;
      });
      return n;
    }
  };

  // Pass 1: row i's length into pos[i + 1]; buffered rows also land in their chunk.
  std::vector<RowChunk<T, Ordinal>> out(symbolic ? 0 : chunks);
  for_each_chunk(space, chunks, "tessera::spgemm[rowwise,pass1]", [&](std::int64_t c, std::int64_t thread) {
    Accumulator& ws = *accumulators[thread];
    if constexpr (dense) ws.reserve(cols);
    if (symbolic) {
      if constexpr (dense)
        for (std::int64_t i = bounds(c); i < bounds(c + 1); ++i)
          pos[i + 1] = static_cast<Offset>(by_blocks ? ws.count_blocks(A, B, blocks, i) : ws.count(A, B, i));
      return;
    }
    RowChunk<T, Ordinal>& chunk = out[c];
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
      const std::int64_t n = compute_row(ws, i, chunk.crd.data() + at, chunk.vals.data() + at);
      chunk.crd.resize(at + n);
      chunk.vals.resize(at + n);
      pos[i + 1] = static_cast<Offset>(n);
    }
  });

  std::int64_t nnz = 0;
  for (std::int64_t r = 0; r < rows; ++r) {
    nnz += pos[r + 1];
    pos[r + 1] = static_cast<Offset>(nnz);
  }
  tessera::detail::check_fits<Offset>(nnz, "number of entries");
  typename Result::crd_view crd(Kokkos::view_alloc(Kokkos::WithoutInitializing, "tessera::crd1"), nnz);
  typename Result::vals_view vals(Kokkos::view_alloc(Kokkos::WithoutInitializing, "tessera::vals"), nnz);

  // Pass 2: the entries of rows [bounds(c), bounds(c + 1)) at pos[bounds(c)]. The
  // dynamic schedule may hand a chunk to a thread whose accumulator pass 1 never
  // sized, hence the reserve.
  for_each_chunk(space, chunks, "tessera::spgemm[rowwise,pass2]", [&](std::int64_t c, std::int64_t thread) {
    if (symbolic) {
      if constexpr (dense) {
        Accumulator& ws = *accumulators[thread];
        ws.reserve(cols);
        for (std::int64_t i = bounds(c); i < bounds(c + 1); ++i)
          if (pos[i + 1] > pos[i]) ws.row(A, B, i, crd.data() + pos[i], vals.data() + pos[i]);
      }
      return;
    }
    const RowChunk<T, Ordinal>& chunk = out[c];
    const Offset at = pos[bounds(c)];
    std::copy(chunk.crd.data(), chunk.crd.data() + chunk.crd.size(), crd.data() + at);
    std::copy(chunk.vals.data(), chunk.vals.data() + chunk.vals.size(), vals.data() + at);
  });
  if (report) {
    report->peak_bytes = 0;
    for (const auto& acc : accumulators) report->peak_bytes += acc->peak_bytes();
    report->peak_bytes += blocks.end.capacity() * 8 + blocks.block.capacity() * 4 + blocks.mask.capacity() * 4;
    report->policy = workspace::policy_name<Policy>;
  }
  return rows_to_tensor<T, OutEnc, Space>({rows, cols}, row_pos, crd, vals);
}

}  // namespace tessera::kernels::impl
