#pragma once
/// \file
/// tessera::dist::spmm — C = alpha * A * B + beta * C for a row-distributed A and
/// row-distributed dense multivectors B (A.cols() blocks) and C (A.rows() blocks).
/// Same scheme as dist::spmv: the halo exchange of B's ghost rows overlaps the
/// diagonal block's product; the off-diagonal block (boundary rows only) then adds
/// its part (short boundary rows straight into C, one thread per row and column). Each local product is tessera::spmm with the handle's options (so TCA-SpMM on
/// Kokkos::Cuda when chosen) and a handle of its own (DistSpmmHandle), except that output_stores Auto is decided here on the
/// size of all ranks' C together, not of one rank's block: ranks on one machine
/// share its caches and memory bandwidth.
/// Collective over A.comm().
#include <Kokkos_Core.hpp>

#include "tessera/core/dist/dist_tensor.hpp"
#include "tessera/core/dist/dist_vector.hpp"
#include "tessera/kernels/common/profiling_region.hpp"
#include "tessera/kernels/dist/dist_spmv.hpp"
#include "tessera/kernels/spmm/spmm.hpp"

namespace tessera::dist {

/// The options dist::spmm gives the diagonal block's product: output_stores Auto
/// resolved on the bytes of all ranks' C together.
template <class T, class Space>
SpmmOptions diagonal_spmm_options(const DistMultiVector<T, Space>& C, SpmmOptions opts) {
  if (opts.output_stores == SpmmOutputStores::Auto) {
    const std::int64_t global_c_bytes = C.rows().size() * C.columns() * static_cast<std::int64_t>(sizeof(T));
    opts.output_stores = spmm_streams_output(SpmmOutputStores::Auto, true, global_c_bytes) ? SpmmOutputStores::Streaming
                                                                                          : SpmmOutputStores::Cached;
  }
  return opts;
}

/// What dist::spmm reuses across calls on one DistTensor: a handle for each local block
/// (their plans on Kokkos::Cuda). Options apply to both products.
class DistSpmmHandle {
 public:
  /// Both local products use `options`.
  explicit DistSpmmHandle(const SpmmOptions& options = {}) : options_(options), diagonal_(options), off_diagonal_(options) {}
  /// Options of both local products.
  const SpmmOptions& options() const noexcept { return options_; }
  /// Handle of the diagonal block's product.
  SpmmHandle& diagonal() noexcept { return diagonal_; }
  /// Handle of the off-diagonal block's product.
  SpmmHandle& off_diagonal() noexcept { return off_diagonal_; }
  /// Forgets the tensor and everything kept for it (both handles).
  void reset() noexcept {
    diagonal_.reset();
    off_diagonal_.reset();
  }

 private:
  SpmmOptions options_;
  SpmmHandle diagonal_, off_diagonal_;
};

/// Collective: C = alpha * A * B + beta * C, reusing what `handle` keeps for A.
template <class T, class Enc, class Space>
void spmm(const Space& space, T alpha, const DistTensor<T, Enc, Space>& A, const DistMultiVector<T, Space>& B, T beta,
          const DistMultiVector<T, Space>& C, DistSpmmHandle& handle) {
  detail::require_same_blocks("dist::spmm", "B", B.rows(), A.cols());
  detail::require_same_blocks("dist::spmm", "C", C.rows(), A.rows());
  if (B.columns() != C.columns())
    throw ShapeError("dist::spmm: B has " + std::to_string(B.columns()) + " columns, C has " +
                     std::to_string(C.columns()));
  if (C.shares_storage_with(B))
    throw AliasError("dist::spmm: C is B, which it reads; pass C its own DistMultiVector");
  const kernels::ProfilingRegion profiling_region(kernels::region_name<T>("dist::spmm", "halo overlap"));
  handle.diagonal().options() = diagonal_spmm_options(C, handle.options());
  auto& halo = A.halo();
  halo.start(space, B.local());
  halo.overlap([&] { tessera::spmm(space, alpha, A.diagonal(), B.local(), beta, C.local(), handle.diagonal()); });
  const auto ghosts = halo.finish(space);
  if (A.off_diagonal().nnz() > 0) {
    // Boundary rows of a few entries (a stencil's, a mesh's) add their products straight into C;
    // longer ones go through spmm into a block, then onto C's rows.
    if (A.off_diagonal().nnz() <= detail::kShortBoundaryRow * A.off_diagonal().extent(0)) {
      detail::add_boundary_block_products(space, alpha, A.off_diagonal(), A.boundary_rows(), ghosts, C.local());
    } else {
      const typename DistMultiVector<T, Space>::view_type t = halo.scratch(A.off_diagonal().extent(0));
      tessera::spmm(space, alpha, A.off_diagonal(), ghosts, T(0), t, handle.off_diagonal());
      detail::add_to_rows(space, A.boundary_rows(), t, C.local());
    }
  }
}

/// Without a handle: the local blocks' plans are built for this call alone.
template <class T, class Enc, class Space>
void spmm(const Space& space, T alpha, const DistTensor<T, Enc, Space>& A, const DistMultiVector<T, Space>& B, T beta,
          const DistMultiVector<T, Space>& C, const SpmmOptions& opts = {}) {
  DistSpmmHandle handle(opts);
  handle.diagonal().binding().serve_single_call();
  handle.off_diagonal().binding().serve_single_call();
  spmm(space, alpha, A, B, beta, C, handle);
}

/// Runs on a default-constructed instance of A's execution space.
template <class T, class Enc, class Space>
void spmm(T alpha, const DistTensor<T, Enc, Space>& A, const DistMultiVector<T, Space>& B, T beta,
          const DistMultiVector<T, Space>& C, DistSpmmHandle& handle) {
  spmm(Space(), alpha, A, B, beta, C, handle);
}

/// Runs on a default-constructed instance of A's execution space, without a handle.
template <class T, class Enc, class Space>
void spmm(T alpha, const DistTensor<T, Enc, Space>& A, const DistMultiVector<T, Space>& B, T beta,
          const DistMultiVector<T, Space>& C, const SpmmOptions& opts = {}) {
  spmm(Space(), alpha, A, B, beta, C, opts);
}

}  // namespace tessera::dist
