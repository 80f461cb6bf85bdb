// Transpose of compressed-row arrays (formats/cuda/transpose_csr.hpp): count, scan, scatter, sort
// each column by row.
#include "tessera/formats/cuda/transpose_csr.hpp"

#include <algorithm>
#include <string>
#include <utility>

#include <cub/block/block_scan.cuh>
#include <cub/device/device_scan.cuh>
#include <cuda/functional>

#include "check_status.hpp"
#include "tessera/core/error.hpp"

namespace tessera::formats::cuda {
namespace {

void check(cudaError_t status, const char* what) { check_status(status, "tessera transpose", what); }

constexpr int kThreads = 256;
constexpr int kItems = 8;  // positions per thread in the scatter's tiles
constexpr int kTile = kThreads * kItems;

// Columns of up to kShortColumn entries are sorted by a thread each, in registers; longer ones by
// a block each, in shared memory, up to kLongColumn entries: past that (or past 2^32 entries, which
// the 32-bit slots cannot address) the caller is told to sort globally instead.
constexpr int kShortColumn = 16;
constexpr int kLongColumn = 16384;
constexpr int kStaged = 8192;                     // slots of a block's short columns staged in shared memory
constexpr std::int64_t kMaxEntries = 0xffffffff;  // 32-bit positions in the slots, one value left for kSkip

std::size_t aligned(std::size_t bytes) { return (bytes + 255) / 256 * 256; }

template <class Offset>
__device__ Offset fetch_add(Offset* counter, Offset amount) {
  if constexpr (sizeof(Offset) == 8)
    return static_cast<Offset>(atomicAdd(reinterpret_cast<unsigned long long*>(counter),
                                         static_cast<unsigned long long>(amount)));
  else
    return atomicAdd(counter, amount);
}

// count[c] = entries in column c; also closes the new offsets with out_pos[cols] = nnz.
template <class Offset>
__global__ void count_columns(const int* __restrict__ crd, std::int64_t nnz, Offset* __restrict__ count,
                              Offset* __restrict__ out_pos, std::int64_t cols) {
  const std::int64_t stride = std::int64_t{gridDim.x} * blockDim.x;
  for (std::int64_t q = std::int64_t{blockIdx.x} * blockDim.x + threadIdx.x; q < nnz; q += stride)
    fetch_add(&count[crd[q]], Offset{1});
  if (blockIdx.x == 0 && threadIdx.x == 0) out_pos[cols] = static_cast<Offset>(nnz);
}

// Columns longer than kShortColumn, listed in any order, and the longest column's length.
struct LongColumns {
  std::int64_t* column;
  unsigned long long* counters;  // [0]: how many, [1]: the longest length
};

template <class Offset>
__global__ void list_long_columns(const Offset* __restrict__ pos, std::int64_t cols, Offset* __restrict__ cursor,
                                  LongColumns list) {
  const std::int64_t stride = std::int64_t{gridDim.x} * blockDim.x;
  for (std::int64_t c = std::int64_t{blockIdx.x} * blockDim.x + threadIdx.x; c < cols; c += stride) {
    const Offset begin = pos[c], end = pos[c + 1];
    cursor[c] = begin;  // every column's scatter cursor starts at its offset
    if (end - begin <= kShortColumn) continue;
    list.column[atomicAdd(&list.counters[0], 1ull)] = c;
    atomicMax(&list.counters[1], static_cast<unsigned long long>(end - begin));
  }
}

// The scatter's output: each entry's input position in a slot of its column (positions grow with
// rows in a CSR, so a column sorted by position is sorted by row; a slot's 4 bytes are all that is
// written out of order), and the row of every input position, written in order. The slots are the
// output's row-id array: each sort reads a range of slots before it writes the same range.
struct Scattered {
  std::uint32_t* slots;
  int* row_of;
};

// One tile of kTile positions per block: the row of every position (each row marks where it
// enters the tile, a max-scan spreads the marks), then each entry takes the next slot of its column.
template <class Offset, class Word>
__global__ void __launch_bounds__(kThreads) scatter_entries(CsrArrays<Offset, Word> in, Offset* __restrict__ cursor,
                                                            Scattered out) {
  using BlockScan = cub::BlockScan<int, kThreads>;
  __shared__ typename BlockScan::TempStorage scan_storage;
  __shared__ alignas(16) int row_of[kTile];
  __shared__ int first_row;
  const std::int64_t q0 = std::int64_t{blockIdx.x} * kTile;
  const std::int64_t q_end = q0 + kTile < in.nnz ? q0 + kTile : in.nnz;
  const int t = threadIdx.x;

  if (t == 0) {  // the last row starting at or before q0: it holds q0
    std::int64_t lo = 0, hi = in.rows;
    while (hi - lo > 1) {
      const std::int64_t mid = (lo + hi) / 2;
      if (static_cast<std::int64_t>(in.pos[mid]) <= q0) lo = mid; else hi = mid;
    }
    first_row = static_cast<int>(lo);
  }
  for (int i = 0; i < kItems; ++i) row_of[t + i * kThreads] = -1;
  __syncthreads();
  for (std::int64_t r = first_row + t; r < in.rows; r += kThreads) {
    const std::int64_t begin = in.pos[r];
    if (begin >= q_end) break;
    const std::int64_t start = begin > q0 ? begin : q0;
    if (start < static_cast<std::int64_t>(in.pos[r + 1])) row_of[start - q0] = static_cast<int>(r);
  }
  __syncthreads();

  int4* marks = reinterpret_cast<int4*>(row_of) + 2 * t;  // this thread's kItems consecutive marks
  int4 m[2] = {marks[0], marks[1]};
  int* v = reinterpret_cast<int*>(m);
  for (int i = 1; i < kItems; ++i) v[i] = max(v[i], v[i - 1]);
  int before;
  BlockScan(scan_storage).ExclusiveScan(v[kItems - 1], before, -1, ::cuda::maximum<>{});
  for (int i = 0; i < kItems; ++i) v[i] = max(v[i], before);
  marks[0] = m[0];
  marks[1] = m[1];
  __syncthreads();

  for (int i = 0; i < kItems; ++i) {
    const int k = t + i * kThreads;
    const std::int64_t q = q0 + k;
    if (q >= q_end) break;
    out.slots[fetch_add(&cursor[in.crd[q]], Offset{1})] = static_cast<std::uint32_t>(q);
    out.row_of[q] = row_of[k];
  }
}

// The entry at input position p, written at output position q.
template <class Word>
__device__ void write_entry(std::uint32_t p, std::int64_t q, const int* __restrict__ row_of,
                            const Word* __restrict__ in_vals, int* out_crd, Word* __restrict__ out_vals) {
  out_crd[q] = row_of[p];
  out_vals[q] = in_vals[p];
}

// Each short column's entries written in row order: a thread per column, ranks by counting
// smaller positions in registers. Where the block's columns span at most kStaged slots, they pass
// through shared memory so that reads and writes are coalesced. Long columns are left to
// sort_long_columns.
template <class Offset, class Word>
__global__ void __launch_bounds__(kThreads) sort_short_columns(const Offset* __restrict__ pos, std::int64_t cols,
                                                               Scattered in, const Word* __restrict__ in_vals,
                                                               int* out_crd, Word* __restrict__ out_vals) {
  constexpr std::uint32_t kSkip = ~std::uint32_t{0};  // no entry's position: there are fewer than 2^32 - 1
  __shared__ std::uint32_t staged[kStaged];
  const std::int64_t first = std::int64_t{blockIdx.x} * kThreads;
  const std::int64_t c = first + threadIdx.x;
  const std::int64_t base = pos[first];
  const std::int64_t span = static_cast<std::int64_t>(pos[first + kThreads < cols ? first + kThreads : cols]) - base;
  const bool staging = span <= kStaged;  // the same for the whole block
  const std::int64_t begin = c < cols ? static_cast<std::int64_t>(pos[c]) : 0;
  const int length = c < cols ? static_cast<int>(pos[c + 1] - begin) : 0;
  if (staging) {
    for (int k = threadIdx.x; k < span; k += kThreads) staged[k] = in.slots[base + k];
    __syncthreads();
  }
  std::uint32_t w[kShortColumn];
#pragma unroll
  for (int j = 0; j < kShortColumn; ++j)
    if (j < length) w[j] = staging ? staged[begin - base + j] : in.slots[begin + j];
  if (staging) __syncthreads();
  if (length <= kShortColumn) {
#pragma unroll
    for (int j = 0; j < kShortColumn; ++j) {
      if (j >= length) break;
      int rank = 0;
#pragma unroll
      for (int k = 0; k < kShortColumn; ++k) rank += k < length && w[k] < w[j];
      if (staging)
        staged[begin - base + rank] = w[j];
      else
        write_entry(w[j], begin + rank, in.row_of, in_vals, out_crd, out_vals);
    }
  } else if (staging) {
    for (int j = 0; j < length; ++j) staged[begin - base + j] = kSkip;
  }
  if (staging) {
    __syncthreads();
    for (int k = threadIdx.x; k < span; k += kThreads)
      if (staged[k] != kSkip) write_entry(staged[k], base + k, in.row_of, in_vals, out_crd, out_vals);
  }
}

// A long column per block: its positions in shared memory, padded to a power of two with
// positions that no entry has, ordered by a bitonic network: n log^2 n compare-exchanges, where
// ranking each entry by counting the smaller ones takes n^2 comparisons.
template <class Offset, class Word>
__global__ void __launch_bounds__(kThreads) sort_long_columns(const Offset* __restrict__ pos, LongColumns list,
                                                              Scattered in, const Word* __restrict__ in_vals,
                                                              int* out_crd, Word* __restrict__ out_vals) {
  extern __shared__ std::uint32_t column[];
  const std::int64_t c = list.column[blockIdx.x];
  const std::int64_t begin = pos[c];
  const int length = static_cast<int>(pos[c + 1] - begin);
  int n = 2;
  while (n < length) n <<= 1;
  for (int j = threadIdx.x; j < n; j += kThreads) column[j] = j < length ? in.slots[begin + j] : ~0u;
  __syncthreads();
  for (int k = 2; k <= n; k <<= 1)
    for (int j = k >> 1; j > 0; j >>= 1) {
      for (int i = threadIdx.x; i < n / 2; i += kThreads) {
        const int lo = ((i & ~(j - 1)) << 1) | (i & (j - 1)), hi = lo + j;
        const std::uint32_t a = column[lo], b = column[hi];
        if ((a > b) == ((lo & k) == 0)) {
          column[lo] = b;
          column[hi] = a;
        }
      }
      __syncthreads();
    }
  for (int j = threadIdx.x; j < length; j += kThreads)
    write_entry(column[j], begin + j, in.row_of, in_vals, out_crd, out_vals);
}

int blocks_for(std::int64_t items, int per_block) {
  const std::int64_t blocks = (items + per_block - 1) / per_block;
  return static_cast<int>(std::min<std::int64_t>(std::max<std::int64_t>(blocks, 1), std::int64_t{1} << 30));
}

// The workspace: the rows of the input positions, the scatter cursors, the long-column list, CUB's scan.
template <class Offset, class Word>
struct Workspace {
  std::size_t row_of, cursor, list, counters, scan;

  explicit Workspace(const CsrArrays<Offset, Word>& in) {
    row_of = aligned((in.nnz < kMaxEntries ? in.nnz : 0) * sizeof(int));  // nothing where the call declines
    cursor = aligned(std::max<std::int64_t>(in.cols, 1) * sizeof(Offset));
    list = aligned(std::max<std::int64_t>(in.cols, 1) * sizeof(std::int64_t));
    counters = aligned(2 * sizeof(unsigned long long));
    scan = 0;
    check(cub::DeviceScan::ExclusiveSum(nullptr, scan, static_cast<Offset*>(nullptr), static_cast<Offset*>(nullptr),
                                        in.cols),
          "cub::DeviceScan (size)");
  }
  std::size_t total() const { return row_of + cursor + list + counters + aligned(scan); }
};

}  // namespace

template <class Offset, class Word>
std::size_t transpose_csr_workspace_bytes(const CsrArrays<Offset, Word>& in) {
  return Workspace<Offset, Word>(in).total();
}

template <class Offset, class Word>
bool transpose_csr(const CsrArrays<Offset, Word>& in, const TransposedArrays<Offset, Word>& out, void* workspace,
                   std::size_t workspace_bytes, cudaStream_t stream) {
  const Workspace<Offset, Word> bytes(in);
  if (workspace_bytes < bytes.total()) throw CudaError("tessera transpose: workspace smaller than required");
  check(cudaMemsetAsync(out.pos, 0, (in.cols + 1) * sizeof(Offset), stream), "cudaMemsetAsync (offsets)");
  if (in.nnz == 0) return true;
  if (in.nnz >= kMaxEntries) return false;
  char* at = static_cast<char*>(workspace);
  const auto take = [&at](std::size_t size) { return std::exchange(at, at + size); };
  const Scattered scattered{reinterpret_cast<std::uint32_t*>(out.crd),
                            reinterpret_cast<int*>(take(bytes.row_of))};
  Offset* cursor = reinterpret_cast<Offset*>(take(bytes.cursor));
  const LongColumns list{reinterpret_cast<std::int64_t*>(take(bytes.list)),
                         reinterpret_cast<unsigned long long*>(take(bytes.counters))};
  void* scan_temp = at;

  check(cudaMemsetAsync(cursor, 0, in.cols * sizeof(Offset), stream), "cudaMemsetAsync (counts)");
  check(cudaMemsetAsync(list.counters, 0, 2 * sizeof(unsigned long long), stream), "cudaMemsetAsync (counters)");
  count_columns<<<blocks_for(in.nnz, 4 * kThreads), kThreads, 0, stream>>>(in.crd, in.nnz, cursor, out.pos, in.cols);
  check(cudaGetLastError(), "count_columns launch");
  std::size_t temp = bytes.scan;
  check(cub::DeviceScan::ExclusiveSum(scan_temp, temp, cursor, out.pos, in.cols, stream), "cub::DeviceScan");
  list_long_columns<<<blocks_for(in.cols, kThreads), kThreads, 0, stream>>>(out.pos, in.cols, cursor, list);
  check(cudaGetLastError(), "list_long_columns launch");
  unsigned long long counters[2] = {0, 0};
  check(cudaMemcpyAsync(counters, list.counters, sizeof(counters), cudaMemcpyDeviceToHost, stream),
        "cudaMemcpyAsync (long columns)");
  check(cudaStreamSynchronize(stream), "cudaStreamSynchronize (long columns)");
  if (counters[1] > static_cast<unsigned long long>(kLongColumn)) return false;

  scatter_entries<<<blocks_for(in.nnz, kTile), kThreads, 0, stream>>>(in, cursor, scattered);
  check(cudaGetLastError(), "scatter_entries launch");
  sort_short_columns<<<blocks_for(in.cols, kThreads), kThreads, 0, stream>>>(out.pos, in.cols, scattered, in.vals,
                                                                             out.crd, out.vals);
  check(cudaGetLastError(), "sort_short_columns launch");
  if (counters[0] > 0) {
    int padded = 2;  // the longest column's power of two: shared memory for every block
    while (static_cast<unsigned long long>(padded) < counters[1]) padded <<= 1;
    const int shared = padded * static_cast<int>(sizeof(std::uint32_t));
    check(cudaFuncSetAttribute(sort_long_columns<Offset, Word>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                               kLongColumn * static_cast<int>(sizeof(std::uint32_t))),
          "cudaFuncSetAttribute (sort_long_columns)");
    sort_long_columns<<<static_cast<unsigned>(counters[0]), kThreads, shared, stream>>>(
        out.pos, list, scattered, in.vals, out.crd, out.vals);
    check(cudaGetLastError(), "sort_long_columns launch");
  }
  return true;
}

#define TESSERA_TRANSPOSE_CSR(Offset, Word)                                                                       \
  template std::size_t transpose_csr_workspace_bytes<Offset, Word>(const CsrArrays<Offset, Word>&);              \
  template bool transpose_csr<Offset, Word>(const CsrArrays<Offset, Word>&, const TransposedArrays<Offset, Word>&, \
                                            void*, std::size_t, cudaStream_t);
TESSERA_TRANSPOSE_CSR(int, std::uint16_t)
TESSERA_TRANSPOSE_CSR(int, std::uint32_t)
TESSERA_TRANSPOSE_CSR(int, std::uint64_t)
TESSERA_TRANSPOSE_CSR(std::int64_t, std::uint16_t)
TESSERA_TRANSPOSE_CSR(std::int64_t, std::uint32_t)
TESSERA_TRANSPOSE_CSR(std::int64_t, std::uint64_t)
#undef TESSERA_TRANSPOSE_CSR

}  // namespace tessera::formats::cuda
