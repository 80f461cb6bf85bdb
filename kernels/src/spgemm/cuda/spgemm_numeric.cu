// spgemm_numeric: the numeric phase of the row-wise SpGEMM, one launch per bin of the plan.
#include <algorithm>
#include <string>

#include <cub/block/block_scan.cuh>

#include "../../common/stream_fork.hpp"
#include "spgemm_rows_launch.cuh"
#include "tessera/core/error.hpp"

namespace tessera::kernels::cuda {
namespace {

using namespace spgemm_detail;

// Numeric phase, one bin of hash-table rows: accumulate, order the entries (ranks for a group's
// small table, a bitonic sort for a block's), write the row out.
template <class T, int G>
__global__ void __launch_bounds__(1024)
    numeric_hash(SpgemmArgs args, const void* c_pos, int* c_crd, T* c_vals, const int* __restrict__ rows,
                 std::int64_t count, int table_log2, bool write_crd) {
  using Grp = Group<G>;
  extern __shared__ __align__(16) unsigned char shared_table[];
  const int slots = 1 << table_log2;
  const unsigned mask = static_cast<unsigned>(slots - 1);
  const unsigned multiplier = hash_multiplier(slots, args.cols);
  T* vals = reinterpret_cast<T*>(shared_table) + Grp::index() * slots;
  unsigned* keys = reinterpret_cast<unsigned*>(reinterpret_cast<T*>(shared_table) + Grp::per_block() * slots) +
                   Grp::index() * slots;
  const std::int64_t item = std::int64_t{blockIdx.x} * Grp::per_block() + Grp::index();
  const std::int64_t row = item < count ? rows[item] : -1;
  for (int s = Grp::rank(); s < slots; s += Grp::size()) {
    keys[s] = kEmpty;
    vals[s] = T(0);
  }
  Grp::sync();
  if (row >= 0)
    for_each_product_value<T>(args, row, Grp::rank(), Grp::size(),
                              [&](unsigned col, T value) { insert_add(keys, vals, mask, multiplier, col, value); });
  Grp::sync();
  const std::int64_t begin = row >= 0 ? load_offset(c_pos, args.c_wide, row) : 0;
  if constexpr (G != 0) {
    // Small tables: ranks computed over the compacted entries cost less than a sort network; a
    // table with a slot per column is in order once compacted.
    const int count = compact_table<G>(keys, vals, slots);
    if (multiplier == 1) {
      for (int e = Grp::rank(); e < count; e += G) {
        if (write_crd) c_crd[begin + e] = static_cast<int>(keys[e]);
        c_vals[begin + e] = vals[e];
      }
    } else {
      write_ranked<G>(keys, vals, count, write_crd ? c_crd + begin : nullptr, c_vals + begin);
    }
  } else if (multiplier == 1) {
    __shared__ int warp_sums[32];
    write_in_slot_order(keys, vals, slots, write_crd ? c_crd + begin : nullptr, c_vals + begin, warp_sums);
  } else {
    bitonic_sort<Grp>(keys, vals, slots);
    if (row >= 0) {
      const std::int64_t length = load_offset(c_pos, args.c_wide, row + 1) - begin;
      for (int s = Grp::rank(); s < length; s += Grp::size()) {
        if (write_crd) c_crd[begin + s] = static_cast<int>(keys[s]);
        c_vals[begin + s] = vals[s];
      }
    }
  }
}

// Numeric phase into a known pattern (an SpgemmHandle's later products), one bin of rows that
// fit shared memory: the row's sorted column ids are staged, each product finds its entry by
// binary search and adds to it, and the values are written out in order.
template <class T, int G>
__global__ void __launch_bounds__(1024)
    numeric_into_pattern(SpgemmArgs args, const void* c_pos, const int* __restrict__ c_crd, T* c_vals,
                         const int* __restrict__ rows, std::int64_t count, int table_log2) {
  using Grp = Group<G>;
  extern __shared__ __align__(16) unsigned char shared_table[];
  const int slots = 1 << table_log2;
  T* vals = reinterpret_cast<T*>(shared_table) + Grp::index() * slots;
  int* cols = reinterpret_cast<int*>(reinterpret_cast<T*>(shared_table) + Grp::per_block() * slots) +
              Grp::index() * slots;
  const std::int64_t item = std::int64_t{blockIdx.x} * Grp::per_block() + Grp::index();
  const std::int64_t row = item < count ? rows[item] : -1;
  std::int64_t begin = 0;
  int length = 0;
  if (row >= 0) {
    begin = load_offset(c_pos, args.c_wide, row);
    length = static_cast<int>(load_offset(c_pos, args.c_wide, row + 1) - begin);
  }
  for (int s = Grp::rank(); s < length; s += Grp::size()) {
    cols[s] = __ldg(c_crd + begin + s);
    vals[s] = T(0);
  }
  Grp::sync();
  if (row >= 0)
    for_each_product_value<T>(args, row, Grp::rank(), Grp::size(), [&](unsigned col, T value) {
      int lo = 0, hi = length - 1;  // the column is in the row: the pattern came from these operands
      while (lo < hi) {
        const int mid = (lo + hi) >> 1;
        if (static_cast<unsigned>(cols[mid]) < col) lo = mid + 1;
        else hi = mid;
      }
      atomicAdd(vals + lo, value);
    });
  Grp::sync();
  for (int s = Grp::rank(); s < length; s += Grp::size()) c_vals[begin + s] = vals[s];
}

using WriteScan = cub::BlockScan<int, kDenseThreads>;

// Writes out the row marked in `bits` and `dense` over words [s.lo, s.hi] and clears them: each
// thread reads a contiguous run of the words, at the place a block scan of their counts gives it,
// so the row comes out sorted. Every thread of the block calls it.
template <class T>
__device__ void write_marked_row(const SpgemmArgs& args, int row, WordSpan s, unsigned* bits, T* dense,
                                 const void* c_pos, int* c_crd, T* c_vals,
                                 typename WriteScan::TempStorage& scan) {
  const int span_words = max(s.hi - s.lo + 1, 0);
  const int run = (span_words + kDenseThreads - 1) / kDenseThreads;
  const int first = s.lo + static_cast<int>(threadIdx.x) * run;
  const int last = min(first + run, s.hi + 1);
  int mine = 0;
  for (int w = first; w < last; ++w) mine += __popc(bits[w]);
  int at = 0;
  WriteScan(scan).ExclusiveSum(mine, at);
  std::int64_t out = load_offset(c_pos, args.c_wide, row) + at;
  for (int w = first; w < last; ++w) {
    for (unsigned b = bits[w]; b; b &= b - 1) {
      const int col = w * 32 + __ffs(b) - 1;
      c_crd[out] = col;
      c_vals[out] = dense[col];
      dense[col] = T(0);
      ++out;
    }
    bits[w] = 0;
  }
}

// Numeric phase, rows too long for shared memory: values in a dense array and columns in a bitmap
// per block in global memory (zero between rows).
template <class T>
__global__ void __launch_bounds__(kDenseThreads)
    numeric_dense(SpgemmArgs args, const void* c_pos, int* c_crd, T* c_vals, const int* __restrict__ rows,
                  std::int64_t count, unsigned* bitmaps, T* dense_all, std::int64_t words) {
  __shared__ typename WriteScan::TempStorage scan;
  __shared__ WordSpan span;
  unsigned* bits = bitmaps + blockIdx.x * words;
  T* dense = dense_all + blockIdx.x * (words * 32);
  for (std::int64_t item = blockIdx.x; item < count; item += gridDim.x) {
    const int row = rows[item];
    const WordSpan s = mark_row(args, row, bits, dense, &span);
    write_marked_row(args, row, s, bits, dense, c_pos, c_crd, c_vals, scan);
    __syncthreads();
  }
}

// Numeric phase, split rows: a block per piece of a row (grid row y: the batch's row y) adds its
// products into the row's dense array and marks their columns in its bitmap...
template <class T>
__global__ void __launch_bounds__(kDenseThreads)
    numeric_split_mark(SpgemmArgs args, const int* __restrict__ rows, unsigned* bitmaps, T* dense_all,
                       unsigned* spans, std::int64_t words) {
  __shared__ WordSpan span;
  std::int64_t begin = 0, end = 0;
  if (!piece_of_row(args, rows[blockIdx.y], static_cast<int>(blockIdx.x), &begin, &end)) return;
  const WordSpan s = mark_products(args, begin, end, bitmaps + blockIdx.y * words,
                                   dense_all + blockIdx.y * (words * 32), &span);
  record_span(spans + 2 * blockIdx.y, words, s);
}

// ...then a block per row writes it out.
template <class T>
__global__ void __launch_bounds__(kDenseThreads)
    numeric_split_write(SpgemmArgs args, const void* c_pos, int* c_crd, T* c_vals, const int* __restrict__ rows,
                        unsigned* bitmaps, T* dense_all, unsigned* spans, std::int64_t words) {
  __shared__ typename WriteScan::TempStorage scan;
  const WordSpan s = take_span(spans + 2 * blockIdx.x, words);
  write_marked_row(args, rows[blockIdx.x], s, bitmaps + blockIdx.x * words, dense_all + blockIdx.x * (words * 32),
                   c_pos, c_crd, c_vals, scan);
}

// Adds the products of A's entries [a_begin, a_end) into `dense`, a row's dense array (the whole
// block).
template <class T>
__device__ void add_products(const SpgemmArgs& args, std::int64_t a_begin, std::int64_t a_end, T* dense) {
  const T* a_vals = static_cast<const T*>(args.a_vals);
  const T* b_vals = static_cast<const T*>(args.b_vals);
  const bool rows_per_warp = args.b_lanes < 32;
  for_each_product_in(args, a_begin, a_end, static_cast<int>(threadIdx.x), static_cast<int>(blockDim.x),
                      [&](unsigned col, std::int64_t r, std::int64_t q) {
                        add_to_column(dense, col, __ldg(a_vals + q) * __ldg(b_vals + r), rows_per_warp);
                      });
}

// Copies row `row`'s values out of its dense array at the pattern's columns and zeroes them: the
// entries from `first` on, `stride` apart. With `add`, the values are added to C's instead (a
// piece of a split row; the sums of its other pieces meet there).
template <class T>
__device__ void gather_row(const SpgemmArgs& args, const void* c_pos, const int* __restrict__ c_crd, T* c_vals,
                           int row, T* dense, std::int64_t first, std::int64_t stride, bool add = false) {
  const std::int64_t end = load_offset(c_pos, args.c_wide, row + 1);
  for (std::int64_t s = load_offset(c_pos, args.c_wide, row) + first; s < end; s += stride) {
    const int col = __ldg(c_crd + s);
    const T value = dense[col];
    if (!add)
      c_vals[s] = value;
    else if (value != T(0))
      atomicAdd(c_vals + s, value);
    dense[col] = T(0);  // after the use: a store right behind the load of one address stalls the gather
  }
}

// Into a known pattern (an SpgemmHandle's later products), split rows need no bitmap: a block per
// piece of a row adds its products into the row's dense array...
template <class T>
__global__ void __launch_bounds__(kDenseThreads)
    numeric_split_add(SpgemmArgs args, const int* __restrict__ rows, T* dense_all, std::int64_t words) {
  std::int64_t begin = 0, end = 0;
  if (!piece_of_row(args, rows[blockIdx.y], static_cast<int>(blockIdx.x), &begin, &end)) return;
  add_products(args, begin, end, dense_all + blockIdx.y * (words * 32));
}

// ...then the blocks of grid row y gather row y's values at the pattern's columns, zeroing them
// for the batch's next rows (a row of C of many entries is written by many blocks, not one).
template <class T>
__global__ void __launch_bounds__(kDenseThreads)
    numeric_split_gather(SpgemmArgs args, const void* c_pos, const int* __restrict__ c_crd, T* c_vals,
                         const int* __restrict__ rows, T* dense_all, std::int64_t words) {
  gather_row(args, c_pos, c_crd, c_vals, rows[blockIdx.y], dense_all + blockIdx.y * (words * 32),
             std::int64_t{blockIdx.x} * blockDim.x + threadIdx.x, std::int64_t{gridDim.x} * blockDim.x);
}

// Into a known pattern, the rows of the dense accumulator need no bitmap either: a block adds a
// row's products into its dense array and gathers them at the pattern's columns.
template <class T>
__global__ void __launch_bounds__(kDenseThreads)
    numeric_dense_into_pattern(SpgemmArgs args, const void* c_pos, const int* __restrict__ c_crd, T* c_vals,
                               const int* __restrict__ rows, std::int64_t count, T* dense_all, std::int64_t words) {
  T* dense = dense_all + blockIdx.x * (words * 32);
  for (std::int64_t item = blockIdx.x; item < count; item += gridDim.x) {
    const int row = rows[item];
    add_products(args, load_offset(args.a_pos, args.a_wide, row), load_offset(args.a_pos, args.a_wide, row + 1),
                 dense);
    __syncthreads();
    gather_row(args, c_pos, c_crd, c_vals, row, dense, threadIdx.x, blockDim.x);
    __syncthreads();
  }
}

// Into a known pattern, when C's columns fit a block's shared memory: a dense array of them per
// block takes a row's products with shared atomics, then the row's values are gathered at the
// pattern's columns, which zeroes the array for the block's next row (no hashing, no search).
// Blocks stride over the rows; with `split`, grid row y takes split row y and the block the piece
// blockIdx.x of its row of A, adding into C's values (zeroed beforehand) if the row has more.
template <class T>
__global__ void __launch_bounds__(1024)
    numeric_shared_dense(SpgemmArgs args, const void* c_pos, const int* __restrict__ c_crd, T* c_vals,
                         const int* __restrict__ rows, std::int64_t count, bool split) {
  extern __shared__ __align__(16) unsigned char shared_table[];
  T* dense = reinterpret_cast<T*>(shared_table);
  const T* a_vals = static_cast<const T*>(args.a_vals);
  const T* b_vals = static_cast<const T*>(args.b_vals);
  for (std::int64_t c = threadIdx.x; c < args.cols; c += blockDim.x) dense[c] = T(0);
  __syncthreads();
  const std::int64_t step = split ? gridDim.y : gridDim.x;
  for (std::int64_t item = split ? blockIdx.y : blockIdx.x; item < count; item += step) {
    const int row = rows[item];
    std::int64_t begin = load_offset(args.a_pos, args.a_wide, row);
    std::int64_t end = load_offset(args.a_pos, args.a_wide, row + 1);
    const bool many_pieces = split && pieces_of(end - begin) > 1;
    if (split && !piece_of_row(args, row, static_cast<int>(blockIdx.x), &begin, &end)) continue;
    // Lanes adding to one column wait on each other in shared memory: cheaper than matching them
    // first (add_to_column), which global memory needs.
    for_each_product_in(args, begin, end, threadIdx.x, blockDim.x,
                        [&](unsigned col, std::int64_t r, std::int64_t q) {
                          atomicAdd(dense + col, __ldg(a_vals + q) * __ldg(b_vals + r));
                        });
    __syncthreads();
    gather_row(args, c_pos, c_crd, c_vals, row, dense, threadIdx.x, blockDim.x, many_pieces);
    __syncthreads();
  }
}

// Zeroes C's values in the rows listed, a block per row.
template <class T>
__global__ void zero_row_values(SpgemmArgs args, const void* c_pos, T* c_vals, const int* __restrict__ rows) {
  const int row = rows[blockIdx.x];
  const std::int64_t end = load_offset(c_pos, args.c_wide, row + 1);
  for (std::int64_t s = load_offset(c_pos, args.c_wide, row) + threadIdx.x; s < end; s += blockDim.x)
    c_vals[s] = T(0);
}

// Shared memory a numeric_shared_dense block takes beside its static arrays.
template <class T>
std::size_t shared_dense_bytes(const SpgemmArgs& args) {
  return static_cast<std::size_t>(args.cols) * sizeof(T);
}

// Whether numeric_shared_dense runs the rows into a known pattern: C's columns fit two blocks of
// a multiprocessor (the staging arrays of for_each_product_of_block beside them).
template <class T>
bool shared_dense_fits(const SpgemmArgs& args) {
  constexpr std::size_t kStaticBytes = 8 << 10;
  return 2 * (shared_dense_bytes<T>(args) + kStaticBytes) <= device_info().max_shared_per_sm;
}

// Whether it takes a bin of block tables of 2^log2 slots: its array costs at most twice the
// shared memory of their table, so at least half as many rows run at a time.
template <class T>
bool shared_dense_takes_table(const SpgemmArgs& args, int log2) {
  return shared_dense_bytes<T>(args) <= 2 * ((sizeof(T) + sizeof(unsigned)) << log2);
}

// numeric_shared_dense over `count` rows of `threads`-thread blocks, as many blocks as run at once.
template <class T>
void launch_shared_dense(const SpgemmArgs& args, const void* c_pos, const int* c_crd, T* c_vals, const int* rows,
                         std::int64_t count, int threads, cudaStream_t stream) {
  allow_large_tables(numeric_shared_dense<T>);
  const std::size_t shared = shared_dense_bytes<T>(args);
  int per_sm = 0;
  TESSERA_CUDA_CHECK(
      cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, numeric_shared_dense<T>, threads, shared));
  const auto blocks = static_cast<unsigned>(
      std::min<std::int64_t>(count, std::int64_t{std::max(per_sm, 1)} * device_info().sms));
  numeric_shared_dense<T><<<blocks, threads, shared, stream>>>(args, c_pos, c_crd, c_vals, rows, count, false);
  TESSERA_CUDA_CHECK_LAUNCH("tessera::spgemm numeric_shared_dense");
}

// The split rows through numeric_shared_dense, a block per piece of a row.
template <class T>
void split_shared_dense(const SpgemmPlan& plan, const SpgemmArgs& args, const void* c_pos, const int* c_crd,
                        T* c_vals, cudaStream_t stream) {
  const std::vector<std::int64_t>& starts = plan.bin_starts();
  const std::int64_t split_rows = starts[kSplitBin + 1] - starts[kSplitBin];
  allow_large_tables(numeric_shared_dense<T>);
  for (std::int64_t first = 0; first < split_rows; first += kMaxGridRows) {
    const auto n = static_cast<unsigned>(std::min(kMaxGridRows, split_rows - first));
    const int* rows = plan.binned_rows() + starts[kSplitBin] + first;
    zero_row_values<T><<<n, kDenseThreads, 0, stream>>>(args, c_pos, c_vals, rows);
    TESSERA_CUDA_CHECK_LAUNCH("tessera::spgemm zero_row_values");
    numeric_shared_dense<T><<<dim3(plan.split_pieces(), n), kDenseThreads, shared_dense_bytes<T>(args), stream>>>(
        args, c_pos, c_crd, c_vals, rows, n, true);
    TESSERA_CUDA_CHECK_LAUNCH("tessera::spgemm numeric_shared_dense");
  }
}

// Words of a dense accumulator's bitmap, rounded up so that consecutive bitmaps and value arrays
// stay aligned.
inline std::int64_t accumulator_words(std::int64_t cols) {
  return aligned((cols + 31) / 32 * sizeof(unsigned)) / sizeof(unsigned);
}

// The split rows into a known pattern (numeric_split_add, numeric_split_gather), as many at a
// time as the memory budget allows.
template <class T>
std::size_t numeric_split_into_pattern(const SpgemmPlan& plan, const SpgemmArgs& args, const void* c_pos,
                                       const int* c_crd, T* c_vals, cudaStream_t stream) {
  const std::vector<std::int64_t>& starts = plan.bin_starts();
  const std::int64_t split_rows = starts[kSplitBin + 1] - starts[kSplitBin];
  const std::int64_t words = accumulator_words(args.cols);
  const std::size_t per_row = words * 32 * sizeof(T);
  const std::int64_t batch = split_batch(split_rows, per_row, args.dense_budget_bytes);
  formats::cuda::DeviceScratch scratch("tessera::spgemm split accumulators", batch * per_row, stream);
  TESSERA_CUDA_CHECK(cudaMemsetAsync(scratch.data(), 0, scratch.size(), stream));
  T* dense = static_cast<T*>(scratch.data());
  for (std::int64_t first = 0; first < split_rows; first += batch) {
    const auto n = static_cast<unsigned>(std::min(batch, split_rows - first));
    const int* rows = plan.binned_rows() + starts[kSplitBin] + first;
    const dim3 grid(plan.split_pieces(), n);
    numeric_split_add<T><<<grid, kDenseThreads, 0, stream>>>(args, rows, dense, words);
    TESSERA_CUDA_CHECK_LAUNCH("tessera::spgemm numeric_split_add");
    numeric_split_gather<T><<<grid, kDenseThreads, 0, stream>>>(args, c_pos, c_crd, c_vals, rows, dense, words);
    TESSERA_CUDA_CHECK_LAUNCH("tessera::spgemm numeric_split_gather");
  }
  return scratch.size();
}

// The split rows, as many at a time as the memory budget allows.
template <class T>
std::size_t numeric_split(const SpgemmPlan& plan, const SpgemmArgs& args, const void* c_pos, int* c_crd, T* c_vals,
                          bool write_crd, cudaStream_t stream) {
  const std::vector<std::int64_t>& starts = plan.bin_starts();
  const std::int64_t split_rows = starts[kSplitBin + 1] - starts[kSplitBin];
  if (!split_rows) return 0;
  if (!write_crd && shared_dense_fits<T>(args)) {
    split_shared_dense(plan, args, c_pos, c_crd, c_vals, stream);
    return 0;
  }
  if (!write_crd) return numeric_split_into_pattern(plan, args, c_pos, c_crd, c_vals, stream);
  const std::int64_t words = accumulator_words(args.cols);
  const std::size_t bitmap_bytes = words * sizeof(unsigned);
  // A bitmap, a dense array and a span record per row of a batch.
  const std::size_t per_row = bitmap_bytes + words * 32 * sizeof(T) + 2 * sizeof(unsigned);
  const std::int64_t batch = split_batch(split_rows, per_row, args.dense_budget_bytes);
  formats::cuda::DeviceScratch scratch("tessera::spgemm split accumulators", batch * per_row, stream);
  TESSERA_CUDA_CHECK(cudaMemsetAsync(scratch.data(), 0, scratch.size(), stream));
  auto* bitmaps = static_cast<unsigned*>(scratch.data());
  T* dense = reinterpret_cast<T*>(static_cast<char*>(scratch.data()) + batch * bitmap_bytes);
  auto* spans = reinterpret_cast<unsigned*>(dense + batch * words * 32);
  for (std::int64_t first = 0; first < split_rows; first += batch) {
    const auto n = static_cast<unsigned>(std::min(batch, split_rows - first));
    const int* rows = plan.binned_rows() + starts[kSplitBin] + first;
    numeric_split_mark<T><<<dim3(plan.split_pieces(), n), kDenseThreads, 0, stream>>>(args, rows, bitmaps, dense,
                                                                                      spans, words);
    TESSERA_CUDA_CHECK_LAUNCH("tessera::spgemm numeric_split_mark");
    numeric_split_write<T><<<n, kDenseThreads, 0, stream>>>(args, c_pos, c_crd, c_vals, rows, bitmaps, dense, spans,
                                                            words);
    TESSERA_CUDA_CHECK_LAUNCH("tessera::spgemm numeric_split_write");
  }
  return scratch.size();
}

template <class T>
std::size_t numeric_dense_rows(const SpgemmPlan& plan, const SpgemmArgs& args, const void* c_pos, int* c_crd,
                               T* c_vals, bool write_crd, cudaStream_t stream);

// The table bins side by side; the dense and split rows on the caller's stream meanwhile.
template <class T>
std::size_t numeric_bins(const SpgemmPlan& plan, const SpgemmArgs& args, const void* c_pos, int* c_crd, T* c_vals,
                         bool write_crd, cudaStream_t stream) {
  const std::vector<std::int64_t>& starts = plan.bin_starts();
  const int* binned = plan.binned_rows();
  StreamFork fork(stream);
  const bool shared_dense = !write_crd && shared_dense_fits<T>(args);
  for_each_table_bin(starts, [&](auto g, std::int64_t first, std::int64_t count, int log2, BinLaunch launch) {
    constexpr int G = decltype(g)::value;
    if (G == 0 && shared_dense && shared_dense_takes_table<T>(args, log2)) {
      launch_shared_dense(args, c_pos, c_crd, c_vals, binned + first, count, launch.threads, fork.next());
      return;
    }
    const int per_block = launch.rows_per_block();
    const std::size_t shared = (sizeof(T) + sizeof(unsigned)) * per_block << log2;
    // Into a known pattern, binary searches beat ordering the table, except for a table with a
    // slot per column (in order as it is).
    if (write_crd || (std::int64_t{1} << log2) >= args.cols) {
      allow_large_tables(numeric_hash<T, G>);
      numeric_hash<T, G><<<blocks_for(count, per_block), launch.threads, shared, fork.next()>>>(
          args, c_pos, c_crd, c_vals, binned + first, count, log2, write_crd);
      TESSERA_CUDA_CHECK_LAUNCH("tessera::spgemm numeric_hash");
    } else {
      allow_large_tables(numeric_into_pattern<T, G>);
      numeric_into_pattern<T, G><<<blocks_for(count, per_block), launch.threads, shared, fork.next()>>>(
          args, c_pos, c_crd, c_vals, binned + first, count, log2);
      TESSERA_CUDA_CHECK_LAUNCH("tessera::spgemm numeric_into_pattern");
    }
  });
  const std::size_t split_bytes = numeric_split(plan, args, c_pos, c_crd, c_vals, write_crd, stream);
  const std::size_t dense_bytes = numeric_dense_rows(plan, args, c_pos, c_crd, c_vals, write_crd, stream);
  fork.join();
  return std::max(split_bytes, dense_bytes);
}

// The rows of the dense accumulator, as many at a time as the memory budget allows.
template <class T>
std::size_t numeric_dense_rows(const SpgemmPlan& plan, const SpgemmArgs& args, const void* c_pos, int* c_crd,
                               T* c_vals, bool write_crd, cudaStream_t stream) {
  const std::vector<std::int64_t>& starts = plan.bin_starts();
  const std::int64_t dense_rows = starts[kDenseBin + 1] - starts[kDenseBin];
  if (!dense_rows) return 0;
  const int* rows = plan.binned_rows() + starts[kDenseBin];
  if (!write_crd && shared_dense_fits<T>(args)) {
    launch_shared_dense(args, c_pos, c_crd, c_vals, rows, dense_rows, kDenseThreads, stream);
    return 0;
  }
  const std::int64_t words = accumulator_words(args.cols);
  // Into a known pattern, a dense array per block; else a bitmap too.
  const std::size_t bitmap_bytes = write_crd ? words * sizeof(unsigned) : 0;
  const std::size_t per_block = bitmap_bytes + words * 32 * sizeof(T);
  const unsigned blocks = dense_blocks(dense_rows, per_block, args.dense_budget_bytes);
  formats::cuda::DeviceScratch scratch("tessera::spgemm dense accumulators", blocks * per_block, stream);
  TESSERA_CUDA_CHECK(cudaMemsetAsync(scratch.data(), 0, scratch.size(), stream));
  T* dense = reinterpret_cast<T*>(static_cast<char*>(scratch.data()) + blocks * bitmap_bytes);
  if (write_crd) {
    numeric_dense<T><<<blocks, kDenseThreads, 0, stream>>>(args, c_pos, c_crd, c_vals, rows, dense_rows,
                                                            static_cast<unsigned*>(scratch.data()), dense, words);
    TESSERA_CUDA_CHECK_LAUNCH("tessera::spgemm numeric_dense");
  } else {
    numeric_dense_into_pattern<T><<<blocks, kDenseThreads, 0, stream>>>(args, c_pos, c_crd, c_vals, rows, dense_rows,
                                                                        dense, words);
    TESSERA_CUDA_CHECK_LAUNCH("tessera::spgemm numeric_dense_into_pattern");
  }
  return scratch.size();
}

}  // namespace

std::size_t spgemm_numeric(const SpgemmPlan& plan, const SpgemmArgs& args, const void* c_pos, int* c_crd,
                           void* c_vals, bool write_crd, cudaStream_t stream) {
  require_ok(spgemm_can_implement(args), "tessera::spgemm");
  if (plan.rows() != args.rows)
    throw ShapeError("tessera::spgemm: a plan of " + std::to_string(plan.rows()) + " rows for a product of " +
                     std::to_string(args.rows));
  if (plan.nnz() == 0) return 0;
  if (args.type == SpgemmType::F64)
    return numeric_bins(plan, args, c_pos, c_crd, static_cast<double*>(c_vals), write_crd, stream);
  return numeric_bins(plan, args, c_pos, c_crd, static_cast<float*>(c_vals), write_crd, stream);
}

}  // namespace tessera::kernels::cuda
