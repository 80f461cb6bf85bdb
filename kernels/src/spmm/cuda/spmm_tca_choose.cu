// Which TCA-SpMM kernel and launch shape a call gets: tca_choose (Auto's pick), the tensor-core
// kernel's column tile and launch layout, and the facts about the arguments they rest on.
#include <cstdint>

#include "tessera/kernels/spmm/cuda/spmm_tca.hpp"
#include "spmm_tca_internal.cuh"
#include "spmm_tca_tuning.hpp"

namespace tessera::kernels::cuda {
namespace tca_detail {
namespace {

// Column tile width: BN = 32 rather than 64 for TF32 always (a 64-column TF32 stage is twice
// the fp16 one; at 32 columns a block holds 28 KB instead of 45 KB, which leaves L1 room for
// the gathers and more blocks per SM), and for fp16/bf16 when the 64-column grid would hold at
// most this many blocks per SM: a small problem then runs twice as many, half as long blocks.
constexpr int kNarrowGridBlocksPerSm = 4;
// Plans whose segments (the automatic size grows with nnz per SM) reach this many nonzeros
// run twice as wide tiles, 128 columns for fp16/bf16 and 64 for TF32: a warp then stages
// its item's column ids and values and masks each chunk's values once per 8 MMAs instead
// of 4 (TF32: 4 instead of 2). Plans of short segments keep the narrow tiles, as the wide ones
// cost them a third of their resident warps (80 registers).
constexpr int kWideTileSegmentNnz = 128;

}  // namespace

// 64 (fp16/bf16) or 32 (TF32) where the grid fills the GPU (see kNarrowGridBlocksPerSm), twice
// that for plans of long work items (kWideTileSegmentNnz). 128 columns only where they divide
// N: a part-empty tile still issues every copy and MMA.
int tensor_core_tile(const TcaPlan& plan, const TcaArgs& a) {
  const auto& st = plan.stats();
  const auto fills_gpu = [&](long long bn) {
    return st.blocks * ((a.n + bn - 1) / bn) > kNarrowGridBlocksPerSm * st.sm_count;
  };
  const bool long_items = st.segment_nnz >= kWideTileSegmentNnz;
  if (elem_size(a.type) == 2) {
    if (long_items && a.n % 128 == 0 && fills_gpu(128)) return 128;
    return a.n > 32 && fills_gpu(64) ? 64 : 32;
  }
  return long_items && a.n > 32 && fills_gpu(64) ? 64 : 32;
}

// Small enough: see TcaArchTuning::cluster_launch_budget.
const TcaPlan& tensor_core_layout(const TcaPlan& plan, const TcaArgs& a, int bn) {
  const TcaPlan* cl = plan.cluster_layout();
  const long long grid = plan.stats().blocks * ((a.n + bn - 1) / bn);
  return cl && grid * cl->stats().cluster_blocks <= tca_tuning().cluster_launch_budget * plan.stats().sm_count ? *cl
                                                                                                               : plan;
}

}  // namespace tca_detail

using namespace tca_detail;

bool tca_has_tensor_core(TcaType type) { return type != TcaType::F64; }

bool tca_runs_clusters(const TcaPlan& plan, TcaKernel kernel, const TcaArgs& args) {
  if (kernel != TcaKernel::TensorCore) return false;
  return tensor_core_layout(plan, args, tensor_core_tile(plan, args)).stats().cluster_blocks > 1;
}

bool tca_b_in_place(const TcaArgs& a) {
  const long long vec = 16 / static_cast<long long>(elem_size(a.type));
  return a.B.col_stride == 1 && a.B.row_stride % vec == 0 && a.n % vec == 0 &&
         reinterpret_cast<std::uintptr_t>(a.B.ptr) % 16 == 0;
}

TcaKernel tca_choose(const TcaPlan& plan, const TcaArgs& a, bool allow_tf32) {
  if (!tca_has_tensor_core(a.type)) return TcaKernel::CudaCoreRowSplit;
  if (a.type == TcaType::F32 && !allow_tf32) return TcaKernel::CudaCoreRowSplit;
  if (a.n < 16 || !tca_b_in_place(a)) return TcaKernel::CudaCoreRowSplit;
  if (a.type != TcaType::F32) return TcaKernel::TensorCore;
  // TF32, fitted on runs of both kernels over the benchmark matrices (spmm_tca_h100.md).
  // The CUDA-core kernel reads B through L1 at half the tensor-core kernel's cost (see
  // tca_row_vec_kernel); the tensor cores gain where short rows share one MMA. So:
  // - up to kRowVecMaxTensorN columns, the tensor cores, for even rows and long ones alike;
  // - rows averaging kVeryLongRowMinMean nonzeros or more, the CUDA cores however few the rows
  //   are: its row chunks spread them;
  // - rows that fill the GPU (rows x column tiles reach kRowVecMinWarpsPerSm warps per SM) and
  //   are even (none over kRegularRowSpread x the mean, at least kRegularRowMinMean nonzeros on
  //   average) or average kLongRowMinMean or more, the CUDA cores;
  // - the rest, the tensor cores.
  const TcaPlanStats& st = plan.stats();
  constexpr long long kRowVecMaxTensorN = 32, kRowVecMinWarpsPerSm = 32;
  constexpr double kRegularRowMinMean = 8, kLongRowMinMean = 24, kVeryLongRowMinMean = 64;
  if (a.n <= kRowVecMaxTensorN) return TcaKernel::TensorCore;
  if (st.mean_row_nnz >= kVeryLongRowMinMean) return TcaKernel::CudaCoreRowSplit;
  const long long row_vec_warps = a.rows * ((a.n + 127) / 128);  // 128 fp32 columns per warp
  const bool even = st.mean_row_nnz >= kRegularRowMinMean && st.max_row_nnz <= kRegularRowSpread * st.mean_row_nnz;
  if (row_vec_warps >= kRowVecMinWarpsPerSm * st.sm_count && (even || st.mean_row_nnz >= kLongRowMinMean))
    return TcaKernel::CudaCoreRowSplit;
  return TcaKernel::TensorCore;
}

}  // namespace tessera::kernels::cuda
