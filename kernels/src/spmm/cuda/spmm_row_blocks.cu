// The row-block SpMM of spmm_row_blocks.hpp: kernel, plan and launch.
#include <cstdint>
#include <string>
#include <type_traits>

#include "../../common/cuda_support.hpp"
#include "../../spmv/cuda/spmv_csr_kernels.cuh"
#include "tessera/kernels/spmm/cuda/spmm_row_blocks.hpp"

namespace tessera::kernels::cuda {

namespace {

using spmv_detail::LongRowChunks;
using spmv_detail::store_y;
constexpr int kThreads = kSpmvBlockRows;
constexpr int kProducts = static_cast<int>(kSpmvStreamNnz);  // shared-memory products per block

// The sum of lane (slot, c)'s products over nonzeros [begin, end), slots taking every S-th one.
template <int P, class T>
__device__ T chunk_column_sum(std::int64_t begin, std::int64_t end, int slot, int c, std::int64_t n,
                              const int* __restrict__ crd, const T* __restrict__ vals, const T* __restrict__ B,
                              std::int64_t ldb) {
  constexpr int S = kThreads / P;
  T sum = 0;
  if (c < n)
    for (std::int64_t q = begin + slot; q < end; q += S)
      sum += __ldcs(vals + q) * __ldg(B + static_cast<std::int64_t>(__ldcs(crd + q)) * ldb + c);
  return sum;
}

// One chunk of a long row: its per-column sums into partial[chunk][0, P); the block that
// finishes the row's last chunk adds the chunks' sums in chunk order and writes the row of C.
template <int P, class T>
__device__ void long_row_chunk(const LongRowChunks& chunks, std::int64_t n, const int* __restrict__ crd,
                               const T* __restrict__ vals, const T* __restrict__ B, std::int64_t ldb,
                               T* __restrict__ C, std::int64_t ldc, T alpha, T beta) {
  constexpr int S = kThreads / P;
  __shared__ T s_sum[kThreads];
  __shared__ bool s_last;
  const int slot = threadIdx.x / P, c = threadIdx.x % P;
  const std::int64_t* ch = chunks.table + 4 * static_cast<std::int64_t>(blockIdx.x);
  s_sum[threadIdx.x] = chunk_column_sum<P>(ch[1], ch[2], slot, c, n, crd, vals, B, ldb);
  __syncthreads();
  T* partial = static_cast<T*>(chunks.partial);
  const std::int64_t k = ch[3], first = chunks.firsts[k], end = chunks.firsts[k + 1];
  if (threadIdx.x < P) {
    T sum = 0;
    for (int s = 0; s < S; ++s) sum += s_sum[s * P + threadIdx.x];
    partial[blockIdx.x * P + threadIdx.x] = sum;
    __threadfence();  // the sums are visible before the count says so
  }
  __syncthreads();
  if (threadIdx.x == 0) s_last = atomicAdd(chunks.arrived + k, 1u) == static_cast<unsigned>(end - first - 1);
  __syncthreads();
  if (!s_last) return;
  if (threadIdx.x < n) {
    __threadfence();
    T total = 0;
    for (std::int64_t q = first; q < end; ++q) total += __ldcg(partial + q * P + threadIdx.x);
    store_y(C + ch[0] * ldc, threadIdx.x, total, alpha, beta);
  }
  if (threadIdx.x == 0) chunks.arrived[k] = 0;
}

template <int P, class T, class Offset>
__global__ void __launch_bounds__(kThreads) spmm_row_blocks_kernel(
    const int* __restrict__ blocks, std::int64_t block_nnz, LongRowChunks chunks, const Offset* __restrict__ pos,
    const int* __restrict__ crd, const T* __restrict__ vals, const T* __restrict__ B, std::int64_t ldb,
    T* __restrict__ C, std::int64_t ldc, std::int64_t n, T alpha, T beta) {
  if (static_cast<int>(blockIdx.x) < chunks.count)
    return long_row_chunk<P>(chunks, n, crd, vals, B, ldb, C, ldc, alpha, beta);
  constexpr int S = kThreads / P;
  __shared__ Offset s_pos[S + 1];
  __shared__ T s_prod[kProducts];
  const int b = blockIdx.x - chunks.count;
  const std::int64_t base = blocks[b];
  const int rows = blocks[b + 1] - static_cast<int>(base);
  if (static_cast<int>(threadIdx.x) <= rows) s_pos[threadIdx.x] = pos[base + threadIdx.x];
  if (rows == kThreads && threadIdx.x == 0) s_pos[kThreads] = pos[base + kThreads];  // one lane per nonzero
  __syncthreads();
  const Offset first = s_pos[0];
  const std::int64_t span = s_pos[rows] - first;
  if (span > block_nnz) return;  // a long row: its chunks are blocks of their own
  const int slot = threadIdx.x / P, c = threadIdx.x % P;
  const int last = static_cast<int>(span) - 1;
  constexpr int kInFlight = 4;
  for (int e0 = slot; e0 <= last; e0 += kInFlight * S) {
    T v[kInFlight], bv[kInFlight];
    int col[kInFlight];
#pragma unroll
    for (int k = 0; k < kInFlight; ++k) {
      const int e = min(e0 + k * S, last);
      v[k] = __ldcs(vals + first + e);
      col[k] = __ldcs(crd + first + e);
    }
#pragma unroll
    for (int k = 0; k < kInFlight; ++k) bv[k] = c < n ? __ldg(B + static_cast<std::int64_t>(col[k]) * ldb + c) : T(0);
#pragma unroll
    for (int k = 0; k < kInFlight; ++k)
      if (e0 + k * S <= last) s_prod[(e0 + k * S) * P + c] = v[k] * bv[k];
  }
  __syncthreads();
  if (slot >= rows || c >= n) return;
  const int end = static_cast<int>(s_pos[slot + 1] - first);
  T sum = 0;
  for (int e = static_cast<int>(s_pos[slot] - first); e < end; ++e) sum += s_prod[e * P + c];
  store_y(C + (base + slot) * ldc, c, sum, alpha, beta);
}

template <int P, class T, class Offset>
void launch(const SpmvPlan& plan, const RowBlockSpmmArgs& a, cudaStream_t stream) {
  LongRowChunks chunks;
  chunks.count = static_cast<int>(plan.chunks());
  chunks.table = plan.chunk_table();
  chunks.firsts = plan.row_firsts();
  chunks.arrived = plan.arrivals();
  const DeviceBuffer<T> partial(static_cast<std::size_t>(plan.chunks() * P), stream,
                                formats::cuda::device_scratch_pool());
  chunks.partial = partial.ptr;
  const auto blocks = static_cast<unsigned>(plan.row_blocks() + plan.chunks());
  spmm_row_blocks_kernel<P, T, Offset><<<blocks, kThreads, 0, stream>>>(
      plan.block_starts(), plan.block_nnz(), chunks, static_cast<const Offset*>(a.pos), a.crd,
      static_cast<const T*>(a.vals), static_cast<const T*>(a.B), a.ldb, static_cast<T*>(a.C), a.ldc, a.n,
      static_cast<T>(a.alpha), static_cast<T>(a.beta));
  TESSERA_CUDA_CHECK_LAUNCH("spmm_row_blocks");
}

template <class T, class Offset>
void launch_lanes(const SpmvPlan& plan, const RowBlockSpmmArgs& a, cudaStream_t stream) {
  switch (spmm_row_blocks_lanes(a.n)) {
    case 1: return launch<1, T, Offset>(plan, a, stream);
    case 2: return launch<2, T, Offset>(plan, a, stream);
    case 4: return launch<4, T, Offset>(plan, a, stream);
    case 8: return launch<8, T, Offset>(plan, a, stream);
    default: return launch<16, T, Offset>(plan, a, stream);
  }
}

}  // namespace

bool spmm_row_blocks_preferred(std::int64_t rows, std::int64_t nnz, std::int64_t n) {
  return n <= 8 || (n <= kRowBlockSpmmMaxN && nnz < 24 * rows);
}

int spmm_row_blocks_lanes(std::int64_t n) {
  int p = 1;
  while (p < n && p < kRowBlockSpmmMaxN) p *= 2;
  return p;
}

std::shared_ptr<const SpmvPlan> spmm_row_blocks_plan(const void* pos, SpmvOffset offset, std::int64_t rows,
                                                     std::int64_t n, cudaStream_t stream) {
  const int p = spmm_row_blocks_lanes(n);
  return SpmvPlan::build(pos, offset, rows, stream, kThreads / p, kProducts / p);
}

KernelStatus spmm_row_blocks_can_implement(const RowBlockSpmmArgs& a) {
  if (a.rows < 0 || a.cols < 0 || a.n < 0) return KernelStatus::refused("negative extents");
  if (a.n > kRowBlockSpmmMaxN)
    return KernelStatus::refused("N = " + std::to_string(a.n) + " columns; the row-block SpMM takes at most " +
                                 std::to_string(kRowBlockSpmmMaxN));
  if (a.cols > 2147483647 || a.rows > 2147483647)
    return KernelStatus::refused("extents past 2^31 - 1 do not fit the int column ids");
  if (a.type != SpmvType::F32 && a.type != SpmvType::F64)
    return KernelStatus::not_runnable("value types other than float and double have no row-block SpMM");
  if (a.rows > 0 && a.n > 0 && (a.ldc < a.n || (a.cols > 0 && a.ldb < a.n)))
    return KernelStatus::refused("B and C must be row-major with row strides of at least N");
  return {};
}

void spmm_row_blocks(const SpmvPlan& plan, const RowBlockSpmmArgs& a, cudaStream_t stream) {
  require_ok(spmm_row_blocks_can_implement(a), "tessera::spmm (row blocks)");
  if (plan.rows() != a.rows || plan.block_rows() != kThreads / spmm_row_blocks_lanes(a.n))
    throw ShapeError("tessera::spmm (row blocks): the plan was built for another matrix or number of columns");
  if (a.rows == 0 || a.n == 0) return;
  const bool wide = a.offset == SpmvOffset::I64;
  if (a.type == SpmvType::F64) {
    if (wide) launch_lanes<double, std::int64_t>(plan, a, stream);
    else launch_lanes<double, int>(plan, a, stream);
  } else {
    if (wide) launch_lanes<float, std::int64_t>(plan, a, stream);
    else launch_lanes<float, int>(plan, a, stream);
  }
}

}  // namespace tessera::kernels::cuda
