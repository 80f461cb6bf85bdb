#pragma once
/// \file
/// tessera::dist::spgemm<Policy>(A, B) — C = A * B, 1D row-wise, on every space of tessera::spgemm.
/// Rank r owns rows of A, B and C. Its rows of A name columns j of A = rows j of B;
/// the rows it does not own are exactly A's ghost columns, so A's import plan says
/// which rows of B to fetch and from whom. After that exchange the local product
/// \code{.unparsed}
///   C_r = [A_diag | A_offd] * [B owned rows ; fetched rows]
/// \endcode
/// is tessera::spgemm<Policy> (the workspace kernel) on local tensors, and C keeps
/// A's row blocks and B's column blocks. The rows fetched go from device memory to device memory
/// through A's halo where padding them to one length costs at most twice their bytes, else
/// through MPI_Alltoallv in host memory (spgemm_row_fetch.hpp). The right operand is built in
/// Space split by C's column blocks (spgemm_local_operands.hpp), so the kernel runs once per block
/// and writes C's blocks themselves. Collective over A.comm().
#include <cstdint>

#include <Kokkos_Core.hpp>

#include "tessera/core/dist/dist_tensor.hpp"
#include "tessera/core/dist/mpi_datatype.hpp"
#include "tessera/kernels/common/profiling_region.hpp"
#include "tessera/kernels/dist/dist_spmv.hpp"
#include "tessera/kernels/dist/spgemm_local_operands.hpp"
#include "tessera/kernels/dist/spgemm_row_fetch.hpp"
#include "tessera/kernels/spgemm/spgemm.hpp"

namespace tessera::dist {

/// Collective: C = A * B for row-distributed A and B, with the local products through workspace Policy.
template <class Policy = workspace::Auto, class T, class Enc, class Space>
DistTensor<T, Enc, Space> spgemm(const Space& space, const DistTensor<T, Enc, Space>& A,
                                 const DistTensor<T, Enc, Space>& B, const workspace::Options& options = {}) {
  detail::require_same_blocks("dist::spgemm", "B's rows", B.rows(), A.cols());
  MPI_Comm comm = A.comm();
  const kernels::ProfilingRegion profiling_region(kernels::region_name<T>("dist::spgemm", "row import"));

  // 1. In Space: A's rows over [owned | ghost] columns.
  using Local = typename DistTensor<T, Enc, Space>::local_tensor;
  Local a;
  agree_on_errors(comm, [&] { a = detail::rows_with_ghost_slots(A); });

  // 2. The local workspace kernel, once per block of C: A's rows times [B's owned rows ; the
  // rows fetched from other ranks] in this rank's columns are C's diagonal block, in the other
  // columns (by slot) its off-diagonal rows.
  using Result = DistTensor<T, Enc, Space>;
  const auto product = [&](const auto& fetched) {
    Local c_diagonal;
    detail::OffDiagonalRows<Local, typename Result::row_view> c_off;
    agree_on_errors(comm, [&] {
      const auto b = detail::stacked_column_blocks(B, fetched);
      c_diagonal = tessera::spgemm<Policy, Enc>(space, a, b.owned, options);
      if (b.ghost.nnz() > 0)
        c_off = detail::off_diagonal_of<Local, typename Result::row_view>(
            tessera::spgemm<Policy, Enc>(space, a, b.ghost, options), b.ghost_cols);
    });
    return Result::from_local_blocks(comm, A.rows(), B.cols(), std::move(c_diagonal), std::move(c_off.block),
                                     std::move(c_off.boundary_rows), std::move(c_off.ghost_cols));
  };
  const std::int64_t width = detail::padded_width(A, B);
  if (width >= 0) {
    const kernels::ProfilingRegion fetch_region(kernels::region_name<T>("dist::spgemm", "padded rows"));
    return product(detail::fetch_padded_rows(space, A, B, width));
  }
  const kernels::ProfilingRegion fetch_region(kernels::region_name<T>("dist::spgemm", "rows by MPI_Alltoallv"));
  return product(detail::fetch_rows_by_mpi(A, B));
}

/// Runs on a default-constructed instance of the operands' execution space.
template <class Policy = workspace::Auto, class T, class Enc, class Space>
DistTensor<T, Enc, Space> spgemm(const DistTensor<T, Enc, Space>& A, const DistTensor<T, Enc, Space>& B,
                                 const workspace::Options& options = {}) {
  return spgemm<Policy>(Space(), A, B, options);
}

}  // namespace tessera::dist
