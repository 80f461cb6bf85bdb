#pragma once
/// \file
/// TtmImpl for Kokkos::Cuda with a dense factor (Dense<2>), float and double. Every fiber of B
/// that the result keeps ((i, j) for ttm, (k, j) for ttm_i) gets a dense row of L values, so no
/// workspace is needed: B is arranged on the device with those fibers first and the contracted
/// mode last (ttm_arranged.hpp; a TtmHandle keeps it), the fibers' rows are computed by the CSF
/// kernel of mttkrp_dense_csf.hpp (one output row per fiber), and the result's levels are B's fiber
/// levels above a dense-filled level of L coordinates (kept in the handle too). The workspace
/// policy is accepted and has nothing to choose.
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

  /// Where ttm(space, B, mode, C) puts the contracted mode of B.
  static constexpr ContractedLevel kContractedLevel = ContractedLevel::Last;

  /// A(i,j,l) = sum_k B(k,i,j) * C(k,l)
  static Tensor<T, OutEnc, Space> ttm(const Space& space, const Tensor<T, CSF<3>, Space>& B,
                                      const Tensor<T, Dense<2>, Space>& C, const workspace::Options& options,
                                      workspace::Report* report) {
    auto arranged = ttm_arranged<kContractedLevel>(B, 0);
    return contract(space, arranged, C, options, report);
  }
  /// A(k,j,l) = sum_i B(k,i,j) * C(i,l)
  static Tensor<T, OutEnc, Space> ttm_i(const Space& space, const Tensor<T, CSF<3>, Space>& B,
                                        const Tensor<T, Dense<2>, Space>& C, const workspace::Options& options,
                                        workspace::Report* report) {
    auto arranged = ttm_arranged<kContractedLevel>(B, 1);
    return contract(space, arranged, C, options, report);
  }

  /// A row of L per fiber of the arranged B's first two levels (the contracted mode last).
  static Tensor<T, OutEnc, Space> contract(const Space& space, TtmArranged<T, Space>& arranged,
                                           const Tensor<T, Dense<2>, Space>& C, const workspace::Options&,
                                           workspace::Report* report) {
    using Result = Tensor<T, CSF<3>, Space>;
    const auto& s = arranged.B.decompose();
    const std::int64_t fibers = static_cast<std::int64_t>(s.levels[1].crd.extent(0));
    const std::int64_t L = C.extent(1);
    const Shape<3> shape{arranged.B.extent(0), arranged.B.extent(1), L};
    if (L > 0 && fibers > std::numeric_limits<int>::max() / L)
      throw OverflowError("tessera::ttm: " + std::to_string(fibers) + " fibers x " + std::to_string(L) +
                          " columns do not fit the int positions of CSF<3>");
    if (arranged.out_columns != L) {
      arranged.out_level = dense_rows(space, fibers, L);
      arranged.out_columns = L;
    }
    typename Result::Storage out;
    for (int l = 0; l < 2; ++l) out.levels[l] = s.levels[l];
    out.levels[2] = arranged.out_level;
    out.vals = tessera::detail::uninitialized_view<typename Result::vals_view>("tessera::ttm_vals", fibers * L);
    cuda::MttkrpDenseArgs args;
    args.type = std::is_same_v<T, float> ? cuda::MttkrpType::F32 : cuda::MttkrpType::F64;
    args.order = 2;  // the fibers as roots (out's rows by position), the contracted mode below
    args.rank = L;
    args.nodes[0] = fibers;
    args.nodes[1] = arranged.B.nnz();
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

  /// The last level of a result of `fibers` rows of L: positions f * L, coordinates 0..L-1 per row.
  static typename Tensor<T, CSF<3>, Space>::LevelArrays dense_rows(const Space& space, std::int64_t fibers,
                                                                    std::int64_t L) {
    using Result = Tensor<T, CSF<3>, Space>;
    typename Result::LevelArrays level;
    level.pos = tessera::detail::uninitialized_view<typename Result::pos_view>("tessera::ttm_pos", fibers + 1);
    level.crd = tessera::detail::uninitialized_view<typename Result::crd_view>("tessera::ttm_crd", fibers * L);
    const auto pos = level.pos;
    const auto crd = level.crd;
    const int columns = static_cast<int>(L);  // fibers * L fits int (checked by the caller)
    using Range = Kokkos::RangePolicy<Space, Kokkos::IndexType<int>>;
    Kokkos::parallel_for(
        "tessera::ttm_dense_level_pos", Range(space, 0, static_cast<int>(fibers) + 1),
        KOKKOS_LAMBDA(const int f) { pos(f) = f * columns; });
    Kokkos::parallel_for(
        "tessera::ttm_dense_level_crd", Range(space, 0, static_cast<int>(fibers * L)),
        KOKKOS_LAMBDA(const int q) { crd(q) = q % columns; });
    return level;
  }
};

}  // namespace tessera::kernels
#endif
