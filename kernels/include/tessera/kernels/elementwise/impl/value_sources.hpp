#pragma once
/// \file
/// Where each entry of an element-wise result C takes its values from: its position in A and in
/// B (-1 where C's coordinate is not stored there). An ElementwiseHandle keeps them with C's
/// pattern, found once, so that a values-only call is one gather over C's entries, coalesced and
/// balanced whatever the slices' lengths, instead of a second merge of A's and B's slices.
#include <cstdint>

#include <Kokkos_Core.hpp>

#include "tessera/core/tensor.hpp"
#include "tessera/formats/assembly/parallel.hpp"
#include "tessera/formats/assembly/result_arrays.hpp"
#include "tessera/kernels/elementwise/impl/merge_row_blocks.hpp"

namespace tessera::kernels::impl {

template <class T, class Enc, class Space>
struct ValueSources {
  using Positions = Kokkos::View<typename Enc::offset_type*, tessera::detail::DeviceOf<Space>>;
  Tensor<T, Enc, Space> pattern;  ///< C of the first call
  Positions from_a, from_b;       ///< per entry of C: its position in A, in B, or -1
};

/// from(c) = p for every entry p of X whose coordinate C stores at c (slices by X's and C's
/// positions, the same slicing).
template <class Space, class Pos, class Crd, class From>
void locate_entries(const Space& space, const char* label, const Pos& pos_x, const Crd& crd_x, const Pos& pos_c,
                    const Crd& crd_c, const From& from) {
  const std::int64_t slices = static_cast<std::int64_t>(pos_x.extent(0)) - 1;
  Kokkos::parallel_for(
      label, Kokkos::RangePolicy<Space, Kokkos::IndexType<std::int64_t>>(space, 0, crd_x.extent(0)),
      KOKKOS_LAMBDA(const std::int64_t p) {
        const std::int64_t s = lower_bound(pos_x, 0, slices + 1, p + 1) - 1;  // the last slice starting at or before p
        const std::int64_t c = lower_bound(crd_c, pos_c(s), pos_c(s + 1), crd_x(p));
        if (c < pos_c(s + 1) && crd_c(c) == crd_x(p)) from(c) = static_cast<typename From::value_type>(p);
      });
}

/// The sources of C = op(A, B)'s entries (C sorted, of A's and B's shape and encoding).
template <class T, class Enc, class Space>
ValueSources<T, Enc, Space> value_sources(const Space& space, const Tensor<T, Enc, Space>& A,
                                          const Tensor<T, Enc, Space>& B, const Tensor<T, Enc, Space>& C) {
  using Sources = ValueSources<T, Enc, Space>;
  using Positions = typename Sources::Positions;
  const auto& a = A.decompose();
  const auto& b = B.decompose();
  const auto& c = C.decompose();
  Sources sources{C, tessera::detail::uninitialized_view<Positions>("tessera::elementwise sources of A", C.nnz()),
                  tessera::detail::uninitialized_view<Positions>("tessera::elementwise sources of B", C.nnz())};
  Kokkos::deep_copy(space, sources.from_a, -1);
  Kokkos::deep_copy(space, sources.from_b, -1);
  locate_entries(space, "tessera::elementwise[locate A]", a.levels[1].pos, a.levels[1].crd, c.levels[1].pos,
                 c.levels[1].crd, sources.from_a);
  locate_entries(space, "tessera::elementwise[locate B]", b.levels[1].pos, b.levels[1].crd, c.levels[1].pos,
                 c.levels[1].crd, sources.from_b);
  return sources;
}

/// C with the kept pattern and combine(a, b) as values, a and b taken where `sources` says (0
/// where absent).
template <class T, class Enc, class Space, class Combine>
Tensor<T, Enc, Space> gather_values(const Space& space, const Tensor<T, Enc, Space>& A,
                                    const Tensor<T, Enc, Space>& B, const Combine& combine,
                                    const ValueSources<T, Enc, Space>& sources) {
  using Tens = Tensor<T, Enc, Space>;
  tessera::detail::ResultArrays<Space> arrays(space);
  typename Tens::Storage c;
  c.levels = sources.pattern.decompose().levels;
  arrays.share_arrays_of(sources.pattern);
  c.vals = arrays.template take<typename Tens::vals_view>("tessera::elementwise vals", sources.pattern.nnz());
  const auto vals_c = c.vals;
  const auto vals_a = A.decompose().vals, vals_b = B.decompose().vals;
  const auto from_a = sources.from_a, from_b = sources.from_b;
  Kokkos::parallel_for(
      "tessera::elementwise[gather]", Kokkos::RangePolicy<Space, Kokkos::IndexType<std::int64_t>>(space, 0, vals_c.extent(0)),
      KOKKOS_LAMBDA(const std::int64_t e) {
        const auto p = from_a(e), q = from_b(e);
        vals_c(e) = combine(p >= 0 ? vals_a(p) : T(0), q >= 0 ? vals_b(q) : T(0));
      });
  return Tens(sources.pattern.shape(), std::move(c), arrays.owner());
}

}  // namespace tessera::kernels::impl
