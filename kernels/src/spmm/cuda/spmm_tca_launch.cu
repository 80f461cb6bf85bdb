// spmm_tca: the TCA-SpMM launchers (B packed where the kernels cannot read it in place, the
// tensor-core kernel or the row split, the finalize of split work) and the kernels they
// instantiate, all in this one translation unit. Every CUDA call and launch is checked and
// turned into tessera::CudaError.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <type_traits>

#include "tessera/core/error.hpp"
#include "tessera/kernels/spmm/cuda/spmm_tca.hpp"
#include "../../common/cluster.cuh"
#include "../../common/cuda_support.hpp"
#include "../../common/device_info.hpp"
#include "../../common/grid_dependency.cuh"
#include "spmm_tca_elem.cuh"
#include "spmm_tca_finalize_kernel.cuh"
#include "spmm_tca_internal.cuh"
#include "spmm_tca_pack_b_kernel.cuh"
#include "spmm_tca_row_split_kernel.cuh"
#include "spmm_tca_tensor_core_kernel.cuh"
#include "spmm_tca_tiles.cuh"
#include "spmm_tca_tuning.hpp"

namespace tessera::kernels::cuda {
namespace tca_detail {
namespace {

// B as the kernels read it: in place where tca_b_in_place, else packed into `packed`
// (packed_b_elems; row-major, rows padded to 16 bytes with zeros). Sets ldb and the loaded
// width n_load (b_load_width).
template <class T>
const T* row_major_b(const TcaArgs& a, DeviceBuffer<T>& packed, long long& ldb, int& n_load, cudaStream_t stream) {
  ldb = a.B.row_stride;
  n_load = b_load_width(a);
  if (!packed.ptr) return static_cast<const T*>(a.B.ptr);
  ldb = n_load;
  const T* B = static_cast<const T*>(a.B.ptr);
  if (a.cols > 0 && a.B.row_stride == 1 && a.n > 1) {
    const long long k_tiles = (a.cols + 31) / 32, n_tiles = (n_load + 31) / 32;
    if (k_tiles > 0x7fffffffLL) throw Error("spmm_tca: B too large to repack");  // n_tiles: see kSliceColumns
    tca_pack_b_transpose_kernel<T><<<dim3(static_cast<unsigned>(k_tiles), static_cast<unsigned>(n_tiles)),
                                     dim3(32, 8), 0, stream>>>(B, a.B.col_stride, packed.ptr, a.cols,
                                                               static_cast<int>(a.n), n_load);
    TESSERA_CUDA_CHECK_LAUNCH("tca_pack_b_transpose_kernel");
  } else if (a.cols > 0) {
    const long long total = a.cols * static_cast<long long>(n_load);
    const int blocks = static_cast<int>(std::min<long long>((total + 255) / 256, 65535));
    tca_pack_b_kernel<T><<<blocks, 256, 0, stream>>>(B, a.B.row_stride, a.B.col_stride, packed.ptr, a.cols,
                                                     static_cast<int>(a.n), n_load);
    TESSERA_CUDA_CHECK_LAUNCH("tca_pack_b_kernel");
  }
  return packed.ptr;
}

// C rows of the split windows or rows = alpha * (the sums of their parts in ws, rows of ws_ld) + beta * C,
// blocks of kFinalizeBlockWarps slots (TcaPlan::build) times 32-column tiles.
// Launched as the SpMM kernel's programmatic dependent: its blocks are scheduled while the
// SpMM drains and wait for it there, instead of after a kernel-to-kernel gap.
template <class T, class W>
void launch_finalize(const void* slots, long long blocks, const int* split_rows, const int* part_begin,
                     int rows_per_split, const W* ws, long long ws_ld, const TcaArgs& a, cudaStream_t stream) {
  if (blocks > 0x7fffffffLL) throw Error("spmm_tca: too many split rows");  // column tiles: see kSliceColumns
  launch_kernel_after(programmatic_launches(), tca_finalize_kernel<T, W>,
                      dim3(static_cast<unsigned>(blocks), static_cast<unsigned>((a.n + 31) / 32)),
                      dim3(kFinalizeBlockWarps * 32), 0, stream, static_cast<const FinalizeSlot*>(slots), split_rows,
                      part_begin, rows_per_split, ws, ws_ld, static_cast<T*>(a.C), a.c_row_stride, a.c_col_stride,
                      static_cast<int>(a.rows), static_cast<int>(a.n), static_cast<W>(a.alpha),
                      static_cast<W>(a.beta));
}

template <class T, int BN, int CAP, bool SHARED>
void launch_tensor_core(const TcaPlan& plan, const TcaArgs& a, const T* B, long long ldb, int n_load,
                        float* ws, int ws_ld, cudaStream_t stream) {
  using Tile = TcTile<T, BN, CAP, SHARED>;
  const int smem = kBlockWarps * Tile::kWarpSmemBytes;
  const int cluster_blocks = plan.stats().cluster_blocks;
  const auto kernel = cluster_blocks > 1 ? tca_tensor_core_kernel<T, BN, CAP, SHARED, true>
                                         : tca_tensor_core_kernel<T, BN, CAP, SHARED, false>;
  static const char shared_memory_set = 0, clusters_allowed = 0;  // keys, per instantiation
  once_per_device(&shared_memory_set, [&] {
    for (auto k : {tca_tensor_core_kernel<T, BN, CAP, SHARED, true>, tca_tensor_core_kernel<T, BN, CAP, SHARED, false>})
      TESSERA_CUDA_CHECK(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
  });
  if (cluster_blocks > kPortableClusterBlocks)
    once_per_device(&clusters_allowed, [] {
      TESSERA_CUDA_CHECK(cudaFuncSetAttribute(tca_tensor_core_kernel<T, BN, CAP, SHARED, true>,
                                              cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
    });
  const auto blocks = plan.stats().blocks;
  if (blocks == 0) return;
  if (blocks > 0x7fffffffLL) throw Error("spmm_tca: too many work items for one grid");
  // B's row pitch goes in as 32-bit bytes: tca_can_implement bounds it where B is read in place,
  // and packed rows are at most a column slice long.
  const dim3 grid(static_cast<unsigned>(blocks), static_cast<unsigned>((a.n + BN - 1) / BN));
  // C's rows contiguous, every row start aligned for the epilogue's 4-element stores
  const bool c_vec = a.c_col_stride == 1 && a.c_row_stride % 4 == 0 &&
                     reinterpret_cast<std::uintptr_t>(a.C) % (4 * sizeof(T)) == 0;
  const SharedColumns shared{plan.slot_cols(), plan.slot_rows(), plan.slot_value_begin(), plan.value_perm()};
  launch_clustered(kernel, grid, dim3(kBlockWarps * 32), smem, stream,
                   dim3(static_cast<unsigned>(cluster_blocks)), static_cast<const WorkItem*>(plan.items()), a.pos, a.crd,
                   static_cast<const T*>(a.vals), shared, B, static_cast<unsigned>(ldb * static_cast<long long>(sizeof(T))),
                   static_cast<T*>(a.C), a.c_row_stride, a.c_col_stride, static_cast<int>(a.rows),
                   static_cast<int>(a.n), n_load, static_cast<float>(a.alpha), static_cast<float>(a.beta), ws, ws_ld,
                   c_vec);
}

template <class T>
void run_tensor_core(const TcaPlan& plan, const TcaArgs& a, cudaStream_t stream) {
  const int bn = tensor_core_tile(plan, a);
  const TcaPlan& layout = tensor_core_layout(plan, a, bn);
  const auto& lst = layout.stats();
  const std::size_t packed_count = packed_b_elems(a);
  DeviceBuffer<T> packed(packed_count, stream, packed_count ? formats::cuda::device_scratch_pool() : nullptr);
  long long ldb = 0;
  int n_load = 0;
  const T* B = row_major_b(a, packed, ldb, n_load, stream);
  // Every part of a split window stores its whole tile and the finalize kernel adds the parts,
  // so the workspace needs no zeroing: a memset per call (as atomics into one tile per window
  // would need) is a sizeable share of a short call.
  const int ws_ld = tensor_core_ws_ld(a);
  const std::size_t ws_count = tensor_core_ws_elems(layout, a);
  DeviceBuffer<float> ws(ws_count, stream, ws_count ? formats::cuda::device_scratch_pool() : nullptr);
  const bool short_items = lst.max_item_nnz <= kShortItemNnz;
  const bool medium_items = lst.max_item_nnz <= kMediumItemNnz;
  auto launch_shared = [&](auto bn_const, auto shared) {
    constexpr int BN = decltype(bn_const)::value;
    constexpr bool S = decltype(shared)::value;
    if (short_items) launch_tensor_core<T, BN, kShortItemNnz, S>(layout, a, B, ldb, n_load, ws.ptr, ws_ld, stream);
    else if (medium_items) launch_tensor_core<T, BN, kMediumItemNnz, S>(layout, a, B, ldb, n_load, ws.ptr, ws_ld, stream);
    else launch_tensor_core<T, BN, kSegmentNnz, S>(layout, a, B, ldb, n_load, ws.ptr, ws_ld, stream);
  };
  auto launch = [&](auto bn_const) {
    if (lst.shared_columns) launch_shared(bn_const, std::true_type{});
    else launch_shared(bn_const, std::false_type{});
  };
  if constexpr (sizeof(T) == 2) {
    if (bn == 128) launch(std::integral_constant<int, 128>{});
    else if (bn == 64) launch(std::integral_constant<int, 64>{});
    else launch(std::integral_constant<int, 32>{});
  } else {
    if (bn == 64) launch(std::integral_constant<int, 64>{});
    else launch(std::integral_constant<int, 32>{});
  }
  if (ws_count)
    launch_finalize<T, float>(layout.split_finalize_slots(), lst.split_finalize_blocks, layout.split_rows(),
                              layout.split_part_begin(), kWindowRows, ws.ptr, ws_ld, a, stream);
}

// Row-split plans whose non-empty rows average at least this many nonzeros keep 8 gathers per
// lane group in flight instead of 4: long rows gain from the deeper pipeline more than they lose
// to the lower occupancy, which short rows feel most. 2-byte types take it only where one lane
// group spans the warp (N > 128), where each warp has one gather stream; with two or four
// groups per warp it already keeps 8-16 gathers in flight.
constexpr double kDeepGatherMeanRowNnz = 24.0;

// The row split's lane groups are as wide as N needs, up to a warp, unless the launch would then
// hold fewer warps than this fraction of what the GPU keeps resident: narrower groups give each
// item more column tiles, so more warps, each gathering fewer bytes per nonzero. Where the warps
// already fill the GPU, narrow groups lose. fp64 follows the same rule. Only the items that
// gather count: the warps of empty rows return at once.
constexpr double kRowVecMinFill = 0.6;

template <class T>
void run_row_split(const TcaPlan* plan, const TcaArgs& a, cudaStream_t stream) {
  using Acc = typename Elem<T>::acc;
  constexpr int kVec = 16 / int(sizeof(T));
  const std::size_t packed_count = packed_b_elems(a);
  DeviceBuffer<T> packed(packed_count, stream, packed_count ? formats::cuda::device_scratch_pool() : nullptr);
  long long ldb = 0;
  int n_load = 0;
  const T* B = row_major_b(a, packed, ldb, n_load, stream);
  // C's rows contiguous, whole kVec-column groups, every group 16-byte aligned: vector stores
  const bool c_vec = a.c_col_stride == 1 && a.c_row_stride % kVec == 0 && a.n % kVec == 0 &&
                     reinterpret_cast<std::uintptr_t>(a.C) % 16 == 0;
  // Without a plan, or with no chunked rows, every row is one work item, in row order.
  const long long n_listed = plan ? plan->stats().row_split_items : 0;
  // One workspace row of n_load per chunk, each written whole (no zeroing; see run_tensor_core).
  const std::size_t ws_count = row_split_ws_elems(plan, a);
  DeviceBuffer<Acc> ws(ws_count, stream, ws_count ? formats::cuda::device_scratch_pool() : nullptr);
  const long long items = n_listed ? n_listed : a.rows;
  // The warps of empty rows return at once: the fill rule below counts those that gather.
  const long long empty_rows = plan ? a.rows - plan->stats().nonempty_rows : 0;
  const auto tiles_at = [&](int lanes) { return (a.n + lanes * kVec - 1) / (lanes * kVec); };
  auto launch = [&](auto lanes, auto unroll) {
    constexpr int L = decltype(lanes)::value, U = decltype(unroll)::value;
    const long long warps = items * tiles_at(L);
    const long long blocks = (warps + 7) / 8;
    if (blocks > 0x7fffffffLL) throw Error("spmm_tca: problem too large for the row-split grid");
    tca_row_vec_kernel<T, L, U><<<static_cast<unsigned>(blocks), 256, 0, stream>>>(
        a.pos, a.crd, static_cast<const T*>(a.vals), B, ldb, static_cast<T*>(a.C), a.c_row_stride, a.c_col_stride,
        static_cast<int>(a.rows), static_cast<int>(a.n), static_cast<Acc>(a.alpha), static_cast<Acc>(a.beta), c_vec,
        n_listed ? static_cast<const RowChunk*>(plan->row_split_items()) : nullptr, static_cast<int>(n_listed),
        ws.ptr, n_load);
    TESSERA_CUDA_CHECK_LAUNCH("tca_row_vec_kernel");
  };
  // Lane groups as wide as N needs (8 lanes cover 8 kVec columns), up to a warp, and narrower
  // while the launch would not fill the GPU (kRowVecMinFill).
  const int sms = plan && plan->stats().sm_count > 0 ? plan->stats().sm_count : device_info().sms;
  const auto lanes_for = [&](int resident_warps_per_sm) {
    int lanes = a.n <= 8 * kVec ? 8 : a.n <= 16 * kVec ? 16 : 32;
    while (lanes > 8 && (items - empty_rows) * tiles_at(lanes) < kRowVecMinFill * resident_warps_per_sm * sms)
      lanes /= 2;
    return lanes;
  };
  auto launch_lanes = [&](int lanes, auto unroll) {
    if (lanes == 8) launch(std::integral_constant<int, 8>{}, unroll);
    else if (lanes == 16) launch(std::integral_constant<int, 16>{}, unroll);
    else launch(std::integral_constant<int, 32>{}, unroll);
  };
  const std::integral_constant<int, 4> shallow;
  const std::integral_constant<int, 8> deep;
  const int lanes = lanes_for(8 * row_vec_blocks_per_sm(shallow));
  const TcaPlanStats st = plan ? plan->stats() : TcaPlanStats{};
  const bool long_rows = st.nonempty_rows > 0 && st.nnz >= kDeepGatherMeanRowNnz * st.nonempty_rows;
  if (!long_rows) launch_lanes(lanes, shallow);
  else if constexpr (sizeof(T) >= 4) launch_lanes(lanes_for(8 * row_vec_blocks_per_sm(deep)), deep);
  // 2-byte types: only where one lane group spans the warp (kDeepGatherMeanRowNnz says why).
  else if (lanes == 32) launch(std::integral_constant<int, 32>{}, deep);
  else launch_lanes(lanes, shallow);
  if (ws_count)
    launch_finalize<T, Acc>(plan->chunk_finalize_slots(), plan->stats().chunk_finalize_blocks, plan->chunked_row_ids(),
                            plan->chunked_row_first_chunk(), 1, ws.ptr, n_load, a, stream);
}

// One column slice (at most kSliceColumns) of a call tca_can_implement accepted.
void run_slice(const TcaPlan* plan, TcaKernel kernel, const TcaArgs& a, cudaStream_t stream) {
  if (kernel == TcaKernel::TensorCore) {
    switch (a.type) {
      case TcaType::F32: return run_tensor_core<float>(*plan, a, stream);
      case TcaType::F16: return run_tensor_core<__half>(*plan, a, stream);
      case TcaType::BF16: return run_tensor_core<__nv_bfloat16>(*plan, a, stream);
      case TcaType::F64: return;  // has none: tca_can_implement rejects it
    }
  }
  switch (a.type) {
    case TcaType::F32: return run_row_split<float>(plan, a, stream);
    case TcaType::F64: return run_row_split<double>(plan, a, stream);
    case TcaType::F16: return run_row_split<__half>(plan, a, stream);
    case TcaType::BF16: return run_row_split<__nv_bfloat16>(plan, a, stream);
  }
}

}  // namespace
}  // namespace tca_detail

using namespace tca_detail;

void spmm_tca(const TcaPlan* plan, TcaKernel kernel, const TcaArgs& a, cudaStream_t stream) {
  require_ok(tca_can_implement(plan, kernel, a), "spmm_tca");
  if (a.rows == 0 || a.n == 0) return;
  for (std::int64_t j = 0; j < a.n; j += kSliceColumns) run_slice(plan, kernel, column_slice(a, j), stream);
}

}  // namespace tessera::kernels::cuda
