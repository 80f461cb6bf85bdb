#pragma once
// The numeric phase of a row-wise SpGEMM whose output pattern is known (an SpgemmHandle's
// second and later products): C's values from A's and B's, each product added to C's entry
// found by binary search in its sorted row. Portable Kokkos, one row per work item; every entry
// sums its products in A's then B's order, as the host's dense accumulator does.
#include <cstdint>

#include <Kokkos_Core.hpp>

#include "tessera/core/tensor.hpp"

namespace tessera::kernels::impl {

template <class Space, class T, class EncA, class EncB, class EncC>
Tensor<T, EncC, Space> spgemm_numeric(const Space& space, const Tensor<T, EncA, Space>& A,
                                      const Tensor<T, EncB, Space>& B, const Tensor<T, EncC, Space>& pattern) {
  const auto& a = A.decompose();
  const auto& b = B.decompose();
  auto c = pattern.decompose();
  c.vals = typename Tensor<T, EncC, Space>::vals_view(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "tessera::spgemm_vals"), pattern.nnz());
  const auto a_pos = a.levels[1].pos;
  const auto a_crd = a.levels[1].crd;
  const auto a_vals = a.vals;
  const auto b_pos = b.levels[1].pos;
  const auto b_crd = b.levels[1].crd;
  const auto b_vals = b.vals;
  const auto c_pos = c.levels[1].pos;
  const auto c_crd = c.levels[1].crd;
  const auto c_vals = c.vals;
  Kokkos::parallel_for(
      "tessera::spgemm[numeric]", Kokkos::RangePolicy<Space, Kokkos::IndexType<std::int64_t>>(space, 0, A.extent(0)),
      KOKKOS_LAMBDA(const std::int64_t i) {
        const std::int64_t begin = c_pos(i), end = c_pos(i + 1);
        for (std::int64_t p = begin; p < end; ++p) c_vals(p) = T(0);
        for (std::int64_t q = a_pos(i); q < a_pos(i + 1); ++q) {
          const std::int64_t k = a_crd(q);
          const T av = a_vals(q);
          for (std::int64_t r = b_pos(k); r < b_pos(k + 1); ++r) {
            const auto j = b_crd(r);
            std::int64_t lo = begin, hi = end;  // the first entry of C's row not below j
            while (lo < hi) {
              const std::int64_t mid = lo + (hi - lo) / 2;
              if (c_crd(mid) < j) lo = mid + 1;
              else hi = mid;
            }
            if (lo < end && c_crd(lo) == j) c_vals(lo) += av * b_vals(r);
          }
        }
      });
  return Tensor<T, EncC, Space>(pattern.shape(), c);
}

}  // namespace tessera::kernels::impl
