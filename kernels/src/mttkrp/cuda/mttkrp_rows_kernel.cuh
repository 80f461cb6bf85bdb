#pragma once
// The order-2 walk where out's rows are the roots by position (tessera::ttm: a row of L per fiber):
// a group of P lanes per chunk of leaves, V consecutive columns per lane, loaded and stored as one
// vector, so that a leaf costs a lane two shuffles, one vector load and V multiply-adds (the
// general walk of mttkrp_dense_kernel.cuh spends them on one column). A root whose
// leaves lie in the chunk stores its row; a root that chunks cut adds its part with atomics to its
// row, zeroed first by zero_cut_roots. No row needs zeroing otherwise: CSF roots are never empty.
#include <cstdint>

#include <cuda_runtime.h>

#include "mttkrp_dense_kernel.cuh"

namespace tessera::kernels::cuda::mttkrp_detail {

// V values moved as one aligned vector.
template <class T, int V>
struct alignas(sizeof(T) * V) Pack {
  T x[V];
};

// Leaves whose factor rows a lane loads before using them.
inline constexpr int kRowsBatch = 4;

template <class T, int V, int P>
__global__ void __launch_bounds__(256) mttkrp_rows_chunks(const CsfOperands<T> t, std::int64_t chunk) {
  using Vec = Pack<T, V>;
  // A group loads kLoad consecutive leaves at a time, kLoad / P per lane (coalesced), and hands
  // them round by shuffles.
  constexpr int kLoad = P >= kRowsBatch ? P : kRowsBatch;
  constexpr int kPerLane = kLoad / P;
  const int lane = static_cast<int>(threadIdx.x) % P;
  const unsigned mask = P == 32 ? 0xffffffffu : ((1u << P) - 1u) << ((threadIdx.x % 32) / P * P);
  const std::int64_t nnz = t.nodes[1];
  const std::int64_t group = (static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x) / P;
  const std::int64_t first = group * chunk < nnz ? group * chunk : nnz;
  const std::int64_t last = first + chunk < nnz ? first + chunk : nnz;
  if (first >= last) return;  // the whole group
  const std::int64_t col = (static_cast<std::int64_t>(blockIdx.y) * P + lane) * V;
  const bool live = col < t.rank;  // columns come in whole vectors (rank % V == 0)
  const int* pos = t.pos[1];
  std::int64_t root = parent_of(pos, t.nodes[0], first);
  std::int64_t begin = pos[root], end = pos[root + 1];
  T acc[V] = {};
  for (std::int64_t base = first; base < last; base += kLoad) {
    int my_k[kPerLane];
    T my_v[kPerLane];
#pragma unroll
    for (int i = 0; i < kPerLane; ++i) {
      const std::int64_t e = base + i * P + lane;
      my_k[i] = e < last ? __ldg(t.crd[1] + e) : 0;
      my_v[i] = e < last ? __ldg(t.vals + e) : T(0);
    }
#pragma unroll
    for (int j0 = 0; j0 < kLoad; j0 += kRowsBatch) {
      if (base + j0 >= last) break;  // uniform in the group
      T v[kRowsBatch];
      Vec f[kRowsBatch];
#pragma unroll
      for (int j = 0; j < kRowsBatch; ++j) {
        const int leaf = j0 + j;  // of the kLoad: lane leaf % P holds it, as its entry leaf / P
        const int k = __shfl_sync(mask, my_k[leaf / P], leaf % P, P);
        v[j] = __shfl_sync(mask, my_v[leaf / P], leaf % P, P);
        if (live) f[j] = *reinterpret_cast<const Vec*>(t.factors[1] + static_cast<std::int64_t>(k) * t.stride[1] + col);
      }
#pragma unroll
      for (int j = 0; j < kRowsBatch; ++j) {
        const std::int64_t e = base + j0 + j;
        if (e >= last) break;
        if (live) {
#pragma unroll
          for (int c = 0; c < V; ++c) acc[c] += v[j] * f[j].x[c];
        }
        if (e + 1 != end && e + 1 != last) continue;
        T* o = t.out + root * t.out_stride + col;
        if (live && begin >= first && end <= last) {
          Vec out;
#pragma unroll
          for (int c = 0; c < V; ++c) out.x[c] = acc[c];
          *reinterpret_cast<Vec*>(o) = out;
        } else if (live) {
#pragma unroll
          for (int c = 0; c < V; ++c) atomicAdd(o + c, acc[c]);
        }
#pragma unroll
        for (int c = 0; c < V; ++c) acc[c] = 0;
        if (e + 1 == end && e + 1 < last) {
          ++root;
          begin = end;
          end = pos[root + 1];
        }
      }
    }
  }
}

// Zeroes the rows of the roots that a chunk's start cuts: a thread per start k * chunk (k >= 1)
// finds the root holding that leaf (few roots are cut: most chunks hold many).
template <class T>
__global__ void __launch_bounds__(256) zero_cut_roots(const CsfOperands<T> t, std::int64_t chunk, std::int64_t starts) {
  const std::int64_t k = 1 + static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (k > starts) return;
  const std::int64_t leaf = k * chunk;
  const std::int64_t root = parent_of(t.pos[1], t.nodes[0], leaf);
  if (t.pos[1][root] == leaf) return;  // the root starts with this chunk
  T* o = t.out + root * t.out_stride;
  for (std::int64_t c = 0; c < t.rank; ++c) o[c] = T(0);
}

}  // namespace tessera::kernels::cuda::mttkrp_detail
