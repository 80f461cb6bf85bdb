#pragma once
/// \file
/// tessera::spgemm<Policy, OutEnc>(A, B) — C = A * B for sparse matrices, accumulating through
/// the workspace `Policy` (tessera::workspace::{Dense, Bucket, Hash, Coord, Map, SortOnce, Auto}).
/// On host execution spaces the algorithm follows the encodings:
/// \code{.unparsed}
///   A CSR,  B CSR,        C row-major     row-wise, first-order workspace per row, rows
///                                         written straight into C (Dense: Gustavson rows);
///   A CSR,  B CSR,        C column-major  row-wise, second-order workspace (transposed output);
///   A CSC|DCSC, B CSR|DCSR, C any         outer product, second-order workspace.
/// \endcode
/// OutEnc is any {Dense|Compressed, Compressed} matrix encoding (CSR, CSC, DCSR, DCSC).
/// With OpenMP, threads own workspaces and output chunks; the result's structure is
/// the same for every thread count. On Kokkos::Cuda (cuda/spgemm_cuda.hpp), row-wise with the
/// device workspaces of cuda/spgemm_rows.hpp (policies Auto, Hash, Dense), other encodings
/// converted on the device.
/// With an SpgemmHandle, a product of operands with the patterns of the handle's first one runs
/// only the numeric phase (spgemm_handle.hpp).
#include <type_traits>

#include <Kokkos_Core.hpp>

#include "tessera/core/tensor.hpp"
#include "tessera/formats/encoding.hpp"
#include "tessera/kernels/common/bind_handle.hpp"
#include "tessera/kernels/common/checks.hpp"
#include "tessera/kernels/spgemm/cuda/spgemm_cuda.hpp"
#include "tessera/kernels/spgemm/impl/spgemm_impl.hpp"
#include "tessera/kernels/spgemm/spgemm_handle.hpp"
#include "tessera/workspace/policies.hpp"

namespace tessera {

namespace kernels::detail {

template <class OutEnc, class EncA, class EncB>
void check_spgemm_encodings() {
  static_assert(is_two_level_compressed_v<OutEnc>, "OutEnc must be CSR, CSC, DCSR or DCSC");
  static_assert(is_row_major_v<EncB>, "B must be row-major (CSR or DCSR)");
  static_assert(is_column_major_v<EncA> || (is_row_major_v<EncA> && EncA::level_kinds[0] == LevelKind::Dense &&
                                            EncB::level_kinds[0] == LevelKind::Dense),
                "A must be CSC/DCSC (outer product) or CSR with B CSR (row-wise)");
}

}  // namespace kernels::detail

/// C = A * B on `space`, through workspace Policy, into OutEnc.
template <class Policy = workspace::Auto, class OutEnc = CSR, class T, class EncA, class EncB, class Space>
Tensor<T, OutEnc, Space> spgemm(const Space& space, const Tensor<T, EncA, Space>& A, const Tensor<T, EncB, Space>& B,
                                const workspace::Options& options = {}, workspace::Report* report = nullptr) {
  kernels::detail::check_spgemm_encodings<OutEnc, EncA, EncB>();
  kernels::require_extent("spgemm", "B.extent(0)", B.extent(0), A.extent(1));
  return kernels::SpgemmImpl<Space, Policy, OutEnc, T, EncA, EncB>::run(space, A, B, options, report);
}

/// Through a handle: the first call computes C and keeps its pattern; later calls with operands
/// of the same patterns compute only C's values (CSR x CSR -> CSR; other encodings recompute).
/// `report` is filled by calls that run the whole product.
template <class Policy = workspace::Auto, class OutEnc = CSR, class T, class EncA, class EncB, class Space>
Tensor<T, OutEnc, Space> spgemm(const Space& space, const Tensor<T, EncA, Space>& A, const Tensor<T, EncB, Space>& B,
                                SpgemmHandle& handle, workspace::Report* report = nullptr) {
  kernels::detail::check_spgemm_encodings<OutEnc, EncA, EncB>();
  kernels::require_extent("spgemm", "B.extent(0)", B.extent(0), A.extent(1));
  const auto& a = A.decompose();
  const auto& b = B.decompose();
  kernels::bind_handle(space, "tessera::spgemm", handle, {A.extent(0), A.extent(1), B.extent(1)}, A.nnz() + B.nnz(),
                       a.levels[0].pos, a.levels[0].crd, a.levels[1].pos, a.levels[1].crd, b.levels[0].pos,
                       b.levels[0].crd, b.levels[1].pos, b.levels[1].crd);
  return kernels::SpgemmImpl<Space, Policy, OutEnc, T, EncA, EncB>::run(space, A, B, handle, report);
}

/// Run on a default-constructed instance of the operands' execution space.
template <class Policy = workspace::Auto, class OutEnc = CSR, class T, class EncA, class EncB, class Space>
Tensor<T, OutEnc, Space> spgemm(const Tensor<T, EncA, Space>& A, const Tensor<T, EncB, Space>& B,
                                const workspace::Options& options = {}, workspace::Report* report = nullptr) {
  return spgemm<Policy, OutEnc>(Space(), A, B, options, report);
}

/// Through a handle, on a default-constructed instance of the operands' execution space.
template <class Policy = workspace::Auto, class OutEnc = CSR, class T, class EncA, class EncB, class Space>
Tensor<T, OutEnc, Space> spgemm(const Tensor<T, EncA, Space>& A, const Tensor<T, EncB, Space>& B,
                                SpgemmHandle& handle, workspace::Report* report = nullptr) {
  return spgemm<Policy, OutEnc>(Space(), A, B, handle, report);
}

}  // namespace tessera
