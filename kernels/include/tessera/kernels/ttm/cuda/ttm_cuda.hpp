#pragma once
/// \file
/// TtmImpl for Kokkos::Cuda with a dense factor (Dense<2>), float and double. Every fiber of B
/// that the result keeps ((i, j) for ttm, (k, j) for ttm_i) gets a dense row of L values, so no
/// workspace is needed: B is rearranged on the device with those fibers first and the contracted
/// mode last, the fibers' rows are computed by the CSF kernel of mttkrp_dense_csf.hpp (one output
/// row per fiber), and the result's levels are B's fiber levels above a dense-filled level of L
/// coordinates. The workspace policy is accepted and has nothing to choose.
#include "tessera/kernels/common/cuda_config.hpp"
#include "tessera/kernels/ttm/impl/ttm_impl.hpp"

#if TESSERA_CUDA_KERNELS
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>

#include "tessera/core/allocation.hpp"
#include "tessera/core/error.hpp"
#include "tessera/formats/convert.hpp"
#include "tessera/kernels/mttkrp/cuda/mttkrp_dense_csf.hpp"

namespace tessera::kernels {

/// SpTTM and SpTTM-I of float and double tensors with a Dense<2> factor on Kokkos::Cuda.
template <class Policy, class OutEnc, class T>
struct TtmImpl<Kokkos::Cuda, Policy, OutEnc, T, Dense<2>,
               std::enable_if_t<std::is_same_v<T, float> || std::is_same_v<T, double>>> {
  using Space = Kokkos::Cuda;  ///< The execution space.
  static_assert(detail::is_natural_order3_v<OutEnc>, "OutEnc must be an order-3 encoding in natural mode order");

  /// A(i,j,l) = sum_k B(k,i,j) * C(k,l)
  static Tensor<T, OutEnc, Space> ttm(const Space& space, const Tensor<T, CSF<3>, Space>& B,
                                      const Tensor<T, Dense<2>, Space>& C, const workspace::Options&,
                                      workspace::Report* report) {
    return contract<ModeOrder<1, 2, 0>>(space, B, C, {B.extent(1), B.extent(2), C.extent(1)}, "ttm", report);
  }
  /// A(k,j,l) = sum_i B(k,i,j) * C(i,l)
  static Tensor<T, OutEnc, Space> ttm_i(const Space& space, const Tensor<T, CSF<3>, Space>& B,
                                        const Tensor<T, Dense<2>, Space>& C, const workspace::Options&,
                                        workspace::Report* report) {
    return contract<ModeOrder<0, 2, 1>>(space, B, C, {B.extent(0), B.extent(2), C.extent(1)}, "ttm_i", report);
  }

  /// B with the kept modes first (in Order) and the contracted one last; a row of L per fiber.
  /// (Public: CUDA lambdas cannot sit in private members.)
  template <class Order>
  static Tensor<T, OutEnc, Space> contract(const Space& space, const Tensor<T, CSF<3>, Space>& B,
                                           const Tensor<T, Dense<2>, Space>& C, const Shape<3>& shape, const char* name,
                                           workspace::Report* report) {
    using Rooted = Encoding<int, int, Order, levels::Compressed, levels::Compressed, levels::Compressed>;
    using Result = Tensor<T, CSF<3>, Space>;
    const auto fibered = convert<Rooted>(B);
    const auto& s = fibered.decompose();
    const std::int64_t fibers = static_cast<std::int64_t>(s.levels[1].crd.extent(0));
    const std::int64_t L = shape[2];
    if (L > 0 && fibers > std::numeric_limits<int>::max() / L)
      throw OverflowError(std::string("tessera::") + name + ": " + std::to_string(fibers) + " fibers x " +
                          std::to_string(L) + " columns do not fit the int positions of CSF<3>");
    typename Result::Storage out;
    for (int l = 0; l < 2; ++l) out.levels[l] = {s.levels[l].pos, s.levels[l].crd};  // same views, other tensor type
    out.levels[2].pos = tessera::detail::uninitialized_view<typename Result::pos_view>("tessera::ttm_pos", fibers + 1);
    out.levels[2].crd = tessera::detail::uninitialized_view<typename Result::crd_view>("tessera::ttm_crd", fibers * L);
    out.vals = tessera::detail::uninitialized_view<typename Result::vals_view>("tessera::ttm_vals", fibers * L);
    const auto pos = out.levels[2].pos;
    const auto crd = out.levels[2].crd;
    using Range = Kokkos::RangePolicy<Space, Kokkos::IndexType<std::int64_t>>;
    Kokkos::parallel_for(
        "tessera::ttm_dense_level_pos", Range(space, 0, fibers + 1),
        KOKKOS_LAMBDA(const std::int64_t f) { pos(f) = static_cast<int>(f * L); });
    Kokkos::parallel_for(
        "tessera::ttm_dense_level_crd", Range(space, 0, fibers * L),
        KOKKOS_LAMBDA(const std::int64_t q) { crd(q) = static_cast<int>(q % L); });
    cuda::MttkrpDenseArgs args;
    args.type = std::is_same_v<T, float> ? cuda::MttkrpType::F32 : cuda::MttkrpType::F64;
    args.order = 2;  // the fibers as roots (out's rows by position), the contracted mode below
    args.rank = L;
    args.nodes[0] = fibers;
    args.nodes[1] = B.nnz();
    args.pos[1] = s.levels[2].pos.data();
    args.crd[1] = s.levels[2].crd.data();
    args.vals = s.vals.data();
    args.factors[1] = C.values().data();
    args.factor_stride[1] = L;
    args.out = out.vals.data();
    args.out_rows = fibers;
    args.out_stride = L;
    cuda::mttkrp_dense_csf(args, space.cuda_stream());
    if (report) {
      report->policy = "dense fibers";
      report->peak_bytes = static_cast<std::int64_t>(s.vals.span() * sizeof(T));
      for (const auto& level : s.levels)
        report->peak_bytes += static_cast<std::int64_t>((level.pos.span() + level.crd.span()) * sizeof(int));
    }
    Result A(shape, out);
    if constexpr (std::is_same_v<OutEnc, CSF<3>>) return A;
    else return convert<OutEnc>(A);
  }
};

}  // namespace tessera::kernels
#endif
