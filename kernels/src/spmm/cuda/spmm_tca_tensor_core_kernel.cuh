#pragma once
// The TCA-SpMM tensor-core kernel (the algorithm: tessera/kernels/spmm/cuda/spmm_tca.hpp).
// Included by spmm_tca_launch.cu alone: its kernels keep internal linkage there, next to the
// launchers that instantiate them.
#include <cuda_runtime.h>

#include "../../common/cluster.cuh"
#include "../../common/grid_dependency.cuh"
#include "../../common/ptx_copy.cuh"
#include "../../common/ptx_mma.cuh"
#include "spmm_tca_elem.cuh"
#include "spmm_tca_internal.cuh"
#include "spmm_tca_tiles.cuh"

namespace tessera::kernels::cuda::tca_detail {
namespace {

// A plan's shared columns (TcaPlan::slot_cols ...), null without.
struct SharedColumns {
  const int* cols;
  const unsigned char* rows;
  const int* value_begin;
  const int* perm;
};

// Raw bits of a 2-byte element (MMA operand halves).
template <class T>
__device__ __forceinline__ unsigned bits16(T x) {
  static_assert(sizeof(T) == 2, "fp16/bf16");
  unsigned short u;
  memcpy(&u, &x, 2);
  return u;
}

// CLUSTERS: launched in clusters, with split windows summed in them (a separate instance, so
// that the launches without clusters do not carry the cluster epilogue, which slows them).
template <class T, int BN, int CAP, bool SHARED, bool CLUSTERS>
__global__ void __launch_bounds__(kBlockWarps * 32, min_blocks_per_sm(sizeof(T), BN))
    tca_tensor_core_kernel(const WorkItem* __restrict__ items, const int* __restrict__ pos,
                           const int* __restrict__ crd, const T* __restrict__ vals, SharedColumns shared,
                           const T* __restrict__ B, unsigned ldb_bytes, T* __restrict__ C, long long ldc_row,
                           long long ldc_col, int rows, int n, int n_load, float alpha, float beta,
                           float* __restrict__ ws, int ws_ld, bool c_vec) {
  allow_dependent_grid_launch();  // the finalize kernel, if any (launch_finalize)
  using Tile = TcTile<T, BN, CAP, SHARED>;
  extern __shared__ __align__(16) unsigned char smem_raw[];
  const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
  // The plan fills every slot of every block (idle slots have group 0): all warps reach
  // the block barrier below.
  const WorkItem it = items[blockIdx.x * kBlockWarps + warp];
  const int group = item_group(it.meta);
  unsigned char* wsm = smem_raw + warp * Tile::kWarpSmemBytes;
  T* stage = reinterpret_cast<T*>(wsm);                             // (kStages, 16, BN)
  int* s_crd = reinterpret_cast<int*>(wsm + Tile::kStageBytes);     // (CAP)
  int* s_slot = s_crd + CAP;                                        // SHARED: (CAP) row mask << 24 | value offset
  T* s_val = reinterpret_cast<T*>(s_crd + (SHARED ? 2 : 1) * CAP);  // (CAP)
  float* O = reinterpret_cast<float*>(stage);                       // (kWindowRows, kOutStride), after the loop
  const int j0 = blockIdx.y * BN;

  if (group > 0) {
    const int g = lane >> 2, t4 = lane & 3;
    const int cnt = it.end - it.begin;  // K units (nonzeros or slots); their values <= CAP (plan's max_item_nnz)
    // This thread's MMA-B column is window row g: the nonzeros [lo, hi) (item-relative) are
    // its. Loaded first, so their latency overlaps the staging loads below. With shared
    // columns the values [vb, vb + nv) of value_perm are the item's.
    int lo = cnt, hi = cnt, vb = 0, nv = 0;
    if constexpr (SHARED) {
      vb = __ldg(shared.value_begin + it.begin);
      nv = __ldg(shared.value_begin + it.end) - vb;
    } else if (it.row0 + g < rows) {
      lo = max(__ldg(pos + it.row0 + g), it.begin) - it.begin;
      hi = min(__ldg(pos + it.row0 + g + 1), it.end) - it.begin;
    }
    // Stage the item's column ids and values: all loads in flight at once. With shared
    // columns the values (read through value_perm) are staged after the first gathers are
    // issued (below), so their two dependent loads overlap those.
    constexpr int kPerLane = (CAP + 31) / 32;
    {
      int cr[kPerLane], sl[kPerLane];
      T vl[kPerLane];
#pragma unroll
      for (int i = 0; i < kPerLane; ++i) {
        const int q = lane + 32 * i;
        if (q >= cnt) continue;
        if constexpr (SHARED) {
          cr[i] = __ldg(shared.cols + it.begin + q);
          sl[i] = (int(__ldg(shared.rows + it.begin + q)) << 24) | (__ldg(shared.value_begin + it.begin + q) - vb);
        } else {
          cr[i] = __ldg(crd + it.begin + q);
          vl[i] = vals[it.begin + q];
        }
      }
#pragma unroll
      for (int i = 0; i < kPerLane; ++i) {
        const int q = lane + 32 * i;
        if (q >= cnt) continue;
        s_crd[q] = cr[i];
        if constexpr (SHARED) s_slot[q] = sl[i];
        else s_val[q] = vl[i];
      }
    }
    // Value of K slot p (item-relative) in window row g, zero where the row has none there.
    auto value_of = [&](int p) -> T {
      if constexpr (SHARED) {
        if (p >= cnt) return Elem<T>::from_acc(0.f);
        const unsigned slot = static_cast<unsigned>(s_slot[p]), mask = slot >> 24;
        return (mask >> g) & 1u ? s_val[(slot & 0xFFFFFFu) + __popc(mask & ((1u << g) - 1u))] : Elem<T>::from_acc(0.f);
      } else {
        return p >= lo && p < hi ? s_val[p] : Elem<T>::from_acc(0.f);
      }
    };
    const int nchunks = (cnt + kChunkNnz - 1) / kChunkNnz;
    __syncwarp();

    // Stage chunk c's gathered B rows: (16 nonzeros) x (BN columns), 16-byte copies that
    // allocate in L1: the warps of an SM gather the same B rows again and again (mesh and
    // banded neighbours, hot columns), and L2 alone serves them at a fraction of L1's rate.
    // Each lane copies column chunk cv of kLoadsPerLane consecutive rows, so vector
    // shared-memory reads (one per 4 rows) fetch all their column ids.
    struct alignas(sizeof(int) * Tile::kLoadsPerLane) LaneIds {
      int k[Tile::kLoadsPerLane];
    };
    // Addresses are kept to one IMAD.WIDE (source) and one XOR with a constant plus an
    // immediate (destination) per copy: computed from 64-bit ldb, the generic stage pointer
    // and B and ldb reloaded under the register cap, the copies were most of the chunk loop.
    const int k_first = (lane / Tile::kVecPerRow) * Tile::kLoadsPerLane, cv = lane % Tile::kVecPerRow;
    const int col = j0 + cv * Tile::kVec;
    const int cnt_lane = col < n_load ? cnt : 0;  // copies past it zero-fill (read nothing)
    const char* const b_lane = reinterpret_cast<const char*>(B + (col < n_load ? col : 0));
    const unsigned stage_lane = smem_addr(stage) + k_first * BN * int(sizeof(T));
    const unsigned chunk_lane = (cv ^ Tile::swizzle(k_first)) * 16u;
    auto issue = [&](int c) {
      const unsigned dst = stage_lane + (c % kStages) * Tile::kStageElems * int(sizeof(T));
      const int q0 = c * kChunkNnz + k_first;
      const LaneIds ids = *reinterpret_cast<const LaneIds*>(s_crd + q0);
#pragma unroll
      for (int i = 0; i < Tile::kLoadsPerLane; ++i) {
        const bool ok = q0 + i < cnt_lane;
        const unsigned row = ok ? static_cast<unsigned>(ids.k[i]) : 0u;
        cp_async_16_ca(dst + i * BN * int(sizeof(T)) + (chunk_lane ^ (Tile::swizzle(i) * 16u)),
                       b_lane + static_cast<unsigned long long>(row) * ldb_bytes, ok ? 16 : 0);
      }
    };
    // TF32 MMA-B values of chunk c held by this thread: K slots t4, t4+4, 8+t4, 12+t4; zero
    // unless the nonzero is in window row g (fp16/bf16 read theirs in pairs, below).
    auto load_vals = [&](int c, float (&v)[4]) {
      const int base = c * kChunkNnz;
#pragma unroll
      for (int q = 0; q < 4; ++q) v[q] = Elem<T>::to_acc(value_of(base + t4 + 4 * q));
    };

    float acc[BN / 16][4];
#pragma unroll
    for (int mt = 0; mt < BN / 16; ++mt)
#pragma unroll
      for (int q = 0; q < 4; ++q) acc[mt][q] = 0.f;

    // Prologue: chunks 0 .. kStages-2 in flight.
#pragma unroll
    for (int s = 0; s < kStages - 1; ++s) {
      if (s < nchunks) issue(s);
      cp_async_commit();
    }
    if constexpr (SHARED) {
      int src[kPerLane];
      T vl[kPerLane];
#pragma unroll
      for (int i = 0; i < kPerLane; ++i)
        if (lane + 32 * i < nv) src[i] = __ldg(shared.perm + vb + lane + 32 * i);
#pragma unroll
      for (int i = 0; i < kPerLane; ++i)
        if (lane + 32 * i < nv) vl[i] = vals[src[i]];
#pragma unroll
      for (int i = 0; i < kPerLane; ++i)
        if (lane + 32 * i < nv) s_val[lane + 32 * i] = vl[i];
      __syncwarp();
    }

    for (int c = 0; c < nchunks; ++c) {
      const int cn = c + kStages - 1;
      if (cn < nchunks) issue(cn);
      cp_async_commit();
      float vcur[4];
      if constexpr (sizeof(T) == 4) load_vals(c, vcur);
      cp_async_wait<kStages - 1>();
      __syncwarp();
      const T* S = stage + (c % kStages) * Tile::kStageElems;  // (16, BN): S[k][m] at Tile::at(k, m / kVec)
      if constexpr (sizeof(T) == 2) {
        // The two value pairs (K slots 2t4, 2t4+1 and 2t4+8, 2t4+9) as stored, each half
        // kept only if its nonzero is in window row g.
        unsigned b[2];
#pragma unroll
        for (int h = 0; h < 2; ++h) {
          const int p = c * kChunkNnz + 2 * t4 + 8 * h;
          if constexpr (SHARED) {
            b[h] = bits16(value_of(p)) | (bits16(value_of(p + 1)) << 16);
          } else {
            const unsigned pair = *reinterpret_cast<const unsigned*>(s_val + p);
            b[h] = pair & ((p >= lo && p < hi ? 0x0000FFFFu : 0u) | (p + 1 >= lo && p + 1 < hi ? 0xFFFF0000u : 0u));
          }
        }
        // ldmatrix.trans row addresses: matrices (m 0-7,k 0-7), (m 8-15,k 0-7), (m 0-7,k 8-15), (m 8-15,k 8-15)
        // (m-tile mt's chunk is (2 mt + h) ^ swizzle = c0 ^ 2 mt: one XOR per ldmatrix)
        const int lk = (lane & 7) + ((lane >> 4) << 3), c0 = ((lane >> 3) & 1) ^ Tile::swizzle(lk);
#pragma unroll
        for (int mt = 0; mt < BN / 16; ++mt) {
          unsigned a[4];
          ldmatrix_x4_trans(a, S + lk * BN + (c0 ^ (2 * mt)) * Tile::kVec);
          mma_16816(acc[mt], a, b, T());
        }
      } else {
        // MMA rows are permuted so that one 16-byte LDS feeds two m-tiles: in each 32-column
        // pair of tiles (2p, 2p+1), MMA row g / g+8 of tile 2p+h reads column 4g+2h / 4g+2h+1.
        // The gathered B elements go to the tensor core as fp32 bits, which it truncates to
        // TF32 (relative error < 2^-10 instead of cvt.rna's 2^-11): a cvt per element was two
        // thirds of this loop's instructions. The sparse values, 4 per chunk, are still rounded.
#pragma unroll
        for (int kk = 0; kk < 2; ++kk) {
          const unsigned b[2] = {to_tf32(vcur[2 * kk]), to_tf32(vcur[2 * kk + 1])};
          const float* Sf = reinterpret_cast<const float*>(S);
          const int k = kk * 8 + t4;
#pragma unroll
          for (int pr = 0; pr < BN / 32; ++pr) {
            const float4 lo4 = *reinterpret_cast<const float4*>(Sf + Tile::at(k, pr * 8 + g));
            const float4 hi4 = *reinterpret_cast<const float4*>(Sf + Tile::at(k + 4, pr * 8 + g));
            const unsigned a0[4] = {__float_as_uint(lo4.x), __float_as_uint(lo4.y), __float_as_uint(hi4.x),
                                    __float_as_uint(hi4.y)};
            const unsigned a1[4] = {__float_as_uint(lo4.z), __float_as_uint(lo4.w), __float_as_uint(hi4.z),
                                    __float_as_uint(hi4.w)};
            mma_1688_tf32(acc[2 * pr], a0, b);
            mma_1688_tf32(acc[2 * pr + 1], a1, b);
          }
        }
      }
      __syncwarp();
    }
    cp_async_wait<0>();
    __syncwarp();

    // Accumulators (m = column g / g+8, n = window row 2t4 / 2t4+1) -> O[row][col] in
    // this warp's shared memory.
#pragma unroll
    for (int mt = 0; mt < BN / 16; ++mt) {
      // column of MMA rows g and g+8 (fp16/bf16: natural order; tf32: the permuted one above)
      const int c_lo = sizeof(T) == 2 ? mt * 16 + g : (mt / 2) * 32 + 4 * g + 2 * (mt % 2);
      const int c_hi = sizeof(T) == 2 ? mt * 16 + g + 8 : c_lo + 1;
      O[(2 * t4) * Tile::kOutStride + c_lo] = acc[mt][0];
      O[(2 * t4 + 1) * Tile::kOutStride + c_lo] = acc[mt][1];
      O[(2 * t4) * Tile::kOutStride + c_hi] = acc[mt][2];
      O[(2 * t4 + 1) * Tile::kOutStride + c_hi] = acc[mt][3];
    }
  }
  __syncthreads();
  if (group == 0) return;

  // Epilogue: the group's warps sum their tiles (group leader = warp - rank) and store
  // rows of the window, four consecutive columns per thread (quad idx by warp rank + 32 *
  // lane ...), coalesced along rows: one 16-byte shared-memory read per tile and, where C's
  // rows are contiguous and aligned (c_vec), one 8- or 16-byte store: element by element, this
  // loop is a large share of the instructions of short work items.
  const int rank = item_rank(it.meta);
  unsigned char* group_smem = smem_raw + (warp - rank) * Tile::kWarpSmemBytes;
  constexpr int kQuadsPerRow = BN / 4;
  constexpr int kQuads = kWindowRows * kQuadsPerRow;
  static_assert(Tile::kOutStride % 4 == 0, "16-byte aligned output rows");
  const auto tile_offset = [](int r, int cc) { return (r * Tile::kOutStride + cc) * int(sizeof(float)); };
  // C[row][col .. col + 3] (those below n) = alpha * v + beta * C.
  const auto store_c = [&](int row, int col, const float (&v)[4]) {
    T* out = C + row * ldc_row + col * ldc_col;
    const int cols = min(4, n - col);
    if (c_vec && cols == 4) {
      Vec4<T> y;
      if (beta != 0.f) y = *reinterpret_cast<const Vec4<T>*>(out);
#pragma unroll
      for (int q = 0; q < 4; ++q)
        y.e[q] = Elem<T>::from_acc(beta != 0.f ? alpha * v[q] + beta * Elem<T>::to_acc(y.e[q]) : alpha * v[q]);
      *reinterpret_cast<Vec4<T>*>(out) = y;
    } else {
      for (int q = 0; q < cols; ++q) {
        T* o = out + q * ldc_col;
        float y = alpha * v[q];
        if (beta != 0.f) y += beta * Elem<T>::to_acc(*o);
        *o = Elem<T>::from_acc(y);
      }
    }
  };

  if (CLUSTERS && item_in_cluster(it.meta)) {
    // A window split across the blocks [first, first + parts) of this cluster: each block
    // leaves its sum in its group leader's tile (the same offset in every block of it), and
    // after the cluster barrier each block adds up a share of the quads over all of them, in
    // block order (the same bits from call to call), reading the others' shared memory.
    for (int idx = rank * 32 + lane; idx < kQuads; idx += group * 32) {
      const int r = idx / kQuadsPerRow, cc = (idx % kQuadsPerRow) * 4;
      float4* sum = reinterpret_cast<float4*>(group_smem + tile_offset(r, cc));
      for (int w = 1; w < group; ++w) {
        const float4 o = *reinterpret_cast<const float4*>(group_smem + w * Tile::kWarpSmemBytes + tile_offset(r, cc));
        sum->x += o.x, sum->y += o.y, sum->z += o.z, sum->w += o.w;
      }
    }
    cluster_sync();
    const int first = item_cluster_first(it.meta), parts = item_cluster_parts(it.meta);
    const int mine = static_cast<int>(cluster_block_rank()) - first;
    const unsigned tile = smem_addr(group_smem);
    for (int idx = mine + parts * (rank * 32 + lane); idx < kQuads; idx += parts * group * 32) {
      const int r = idx / kQuadsPerRow, cc = (idx % kQuadsPerRow) * 4;
      const int row = it.row0 + r, col = j0 + cc;
      if (row >= rows || col >= n) continue;
      float v[4] = {0.f, 0.f, 0.f, 0.f};
      for (int p = 0; p < parts; ++p) {
        const float4 o = load_cluster_shared_f4(tile + tile_offset(r, cc), static_cast<unsigned>(first + p));
        v[0] += o.x, v[1] += o.y, v[2] += o.z, v[3] += o.w;
      }
      store_c(row, col, v);
    }
    cluster_sync();  // the other blocks' tiles stay until every block has read them
    return;
  }
  const int part = item_part(it.meta);
  for (int idx = rank * 32 + lane; idx < kQuads; idx += group * 32) {
    const int r = idx / kQuadsPerRow, cc = (idx % kQuadsPerRow) * 4;
    const int row = it.row0 + r, col = j0 + cc;
    if (row >= rows || col >= n) continue;
    float v[4] = {0.f, 0.f, 0.f, 0.f};
    for (int w = 0; w < group; ++w) {
      const float4 o = *reinterpret_cast<const float4*>(group_smem + w * Tile::kWarpSmemBytes + tile_offset(r, cc));
      v[0] += o.x, v[1] += o.y, v[2] += o.z, v[3] += o.w;
    }
    if (part >= 0) {  // this block's part of a split window; ws rows hold whole quads (ws_ld)
      *reinterpret_cast<float4*>(ws + (static_cast<long long>(part) * kWindowRows + r) * ws_ld + col) =
          make_float4(v[0], v[1], v[2], v[3]);
      continue;
    }
    store_c(row, col, v);
  }
}

}  // namespace
}  // namespace tessera::kernels::cuda::tca_detail
