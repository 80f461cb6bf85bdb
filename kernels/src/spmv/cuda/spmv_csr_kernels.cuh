#pragma once
// The SpMV kernels of spmv_csr.hpp. Blocks of kSpmvBlockRows rows; matrix arrays read with
// streaming loads (__ldcs: evict first) so that x keeps its place in L2, x through the
// read-only path.
#include <cuda_runtime.h>

#include <cstdint>

#include "../../common/grid_dependency.cuh"
#include "tessera/kernels/spmv/cuda/spmv_csr.hpp"

namespace tessera::kernels::cuda::spmv_detail {

constexpr int kRows = kSpmvBlockRows;
constexpr int kStream = static_cast<int>(kSpmvStreamNnz);

template <class T>
__device__ __forceinline__ void store_y(T* y, std::int64_t i, T sum, T alpha, T beta) {
  y[i] = beta == T(0) ? alpha * sum : alpha * sum + beta * y[i];
}

// The block's row offsets into shared memory; returns its row count.
template <class Offset>
__device__ __forceinline__ int load_block_offsets(const Offset* __restrict__ pos, std::int64_t rows, Offset* s_pos) {
  const std::int64_t base = static_cast<std::int64_t>(blockIdx.x) * kRows;
  const int n = static_cast<int>(rows - base < kRows ? rows - base : kRows);
  if (static_cast<int>(threadIdx.x) < n) s_pos[threadIdx.x] = pos[base + threadIdx.x];
  if (threadIdx.x == 0) s_pos[n] = pos[base + n];
  __syncthreads();
  return n;
}

// The plan's row block b (rows [blocks[b], blocks[b + 1]), at most kRows): its first row into
// base, its row offsets into shared memory; returns its row count.
template <class Offset>
__device__ __forceinline__ int load_row_block(const int* __restrict__ blocks, int b, const Offset* __restrict__ pos,
                                              Offset* s_pos, std::int64_t& base) {
  base = blocks[b];
  const int n = blocks[b + 1] - static_cast<int>(base);
  if (static_cast<int>(threadIdx.x) <= n) s_pos[threadIdx.x] = pos[base + threadIdx.x];
  if (n == kRows && threadIdx.x == 0) s_pos[kRows] = pos[base + kRows];
  __syncthreads();
  return n;
}

// Lanes of this thread's group of G within its warp.
template <int G>
__device__ __forceinline__ unsigned group_mask() {
  if constexpr (G == 32) return 0xffffffffu;
  else return ((1u << G) - 1u) << (threadIdx.x % 32 / G * G);
}

// Rows of the block by groups of G lanes: rows of tens of nonzeros and more.
template <int G, class T, class Offset>
__device__ void rows_by_lane_groups(const Offset* s_pos, int n, const int* __restrict__ crd,
                                    const T* __restrict__ vals, const T* __restrict__ x, T* __restrict__ y,
                                    T alpha, T beta) {
  const std::int64_t base = static_cast<std::int64_t>(blockIdx.x) * kRows;
  const int lane = threadIdx.x % G;
  const unsigned mask = group_mask<G>();
  for (int r = threadIdx.x / G; r < n; r += kRows / G) {
    const Offset begin = s_pos[r], end = s_pos[r + 1];
    T sum = 0;
#pragma unroll 4
    for (Offset q = begin + lane; q < end; q += G) sum += __ldcs(vals + q) * __ldg(x + __ldcs(crd + q));
#pragma unroll
    for (int d = G / 2; d > 0; d /= 2) sum += __shfl_xor_sync(mask, sum, d, G);
    if (lane == 0) store_y(y, base + r, sum, alpha, beta);
  }
}

// y = alpha * A * x + beta * y for n <= kRows consecutive rows from row `base` whose span of
// nonzeros (s_pos[n] - s_pos[0]) fits kStream: loads in flight kInFlight per thread at a time,
// products left in shared memory, then each row added up in order, by one thread where the
// block has many rows, by a lane group of 256 / n lanes (up to a warp) where it has few.
template <class T, class Offset>
__device__ void stream_rows(const Offset* s_pos, int n, std::int64_t base, T* s_prod, const int* __restrict__ crd,
                            const T* __restrict__ vals, const T* __restrict__ x, T* __restrict__ y, T alpha,
                            T beta) {
  const int t = threadIdx.x;
  const Offset first = s_pos[0];
  const int last = static_cast<int>(s_pos[n] - first) - 1;
  // Unconditional loads (indices clamped to the span) so that the compiler issues them together.
  constexpr int kInFlight = 4;
  for (int k0 = t; k0 <= last; k0 += kInFlight * kRows) {
    T v[kInFlight], xv[kInFlight];
    int c[kInFlight];
#pragma unroll
    for (int k = 0; k < kInFlight; ++k) {
      const int local = min(k0 + k * kRows, last);
      v[k] = __ldcs(vals + first + local);
      c[k] = __ldcs(crd + first + local);
    }
#pragma unroll
    for (int k = 0; k < kInFlight; ++k) xv[k] = __ldg(x + c[k]);
#pragma unroll
    for (int k = 0; k < kInFlight; ++k)
      if (k0 + k * kRows <= last) s_prod[k0 + k * kRows] = v[k] * xv[k];
  }
  __syncthreads();
  if (n >= kRows / 4) {  // many short rows: one thread each
    if (t < n) {
      const int end = static_cast<int>(s_pos[t + 1] - first);
      T sum = 0;
      for (int q = static_cast<int>(s_pos[t] - first); q < end; ++q) sum += s_prod[q];
      store_y(y, base + t, sum, alpha, beta);
    }
    return;
  }
  // Few, longer rows: a lane group of G = 256 / n (a power of two, at most 32) per row.
  const int g = n > 32 ? 4 : n > 16 ? 8 : n > 8 ? 16 : 32;
  const int r = t / g, lane = t % g;
  if (r >= n) return;  // whole lane groups leave together
  const unsigned mask = g == 32 ? 0xffffffffu : ((1u << g) - 1u) << (t % 32 / g * g);
  const int end = static_cast<int>(s_pos[r + 1] - first);
  T sum = 0;
  for (int q = static_cast<int>(s_pos[r] - first) + lane; q < end; q += g) sum += s_prod[q];
  for (int d = g / 2; d > 0; d /= 2) sum += __shfl_xor_sync(mask, sum, d);
  if (lane == 0) store_y(y, base + r, sum, alpha, beta);
}

// y = alpha * A * x + beta * y, kRows consecutive rows per block (no plan): spans that fit
// kStream stream; longer ones run lane groups of 8, 16 or 32 per row by the block's mean.
template <class T, class Offset>
__global__ void __launch_bounds__(kRows, 8) spmv_rows(const Offset* __restrict__ pos, const int* __restrict__ crd,
                                                   const T* __restrict__ vals, const T* __restrict__ x,
                                                   T* __restrict__ y, std::int64_t rows, T alpha, T beta) {
  __shared__ Offset s_pos[kRows + 1];
  __shared__ T s_prod[kStream];
  const int n = load_block_offsets(pos, rows, s_pos);
  const std::int64_t base = static_cast<std::int64_t>(blockIdx.x) * kRows;
  const std::int64_t span = s_pos[n] - s_pos[0];
  if (span <= kStream) return stream_rows(s_pos, n, base, s_prod, crd, vals, x, y, alpha, beta);
  const std::int64_t mean = span / n;
  if (mean < 16) rows_by_lane_groups<8>(s_pos, n, crd, vals, x, y, alpha, beta);
  else if (mean < 32) rows_by_lane_groups<16>(s_pos, n, crd, vals, x, y, alpha, beta);
  else rows_by_lane_groups<32>(s_pos, n, crd, vals, x, y, alpha, beta);
}

// Sum of one thread's value over the block (every thread gets it).
template <class T>
__device__ T block_sum(T v) {
  __shared__ T s_warp[kRows / 32];
#pragma unroll
  for (int d = 16; d > 0; d /= 2) v += __shfl_xor_sync(0xffffffffu, v, d);
  if (threadIdx.x % 32 == 0) s_warp[threadIdx.x / 32] = v;
  __syncthreads();
  T sum = 0;
#pragma unroll
  for (int w = 0; w < kRows / 32; ++w) sum += s_warp[w];
  return sum;
}

// Sum of vals[q] * x[crd[q]] over [begin, end) by the whole block, kLongInFlight loads per
// thread in flight (indices clamped, so the compiler issues them together).
template <class T>
__device__ T long_row_sum(std::int64_t begin, std::int64_t end, const int* __restrict__ crd,
                          const T* __restrict__ vals, const T* __restrict__ x) {
  constexpr int kLongInFlight = 8;
  T sum = 0;
  for (std::int64_t q0 = begin + threadIdx.x; q0 < end; q0 += kLongInFlight * kRows) {
    T v[kLongInFlight], xv[kLongInFlight];
    int c[kLongInFlight];
#pragma unroll
    for (int k = 0; k < kLongInFlight; ++k) {
      const std::int64_t q = min(q0 + k * kRows, end - 1);
      v[k] = __ldcs(vals + q);
      c[k] = __ldcs(crd + q);
    }
#pragma unroll
    for (int k = 0; k < kLongInFlight; ++k) xv[k] = __ldg(x + c[k]);
#pragma unroll
    for (int k = 0; k < kLongInFlight; ++k)
      if (q0 + k * kRows < end) sum += v[k] * xv[k];
  }
  return block_sum(sum);
}

// The chunks of the plan's long rows (SpmvPlan's arrays).
struct LongRowChunks {
  int count = 0;                          // chunks
  const std::int64_t* table = nullptr;    // per chunk: row, begin, end, long row index
  const std::int64_t* firsts = nullptr;   // first chunk of each long row, then count
  unsigned* arrived = nullptr;            // per long row: chunks done in this call (0 between calls)
  void* partial = nullptr;                // per chunk: its sum (this call's workspace)
};

// One chunk per block: its sum into partial[chunk]; the block that finishes a row's last chunk
// adds the row's partial sums in chunk order (the same bits whatever order the blocks ran in),
// writes y and rearms the row's counter for the next call.
template <class T>
__device__ void long_row_chunk(const LongRowChunks& chunks, const int* __restrict__ crd,
                               const T* __restrict__ vals, const T* __restrict__ x, T* __restrict__ y, T alpha,
                               T beta) {
  const std::int64_t* c = chunks.table + 4 * static_cast<std::int64_t>(blockIdx.x);
  const T sum = long_row_sum(c[1], c[2], crd, vals, x);
  if (threadIdx.x != 0) return;
  T* partial = static_cast<T*>(chunks.partial);
  partial[blockIdx.x] = sum;
  __threadfence();  // the sum is visible before the count says so
  const std::int64_t k = c[3], first = chunks.firsts[k], end = chunks.firsts[k + 1];
  if (atomicAdd(chunks.arrived + k, 1u) != static_cast<unsigned>(end - first - 1)) return;
  __threadfence();
  T total = 0;
  for (std::int64_t q = first; q < end; ++q) total += __ldcg(partial + q);
  store_y(y, c[0], total, alpha, beta);
  chunks.arrived[k] = 0;
}

// The plan's work, one per thread block: first the chunks of the rows longer than block_nnz
// (<= kStream), then the row blocks, rows [blocks[b], blocks[b + 1]): at most kRows rows with at
// most block_nnz nonzeros, or a single longer row (then nothing: its chunks are its blocks).
template <class T, class Offset>
__global__ void __launch_bounds__(kRows, 8) spmv_row_blocks(const int* __restrict__ blocks, std::int64_t block_nnz,
                                                            LongRowChunks chunks,
                                                            const Offset* __restrict__ pos,
                                                            const int* __restrict__ crd, const T* __restrict__ vals,
                                                            const T* __restrict__ x, T* __restrict__ y, T alpha,
                                                            T beta) {
  if (static_cast<int>(blockIdx.x) < chunks.count) return long_row_chunk(chunks, crd, vals, x, y, alpha, beta);
  __shared__ Offset s_pos[kRows + 1];
  __shared__ T s_prod[kStream];
  std::int64_t base;
  const int n = load_row_block(blocks, blockIdx.x - chunks.count, pos, s_pos, base);
  if (s_pos[n] - s_pos[0] > block_nnz) return;  // a long row: its chunks are blocks of their own
  stream_rows(s_pos, n, base, s_prod, crd, vals, x, y, alpha, beta);
}

// y = beta * y (zeros for beta == 0: y is not read), before the transposed scatter.
template <class T>
__global__ void spmv_scale(T* __restrict__ y, std::int64_t n, T beta) {
  allow_dependent_grid_launch();
  const std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) y[i] = beta == T(0) ? T(0) : beta * y[i];
}

// y += alpha * A^T * x for n <= kRows consecutive rows from row `base` whose span fits kStream:
// nonzero (i, j) adds alpha * a_ij * x_i to y_j. Each nonzero's row comes from shared memory:
// written row by row where rows are short (many per block), found by binary search in the row
// offsets where they are long.
template <class T, class Offset>
__device__ void scatter_rows(const Offset* s_pos, int n, std::int64_t base, T* s_ax, unsigned char* s_row,
                             const int* __restrict__ crd, const T* __restrict__ vals, const T* __restrict__ x,
                             T* __restrict__ y, T alpha) {
  const int t = threadIdx.x;
  const Offset first = s_pos[0];
  const int span = static_cast<int>(s_pos[n] - first);
  const bool short_rows = n >= kRows / 4;
  if (t < n) {
    s_ax[t] = alpha * __ldg(x + base + t);
    if (short_rows)
      for (int q = static_cast<int>(s_pos[t] - first); q < static_cast<int>(s_pos[t + 1] - first); ++q)
        s_row[q] = static_cast<unsigned char>(t);
  }
  __syncthreads();
  wait_for_prerequisite_grid();  // y scaled
  for (int local = t; local < span; local += kRows) {
    int row;
    if (short_rows) {
      row = s_row[local];
    } else {  // the last row whose first nonzero is at or before this one
      int lo = 0, hi = n - 1;
      while (lo < hi) {
        const int mid = (lo + hi + 1) / 2;
        if (s_pos[mid] - first <= local) lo = mid;
        else hi = mid - 1;
      }
      row = lo;
    }
    atomicAdd(y + __ldcs(crd + first + local), s_ax[row] * __ldcs(vals + first + local));
  }
}

// y += alpha * A^T * x, kRows consecutive rows per block (no plan); spans longer than kStream
// go by a warp per row.
template <class T, class Offset>
__global__ void __launch_bounds__(kRows) spmv_rows_transposed(const Offset* __restrict__ pos,
                                                              const int* __restrict__ crd,
                                                              const T* __restrict__ vals, const T* __restrict__ x,
                                                              T* __restrict__ y, std::int64_t rows, T alpha) {
  __shared__ Offset s_pos[kRows + 1];
  __shared__ T s_ax[kRows];
  __shared__ unsigned char s_row[kStream];
  const int n = load_block_offsets(pos, rows, s_pos);
  const std::int64_t base = static_cast<std::int64_t>(blockIdx.x) * kRows;
  if (s_pos[n] - s_pos[0] <= kStream) return scatter_rows(s_pos, n, base, s_ax, s_row, crd, vals, x, y, alpha);
  wait_for_prerequisite_grid();  // y scaled
  const int lane = threadIdx.x % 32;
  for (int r = threadIdx.x / 32; r < n; r += kRows / 32) {
    const T ax = alpha * __ldg(x + base + r);
    for (Offset q = s_pos[r] + lane; q < s_pos[r + 1]; q += 32) atomicAdd(y + __ldcs(crd + q), ax * __ldcs(vals + q));
  }
}

// The plan's work transposed, one per thread block: first the chunks of the rows longer than
// block_nnz, then the row blocks.
template <class T, class Offset>
__global__ void __launch_bounds__(kRows) spmv_row_blocks_transposed(const int* __restrict__ blocks,
                                                                    std::int64_t block_nnz, LongRowChunks chunks,
                                                                    const Offset* __restrict__ pos,
                                                                    const int* __restrict__ crd,
                                                                    const T* __restrict__ vals,
                                                                    const T* __restrict__ x, T* __restrict__ y,
                                                                    T alpha) {
  if (static_cast<int>(blockIdx.x) < chunks.count) {
    const std::int64_t* c = chunks.table + 4 * static_cast<std::int64_t>(blockIdx.x);
    const T ax = alpha * __ldg(x + c[0]);
    wait_for_prerequisite_grid();  // y scaled
    for (std::int64_t q = c[1] + threadIdx.x; q < c[2]; q += kRows) atomicAdd(y + __ldcs(crd + q), ax * __ldcs(vals + q));
    return;
  }
  __shared__ Offset s_pos[kRows + 1];
  __shared__ T s_ax[kRows];
  __shared__ unsigned char s_row[kStream];
  std::int64_t base;
  const int n = load_row_block(blocks, blockIdx.x - chunks.count, pos, s_pos, base);
  if (s_pos[n] - s_pos[0] > block_nnz) return;  // a long row: its chunks are blocks of their own
  scatter_rows(s_pos, n, base, s_ax, s_row, crd, vals, x, y, alpha);
}

}  // namespace tessera::kernels::cuda::spmv_detail
