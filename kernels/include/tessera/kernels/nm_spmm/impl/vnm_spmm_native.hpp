#pragma once
// Portable Kokkos VNM SpMM: one work item per (row of C, column group); the group's L sums
// stay in registers while the item walks the stored rows of B and gathers A by meta.
#include <cstdint>

#include <Kokkos_Core.hpp>

#include "tessera/formats/vnm/pattern.hpp"

namespace tessera::kernels::impl {

inline constexpr int kVnmMaxVectorLength = 64;

template <class Space, class AView, class ValsView, class MetaView, class CView>
void vnm_spmm_native(const Space& space, const AView& A, const ValsView& vals, const MetaView& meta,
                     const VnmPattern& p, const VnmExtents& e, const CView& C) {
  using T = typename CView::non_const_value_type;
  const std::int64_t m = static_cast<std::int64_t>(C.extent(0));
  if (m == 0 || e.groups == 0) return;
  const int N = p.n, M = p.m, L = p.l;
  const std::int64_t k = e.rows, n = e.cols, w = e.stored_rows;
  using Policy = Kokkos::MDRangePolicy<Space, Kokkos::Rank<2>, Kokkos::IndexType<std::int64_t>>;
  Kokkos::parallel_for(
      "tessera::nm_spmm[native]", Policy(space, {0, 0}, {m, e.groups}),
      KOKKOS_LAMBDA(const std::int64_t i, const std::int64_t g) {
        T acc[kVnmMaxVectorLength];
        for (int j = 0; j < L; ++j) acc[j] = T(0);
        for (std::int64_t r = 0; r < w; ++r) {
          const std::int64_t row_of_b = (r / N) * M + meta(r, g);
          if (row_of_b >= k) continue;
          const T a = A(i, row_of_b);
          for (int j = 0; j < L; ++j) acc[j] += a * vals(r, g * L + j);
        }
        for (int j = 0; j < L && g * L + j < n; ++j) C(i, g * L + j) = acc[j];
      });
}

}  // namespace tessera::kernels::impl
