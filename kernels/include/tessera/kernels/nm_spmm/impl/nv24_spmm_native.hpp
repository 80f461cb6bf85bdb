#pragma once
// Portable Kokkos NV24 product C (m x n) = A (m x k) * B (NV24, k x n), any space, any
// layout of A and C. One work item per column j of C and run of kRows rows, j fastest so
// that consecutive items share A's rows: walks the k/4 groups of W's row j, decoding each
// group's nibble to the two k indices it holds once for all kRows rows (the decoding costs
// more than the two multiply-adds of one row). Accumulates in float (double for double).
#include <cstdint>
#include <type_traits>

#include <Kokkos_Core.hpp>

#include "tessera/formats/nv24.hpp"

namespace tessera::kernels::impl {

template <class AView, class ValsView, class MetaView, class CView>
struct Nv24Native {
  static constexpr int kRows = 8;
  using T = typename CView::non_const_value_type;
  using Acc = std::conditional_t<std::is_same_v<T, double>, double, float>;
  AView A;
  ValsView vals;
  MetaView meta;
  CView C;
  std::int64_t m, n, k, k_padded;

  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t idx) const {
    const std::int64_t i0 = idx / n * kRows, j = idx % n;
    const int rows = m - i0 < kRows ? static_cast<int>(m - i0) : kRows;
    const std::int64_t groups = (k + nv24::kGroup - 1) / nv24::kGroup;  // groups past k hold zeros only
    Acc acc[kRows] = {};
    for (std::int64_t g = 0; g < groups; ++g) {
      const nv24::MetaSlot slot = nv24::meta_slot(j, g, k_padded);
      const std::uint32_t nib = (meta(slot.word) >> slot.shift) & 0xFu;
      const std::int64_t k0 = g * nv24::kGroup + nv24::nibble_first(nib);
      const std::int64_t k1 = g * nv24::kGroup + nv24::nibble_second(nib);
      const Acc v0 = static_cast<Acc>(nv24::detail::to_double(vals(j, 2 * g)));
      const Acc v1 = static_cast<Acc>(nv24::detail::to_double(vals(j, 2 * g + 1)));
      // positions past k carry zero values; their A column does not exist
      for (int r = 0; r < rows; ++r) {
        if (k0 < k) acc[r] += v0 * static_cast<Acc>(nv24::detail::to_double(A(i0 + r, k0)));
        if (k1 < k) acc[r] += v1 * static_cast<Acc>(nv24::detail::to_double(A(i0 + r, k1)));
      }
    }
    for (int r = 0; r < rows; ++r) C(i0 + r, j) = nv24::detail::from_double<T>(static_cast<double>(acc[r]));
  }
};

template <class Space, class AView, class ValsView, class MetaView, class CView>
void nv24_spmm_native(const Space& space, const AView& A, const ValsView& vals, const MetaView& meta, const CView& C,
                      std::int64_t k, std::int64_t k_padded) {
  using Kernel = Nv24Native<AView, ValsView, MetaView, CView>;
  const std::int64_t m = static_cast<std::int64_t>(C.extent(0)), n = static_cast<std::int64_t>(C.extent(1));
  if (m == 0 || n == 0) return;
  const std::int64_t row_runs = (m + Kernel::kRows - 1) / Kernel::kRows;
  Kokkos::parallel_for("tessera::nm_spmm[nv24,native]",
                       Kokkos::RangePolicy<Space, Kokkos::IndexType<std::int64_t>>(space, 0, row_runs * n),
                       Kernel{A, vals, meta, C, m, n, k, k_padded});
}

}  // namespace tessera::kernels::impl
