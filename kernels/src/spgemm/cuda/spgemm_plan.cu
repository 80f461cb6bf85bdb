// SpgemmPlan::build, the symbolic phase of the row-wise SpGEMM: product counts, rows binned by
// them, each row's distinct columns counted, C's row offsets scanned, rows binned again by length.
#include <algorithm>
#include <array>
#include <climits>
#include <string>
#include <vector>

#include <cub/block/block_reduce.cuh>
#include <cub/device/device_scan.cuh>

#include "spgemm_rows_launch.cuh"
#include "tessera/core/error.hpp"

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

// Symbolic phase, rows past the largest table: a bitmap of C's columns per block in global
// memory (zero between rows), popcounted and cleared over the touched words.
__global__ void __launch_bounds__(kDenseThreads)
    symbolic_dense(SpgemmArgs args, void* c_pos, const int* __restrict__ rows, std::int64_t count,
                   unsigned* bitmaps, std::int64_t words) {
  using Reduce = cub::BlockReduce<int, kDenseThreads>;
  __shared__ typename Reduce::TempStorage reduce;
  __shared__ WordSpan span;
  unsigned* bits = bitmaps + blockIdx.x * words;
  for (std::int64_t item = blockIdx.x; item < count; item += gridDim.x) {
    const int row = rows[item];
    const WordSpan s = mark_row<float>(args, row, bits, nullptr, &span);
    int mine = 0;
    for (int w = s.lo + static_cast<int>(threadIdx.x); w <= s.hi; w += kDenseThreads) {
      mine += __popc(bits[w]);
      bits[w] = 0;
    }
    const int total = Reduce(reduce).Sum(mine);
    if (threadIdx.x == 0) store_offset(c_pos, args.c_wide, row, total);
    __syncthreads();
  }
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

// A row's bound on its length, from its product count (symbolic phase).
struct ProductBound {
  const std::int64_t* products;
  __device__ std::int64_t operator()(std::int64_t row) const { return products[row]; }
};
// A row's length as the symbolic kernels wrote it (before the scan).
struct CountedLength {
  const void* pos;
  bool wide;
  __device__ std::int64_t operator()(std::int64_t row) const { return load_offset(pos, wide, row); }
};

// How many rows fall in each bin, and the lengths' total (counters[kBins]).
template <class Length>
__global__ void count_bins(std::int64_t rows, Length length, BinRule rule, unsigned long long* counters) {
  using Reduce = cub::BlockReduce<long long, kBinThreads>;
  __shared__ typename Reduce::TempStorage reduce;
  __shared__ unsigned local[kBins];
  if (threadIdx.x < kBins) local[threadIdx.x] = 0;
  __syncthreads();
  const std::int64_t row = std::int64_t{blockIdx.x} * kBinThreads + threadIdx.x;
  long long len = 0;
  if (row < rows) {
    len = length(row);
    atomicAdd(local + bin_of(len, rule), 1u);
  }
  const long long sum = Reduce(reduce).Sum(len);
  __syncthreads();
  if (threadIdx.x < kBins && local[threadIdx.x]) atomicAdd(counters + threadIdx.x, local[threadIdx.x]);
  if (threadIdx.x == 0 && sum) atomicAdd(counters + kBins, static_cast<unsigned long long>(sum));
}

// Lists the rows bin by bin (`cursors`: where each bin's next rows go); with `c_pos`, also
// zeroes the length of the rows with no products.
template <class Length>
__global__ void scatter_bins(std::int64_t rows, Length length, BinRule rule, unsigned long long* cursors,
                             int* __restrict__ binned, void* c_pos, bool c_wide) {
  __shared__ unsigned local[kBins];
  __shared__ unsigned long long base[kBins];
  if (threadIdx.x < kBins) local[threadIdx.x] = 0;
  __syncthreads();
  const std::int64_t row = std::int64_t{blockIdx.x} * kBinThreads + threadIdx.x;
  int bin = 0;
  unsigned mine = 0;
  if (row < rows) {
    bin = bin_of(length(row), rule);
    mine = atomicAdd(local + bin, 1u);
  }
  __syncthreads();
  if (threadIdx.x < kBins && local[threadIdx.x])
    base[threadIdx.x] = atomicAdd(cursors + threadIdx.x, local[threadIdx.x]);
  __syncthreads();
  if (row < rows) {
    binned[base[bin] + mine] = static_cast<int>(row);
    if (c_pos && bin == 0) store_offset(c_pos, c_wide, row, 0);
  }
}

using Counters = std::array<unsigned long long, kBins + 1>;

// Bins the rows by `length`: counts (read back to the host, so it synchronizes), then lists them
// into `binned`; returns where each bin starts, then the rows, and the lengths' total.
template <class Length>
std::vector<std::int64_t> bin_rows(std::int64_t rows, Length length, BinRule rule, unsigned long long* counters,
                                   int* binned, void* c_pos, bool c_wide, std::int64_t* total,
                                   cudaStream_t stream) {
  TESSERA_CUDA_CHECK(cudaMemsetAsync(counters, 0, sizeof(Counters), stream));
  count_bins<<<blocks_for(rows, kBinThreads), kBinThreads, 0, stream>>>(rows, length, rule, counters);
  TESSERA_CUDA_CHECK_LAUNCH("tessera::spgemm count_bins");
  Counters host{};
  TESSERA_CUDA_CHECK(cudaMemcpyAsync(host.data(), counters, sizeof(Counters), cudaMemcpyDeviceToHost, stream));
  TESSERA_CUDA_CHECK(cudaStreamSynchronize(stream));
  std::vector<std::int64_t> starts(kBins + 1, 0);
  for (int b = 0; b < kBins; ++b) starts[b + 1] = starts[b] + static_cast<std::int64_t>(host[b]);
  *total = static_cast<std::int64_t>(host[kBins]);
  const std::vector<unsigned long long> cursors(starts.begin(), starts.end() - 1);
  TESSERA_CUDA_CHECK(cudaMemcpyAsync(counters, cursors.data(), kBins * sizeof(unsigned long long),
                                     cudaMemcpyHostToDevice, stream));
  scatter_bins<<<blocks_for(rows, kBinThreads), kBinThreads, 0, stream>>>(rows, length, rule, counters, binned, c_pos,
                                                                          c_wide);
  TESSERA_CUDA_CHECK_LAUNCH("tessera::spgemm scatter_bins");
  TESSERA_CUDA_CHECK(cudaStreamSynchronize(stream));  // `cursors` is pageable host memory
  return starts;
}

// Counts the distinct columns of every row of the symbolic bins into c_pos.
void count_row_lengths(const SpgemmArgs& args, void* c_pos, const int* binned, const std::vector<std::int64_t>& starts,
                       cudaStream_t stream) {
  for_each_table_bin(starts, [&](auto g, std::int64_t first, std::int64_t count, int log2, BinLaunch launch) {
    constexpr int G = decltype(g)::value;
    const int per_block = launch.rows_per_block();
    const std::size_t shared = std::size_t{sizeof(unsigned)} * per_block << log2;
    allow_large_tables(symbolic_hash<G>);
    symbolic_hash<G><<<blocks_for(count, per_block), launch.threads, shared, stream>>>(args, c_pos, binned + first,
                                                                                       count, log2);
    TESSERA_CUDA_CHECK_LAUNCH("tessera::spgemm symbolic_hash");
  });
  const std::int64_t dense_rows = starts[kDenseBin + 1] - starts[kDenseBin];
  if (!dense_rows) return;
  const std::int64_t words = (args.cols + 31) / 32;
  const unsigned blocks = dense_blocks(dense_rows, words * sizeof(unsigned), args.dense_budget_bytes);
  formats::cuda::DeviceScratch bitmaps("tessera::spgemm symbolic bitmaps", blocks * words * sizeof(unsigned), stream);
  TESSERA_CUDA_CHECK(cudaMemsetAsync(bitmaps.data(), 0, bitmaps.size(), stream));
  symbolic_dense<<<blocks, kDenseThreads, 0, stream>>>(args, c_pos, binned + starts[kDenseBin], dense_rows,
                                                       static_cast<unsigned*>(bitmaps.data()), words);
  TESSERA_CUDA_CHECK_LAUNCH("tessera::spgemm symbolic_dense");
}

template <class Offset>
void scan_offsets(void* c_pos, std::int64_t rows, cudaStream_t stream) {
  Offset* pos = static_cast<Offset*>(c_pos);
  std::size_t bytes = 0;
  TESSERA_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(nullptr, bytes, pos, pos, rows + 1, stream));
  formats::cuda::DeviceScratch temp("tessera::spgemm scan", bytes, stream);
  TESSERA_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(temp.data(), bytes, pos, pos, rows + 1, stream));
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
  return {};
}

SpgemmPlan::~SpgemmPlan() {
  if (rows_by_bin_) cudaFree(rows_by_bin_);
}

std::shared_ptr<const SpgemmPlan> SpgemmPlan::build(const SpgemmArgs& args, void* c_pos, cudaStream_t stream) {
  require_ok(spgemm_can_implement(args), "tessera::spgemm");
  std::shared_ptr<SpgemmPlan> plan(new SpgemmPlan());
  plan->rows_ = args.rows;
  const std::size_t width = args.c_wide ? sizeof(std::int64_t) : sizeof(int);
  TESSERA_CUDA_CHECK(cudaMemsetAsync(static_cast<char*>(c_pos) + args.rows * width, 0, width, stream));
  plan->bin_starts_.assign(kBins + 1, 0);
  if (args.rows == 0) return plan;
  TESSERA_CUDA_CHECK(cudaMalloc(&plan->rows_by_bin_, args.rows * sizeof(int)));

  const bool dense_all = args.accumulator == SpgemmAccumulator::Dense;
  formats::cuda::DeviceScratch counters("tessera::spgemm counters", sizeof(Counters), stream);
  auto* counted = static_cast<unsigned long long*>(counters.data());
  {
    formats::cuda::DeviceScratch products("tessera::spgemm products", args.rows * sizeof(std::int64_t), stream);
    plan->symbolic_bytes_ = plan->kept_bytes() + aligned(products.size()) + aligned(counters.size());
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
    const std::vector<std::int64_t> starts = bin_rows(args.rows, ProductBound{per_row}, symbolic_rule, counted,
                                                      plan->rows_by_bin_, c_pos, args.c_wide, &plan->products_, stream);
    count_row_lengths(args, c_pos, plan->rows_by_bin_, starts, stream);
  }
  // Binned by the counted lengths, whose total int offsets must hold before they are scanned.
  const BinRule numeric_rule{args.cols, numeric_max_log2(args.type), kNumericDenseFromLog2, dense_all};
  plan->bin_starts_ = bin_rows(args.rows, CountedLength{c_pos, args.c_wide}, numeric_rule, counted, plan->rows_by_bin_,
                               nullptr, args.c_wide, &plan->nnz_, stream);
  if (!args.c_wide && plan->nnz_ > INT_MAX)
    throw OverflowError("tessera::spgemm: the product has " + std::to_string(plan->nnz_) +
                        " entries, past int row offsets; use an encoding with int64 offsets");
  if (args.c_wide)
    scan_offsets<std::int64_t>(c_pos, args.rows, stream);
  else
    scan_offsets<int>(c_pos, args.rows, stream);
  return plan;
}

}  // namespace tessera::kernels::cuda
