#pragma once
// The kernel of mttkrp_dense_csf (mttkrp_dense_csf.hpp): a group of G lanes per chunk of leaves,
// C rank columns per lane, partial rows per CSF level in registers.
#include <cstdint>

#include <cuda_runtime.h>

#include "tessera/kernels/mttkrp/cuda/mttkrp_dense_csf.hpp"

namespace tessera::kernels::cuda::mttkrp_detail {

// The arguments in the kernel's types, passed by value.
template <class T>
struct CsfOperands {
  std::int64_t nodes[kMttkrpMaxOrder];
  const int* pos[kMttkrpMaxOrder];
  const int* crd[kMttkrpMaxOrder];
  const T* vals;
  const T* factors[kMttkrpMaxOrder];
  std::int64_t stride[kMttkrpMaxOrder];
  T* out;
  std::int64_t out_stride;
  std::int64_t rank;
};

// The node of a level holding child `child`: the last p < n with pos[p] <= child (CSF nodes are
// never empty, so pos rises strictly).
__device__ inline std::int64_t parent_of(const int* pos, std::int64_t n, std::int64_t child) {
  std::int64_t lo = 0, hi = n;
  while (hi - lo > 1) {
    const std::int64_t mid = (lo + hi) / 2;
    if (pos[mid] <= child) lo = mid;
    else hi = mid;
  }
  return lo;
}

// Leaves handled per batch: their factor rows are loaded together, so that several loads are in
// flight per group.
template <int G>
inline constexpr int kBatch = G < 8 ? G : 8;

// The cut shared by both kernels: a group of G lanes per chunk of leaves [first, last) (empty
// past the last leaf), lane `lane` holding rank columns col + c * G (live: below the rank).
template <int G, int C>
struct GroupChunk {
  int lane;
  unsigned mask;  // the group's lanes in the warp
  std::int64_t first, last, col;
  bool live[C];
  __device__ GroupChunk(std::int64_t nnz, std::int64_t chunk, std::int64_t rank) {
    lane = static_cast<int>(threadIdx.x) % G;
    mask = G == 32 ? 0xffffffffu : ((1u << G) - 1u) << ((threadIdx.x % 32) / G * G);
    const std::int64_t group = (static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x) / G;
    first = group * chunk < nnz ? group * chunk : nnz;
    last = first + chunk < nnz ? first + chunk : nnz;
    col = static_cast<std::int64_t>(blockIdx.y) * (G * C) + lane;
#pragma unroll
    for (int c = 0; c < C; ++c) live[c] = col + c * G < rank;
  }
};

template <class T, int N, int G, int C>
__global__ void __launch_bounds__(256) mttkrp_dense_chunks(const CsfOperands<T> t, std::int64_t chunk) {
  constexpr int B = kBatch<G>;
  const GroupChunk<G, C> g(t.nodes[N - 1], chunk, t.rank);
  if (g.first >= g.last) return;

  // Per level l < N - 1: the open node, the first child past it, and (l >= 1) its factor row;
  // level 0 keeps its output row instead.
  std::int64_t node[N - 1], end[N - 1];
  T row[N - 1][C];
  auto enter = [&](int l, std::int64_t p) {
    node[l] = p;
    end[l] = t.pos[l + 1][p + 1];
    if (l == 0) return;
    const T* f = t.factors[l] + static_cast<std::int64_t>(t.crd[l][p]) * t.stride[l] + g.col;
#pragma unroll
    for (int c = 0; c < C; ++c) row[l][c] = g.live[c] ? __ldg(f + c * G) : T(0);
  };
  std::int64_t child = g.first;
#pragma unroll
  for (int l = N - 2; l >= 0; --l) {
    enter(l, parent_of(t.pos[l + 1], t.nodes[l], child));
    child = node[l];
  }
  T acc[N - 1][C];
#pragma unroll
  for (int l = 0; l < N - 1; ++l)
#pragma unroll
    for (int c = 0; c < C; ++c) acc[l][c] = 0;

  const T* leaf_factor = t.factors[N - 1] + g.col;
  for (std::int64_t base = g.first; base < g.last; base += G) {
    const int count = g.last - base < G ? static_cast<int>(g.last - base) : G;
    int my_crd = 0;
    T my_val = 0;
    if (g.lane < count) {
      my_crd = t.crd[N - 1][base + g.lane];
      my_val = t.vals[base + g.lane];
    }
    for (int j0 = 0; j0 < count; j0 += B) {
      T f[B][C];
#pragma unroll
      for (int j = 0; j < B; ++j) {
        const int k = __shfl_sync(g.mask, my_crd, j0 + j < G ? j0 + j : 0, G);
        const bool in = j0 + j < count;
#pragma unroll
        for (int c = 0; c < C; ++c)
          f[j][c] = in && g.live[c] ? __ldg(leaf_factor + static_cast<std::int64_t>(k) * t.stride[N - 1] + c * G) : T(0);
      }
#pragma unroll
      for (int j = 0; j < B; ++j) {
        const T v = __shfl_sync(g.mask, my_val, j0 + j < G ? j0 + j : 0, G);
        if (j0 + j >= count) break;  // uniform in the group
        const std::int64_t e = base + j0 + j;
#pragma unroll
        for (int c = 0; c < C; ++c) acc[N - 2][c] += v * f[j][c];
        // Close the nodes that end with leaf e; at the chunk's end every open node adds its part.
        const bool chunk_ends = e + 1 == g.last;
        std::int64_t done = e;
        bool closing = true;
#pragma unroll
        for (int l = N - 2; l >= 0; --l) {
          if (!closing) break;
          const bool node_ends = done + 1 == end[l];
          if (!node_ends && !chunk_ends) break;
          if (l > 0) {
#pragma unroll
            for (int c = 0; c < C; ++c) acc[l > 0 ? l - 1 : 0][c] += acc[l][c] * row[l][c];
          } else {
            const std::int64_t out_row = t.crd[0] ? t.crd[0][node[0]] : node[0];
            T* o = t.out + out_row * t.out_stride + g.col;
#pragma unroll
            for (int c = 0; c < C; ++c)
              if (g.live[c]) atomicAdd(o + c * G, acc[0][c]);
          }
#pragma unroll
          for (int c = 0; c < C; ++c) acc[l][c] = 0;
          done = node[l];
          if (node_ends && !chunk_ends) enter(l, node[l] + 1);
          closing = node_ends || chunk_ends;
        }
      }
    }
  }
}

}  // namespace tessera::kernels::cuda::mttkrp_detail
