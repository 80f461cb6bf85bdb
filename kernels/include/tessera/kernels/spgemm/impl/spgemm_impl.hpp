#pragma once
// The host implementation of tessera::spgemm (the primary template of SpgemmImpl): the
// insert-sort-merge workspaces of tessera::workspace, row-wise or outer-product by the
// encodings. Kokkos::Cuda has its own (cuda/spgemm_cuda.hpp); other device spaces are refused.
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include <Kokkos_Core.hpp>

#include "tessera/core/tensor.hpp"
#include "tessera/formats/encoding.hpp"
#include "tessera/kernels/common/checks.hpp"
#include "tessera/kernels/common/host_matrix.hpp"
#include "tessera/kernels/common/profiling_region.hpp"
#include "tessera/kernels/common/row_partition.hpp"
#include "tessera/kernels/common/sorted_chunks.hpp"
#include "tessera/kernels/spgemm/impl/spgemm_numeric.hpp"
#include "tessera/kernels/spgemm/impl/spgemm_rowwise.hpp"
#include "tessera/kernels/spgemm/impl/spgemm_second_order.hpp"
#include "tessera/kernels/spgemm/spgemm_handle.hpp"
#include "tessera/workspace/auto_policy.hpp"
#include "tessera/workspace/policies.hpp"
#include "tessera/workspace/workspace.hpp"

namespace tessera::kernels {

namespace detail {

// The numeric phase applies: CSR times CSR into CSR.
template <class OutEnc, class EncA, class EncB>
constexpr bool spgemm_has_numeric_phase_v = std::is_same_v<OutEnc, CSR> && std::is_same_v<EncA, CSR> &&
                                            std::is_same_v<EncB, CSR>;

}  // namespace detail

template <class Space, class Policy, class OutEnc, class T, class EncA, class EncB, class Enable = void>
struct SpgemmImpl {
  static Tensor<T, OutEnc, Space> run(const Space& space, const Tensor<T, EncA, Space>& A,
                                      const Tensor<T, EncB, Space>& B, const workspace::Options& options,
                                      workspace::Report* report) {
    static_assert(Kokkos::SpaceAccessibility<Kokkos::HostSpace, typename Space::memory_space>::accessible,
                  "spgemm runs on host execution spaces (Serial, OpenMP)");
    const Shape<2> shape{A.extent(0), B.extent(1)};
    const auto a = host_matrix(A);
    const auto b = host_matrix(B);
    constexpr bool row_major_out = is_row_major_v<OutEnc>;
    constexpr bool rowwise = is_row_major_v<EncA>;
    const std::int64_t threads = host_threads(space);

    workspace::AutoInputs in;
    in.value_bytes = sizeof(T);
    in.workspaces = threads;
    in.budget_bytes = options.memory_budget_bytes;
    std::int64_t flops = -1;  // products of the whole call; -1: not counted
    if constexpr (std::is_same_v<Policy, workspace::Auto>) {
      // Products per accumulation: per row (first order) or per thread chunk (second order).
      flops = 0;
      if constexpr (rowwise) {
        // In parallel: on many threads a serial pass over A costs a sizable part of the
        // product itself when B's rows are short.
        Kokkos::parallel_reduce(
            "tessera::spgemm[products]", Kokkos::RangePolicy<Space>(space, 0, A.nnz()),
            [&](std::int64_t q, std::int64_t& sum) { sum += b.end(a.crd[q]) - b.begin(a.crd[q]); }, flops);
      } else {
        impl::for_each_shared_outer(a, b, [&](std::int64_t pa, std::int64_t pb) {
          flops += (a.end(pa) - a.begin(pa)) * (b.end(pb) - b.begin(pb));
        });
      }
      const bool first_order = rowwise && row_major_out;
      const std::int64_t cells = workspace::saturating_product(shape[0], shape[1]);
      in.positions = first_order ? shape[1] : cells / threads + (cells % threads != 0);
      in.nnz_estimate = first_order ? flops / std::max<std::int64_t>(shape[0], 1) : flops / threads;
      // A first-order workspace serves every row of its thread; a second-order one is set up per chunk.
      if (first_order) in.products = flops / threads;
    }
    const bool dense = std::is_same_v<Policy, workspace::Auto> && workspace::auto_prefers_dense(in);

    return workspace::with_policy<Policy>(dense, [&](auto policy) {
      using P = decltype(policy);
      if constexpr (std::is_same_v<P, workspace::Dense> && !(rowwise && row_major_out)) {
        // A second-order dense workspace spans the output rows of a thread's chunk.
        const double bytes = static_cast<double>(shape[0]) * static_cast<double>(shape[1]) * (sizeof(T) + 1);
        if (bytes > static_cast<double>(options.memory_budget_bytes))
          throw OverflowError("spgemm: a Dense second-order workspace for a " + std::to_string(shape[0]) + " x " +
                              std::to_string(shape[1]) + " result needs " + byte_count_text(bytes) +
                              ", over memory_budget_bytes; use a sparse policy or raise the budget");
      }
      const std::string variant = std::string(rowwise ? "rowwise" : "outer") + (row_major_out ? "" : "-transposed") +
                                  "/" + workspace::policy_name<P>;
      const ProfilingRegion profiling_region(region_name<T>("spgemm", variant));
      Tensor<T, OutEnc, Space> C;
      if constexpr (rowwise && row_major_out) {
        C = impl::spgemm_rowwise<P, T, OutEnc>(space, a, A.decompose().levels[1].pos, b, options.ism, options.row_output,
                                                       flops, report);
      } else {
        std::vector<SortedChunk<T, 2>> chunks;
        if constexpr (rowwise)
          chunks = impl::spgemm_second_order<P, impl::SecondOrderVariant::RowWiseColumnMajorOut, T>(space, a, b,
                                                                                                    options.ism, report);
        else if constexpr (row_major_out)
          chunks = impl::spgemm_second_order<P, impl::SecondOrderVariant::OuterRowMajorOut, T>(space, a, b, options.ism,
                                                                                               report);
        else
          chunks = impl::spgemm_second_order<P, impl::SecondOrderVariant::OuterColumnMajorOut, T>(space, a, b,
                                                                                                  options.ism, report);
        C = assemble<T, OutEnc>(shape, chunks, space);
      }
      return C;
    });
  }

  /// Through a handle: the first call computes C and keeps it; later calls (CSR x CSR -> CSR)
  /// compute only C's values into its pattern.
  static Tensor<T, OutEnc, Space> run(const Space& space, const Tensor<T, EncA, Space>& A,
                                      const Tensor<T, EncB, Space>& B, SpgemmHandle& handle,
                                      workspace::Report* report) {
    using Result = Tensor<T, OutEnc, Space>;
    if constexpr (detail::spgemm_has_numeric_phase_v<OutEnc, EncA, EncB>) {
      if (const Result* pattern = handle.state().get<Result>()) {
        const ProfilingRegion profiling_region(region_name<T>("spgemm", "numeric"));
        return impl::spgemm_numeric(space, A, B, *pattern);
      }
    }
    Result C = run(space, A, B, handle.options(), report);
    if constexpr (detail::spgemm_has_numeric_phase_v<OutEnc, EncA, EncB>) handle.state().emplace(C);
    return C;
  }
};

}  // namespace tessera::kernels
