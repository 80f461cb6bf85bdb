// The arguments of a TCA-SpMM call: which ones spmm_tca accepts (tca_can_implement, the checks
// it throws on), element sizes, and the column slices wide products run as.
#include <algorithm>
#include <cstdint>
#include <string>

#include "tessera/kernels/spmm/cuda/spmm_tca.hpp"
#include "spmm_tca_internal.cuh"

namespace tessera::kernels::cuda {
namespace tca_detail {

std::size_t elem_size(TcaType t) {
  switch (t) {
    case TcaType::F32: return 4;
    case TcaType::F64: return 8;
    default: return 2;
  }
}

TcaArgs column_slice(const TcaArgs& a, std::int64_t j) {
  const auto bytes = static_cast<std::int64_t>(elem_size(a.type));
  TcaArgs slice = a;
  slice.n = std::min(kSliceColumns, a.n - j);
  slice.B.ptr = static_cast<const char*>(a.B.ptr) + j * a.B.col_stride * bytes;
  slice.C = static_cast<char*>(a.C) + j * a.c_col_stride * bytes;
  return slice;
}

namespace {

KernelStatus invalid(const char* reason) { return KernelStatus::refused(reason); }

// Extents the kernels' int indices hold (checked before anything else, empty calls included).
KernelStatus check_extents(const TcaArgs& a) {
  if (a.rows < 0 || a.cols < 0 || a.n < 0) return invalid("negative extent");
  if (a.rows > 0x7fffffffLL || a.n > 0x7fffffffLL) return invalid("extent does not fit int");
  return {};
}

// What a nonempty call (rows, n > 0) needs of its kernel, type, pointers and B.
KernelStatus check_operands(const TcaArgs& a, TcaKernel kernel) {
  if (kernel == TcaKernel::TensorCore && !tca_has_tensor_core(a.type))
    return KernelStatus::not_runnable("fp64 has no tensor-core kernel (use CudaCoreRowSplit)");
  if (!a.pos) return invalid("pos is null");
  if (!a.C) return invalid("C is null");
  if (a.cols > 0 && !a.B.ptr) return invalid("B is null");
  // The tensor-core kernel addresses B's rows with 32-bit byte strides (a packed B's rows are short).
  if (kernel == TcaKernel::TensorCore && tca_b_in_place(a) &&
      a.B.row_stride * static_cast<std::int64_t>(elem_size(a.type)) > 0xffffffffLL)
    return invalid("a row of B spans 4 GiB or more");
  return {};
}

}  // namespace
}  // namespace tca_detail

using namespace tca_detail;

KernelStatus tca_can_implement(const TcaArgs& a, TcaKernel kernel) {
  if (KernelStatus s = check_extents(a); !s.ok) return s;
  if (a.rows == 0 || a.n == 0) return {};  // nothing to compute, nothing read
  return check_operands(a, kernel);
}

KernelStatus tca_can_implement(const TcaPlan* plan, TcaKernel kernel, const TcaArgs& a) {
  if (KernelStatus s = check_extents(a); !s.ok) return s;
  if (a.rows == 0 || a.n == 0) return {};
  if (plan && plan->stats().rows != a.rows) return invalid("plan was built for another matrix");
  if (kernel == TcaKernel::TensorCore && !plan) return invalid("the tensor-core kernel needs a plan");
  if (KernelStatus s = check_operands(a, kernel); !s.ok) return s;
  if (plan && plan->stats().nnz > 0 && (!a.crd || !a.vals)) return invalid("crd or vals is null");
  return {};
}

}  // namespace tessera::kernels::cuda
