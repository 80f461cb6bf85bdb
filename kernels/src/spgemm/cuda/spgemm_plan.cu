// SpgemmPlan::build, the symbolic phase of the row-wise SpGEMM: product counts, rows binned by
// them, each row's distinct columns counted, C's row offsets scanned, rows binned again by length.
#include <algorithm>
#include <array>
#include <climits>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include <cub/block/block_reduce.cuh>

#include "../../common/stream_fork.hpp"
#include "spgemm_rows_launch.cuh"
#include "tessera/core/error.hpp"
#include "tessera/formats/cuda/device_scratch.hpp"
#include "tessera/formats/cuda/prefix_sum.hpp"

namespace tessera::kernels::cuda {
namespace {

using namespace spgemm_detail;

// Symbolic phase, one bin of hash-table rows: each row's distinct columns, counted into c_pos[row].
template <int G>
__global__ void __launch_bounds__(1024) symbolic_hash(SpgemmArgs args, void* c_pos, const int* __restrict__ rows,
                                                      std::int64_t count, int table_log2) {
  using Grp = Group<G>;
  extern __shared__ unsigned shared_keys[];
  __shared__ int distinct[32];
  const int slots = 1 << table_log2;
  const unsigned mask = static_cast<unsigned>(slots - 1);
  const unsigned multiplier = hash_multiplier(slots, args.cols);
  unsigned* keys = shared_keys + Grp::index() * slots;
  const std::int64_t item = std::int64_t{blockIdx.x} * Grp::per_block() + Grp::index();
  const std::int64_t row = item < count ? rows[item] : -1;
  for (int s = Grp::rank(); s < slots; s += Grp::size()) keys[s] = kEmpty;
  if (Grp::rank() == 0) distinct[Grp::index()] = 0;
  Grp::sync();
  if (row >= 0) {
    int added = 0;
    for_each_product(args, row, Grp::rank(), Grp::size(), [&](unsigned col, std::int64_t, std::int64_t) {
      added += insert_key(keys, mask, multiplier, col);
    });
    if (added) atomicAdd(distinct + Grp::index(), added);
  }
  Grp::sync();
  if (row >= 0 && Grp::rank() == 0) store_offset(c_pos, args.c_wide, row, distinct[Grp::index()]);
}

// Counts the set bits of words [s.lo, s.hi] of `bits` and clears them: this thread's share.
__device__ inline int count_and_clear(unsigned* bits, WordSpan s) {
  int mine = 0;
  for (int w = s.lo + static_cast<int>(threadIdx.x); w <= s.hi; w += blockDim.x) {
    mine += __popc(bits[w]);
    bits[w] = 0;
  }
  return mine;
}

using CountReduce = cub::BlockReduce<int, kDenseThreads>;

// Symbolic phase, rows past the largest table: a bitmap of C's columns per block in global
// memory (zero between rows), popcounted and cleared over the touched words.
__global__ void __launch_bounds__(kDenseThreads)
    symbolic_dense(SpgemmArgs args, void* c_pos, const int* __restrict__ rows, std::int64_t count,
                   unsigned* bitmaps, std::int64_t words) {
  __shared__ typename CountReduce::TempStorage reduce;
  __shared__ WordSpan span;
  unsigned* bits = bitmaps + blockIdx.x * words;
  for (std::int64_t item = blockIdx.x; item < count; item += gridDim.x) {
    const int row = rows[item];
    const WordSpan s = mark_row<float>(args, row, bits, nullptr, &span);
    const int total = CountReduce(reduce).Sum(count_and_clear(bits, s));
    if (threadIdx.x == 0) store_offset(c_pos, args.c_wide, row, total);
    __syncthreads();
  }
}

// Symbolic phase, split rows: a block per piece of a row (grid row y: the batch's row y) marks
// its products' columns in the row's bitmap.
__global__ void __launch_bounds__(kDenseThreads)
    symbolic_split_mark(SpgemmArgs args, const int* __restrict__ rows, unsigned* bitmaps, unsigned* spans,
                        std::int64_t words) {
  __shared__ WordSpan span;
  std::int64_t begin = 0, end = 0;
  if (!piece_of_row(args, rows[blockIdx.y], static_cast<int>(blockIdx.x), &begin, &end)) return;
  const WordSpan s = mark_products<float>(args, begin, end, bitmaps + blockIdx.y * words, nullptr, &span);
  record_span(spans + 2 * blockIdx.y, words, s);
}

// Then a block per row counts its bitmap and clears it.
__global__ void __launch_bounds__(kDenseThreads)
    symbolic_split_count(SpgemmArgs args, void* c_pos, const int* __restrict__ rows, unsigned* bitmaps,
                         unsigned* spans, std::int64_t words) {
  __shared__ typename CountReduce::TempStorage reduce;
  const WordSpan s = take_span(spans + 2 * blockIdx.x, words);
  const int total = CountReduce(reduce).Sum(count_and_clear(bitmaps + blockIdx.x * words, s));
  if (threadIdx.x == 0) store_offset(c_pos, args.c_wide, rows[blockIdx.x], total);
}

// Products of every row: kProductLanes lanes per row add up the lengths of the rows of B it meets;
// a row of A longer than kLongProductRow entries is listed for count_long_products instead.
constexpr int kProductLanes = 4;
constexpr std::int64_t kLongProductRow = 256;
constexpr int kLongProductThreads = 256;

__global__ void count_products(SpgemmArgs args, std::int64_t* __restrict__ products, int* __restrict__ long_rows,
                               unsigned long long* long_count) {
  const std::int64_t row = (std::int64_t{blockIdx.x} * blockDim.x + threadIdx.x) / kProductLanes;
  const int lane = threadIdx.x % kProductLanes;
  std::int64_t sum = 0;
  bool listed = false;
  if (row < args.rows) {
    const std::int64_t begin = load_offset(args.a_pos, args.a_wide, row);
    const std::int64_t end = load_offset(args.a_pos, args.a_wide, row + 1);
    listed = end - begin > kLongProductRow;
    if (listed && lane == 0) long_rows[atomicAdd(long_count, 1ull)] = static_cast<int>(row);
    for (std::int64_t q = begin + lane; !listed && q < end; q += kProductLanes) {
      const int k = args.a_crd[q];
      sum += load_offset(args.b_pos, args.b_wide, k + 1) - load_offset(args.b_pos, args.b_wide, k);
    }
  }
  for (int d = kProductLanes / 2; d > 0; d /= 2) sum += __shfl_down_sync(0xffffffffu, sum, d, kProductLanes);
  if (row < args.rows && lane == 0 && !listed) products[row] = sum;
}

// Products of the listed long rows, a block per row.
__global__ void count_long_products(SpgemmArgs args, std::int64_t* __restrict__ products,
                                    const int* __restrict__ long_rows, const unsigned long long* long_count) {
  using Reduce = cub::BlockReduce<long long, kLongProductThreads>;
  __shared__ typename Reduce::TempStorage reduce;
  const std::int64_t listed = static_cast<std::int64_t>(*long_count);
  for (std::int64_t item = blockIdx.x; item < listed; item += gridDim.x) {
    const int row = long_rows[item];
    long long sum = 0;
    const std::int64_t end = load_offset(args.a_pos, args.a_wide, row + 1);
    for (std::int64_t q = load_offset(args.a_pos, args.a_wide, row) + threadIdx.x; q < end; q += kLongProductThreads) {
      const int k = args.a_crd[q];
      sum += load_offset(args.b_pos, args.b_wide, k + 1) - load_offset(args.b_pos, args.b_wide, k);
    }
    const long long total = Reduce(reduce).Sum(sum);
    if (threadIdx.x == 0) products[row] = total;
    __syncthreads();  // the reduction's storage is reused by the next row
  }
}

// The smallest table whose group's lanes take `products` at most kProductsPerLane each (past
// kMaxTableLog2: none, the dense accumulator's block). A row of C of few columns, or few entries,
// and thousands of products would otherwise get a small table's 8 to 32 lanes.
__device__ int least_table_log2_for(std::int64_t products) {
  int l = kMinTableLog2;
  for (;; ++l) {
    const BinLaunch launch = bin_launch(l);
    if (l > kMaxTableLog2 || products <= kProductsPerLane * (launch.group ? launch.group : launch.threads)) return l;
  }
}

// What the symbolic phase tells the numeric phase about a row, a byte per row: split
// (kSplitRow), or the least table for its products (the numeric phase bins rows by their length
// in C, which says nothing of their products).
constexpr unsigned char kSplitRow = 0xff;

__device__ unsigned char numeric_note(std::int64_t products, int bin) {
  return bin == kSplitBin ? kSplitRow : static_cast<unsigned char>(least_table_log2_for(products));
}

// A row's bound on its length, from its product count (symbolic phase); rows of many products
// are split.
struct ProductBound {
  const std::int64_t* products;
  __device__ std::int64_t operator()(std::int64_t row) const { return products[row]; }
  __device__ int least_table_log2(std::int64_t row) const { return least_table_log2_for(products[row]); }
  __device__ bool split(std::int64_t row) const { return products[row] > kSplitProducts; }
};
// A row's length as the symbolic kernels wrote it (before the scan), with the symbolic phase's
// note (numeric_note): split rows stay split, the others keep lanes for their products.
struct CountedLength {
  const void* pos;
  bool wide;
  const unsigned char* notes;
  __device__ std::int64_t operator()(std::int64_t row) const { return load_offset(pos, wide, row); }
  __device__ int least_table_log2(std::int64_t row) const { return notes[row]; }
  __device__ bool split(std::int64_t row) const { return notes[row] == kSplitRow; }
};

template <class Length>
__device__ int bin_of_row(std::int64_t row, std::int64_t len, const Length& length, const BinRule& rule) {
  if (len == 0) return 0;
  return length.split(row) ? kSplitBin : bin_of(len, rule, length.least_table_log2(row));
}

// How many rows fall in each bin, the lengths' total (counters[kBins]) and the most pieces of a
// split row (counters[kBins + 1]).
template <class Length>
__global__ void count_bins(SpgemmArgs args, Length length, BinRule rule, unsigned long long* counters) {
  using Reduce = cub::BlockReduce<long long, kBinThreads>;
  __shared__ typename Reduce::TempStorage reduce;
  __shared__ unsigned local[kBins];
  __shared__ int pieces;
  if (threadIdx.x < kBins) local[threadIdx.x] = 0;
  if (threadIdx.x == 0) pieces = 0;
  __syncthreads();
  const std::int64_t row = std::int64_t{blockIdx.x} * kBinThreads + threadIdx.x;
  long long len = 0;
  if (row < args.rows) {
    len = length(row);
    const int bin = bin_of_row(row, len, length, rule);
    atomicAdd(local + bin, 1u);
    if (bin == kSplitBin)
      atomicMax(&pieces, pieces_of(load_offset(args.a_pos, args.a_wide, row + 1) -
                                   load_offset(args.a_pos, args.a_wide, row)));
  }
  const long long sum = Reduce(reduce).Sum(len);
  __syncthreads();
  if (threadIdx.x < kBins && local[threadIdx.x]) atomicAdd(counters + threadIdx.x, local[threadIdx.x]);
  if (threadIdx.x == 0 && sum) atomicAdd(counters + kBins, static_cast<unsigned long long>(sum));
  if (threadIdx.x == 0 && pieces) atomicMax(counters + kBins + 1, static_cast<unsigned long long>(pieces));
}

// Lists the rows bin by bin (`cursors`: where each bin's next rows go); with `c_pos`, also
// zeroes the length of the rows with no products; with `notes` (symbolic phase), writes each
// row's numeric_note.
template <class Length>
__global__ void scatter_bins(std::int64_t rows, Length length, BinRule rule, unsigned long long* cursors,
                             int* __restrict__ binned, void* c_pos, bool c_wide, unsigned char* notes) {
  __shared__ unsigned local[kBins];
  __shared__ unsigned long long base[kBins];
  if (threadIdx.x < kBins) local[threadIdx.x] = 0;
  __syncthreads();
  const std::int64_t row = std::int64_t{blockIdx.x} * kBinThreads + threadIdx.x;
  int bin = 0;
  unsigned mine = 0;
  if (row < rows) {
    bin = bin_of_row(row, length(row), length, rule);
    mine = atomicAdd(local + bin, 1u);
  }
  __syncthreads();
  if (threadIdx.x < kBins && local[threadIdx.x])
    base[threadIdx.x] = atomicAdd(cursors + threadIdx.x, local[threadIdx.x]);
  __syncthreads();
  if (row < rows) {
    binned[base[bin] + mine] = static_cast<int>(row);
    if (c_pos && bin == 0) store_offset(c_pos, c_wide, row, 0);
    if constexpr (std::is_same_v<Length, ProductBound>)
      if (notes) notes[row] = numeric_note(length(row), bin);
  }
}

using Counters = std::array<unsigned long long, kBins + 2>;

// The rows binned by `length`: where each bin starts in the row list, then the rows, the
// lengths' total and the most pieces of a split row.
struct Bins {
  std::vector<std::int64_t> starts;
  std::int64_t total = 0;
  int split_pieces = 0;
};

// Bins the rows by `length`: counts (read back to the host, so it synchronizes), then lists them
// into `binned`.
template <class Length>
Bins bin_rows(const SpgemmArgs& args, Length length, BinRule rule, unsigned long long* counters, int* binned,
              void* c_pos, unsigned char* notes, cudaStream_t stream) {
  TESSERA_CUDA_CHECK(cudaMemsetAsync(counters, 0, sizeof(Counters), stream));
  count_bins<<<blocks_for(args.rows, kBinThreads), kBinThreads, 0, stream>>>(args, length, rule, counters);
  TESSERA_CUDA_CHECK_LAUNCH("tessera::spgemm count_bins");
  Counters host{};
  TESSERA_CUDA_CHECK(cudaMemcpyAsync(host.data(), counters, sizeof(Counters), cudaMemcpyDeviceToHost, stream));
  TESSERA_CUDA_CHECK(cudaStreamSynchronize(stream));
  Bins bins;
  bins.starts.assign(kBins + 1, 0);
  for (int b = 0; b < kBins; ++b) bins.starts[b + 1] = bins.starts[b] + static_cast<std::int64_t>(host[b]);
  bins.total = static_cast<std::int64_t>(host[kBins]);
  bins.split_pieces = static_cast<int>(host[kBins + 1]);
  const std::vector<unsigned long long> cursors(bins.starts.begin(), bins.starts.end() - 1);
  TESSERA_CUDA_CHECK(cudaMemcpyAsync(counters, cursors.data(), kBins * sizeof(unsigned long long),
                                     cudaMemcpyHostToDevice, stream));
  scatter_bins<<<blocks_for(args.rows, kBinThreads), kBinThreads, 0, stream>>>(args.rows, length, rule, counters,
                                                                               binned, c_pos, args.c_wide, notes);
  TESSERA_CUDA_CHECK_LAUNCH("tessera::spgemm scatter_bins");
  return bins;  // the copy of `cursors`, pageable host memory, was staged before it returned
}

void count_long_rows(const SpgemmArgs& args, void* c_pos, const int* binned, const Bins& bins, cudaStream_t stream);

// Counts the distinct columns of every row of the symbolic bins into c_pos.
void count_row_lengths(const SpgemmArgs& args, void* c_pos, const int* binned, const Bins& bins, cudaStream_t stream) {
  const std::vector<std::int64_t>& starts = bins.starts;
  // The table bins side by side; the dense and split rows on the caller's stream meanwhile.
  StreamFork fork(stream);
  for_each_table_bin(starts, [&](auto g, std::int64_t first, std::int64_t count, int log2, BinLaunch launch) {
    constexpr int G = decltype(g)::value;
    const int per_block = launch.rows_per_block();
    const std::size_t shared = std::size_t{sizeof(unsigned)} * per_block << log2;
    allow_large_tables(symbolic_hash<G>);
    symbolic_hash<G><<<blocks_for(count, per_block), launch.threads, shared, fork.next()>>>(
        args, c_pos, binned + first, count, log2);
    TESSERA_CUDA_CHECK_LAUNCH("tessera::spgemm symbolic_hash");
  });
  count_long_rows(args, c_pos, binned, bins, stream);
  fork.join();
}

// Counts the distinct columns of the dense and split bins' rows into c_pos.
void count_long_rows(const SpgemmArgs& args, void* c_pos, const int* binned, const Bins& bins, cudaStream_t stream) {
  const std::vector<std::int64_t>& starts = bins.starts;
  const std::int64_t words = (args.cols + 31) / 32;
  const std::int64_t dense_rows = starts[kDenseBin + 1] - starts[kDenseBin];
  if (dense_rows) {
    const unsigned blocks = dense_blocks(dense_rows, words * sizeof(unsigned), args.dense_budget_bytes);
    formats::cuda::DeviceScratch bitmaps("tessera::spgemm symbolic bitmaps", blocks * words * sizeof(unsigned), stream);
    TESSERA_CUDA_CHECK(cudaMemsetAsync(bitmaps.data(), 0, bitmaps.size(), stream));
    symbolic_dense<<<blocks, kDenseThreads, 0, stream>>>(args, c_pos, binned + starts[kDenseBin], dense_rows,
                                                         static_cast<unsigned*>(bitmaps.data()), words);
    TESSERA_CUDA_CHECK_LAUNCH("tessera::spgemm symbolic_dense");
  }
  const std::int64_t split_rows = starts[kSplitBin + 1] - starts[kSplitBin];
  if (!split_rows) return;
  // A bitmap and a span record per row of a batch.
  const std::size_t per_row = (words + 2) * sizeof(unsigned);
  const std::int64_t batch = split_batch(split_rows, per_row, args.dense_budget_bytes);
  formats::cuda::DeviceScratch scratch("tessera::spgemm split bitmaps", batch * per_row, stream);
  TESSERA_CUDA_CHECK(cudaMemsetAsync(scratch.data(), 0, scratch.size(), stream));
  auto* bitmaps = static_cast<unsigned*>(scratch.data());
  unsigned* spans = bitmaps + batch * words;
  for (std::int64_t first = 0; first < split_rows; first += batch) {
    const auto n = static_cast<unsigned>(std::min(batch, split_rows - first));
    const int* rows = binned + starts[kSplitBin] + first;
    symbolic_split_mark<<<dim3(bins.split_pieces, n), kDenseThreads, 0, stream>>>(args, rows, bitmaps, spans, words);
    TESSERA_CUDA_CHECK_LAUNCH("tessera::spgemm symbolic_split_mark");
    symbolic_split_count<<<n, kDenseThreads, 0, stream>>>(args, c_pos, rows, bitmaps, spans, words);
    TESSERA_CUDA_CHECK_LAUNCH("tessera::spgemm symbolic_split_count");
  }
}

}  // namespace

KernelStatus spgemm_can_implement(const SpgemmArgs& args) {
  if (args.rows < 0 || args.inner < 0 || args.cols < 0)
    return KernelStatus::refused("negative extents");
  if (args.rows >= INT_MAX || args.inner >= INT_MAX || args.cols >= INT_MAX)
    return KernelStatus::refused("extents of 2^31 - 1 and more (row and column ids are int)");
  if (args.type != SpgemmType::F32 && args.type != SpgemmType::F64) return KernelStatus::refused("unknown value type");
  if (args.accumulator != SpgemmAccumulator::Auto && args.accumulator != SpgemmAccumulator::Hash &&
      args.accumulator != SpgemmAccumulator::Dense)
    return KernelStatus::refused("unknown accumulator");
  if (!args.a_pos || !args.b_pos) return KernelStatus::refused("null row offsets");
  if (args.b_lanes < 1 || args.b_lanes > 32 || (args.b_lanes & (args.b_lanes - 1)))
    return KernelStatus::refused("b_lanes is not a power of two from 1 to 32");
  return {};
}

SpgemmPlan::~SpgemmPlan() = default;

std::shared_ptr<const SpgemmPlan> SpgemmPlan::build(const SpgemmArgs& args, void* c_pos, cudaStream_t stream) {
  require_ok(spgemm_can_implement(args), "tessera::spgemm");
  std::shared_ptr<SpgemmPlan> plan(new SpgemmPlan());
  plan->rows_ = args.rows;
  const std::size_t width = args.c_wide ? sizeof(std::int64_t) : sizeof(int);
  TESSERA_CUDA_CHECK(cudaMemsetAsync(static_cast<char*>(c_pos) + args.rows * width, 0, width, stream));
  plan->bin_starts_.assign(kBins + 1, 0);
  if (args.rows == 0) return plan;
  plan->rows_storage_ =
      std::make_unique<formats::cuda::DeviceScratch>("tessera::spgemm row list", args.rows * sizeof(int), stream);
  plan->rows_by_bin_ = static_cast<int*>(plan->rows_storage_->data());

  const bool dense_all = args.accumulator == SpgemmAccumulator::Dense;
  formats::cuda::DeviceScratch counters("tessera::spgemm counters", sizeof(Counters), stream);
  auto* counted = static_cast<unsigned long long*>(counters.data());
  // The symbolic phase's note on each row for the numeric phase (numeric_note).
  formats::cuda::DeviceScratch notes_storage("tessera::spgemm row notes", args.rows, stream);
  auto* notes = static_cast<unsigned char*>(notes_storage.data());
  {
    formats::cuda::DeviceScratch products("tessera::spgemm products", args.rows * sizeof(std::int64_t), stream);
    plan->symbolic_bytes_ =
        plan->kept_bytes() + aligned(products.size()) + aligned(counters.size()) + aligned(notes_storage.size());
    auto* per_row = static_cast<std::int64_t*>(products.data());
    // The row list of the plan lists the long rows of A first.
    TESSERA_CUDA_CHECK(cudaMemsetAsync(counted, 0, sizeof(unsigned long long), stream));
    count_products<<<blocks_for(args.rows * kProductLanes, 256), 256, 0, stream>>>(args, per_row, plan->rows_by_bin_,
                                                                                 counted);
    TESSERA_CUDA_CHECK_LAUNCH("tessera::spgemm count_products");
    const unsigned long_blocks =
        static_cast<unsigned>(std::min<std::int64_t>(args.rows, 2 * std::int64_t{device_info().sms}));
    count_long_products<<<long_blocks, kLongProductThreads, 0, stream>>>(args, per_row, plan->rows_by_bin_, counted);
    TESSERA_CUDA_CHECK_LAUNCH("tessera::spgemm count_long_products");
    const BinRule symbolic_rule{args.cols, kMaxTableLog2, kMaxTableLog2 + 1, dense_all};
    const Bins bins =
        bin_rows(args, ProductBound{per_row}, symbolic_rule, counted, plan->rows_by_bin_, c_pos, notes, stream);
    plan->products_ = bins.total;
    plan->split_pieces_ = bins.split_pieces;
    count_row_lengths(args, c_pos, plan->rows_by_bin_, bins, stream);
  }
  // Binned by the counted lengths, whose total int offsets must hold before they are scanned.
  const BinRule numeric_rule{args.cols, numeric_max_log2(args.type), kNumericDenseFromLog2, dense_all};
  const Bins bins = bin_rows(args, CountedLength{c_pos, args.c_wide, notes}, numeric_rule, counted,
                             plan->rows_by_bin_, nullptr, nullptr, stream);
  plan->bin_starts_ = bins.starts;
  plan->nnz_ = bins.total;
  if (!args.c_wide && plan->nnz_ > INT_MAX)
    throw OverflowError("tessera::spgemm: the product has " + std::to_string(plan->nnz_) +
                        " entries, past int row offsets; use an encoding with int64 offsets");
  if (args.c_wide)
    formats::cuda::exclusive_sum_in_place(static_cast<std::int64_t*>(c_pos), args.rows + 1, stream);
  else
    formats::cuda::exclusive_sum_in_place(static_cast<int*>(c_pos), args.rows + 1, stream);
  return plan;
}

}  // namespace tessera::kernels::cuda
