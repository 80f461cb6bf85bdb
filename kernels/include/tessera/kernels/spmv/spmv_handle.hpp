#pragma once
/// \file
/// Options of tessera::spmv and the handle that keeps what a sequence of calls on one matrix
/// reuses (on Kokkos::Cuda: the matrix's plan of row blocks).
#include "tessera/kernels/common/basic_handle.hpp"

namespace tessera {

/// Algorithm of tessera::spmv (see spmv.hpp).
enum class SpmvAlgorithm { Auto, Native, CudaRowBlocks };

/// Name of an algorithm, e.g. "CudaRowBlocks".
inline const char* to_string(SpmvAlgorithm a) {
  switch (a) {
    case SpmvAlgorithm::Auto: return "Auto";
    case SpmvAlgorithm::Native: return "Native";
    case SpmvAlgorithm::CudaRowBlocks: return "CudaRowBlocks";
  }
  return "?";
}

/// Options of tessera::spmv.
struct SpmvOptions {
  SpmvAlgorithm algorithm = SpmvAlgorithm::Auto;  ///< SpmvAlgorithm says which
};

/// Kept across calls on one matrix A: which tensor it serves (checked on every call, see
/// kernels::PatternBinding) and, on Kokkos::Cuda, A's plan: its rows cut into row blocks of
/// about the same number of nonzeros, and rows longer than a block into chunks that run in
/// parallel (kernels/spmv/cuda/spmv_csr.hpp). A call given SpmvOptions builds no plan: its
/// blocks are a fixed number of rows, as fast on rows of even length, slower on irregular ones.
/// Not thread-safe: one handle per thread. Copies share the kept state.
class SpmvHandle : public kernels::BasicHandle<SpmvOptions> {
 public:
  using BasicHandle::BasicHandle;
};

}  // namespace tessera
