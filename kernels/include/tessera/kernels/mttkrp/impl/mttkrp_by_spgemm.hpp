#pragma once
/// \file
/// SpMTTKRP with sparse factors as two library kernels, for device spaces:
/// \code{.unparsed}
///   R(f, j) = C(k, j) * D(l, j)          for each fiber f = (k, l) of B, on the factors' common columns
///   A       = Bf^T * R                   Bf (fibers x I): B's leaves by fiber, as stored
/// \endcode
/// so that A(i, j) = sum_f Bf(f, i) R(f, j) = sum_{k,l} B(k, l, i) C(k, j) D(l, j). R's rows are
/// merged by one thread per fiber (factor rows are short: at most J entries); A is assembled by
/// SpGEMM's sparse workspaces, so no dense I x J workspace is needed anywhere. Any space runs it;
/// the host kernels walk the fibers with their own workspaces instead (mttkrp_impl.hpp).
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>

#include <Kokkos_Core.hpp>

#include "tessera/core/error.hpp"
#include "tessera/core/tensor.hpp"
#include "tessera/formats/assembly/parallel.hpp"
#include "tessera/formats/convert.hpp"
#include "tessera/formats/encoding.hpp"
#include "tessera/kernels/common/host_matrix.hpp"
#include "tessera/kernels/elementwise/impl/merge_row_blocks.hpp"
#include "tessera/kernels/elementwise/impl/merge_slices.hpp"
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
  typename Csr::Storage r;
  r.levels[1].pos = tessera::detail::offsets_of<Offset, Space>(
      "tessera::mttkrp fiber rows pos", fibers, KOKKOS_LAMBDA(std::int64_t f) {
        const std::int64_t k = c_row(f), l = crd_l(f);
        return count_merged<MergeKind::Intersection>(pos_c(k), pos_c(k + 1), pos_d(l), pos_d(l + 1), crd_c, crd_d);
      });
  const auto pos_r = r.levels[1].pos;
  Offset entries = 0;
  Kokkos::deep_copy(Kokkos::View<Offset, Kokkos::HostSpace>(&entries), Kokkos::subview(pos_r, fibers));
  r.levels[1].crd = tessera::detail::uninitialized_view<typename Csr::crd_view>("tessera::mttkrp fiber rows crd", entries);
  r.vals = tessera::detail::uninitialized_view<typename Csr::vals_view>("tessera::mttkrp fiber rows vals", entries);
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
  return Csr({fibers, J}, std::move(r));
}

/// A(i, j) = sum_{k,l} B(k, l, i) C(k, j) D(l, j) through R and SpGEMM (see the file's comment),
/// SpGEMM accumulating through Policy; A in OutEnc (a two-level compressed encoding, or COO).
template <class Policy, class OutEnc, class T, class EncC, class EncD, class Space>
Tensor<T, OutEnc, Space> mttkrp_by_spgemm(const Space& space, const Tensor<T, CSF<3>, Space>& B,
                                          const Tensor<T, EncC, Space>& C, const Tensor<T, EncD, Space>& D,
                                          const workspace::Options& options, workspace::Report* report) {
  using Csr = Tensor<T, CSR, Space>;
  const Csr R = fiber_factor_rows(space, B, factor_rows(C), factor_rows(D));
  const auto& b = B.decompose();
  typename Csr::Storage leaves;
  leaves.levels[1].pos = b.levels[2].pos;
  leaves.levels[1].crd = b.levels[2].crd;
  leaves.vals = b.vals;
  const Csr Bf({R.extent(0), B.extent(2)}, std::move(leaves));
  if constexpr (is_two_level_compressed_v<OutEnc>)
    return spgemm<Policy, OutEnc>(space, transpose(Bf), R, options, report);
  else
    return convert<OutEnc>(spgemm<Policy, CSR>(space, transpose(Bf), R, options, report));
}

}  // namespace tessera::kernels::impl
