#pragma once
// The kernel of mttkrp_dense_csf for tensors given with every level's coordinate per leaf (the
// form the front end picks where fibers hold about one nonzero): a group of G lanes per chunk of
// leaves, C rank columns per lane; a batch of leaves loads all its factor rows before any is
// used, so that up to B * (N - 1) loads are in flight per group; rows of the root are added up
// in registers and leave with atomic adds where the root changes and at the chunk's end.
#include <cstdint>

#include <cuda_runtime.h>

#include "mttkrp_dense_kernel.cuh"

namespace tessera::kernels::cuda::mttkrp_detail {

// Leaves per batch: fewer for four columns per lane, whose batch would not fit the registers.
template <int G, int C>
inline constexpr int kLeafBatch = G < 8 ? G : (C >= 4 ? 4 : 8);

template <class T, int N, int G, int C>
__global__ void __launch_bounds__(256) mttkrp_dense_leaves(const CsfOperands<T> t, std::int64_t chunk) {
  constexpr int B = kLeafBatch<G, C>;
  const GroupChunk<G, C> g(t.nodes[N - 1], chunk, t.rank);
  if (g.first >= g.last) return;

  T acc[C];
#pragma unroll
  for (int c = 0; c < C; ++c) acc[c] = 0;
  int root = -1;
  auto flush = [&] {
    T* o = t.out + static_cast<std::int64_t>(root) * t.out_stride + g.col;
#pragma unroll
    for (int c = 0; c < C; ++c) {
      if (g.live[c]) atomicAdd(o + c * G, acc[c]);
      acc[c] = 0;
    }
  };
  for (std::int64_t base = g.first; base < g.last; base += G) {
    const int count = g.last - base < G ? static_cast<int>(g.last - base) : G;
    int my_crd[N];
    T my_val = 0;
#pragma unroll
    for (int l = 0; l < N; ++l) my_crd[l] = g.lane < count ? t.crd[l][base + g.lane] : 0;
    if (g.lane < count) my_val = t.vals[base + g.lane];
    for (int j0 = 0; j0 < count; j0 += B) {
      T prod[B][C];
#pragma unroll
      for (int j = 0; j < B; ++j) {
        const bool in = j0 + j < count;
        const T v = __shfl_sync(g.mask, my_val, (j0 + j) % G, G);
#pragma unroll
        for (int c = 0; c < C; ++c) prod[j][c] = v;
#pragma unroll
        for (int l = 1; l < N; ++l) {
          const int k = __shfl_sync(g.mask, my_crd[l], (j0 + j) % G, G);
          const T* f = t.factors[l] + static_cast<std::int64_t>(k) * t.stride[l] + g.col;
#pragma unroll
          for (int c = 0; c < C; ++c) prod[j][c] *= in && g.live[c] ? __ldg(f + c * G) : T(0);
        }
      }
#pragma unroll
      for (int j = 0; j < B; ++j) {
        const int r = __shfl_sync(g.mask, my_crd[0], (j0 + j) % G, G);
        if (j0 + j >= count) break;  // uniform in the group
        if (r != root) {
          if (root >= 0) flush();
          root = r;
        }
#pragma unroll
        for (int c = 0; c < C; ++c) acc[c] += prod[j][c];
      }
    }
  }
  flush();
}

}  // namespace tessera::kernels::cuda::mttkrp_detail
