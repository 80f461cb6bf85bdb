// Temporaries of a TCA-SpMM call, taken from the stream-ordered workspace pool: the packed copy
// of B, the tensor-core kernel's split-window parts, the row split's row-chunk sums. One set of
// sizes for the launchers and tca_workspace_bytes.
#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "tessera/kernels/spmm/cuda/spmm_tca.hpp"
#include "spmm_tca_internal.cuh"

namespace tessera::kernels::cuda {
namespace tca_detail {

std::size_t packed_b_elems(const TcaArgs& a) {
  const long long vec = 16 / static_cast<long long>(elem_size(a.type));
  return tca_b_in_place(a) ? 0 : static_cast<std::size_t>(a.cols) * static_cast<std::size_t>((a.n + vec - 1) / vec * vec);
}

int b_load_width(const TcaArgs& a) {
  const long long vec = 16 / static_cast<long long>(elem_size(a.type));
  return static_cast<int>(packed_b_elems(a) ? (a.n + vec - 1) / vec * vec : a.n);
}

int tensor_core_ws_ld(const TcaArgs& a) { return static_cast<int>((a.n + 3) / 4 * 4); }

std::size_t tensor_core_ws_elems(const TcaPlan& layout, const TcaArgs& a) {
  return static_cast<std::size_t>(layout.stats().split_parts) * kWindowRows * tensor_core_ws_ld(a);
}

std::size_t row_split_ws_elems(const TcaPlan* plan, const TcaArgs& a) {
  const long long n_chunks = plan ? plan->stats().row_chunks : 0;
  return static_cast<std::size_t>(n_chunks * b_load_width(a));
}

}  // namespace tca_detail

using namespace tca_detail;

std::size_t tca_workspace_bytes(const TcaPlan* plan, TcaKernel kernel, const TcaArgs& a) {
  if (!tca_can_implement(plan, kernel, a).ok || a.rows == 0 || a.n == 0) return 0;
  // Slices run one after the other, each freeing its temporaries in stream order: the largest counts.
  std::size_t most = 0;
  for (std::int64_t j = 0; j < a.n; j += kSliceColumns) {
    const TcaArgs s = column_slice(a, j);
    std::size_t bytes = packed_b_elems(s) * elem_size(s.type);
    if (kernel == TcaKernel::TensorCore)
      bytes += tensor_core_ws_elems(tensor_core_layout(*plan, s, tensor_core_tile(*plan, s)), s) * sizeof(float);
    else
      bytes += row_split_ws_elems(plan, s) * (s.type == TcaType::F64 ? sizeof(double) : sizeof(float));
    most = std::max(most, bytes);
  }
  return most;
}

}  // namespace tessera::kernels::cuda
