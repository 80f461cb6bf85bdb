#pragma once
/// \file
/// SpMTTKRP with sparse factors as two library kernels, for device spaces:
/// \code{.unparsed}
///   R(f, j) = C(k, j) * D(l, j)          for each fiber f = (k, l) of B, on the factors' common columns
///   A       = Bt * R                     Bt (I x fibers): B's leaves by output row
/// \endcode
/// so that A(i, j) = sum_f Bt(i, f) R(f, j) = sum_{k,l} B(k, l, i) C(k, j) D(l, j). R's rows are
/// merged by one thread per fiber (factor rows are short: at most J entries); A is assembled by
/// SpGEMM's sparse workspaces, so no dense I x J workspace is needed. Bt is a transpose of B's
/// last level where I is at most nnz(B); past that, a DCSR of the output rows B has, so that no
/// array of I positions is needed either (unless OutEnc has one). Any space runs it; the host
/// kernels walk the fibers with their own workspaces instead (mttkrp_impl.hpp).
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>

#include <Kokkos_Core.hpp>

#include "tessera/core/device_coo.hpp"
#include "tessera/core/error.hpp"
#include "tessera/core/tensor.hpp"
#include "tessera/formats/assembly/parallel.hpp"
#include "tessera/formats/assembly/result_arrays.hpp"
#include "tessera/formats/convert.hpp"
#include "tessera/formats/encoding.hpp"
#include "tessera/kernels/elementwise/impl/merge_row_blocks.hpp"
#include "tessera/kernels/elementwise/impl/merge_sequential.hpp"
#include "tessera/kernels/spgemm/spgemm.hpp"
#include "tessera/workspace/workspace.hpp"

namespace tessera::kernels::impl {

/// The factor given as CSR (converted on its space where it is not).
template <class T, class Enc, class Space>
Tensor<T, CSR, Space> factor_rows(const Tensor<T, Enc, Space>& factor) {
  if constexpr (std::is_same_v<Enc, CSR>)
    return factor;
  else
    return convert<CSR>(factor);
}

/// R (fibers x J): row f holds C(k, :) .* D(l, :) for B's fiber f = (k, l), on the columns both
/// rows store.
template <class T, class Space>
Tensor<T, CSR, Space> fiber_factor_rows(const Space& space, const Tensor<T, CSF<3>, Space>& B,
                                        const Tensor<T, CSR, Space>& C, const Tensor<T, CSR, Space>& D) {
  using Csr = Tensor<T, CSR, Space>;
  using Offset = typename CSR::offset_type;
  const auto& b = B.decompose();
  const auto crd_k = b.levels[0].crd, fibers_of_k = b.levels[1].pos, crd_l = b.levels[1].crd;
  const std::int64_t ks = crd_k.extent(0), fibers = crd_l.extent(0), J = C.extent(1);
  // At most min(stored in C's row, stored in D's row) <= J entries per fiber.
  if (fibers * J > static_cast<std::int64_t>(std::numeric_limits<Offset>::max()))
    throw OverflowError("mttkrp: " + std::to_string(fibers) + " fibers of up to " + std::to_string(J) +
                        " factor entries may pass the positions' 32 bits");
  const auto& c = C.decompose();
  const auto& d = D.decompose();
  const auto pos_c = c.levels[1].pos, pos_d = d.levels[1].pos;
  const auto crd_c = c.levels[1].crd, crd_d = d.levels[1].crd;
  const auto vals_c = c.vals, vals_d = d.vals;
  // Fiber f's slice of B: the last k whose fibers start at or before f.
  const auto c_row = KOKKOS_LAMBDA(std::int64_t f) {
    return static_cast<std::int64_t>(crd_k(lower_bound(fibers_of_k, 0, ks + 1, f + 1) - 1));
  };
  // R lives for one call: its arrays from the device scratch pool (no cudaMalloc or cudaFree).
  tessera::detail::ResultArrays<Space> arrays(space, tessera::detail::call_scoped);
  typename Csr::Storage r;
  r.levels[1].pos = arrays.template take<typename Csr::pos_view>("tessera::mttkrp fiber rows pos", fibers + 1);
  tessera::detail::offsets_into<Offset, Space>(
      r.levels[1].pos, fibers,
      KOKKOS_LAMBDA(std::int64_t f) {
        const std::int64_t k = c_row(f), l = crd_l(f);
        return count_merged<MergeKind::Intersection>(pos_c(k), pos_c(k + 1), pos_d(l), pos_d(l + 1), crd_c, crd_d);
      },
      "tessera::mttkrp fiber rows pos");
  const auto pos_r = r.levels[1].pos;
  Offset entries = 0;
  Kokkos::deep_copy(Kokkos::View<Offset, Kokkos::HostSpace>(&entries), Kokkos::subview(pos_r, fibers));
  r.levels[1].crd = arrays.template take<typename Csr::crd_view>("tessera::mttkrp fiber rows crd", entries);
  r.vals = arrays.template take<typename Csr::vals_view>("tessera::mttkrp fiber rows vals", entries);
  const auto crd_r = r.levels[1].crd;
  const auto vals_r = r.vals;
  const auto product = KOKKOS_LAMBDA(T x, T y) { return x * y; };
  const auto both = KOKKOS_LAMBDA(T, bool in_c, bool in_d) { return in_c && in_d; };
  Kokkos::parallel_for(
      "tessera::mttkrp fiber rows", Kokkos::RangePolicy<Space, Kokkos::IndexType<std::int64_t>>(space, 0, fibers),
      KOKKOS_LAMBDA(const std::int64_t f) {
        const std::int64_t k = c_row(f), l = crd_l(f);
        write_merged(pos_c(k), pos_c(k + 1), pos_d(l), pos_d(l + 1), crd_c, vals_c, crd_d, vals_d, product, both,
                     crd_r, vals_r, pos_r(f));
      });
  return Csr({fibers, J}, std::move(r), arrays.owner());
}

/// Bt (I x fibers) in CSR, for I up to nnz(B): B's last level is the CSR of (fibers x I), so Bt
/// is its transpose.
template <class T, class Space>
Tensor<T, CSR, Space> leaves_by_row_csr(const Tensor<T, CSF<3>, Space>& B, std::int64_t fibers) {
  const auto& b = B.decompose();
  typename Tensor<T, CSR, Space>::Storage leaves;
  leaves.levels[1].pos = b.levels[2].pos;
  leaves.levels[1].crd = b.levels[2].crd;
  leaves.vals = b.vals;
  return transpose(Tensor<T, CSR, Space>({fibers, B.extent(2)}, std::move(leaves)));
}

/// Bt (I x fibers): B's leaves by output row, in DCSR, so that only the rows B has are stored
/// (I may be far past nnz(B)).
template <class T, class Space>
Tensor<T, DCSR, Space> leaves_by_row(const Tensor<T, CSF<3>, Space>& B, std::int64_t fibers) {
  const auto& b = B.decompose();
  const auto leaves_of_fiber = b.levels[2].pos;
  const auto leaf_row = b.levels[2].crd;
  DeviceCoo<T, Space> leaves;
  leaves.shape = {B.extent(2), fibers};
  leaves.coords = tessera::detail::uninitialized_view<typename DeviceCoo<T, Space>::coords_view>(
      "tessera::mttkrp leaves", B.nnz(), 2);
  leaves.values = b.vals;
  const auto coords = leaves.coords;
  Kokkos::parallel_for(
      "tessera::mttkrp leaves", tessera::detail::range<Space>(B.nnz()), KOKKOS_LAMBDA(const std::int64_t p) {
        coords(p, 0) = leaf_row(p);
        coords(p, 1) = lower_bound(leaves_of_fiber, 0, fibers + 1, p + 1) - 1;  // the fiber holding leaf p
      });
  return from_coo<T, DCSR, Space>(leaves);
}

/// A(i, j) = sum_{k,l} B(k, l, i) C(k, j) D(l, j) through R and SpGEMM (see the file's comment),
/// SpGEMM accumulating through Policy over the output rows B has; A in OutEnc (any matrix
/// encoding that from_coo builds).
template <class Policy, class OutEnc, class T, class EncC, class EncD, class Space>
Tensor<T, OutEnc, Space> mttkrp_by_spgemm(const Space& space, const Tensor<T, CSF<3>, Space>& B,
                                          const Tensor<T, EncC, Space>& C, const Tensor<T, EncD, Space>& D,
                                          const workspace::Options& options, workspace::Report* report) {
  using Csr = Tensor<T, CSR, Space>;
  const Csr R = fiber_factor_rows(space, B, factor_rows(C), factor_rows(D));
  // Up to nnz(B) output rows an array over them costs no more than the leaves: Bt in CSR by a
  // transpose, and the product is A (no sort of the leaves, no mapping of rows back).
  if (B.extent(2) <= B.nnz()) {
    Csr A = spgemm<Policy, CSR>(space, leaves_by_row_csr(B, R.extent(0)), R, options, report);
    if constexpr (std::is_same_v<OutEnc, CSR>)
      return A;
    else
      return convert<OutEnc>(A);
  }
  const auto Bt = leaves_by_row(B, R.extent(0));
  const auto& bt = Bt.decompose();
  const auto rows_of_B = bt.levels[0].crd;
  // Bt's stored rows as a CSR of those rows alone, times R.
  typename Csr::Storage stored;
  stored.levels[1].pos = bt.levels[1].pos;
  stored.levels[1].crd = bt.levels[1].crd;
  stored.vals = bt.vals;
  const Csr P = spgemm<Policy, CSR>(space, Csr({static_cast<std::int64_t>(rows_of_B.extent(0)), R.extent(0)},
                                               std::move(stored)),
                                    R, options, report);
  // P's rows back to B's output rows.
  DeviceCoo<T, Space> entries = to_device_coo(P);
  entries.shape = {B.extent(2), C.extent(1)};
  const auto coords = entries.coords;
  Kokkos::parallel_for(
      "tessera::mttkrp rows", tessera::detail::range<Space>(entries.nnz()),
      KOKKOS_LAMBDA(const std::int64_t n) { coords(n, 0) = rows_of_B(coords(n, 0)); });
  return from_coo<T, OutEnc, Space>(entries);
}

}  // namespace tessera::kernels::impl
