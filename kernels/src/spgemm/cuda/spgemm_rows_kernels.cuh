#pragma once
// Device code shared by the two phases of the row-wise SpGEMM (spgemm_rows.hpp): row bins, the
// groups of lanes that take a row, the shared-memory hash tables with their in-place bitonic sort,
// and the bitmap marking of the dense accumulator's rows.
#include <cstdint>

#include "tessera/kernels/spgemm/cuda/spgemm_rows.hpp"

namespace tessera::kernels::cuda::spgemm_detail {

constexpr unsigned kEmpty = 0xffffffffu;  // no column id reaches it (ids are below 2^31)
constexpr int kMinTableLog2 = 5;          // 32 slots
constexpr int kMaxTableLog2 = 14;         // 16384 slots
// Bin 0: rows with no products (nothing to run); bins 1..10: hash tables of 2^5..2^14 slots;
// then the dense accumulator, a block per row; last, the rows of more than kSplitProducts
// products, each spread over blocks that take a piece of its row of A and share its dense
// accumulator (one block would run long after the rest of the device is idle).
constexpr int kDenseBin = kMaxTableLog2 - kMinTableLog2 + 2;
constexpr int kSplitBin = kDenseBin + 1;
constexpr int kBins = kSplitBin + 1;
constexpr int kDenseThreads = 512;
constexpr int kBinThreads = 256;  // threads of the binning kernels
constexpr std::int64_t kSplitProducts = std::int64_t{1} << 16;
// Products per lane of a row's group at most: a row of more gets a larger table, for its lanes
// (bin_launch), even where a smaller one would hold its columns.
constexpr std::int64_t kProductsPerLane = 32;
constexpr std::int64_t kPieceEntries = 1024;  // of A's row per block of a split row

// The blocks of a split row whose row of A has `a_len` entries.
__host__ __device__ inline int pieces_of(std::int64_t a_len) {
  return static_cast<int>(a_len > kPieceEntries ? (a_len + kPieceEntries - 1) / kPieceEntries : 1);
}

__host__ __device__ inline int table_log2_of_bin(int bin) { return bin + kMinTableLog2 - 1; }

__host__ __device__ inline int ceil_log2(std::int64_t x) {
  int l = 0;
  while ((std::int64_t{1} << l) < x) ++l;
  return l;
}

// How rows are binned. A table of at most 2^max_log2 slots; a table with a slot per column keeps
// its row in column order (no sort). A table of 2^dense_from_log2 slots and more that would need
// a sort leaves its row to the dense accumulator when C has at most 2^kDenseColumnsPerSlotLog2
// columns per slot: reading the bitmap out in order then costs less than sorting the table.
struct BinRule {
  std::int64_t cols;    // C's columns
  int max_log2;         // largest table
  int dense_from_log2;  // see above; past max_log2: never
  bool dense_all;       // every row to the dense accumulator
};
constexpr int kDenseColumnsPerSlotLog2 = 5;

// The bin of a row that holds at most `bound` distinct columns: a table at most two thirds full,
// of 2^least_log2 slots at least (a table's size sets its lanes: bin_launch).
__host__ __device__ inline int bin_of(std::int64_t bound, const BinRule& rule, int least_log2 = kMinTableLog2) {
  if (bound == 0) return 0;
  if (rule.dense_all) return kDenseBin;
  int l = max(ceil_log2(bound + bound / 2), least_log2);
  const int all_columns = ceil_log2(rule.cols);
  const bool in_order = all_columns <= l;
  if (in_order) l = max(all_columns, least_log2);
  if (l < kMinTableLog2) l = kMinTableLog2;
  if (l > rule.max_log2) return kDenseBin;
  if (!in_order && l >= rule.dense_from_log2 && rule.cols <= (std::int64_t{1} << (l + kDenseColumnsPerSlotLog2)))
    return kDenseBin;
  return l - kMinTableLog2 + 1;
}

// How a bin's rows are spread over lanes: a group of `group` lanes per row (several groups per
// block of `threads`), or a whole block per row (group 0).
struct BinLaunch {
  int group;
  int threads;
  __host__ __device__ int rows_per_block() const { return group ? threads / group : 1; }
};

__host__ __device__ inline BinLaunch bin_launch(int table_log2) {
  switch (table_log2) {
    case 5: return {8, 256};
    case 6: return {16, 256};
    case 7:
    case 8: return {32, 256};
    case 9: return {0, 128};
    case 10: return {0, 256};
    case 11: return {0, 512};
    default: return {0, 1024};
  }
}

__device__ __forceinline__ std::int64_t load_offset(const void* pos, bool wide, std::int64_t i) {
  return wide ? static_cast<const std::int64_t*>(pos)[i] : std::int64_t{static_cast<const int*>(pos)[i]};
}

__device__ __forceinline__ void store_offset(void* pos, bool wide, std::int64_t i, std::int64_t v) {
  if (wide)
    static_cast<std::int64_t*>(pos)[i] = v;
  else
    static_cast<int*>(pos)[i] = static_cast<int>(v);
}

// The lanes that take one row: G lanes inside a warp (G = 8, 16, 32), or the whole block (G = 0).
template <int G>
struct Group {
  __device__ static int size() { return G ? G : static_cast<int>(blockDim.x); }
  __device__ static int rank() { return G ? static_cast<int>(threadIdx.x) % G : static_cast<int>(threadIdx.x); }
  __device__ static int index() { return G ? static_cast<int>(threadIdx.x) / G : 0; }
  __device__ static int per_block() { return G ? static_cast<int>(blockDim.x) / G : 1; }
  // Every lane of the warp (block) calls it the same number of times, whatever its row.
  __device__ static void sync() {
    if constexpr (G != 0)
      __syncwarp();
    else
      __syncthreads();
  }
};

// The lanes of a warp's sub-group of for_each_product_in (a power of two): as many sub-groups as
// A's row has entries, up to one lane each.
__device__ __forceinline__ int product_lanes(std::int64_t a_len, int size) {
  int sub = size;
  while (sub > 1 && size / sub < a_len) sub >>= 1;
  return sub;
}

// Exclusive prefix sum of `value` over the block (any size up to 1024 threads); `warp_sums`
// holds 32 values of shared memory. Every thread of the block calls it.
template <class V>
__device__ inline V block_exclusive_sum(V value, V* warp_sums) {
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  V inclusive = value;
  for (int d = 1; d < 32; d *= 2) {
    const V up = __shfl_up_sync(0xffffffffu, inclusive, d);
    if (lane >= d) inclusive += up;
  }
  if (lane == 31) warp_sums[warp] = inclusive;
  __syncthreads();
  if (warp == 0) {
    const int warps = (blockDim.x + 31) / 32;
    V total = lane < warps ? warp_sums[lane] : V{0};
    for (int d = 1; d < 32; d *= 2) {
      const V up = __shfl_up_sync(0xffffffffu, total, d);
      if (lane >= d) total += up;
    }
    warp_sums[lane] = total;  // inclusive sums of the warps
  }
  __syncthreads();
  const V before = (warp ? warp_sums[warp - 1] : V{0}) + inclusive - value;
  __syncthreads();  // warp_sums may be reused right after
  return before;
}

// Entries of A's row that a block stages at a time (for_each_product_in over a block).
constexpr int kStagedEntries = 256;

// for_each_product_in for a whole block (every lane calls it; it synchronizes the block). Rows of
// B differ in length by orders of magnitude in graphs, so lanes that each took a row of B would
// wait for the longest: the block stages its entries of A with where their products start (a
// scan of their rows' lengths), and each warp takes an equal run of the products, finding each
// one's entry by a binary search among the staged starts.
template <class F>
__device__ __forceinline__ void for_each_product_of_block(const SpgemmArgs& args, std::int64_t a_begin,
                                                          std::int64_t a_end, int rank, int size, F&& f) {
  __shared__ std::int64_t first_product[kStagedEntries + 1];  // products before each staged entry
  __shared__ std::int64_t b_first[kStagedEntries];            // where its row of B starts
  __shared__ std::int64_t warp_sums[32];
  const int staged = min(size, kStagedEntries);  // a multiple of 32
  for (std::int64_t base = a_begin; base < a_end; base += staged) {
    std::int64_t length = 0;
    if (rank < staged && base + rank < a_end) {
      const int k = __ldg(args.a_crd + base + rank);
      const std::int64_t b_begin = load_offset(args.b_pos, args.b_wide, k);
      length = load_offset(args.b_pos, args.b_wide, k + 1) - b_begin;
      b_first[rank] = b_begin;
    }
    const std::int64_t before = block_exclusive_sum(length, warp_sums);
    if (rank < staged) first_product[rank] = before;
    if (rank == staged - 1) first_product[staged] = before + length;
    __syncthreads();
    const std::int64_t products = first_product[staged];
    const int last = static_cast<int>(min(a_end - base, std::int64_t{staged})) - 1;
    // Each warp takes an equal run of the products, its lanes interleaved over the run: loads of B
    // stay coalesced, and a lane steps 32 products, not a block's worth, between entries.
    const std::int64_t per_warp = (products + (size >> 5) - 1) / (size >> 5);
    const std::int64_t run_end = min(products, (rank >> 5) * per_warp + per_warp);
    int i = 0;  // the entry of the lane's last product: later products lie at or past it
    for (std::int64_t p = (rank >> 5) * per_warp + (rank & 31); p < run_end; p += 32) {
      // A row of B longer than a warp keeps the lane in its entry, one about as long moves it to
      // the next; past that, a search.
      if (first_product[i + 1] <= p) {
        ++i;
        if (first_product[i + 1] <= p) {
          int hi = last;
          ++i;
          while (i < hi) {
            const int mid = (i + hi + 1) >> 1;
            if (first_product[mid] <= p) i = mid;
            else hi = mid - 1;
          }
        }
      }
      const std::int64_t r = b_first[i] + (p - first_product[i]);
      f(static_cast<unsigned>(__ldg(args.b_crd + r)), r, base + i);
    }
    __syncthreads();  // the next entries overwrite the staged ones
  }
}

// Calls f(column, position in B, position in A) for every product of A's entries [a_begin, a_end):
// a block's lanes by for_each_product_of_block; a warp's group in sub-groups, one of A's entries
// per sub-group at a time, its lanes striding over B's row, so that the loads of all of A's
// entries are in flight together.
template <class F>
__device__ __forceinline__ void for_each_product_in(const SpgemmArgs& args, std::int64_t a_begin, std::int64_t a_end,
                                                    int rank, int size, F&& f) {
  if (size > 32) return for_each_product_of_block(args, a_begin, a_end, rank, size, static_cast<F&&>(f));
  const int sub = product_lanes(a_end - a_begin, size);
  const int lane = rank & (sub - 1);
  const int subs = size / sub;
  for (std::int64_t q = a_begin + rank / sub; q < a_end; q += subs) {
    const int k = __ldg(args.a_crd + q);
    const std::int64_t b_begin = load_offset(args.b_pos, args.b_wide, k);
    const std::int64_t b_end = load_offset(args.b_pos, args.b_wide, k + 1);
    for (std::int64_t r = b_begin + lane; r < b_end; r += sub) f(static_cast<unsigned>(__ldg(args.b_crd + r)), r, q);
  }
}

// for_each_product_in over the whole of A's row `row`.
template <class F>
__device__ __forceinline__ void for_each_product(const SpgemmArgs& args, std::int64_t row, int rank, int size, F&& f) {
  for_each_product_in(args, load_offset(args.a_pos, args.a_wide, row), load_offset(args.a_pos, args.a_wide, row + 1),
                      rank, size, static_cast<F&&>(f));
}

// Calls f(column, a_ik * b_kj) for every product of row `row` (for_each_product's lanes).
template <class T, class F>
__device__ __forceinline__ void for_each_product_value(const SpgemmArgs& args, std::int64_t row, int rank, int size,
                                                       F&& f) {
  const T* a_vals = static_cast<const T*>(args.a_vals);
  const T* b_vals = static_cast<const T*>(args.b_vals);
  for_each_product(args, row, rank, size, [&](unsigned col, std::int64_t r, std::int64_t q) {
    f(col, __ldg(a_vals + q) * __ldg(b_vals + r));
  });
}

// The hash's multiplier: 1 (the identity) for a table with a slot per column, which then holds
// the row in column order with no collisions; else a Fibonacci multiplier (odd, so a table that
// holds every column still sees none).
__device__ __forceinline__ unsigned hash_multiplier(int slots, std::int64_t cols) {
  return slots >= cols ? 1u : 0x9E3779B1u;
}

// Inserts `col`; true when this call put it in (it was not there yet).
__device__ __forceinline__ bool insert_key(unsigned* keys, unsigned mask, unsigned multiplier, unsigned col) {
  for (unsigned h = (col * multiplier) & mask;; h = (h + 1) & mask) {
    const unsigned k = keys[h];
    if (k == col) return false;
    if (k == kEmpty) {
      const unsigned old = atomicCAS(keys + h, kEmpty, col);
      if (old == kEmpty) return true;
      if (old == col) return false;
    }
  }
}

// Adds `v` to the entry of `col`, inserting it if needed.
template <class T>
__device__ __forceinline__ void insert_add(unsigned* keys, T* vals, unsigned mask, unsigned multiplier, unsigned col,
                                           T v) {
  for (unsigned h = (col * multiplier) & mask;; h = (h + 1) & mask) {
    unsigned k = keys[h];
    if (k == kEmpty) {
      k = atomicCAS(keys + h, kEmpty, col);
      if (k == kEmpty) k = col;  // this call put it in
    }
    if (k == col) {
      atomicAdd(vals + h, v);
      return;
    }
  }
}

// Sorts the group's table of `slots` (a power of two) by key, empty slots last (block groups:
// many lanes share the log^2 steps).
template <class Grp, class T>
__device__ void bitonic_sort(unsigned* keys, T* vals, int slots) {
  for (int k = 2; k <= slots; k <<= 1)
    for (int j = k >> 1; j > 0; j >>= 1) {
      for (int i = Grp::rank(); i < slots / 2; i += Grp::size()) {
        const int lo = ((i & ~(j - 1)) << 1) | (i & (j - 1)), hi = lo + j;  // j is a power of two
        const unsigned klo = keys[lo], khi = keys[hi];
        if ((klo > khi) == ((lo & k) == 0)) {
          keys[lo] = khi;
          keys[hi] = klo;
          const T v = vals[lo];
          vals[lo] = vals[hi];
          vals[hi] = v;
        }
      }
      Grp::sync();
    }
}

// Adds v to dense[col]. Where a warp's lanes take products of several of B's rows at once
// (`rows_per_warp`: B's rows are shorter than a warp) they may add to the same column: those
// lanes sum first and one adds (a dense row of A times short rows of B that all hold the same few
// columns would serialize the atomics). A warp on one row of B adds to distinct columns: the
// match would only cost.
template <class T>
__device__ __forceinline__ void add_to_column(T* dense, unsigned col, T v, bool rows_per_warp) {
  if (!rows_per_warp) {
    atomicAdd(dense + col, v);
    return;
  }
  const unsigned active = __activemask();
  const unsigned peers = __match_any_sync(active, col);
  T sum = T(0);
  for (unsigned m = peers; m; m &= m - 1) sum += __shfl_sync(peers, v, __ffs(m) - 1);
  if (static_cast<int>(threadIdx.x & 31) == __ffs(peers) - 1) atomicAdd(dense + col, sum);
}

// The span of bitmap words a block's row touched, shared by its threads.
struct WordSpan {
  int lo, hi;
};

// Marks the column of every product of A's entries [a_begin, a_end) in `bits` (and adds its value
// to `dense`, when given), returning the words touched, for the whole block.
template <class T>
__device__ WordSpan mark_products(const SpgemmArgs& args, std::int64_t a_begin, std::int64_t a_end, unsigned* bits,
                                  T* dense, WordSpan* span) {
  if (threadIdx.x == 0) *span = {0x7fffffff, -1};
  __syncthreads();
  int lo = 0x7fffffff, hi = -1;
  const auto mark = [&](unsigned col) {
    const int w = static_cast<int>(col >> 5);
    const unsigned bit = 1u << (col & 31);
    if (!(bits[w] & bit)) atomicOr(bits + w, bit);  // a set bit stays set: skip the atomic
    lo = min(lo, w);
    hi = max(hi, w);
  };
  if (dense) {
    const T* a_vals = static_cast<const T*>(args.a_vals);
    const T* b_vals = static_cast<const T*>(args.b_vals);
    const bool rows_per_warp = args.b_lanes < 32;
    const auto add = [&](unsigned col, std::int64_t r, std::int64_t q) {
      mark(col);
      add_to_column(dense, col, __ldg(a_vals + q) * __ldg(b_vals + r), rows_per_warp);
    };
    for_each_product_in(args, a_begin, a_end, threadIdx.x, blockDim.x, add);
  } else {
    for_each_product_in(args, a_begin, a_end, threadIdx.x, blockDim.x,
                        [&](unsigned col, std::int64_t, std::int64_t) { mark(col); });
  }
  if (hi >= 0) {
    atomicMin(&span->lo, lo);
    atomicMax(&span->hi, hi);
  }
  __syncthreads();
  return *span;
}

// mark_products over the whole of A's row `row`.
template <class T>
__device__ WordSpan mark_row(const SpgemmArgs& args, std::int64_t row, unsigned* bits, T* dense, WordSpan* span) {
  return mark_products(args, load_offset(args.a_pos, args.a_wide, row), load_offset(args.a_pos, args.a_wide, row + 1),
                       bits, dense, span);
}

// A split row's piece `piece` of its row of A; false when the row has fewer pieces.
__device__ inline bool piece_of_row(const SpgemmArgs& args, std::int64_t row, int piece, std::int64_t* begin,
                                    std::int64_t* end) {
  const std::int64_t a_begin = load_offset(args.a_pos, args.a_wide, row);
  const std::int64_t a_len = load_offset(args.a_pos, args.a_wide, row + 1) - a_begin;
  const int pieces = pieces_of(a_len);
  if (piece >= pieces) return false;
  *begin = a_begin + a_len * piece / pieces;
  *end = a_begin + a_len * (piece + 1) / pieces;
  return true;
}

// The words a split row's blocks touched, gathered in global memory as two maxima that start at
// zero: words - lo and hi + 1.
__device__ inline void record_span(unsigned* codes, std::int64_t words, WordSpan s) {
  if (threadIdx.x == 0 && s.hi >= 0) {
    atomicMax(codes, static_cast<unsigned>(words - s.lo));
    atomicMax(codes + 1, static_cast<unsigned>(s.hi + 1));
  }
}

// The span record_span gathered (lo > hi when the row has no products); zeroes the record for
// the next row. Every thread of the block calls it.
__device__ inline WordSpan take_span(unsigned* codes, std::int64_t words) {
  const WordSpan s{static_cast<int>(words - codes[0]), static_cast<int>(codes[1]) - 1};
  __syncthreads();
  if (threadIdx.x == 0) codes[0] = codes[1] = 0;
  return s;
}

// Moves the occupied slots of a group's table (G lanes of one warp) to its front, in slot order,
// and returns how many there are. Every lane of the warp calls it (the ballots span the warp);
// each chunk's slots are read before any lane writes, and land at or before their own slot.
template <int G, class T>
__device__ int compact_table(unsigned* keys, T* vals, int slots) {
  static_assert(G > 0 && G <= 32, "lanes of one warp");
  const int rank = static_cast<int>(threadIdx.x) % G;
  const int shift = (static_cast<int>(threadIdx.x) % 32) / G * G;
  const unsigned group_bits = G == 32 ? 0xffffffffu : ((1u << G) - 1);
  int count = 0;
  for (int base = 0; base < slots; base += G) {
    const unsigned key = keys[base + rank];
    const T val = vals[base + rank];
    const bool occupied = key != kEmpty;
    const unsigned mine = (__ballot_sync(0xffffffffu, occupied) >> shift) & group_bits;
    // A lane may write the slot a lower lane reads in this pass: the ballot does not order
    // shared memory, this does.
    __syncwarp();
    if (occupied) {
      const int at = count + __popc(mine & ((1u << rank) - 1));
      keys[at] = key;
      vals[at] = val;
    }
    count += __popc(mine);
  }
  __syncwarp();
  return count;
}

// Writes the group's first `count` entries (distinct keys) to a row of C in key order (column
// ids too unless `crd` is null): each entry's place is the number of keys below it.
template <int G, class T>
__device__ void write_ranked(const unsigned* keys, const T* vals, int count, int* crd, T* out) {
  for (int e = static_cast<int>(threadIdx.x) % G; e < count; e += G) {
    const unsigned key = keys[e];
    int place = 0;
    for (int k = 0; k < count; ++k) place += keys[k] < key;
    if (crd) crd[place] = static_cast<int>(key);
    out[place] = vals[e];
  }
}

// Writes the occupied slots of a block's table to a row of C in slot order (column order for a
// table in slot-per-column layout; column ids too unless `crd` is null): each thread takes a
// contiguous run of slots.
template <class T>
__device__ void write_in_slot_order(const unsigned* keys, const T* vals, int slots, int* crd, T* out,
                                    int* warp_sums) {
  const int run = slots / static_cast<int>(blockDim.x);
  const int first = static_cast<int>(threadIdx.x) * run;
  int mine = 0;
  for (int s = first; s < first + run; ++s) mine += keys[s] != kEmpty;
  int at = block_exclusive_sum(mine, warp_sums);
  for (int s = first; s < first + run; ++s)
    if (keys[s] != kEmpty) {
      if (crd) crd[at] = static_cast<int>(keys[s]);
      out[at] = vals[s];
      ++at;
    }
}

}  // namespace tessera::kernels::cuda::spgemm_detail
