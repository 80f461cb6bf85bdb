#pragma once
/// \file
/// Vector-wise N:M (VNM) matrices on Kokkos: pruning, encoding with validation, adopting
/// arrays, decoding, and the offline meta preprocessing of tiled kernels.
/// \code{.unparsed}
///   prune_vnm<Space>(dense, {N, M, L})      keep the N largest (L2) of every M vectors
///   from_dense<VNM>(dense, {N, M, L})       encode a matrix that already is N:M; FormatError
///                                           names the first window / column group that is not
///   from_vnm_arrays<T, Space>(shape, p, s)  adopt vals/meta Views, validated
///   to_dense(B)                             k x n LayoutRight View in B's space
///   prepare_vnm_stages(B, tile_cols, packed) stage plan (+ column info) for tiled kernels
/// \endcode
/// Layout and the meaning of every array: vnm/pattern.hpp and vnm/staging.hpp. The work is
/// done on host copies (these are offline steps); results land in the requested space.
#include <algorithm>
#include <array>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include <Kokkos_Core.hpp>

#include "tessera/core/checked_count.hpp"
#include "tessera/formats/vnm/pattern.hpp"
#include "tessera/formats/vnm/staging.hpp"
#include "tessera/formats/vnm/tensor.hpp"

namespace tessera {

namespace detail {

template <class View>
auto host_row_major(const View& view) {
  static_assert(Kokkos::is_view<View>::value && View::rank == 2, "a rank-2 Kokkos::View is needed");
  using T = typename View::non_const_value_type;
  tessera::detail::checked_dense_elements(
      std::array<std::int64_t, 2>{static_cast<std::int64_t>(view.extent(0)), static_cast<std::int64_t>(view.extent(1))},
      sizeof(T), "dense matrix");
  auto any_layout = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), view);
  Kokkos::View<T**, Kokkos::LayoutRight, Kokkos::HostSpace> host(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "tessera::dense"), view.extent(0), view.extent(1));
  Kokkos::deep_copy(host, any_layout);
  return host;
}

template <class Space, class View, class Encode>
auto build_vnm(const View& dense, const VnmPattern& p, Encode&& encode) {
  using T = typename View::non_const_value_type;
  using S = std::conditional_t<std::is_void_v<Space>, typename View::execution_space, Space>;
  using Host = Tensor<T, VNM, Kokkos::DefaultHostExecutionSpace>;
  const auto e = vnm_extents(static_cast<std::int64_t>(dense.extent(0)), static_cast<std::int64_t>(dense.extent(1)), p);
  auto host = host_row_major(dense);
  tessera::detail::checked_dense_elements(std::array<std::int64_t, 2>{e.stored_rows, e.padded_cols}, sizeof(T),
                                          "VNM values");
  typename Host::Storage s{typename Host::vals_view("tessera::vnm_vals", e.stored_rows, e.padded_cols),
                           typename Host::meta_view("tessera::vnm_meta", e.stored_rows, e.groups)};
  encode(host.data(), static_cast<std::int64_t>(e.cols), e, p, s.vals.data(), s.meta.data());
  return Host({e.rows, e.cols}, p, std::move(s)).template to<S>();
}

}  // namespace detail

/// Prunes dense (k x n, any layout and space) to the pattern by vector magnitude.
/// Space defaults to the View's execution space.
template <class Space = void, class View>
auto prune_vnm(const View& dense, const VnmPattern& p) {
  return detail::build_vnm<Space>(dense, p, [](auto&&... a) { prune_vnm_host(a...); });
}

/// Encodes a dense matrix that already follows the pattern (FormatError otherwise).
template <class Enc, class Space = void, class View, std::enable_if_t<std::is_same_v<Enc, VNM>, int> = 0>
auto from_dense(const View& dense, const VnmPattern& p) {
  return detail::build_vnm<Space>(dense, p, [](auto&&... a) { encode_vnm_host(a...); });
}

/// Adopts vals (w x n_pad) and meta (w x n_pad / L) after checking extents and meta.
template <class T, class Space>
Tensor<T, VNM, Space> from_vnm_arrays(const Shape<2>& shape, const VnmPattern& p,
                                      typename Tensor<T, VNM, Space>::Storage storage) {
  Tensor<T, VNM, Space> tensor(shape, p, std::move(storage));
  auto meta = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), tensor.meta());
  check_vnm_meta(meta.data(), tensor.extents(), p);
  return tensor;
}

/// Tensor -> dense k x n LayoutRight View in the tensor's space.
template <class T, class Space>
Kokkos::View<T**, Kokkos::LayoutRight, Space> to_dense(const Tensor<T, VNM, Space>& B) {
  const auto& e = B.extents();
  auto vals = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), B.values());
  auto meta = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), B.meta());
  Kokkos::View<T**, Kokkos::LayoutRight, Kokkos::HostSpace> host(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "tessera::dense"), e.rows, e.cols);
  decode_vnm_host(vals.data(), meta.data(), e, B.pattern(), host.data(), static_cast<std::int64_t>(e.cols));
  return Kokkos::create_mirror_view_and_copy(typename Space::memory_space(), host);
}

/// The stage plan of vnm/staging.hpp with its arrays in Space's memory (what tiled kernels read).
template <class Space>
struct VnmStages {
  using index_view = Kokkos::View<std::int32_t*, Space>;  ///< Stage and column-list arrays.
  int tile_cols = 0;                                      ///< columns of a tile (a multiple of L)
  bool packed = false;                                    ///< packed layout (column list per tile)
  /// \var max_tile_stages
  /// Most stages of one tile.

  /// Number of stages.
  std::int64_t stages = 0, max_tile_stages = 0, offsets_ld = 0;  ///< bytes per group row of offsets
  /// (tiles + 1): stages of tile t are [pos[t], pos[t + 1])
  index_view tile_stage_pos, column_list;  ///< (stages x kVnmStageColumns) A columns, packed only
  Kokkos::View<VnmStage*, Space> stage;  ///< (stages)
  Kokkos::View<std::uint32_t**, Kokkos::LayoutRight, Space> column_info;  ///< (tiles x windows), packed only
  Kokkos::View<std::uint8_t**, Kokkos::LayoutRight, Space> offsets;       ///< (groups x offsets_ld)
  /// The meta of the matrix the plan was built from, held so that its address names that matrix
  /// (and tensors sharing its arrays) for as long as the plan lives: kernels refuse other matrices.
  Kokkos::View<const std::uint8_t**, Kokkos::LayoutRight, Space> source_meta;
};

namespace detail {
template <class View, class V>
View vnm_upload(const std::string& label, const std::vector<V>& host, std::size_t rows, std::size_t cols) {
  Kokkos::View<const V**, Kokkos::LayoutRight, Kokkos::HostSpace, Kokkos::MemoryUnmanaged> h(host.data(), rows, cols);
  View out = uninitialized_view<View>(label, rows, cols);
  Kokkos::deep_copy(out, h);
  return out;
}
template <class View, class V>
View vnm_upload(const std::string& label, const std::vector<V>& host) {
  Kokkos::View<const V*, Kokkos::HostSpace, Kokkos::MemoryUnmanaged> h(host.data(), host.size());
  View out = uninitialized_view<View>(label, host.size());
  Kokkos::deep_copy(out, h);
  return out;
}
}  // namespace detail

/// Offline preprocessing of B's meta for a kernel with column tiles of tile_cols columns:
/// plain (whole windows per stage) or packed (column info, stages of the used columns only).
template <class T, class Space>
VnmStages<Space> prepare_vnm_stages(const Tensor<T, VNM, Space>& B, int tile_cols, bool packed) {
  const auto& e = B.extents();
  auto meta = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), B.meta());
  const VnmStagePlan plan = vnm_stage_plan(meta.data(), e, B.pattern(), tile_cols, packed);
  using S = VnmStages<Space>;
  using Index = typename S::index_view;
  S out;
  out.tile_cols = tile_cols;
  out.packed = packed;
  out.source_meta = B.meta();
  out.stages = plan.stages();
  for (std::size_t t = 0; t + 1 < plan.tile_stage_pos.size(); ++t)
    out.max_tile_stages =
        std::max<std::int64_t>(out.max_tile_stages, plan.tile_stage_pos[t + 1] - plan.tile_stage_pos[t]);
  out.offsets_ld = plan.offsets_ld;
  out.tile_stage_pos = detail::vnm_upload<Index>("tessera::vnm_tile_stage_pos", plan.tile_stage_pos);
  out.stage = detail::vnm_upload<decltype(out.stage)>("tessera::vnm_stages", plan.stage);
  out.column_list = detail::vnm_upload<Index>("tessera::vnm_column_list", plan.column_list);
  out.column_info = detail::vnm_upload<decltype(out.column_info)>(
      "tessera::vnm_column_info", plan.column_info, packed ? static_cast<std::size_t>(plan.tiles) : 0,
      packed ? static_cast<std::size_t>(e.windows) : 0);
  out.offsets = detail::vnm_upload<decltype(out.offsets)>("tessera::vnm_offsets", plan.offsets,
                                                          static_cast<std::size_t>(e.groups),
                                                          static_cast<std::size_t>(plan.offsets_ld));
  return out;
}

}  // namespace tessera
