// Launches of the SpMV kernels (spmv_csr.hpp): checks, then one kernel (the transposed scatter
// after scaling y).
#include <cstdint>
#include <limits>
#include <string>

#include "../../common/cuda_support.hpp"
#include "../../common/device_info.hpp"
#include "../../common/grid_dependency.cuh"
#include "spmv_csr_kernels.cuh"
#include "tessera/kernels/spmv/cuda/spmv_csr.hpp"

namespace tessera::kernels::cuda {

KernelStatus spmv_can_implement(const SpmvArgs& a) {
  if (a.rows < 0 || a.cols < 0) return KernelStatus::refused("negative extents");
  if (a.cols > std::numeric_limits<int>::max() || a.rows > std::numeric_limits<int>::max())
    return KernelStatus::refused("extents past 2^31 - 1 do not fit the int column ids");
  const bool empty = a.rows == 0 || a.cols == 0;
  if (!empty && (a.pos == nullptr || a.x == nullptr || a.y == nullptr))
    return KernelStatus::refused("null row offsets, x or y");
  if (a.type != SpmvType::F32 && a.type != SpmvType::F64)
    return KernelStatus::not_runnable("value types other than float and double have no CUDA SpMV kernel");
  return {};
}

namespace {

template <class T>
void scale(T* y, std::int64_t n, T beta, cudaStream_t stream) {
  if (n == 0) return;
  spmv_detail::spmv_scale<<<static_cast<unsigned>((n + 255) / 256), 256, 0, stream>>>(y, n, beta);
  TESSERA_CUDA_CHECK_LAUNCH("spmv_scale");
}

template <class T, class Offset>
void run_typed(const SpmvPlan* plan, const SpmvArgs& a, cudaStream_t stream) {
  using namespace spmv_detail;
  const auto* pos = static_cast<const Offset*>(a.pos);
  const auto* vals = static_cast<const T*>(a.vals);
  const auto* x = static_cast<const T*>(a.x);
  auto* y = static_cast<T*>(a.y);
  const T alpha = static_cast<T>(a.alpha), beta = static_cast<T>(a.beta);
  const bool planned = plan != nullptr && !plan->fixed_blocks();
  LongRowChunks chunks;
  if (planned) {
    chunks.count = static_cast<int>(plan->chunks());
    chunks.table = plan->chunk_table();
    chunks.firsts = plan->row_firsts();
    chunks.arrived = plan->arrivals();
  }
  const auto blocks = static_cast<unsigned>(planned ? plan->row_blocks() + plan->chunks() : (a.rows + kRows - 1) / kRows);
  if (a.transpose) {
    scale(y, a.cols, beta, stream);
    if (a.rows == 0 || a.cols == 0) return;
    // Where the scaling runs in one wave, the scatter is its programmatic dependent: the
    // scatter's blocks load their row offsets while y is being scaled (on larger y they would
    // take the scaling's place on the multiprocessors).
    const bool dependent = programmatic_launches() && (a.cols + 255) / 256 <= 8 * device_info().sms;
    if (planned)
      launch_kernel_after(dependent, spmv_row_blocks_transposed<T, Offset>, blocks, kRows, 0, stream,
                          plan->block_starts(), plan->block_nnz(), chunks, pos, a.crd, vals, x, y, alpha);
    else
      launch_kernel_after(dependent, spmv_rows_transposed<T, Offset>, blocks, kRows, 0, stream, pos,
                          a.crd, vals, x, y, a.rows, alpha);
    return;
  }
  if (a.rows == 0) return;
  if (a.cols == 0) return scale(y, a.rows, beta, stream);  // no nonzeros: y = beta * y
  if (!planned) {
    spmv_rows<T, Offset><<<blocks, kRows, 0, stream>>>(pos, a.crd, vals, x, y, a.rows, alpha, beta);
    TESSERA_CUDA_CHECK_LAUNCH("spmv_rows");
    return;
  }
  const DeviceBuffer<T> partial(static_cast<std::size_t>(plan->chunks()), stream, formats::cuda::device_scratch_pool());
  chunks.partial = partial.ptr;
  spmv_row_blocks<T, Offset>
      <<<blocks, kRows, 0, stream>>>(plan->block_starts(), plan->block_nnz(), chunks, pos, a.crd, vals, x, y, alpha, beta);
  TESSERA_CUDA_CHECK_LAUNCH("spmv_row_blocks");
}

template <class T>
void run_offset(const SpmvPlan* plan, const SpmvArgs& a, cudaStream_t stream) {
  if (a.offset == SpmvOffset::I64) run_typed<T, std::int64_t>(plan, a, stream);
  else run_typed<T, int>(plan, a, stream);
}

}  // namespace

void spmv_csr(const SpmvPlan* plan, const SpmvArgs& a, cudaStream_t stream) {
  require_ok(spmv_can_implement(a), "tessera::spmv (CUDA)");
  if (plan != nullptr && plan->rows() != a.rows)
    throw ShapeError("tessera::spmv (CUDA): the plan was built for " + std::to_string(plan->rows()) +
                     " rows, the matrix has " + std::to_string(a.rows));
  if (a.type == SpmvType::F64) run_offset<double>(plan, a, stream);
  else run_offset<float>(plan, a, stream);
}

}  // namespace tessera::kernels::cuda
