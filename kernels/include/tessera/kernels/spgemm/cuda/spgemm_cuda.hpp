#pragma once
/// \file
/// SpgemmImpl for Kokkos::Cuda: the row-wise kernels of spgemm_rows.hpp for float and double
/// tensors with int column ids and int or int64 row offsets, on the instance's stream. Operands
/// and results in other encodings are converted on the device (CSC A: a transpose; DCSR, DCSC
/// results: from the CSR product). Policies: Auto and Hash (hash tables in shared memory, the
/// dense accumulator for rows past them), Dense (every row through the dense accumulator).
/// The symbolic phase and C's pattern live in the caller's SpgemmHandle.
#include "tessera/kernels/common/cuda_config.hpp"
#include "tessera/kernels/spgemm/impl/spgemm_impl.hpp"

#if TESSERA_CUDA_KERNELS
#include <algorithm>
#include <cstdint>
#include <memory>
#include <optional>
#include <type_traits>

#include "tessera/formats/convert.hpp"
#include "tessera/formats/cuda/device_scratch.hpp"
#include "tessera/kernels/common/cuda/stream_capture.hpp"
#include "tessera/kernels/spgemm/cuda/spgemm_rows.hpp"
#include "tessera/kernels/spgemm/spgemm_handle.hpp"

namespace tessera::kernels {

/// The CSR encoding with Enc's index types.
template <class Enc>
using RowEncodingOf = WithIndexTypes<CSR, typename Enc::ordinal_type, typename Enc::offset_type>;

namespace detail {
template <class Enc>
constexpr bool has_cuda_spgemm_indices_v =
    std::is_same_v<typename Enc::ordinal_type, int> &&
    (std::is_same_v<typename Enc::offset_type, int> || std::is_same_v<typename Enc::offset_type, std::int64_t>);
}  // namespace detail

/// T and the encodings' index types have CUDA SpGEMM kernels.
template <class T, class OutEnc, class EncA, class EncB>
constexpr bool has_cuda_spgemm_v = (std::is_same_v<T, float> || std::is_same_v<T, double>) &&
                                   detail::has_cuda_spgemm_indices_v<OutEnc> &&
                                   detail::has_cuda_spgemm_indices_v<EncA> && detail::has_cuda_spgemm_indices_v<EncB>;

namespace cuda {

/// What an SpgemmHandle keeps on Kokkos::Cuda: the first product (its pattern) and its plan.
template <class T, class Enc>
struct SpgemmCudaState {
  Tensor<T, Enc, Kokkos::Cuda> pattern;     ///< C of the first product; later ones share its pos and crd
  std::shared_ptr<const SpgemmPlan> plan;  ///< the rows binned by their length in C
};

}  // namespace cuda

/// Sparse products on Kokkos::Cuda that the row-wise kernels take.
template <class Policy, class OutEnc, class T, class EncA, class EncB>
struct SpgemmImpl<Kokkos::Cuda, Policy, OutEnc, T, EncA, EncB,
                  std::enable_if_t<has_cuda_spgemm_v<T, OutEnc, EncA, EncB>>> {
  using Space = Kokkos::Cuda;  ///< The execution space.
  static_assert(std::is_same_v<Policy, workspace::Auto> || std::is_same_v<Policy, workspace::Hash> ||
                    std::is_same_v<Policy, workspace::Dense>,
                "spgemm on Kokkos::Cuda takes the workspace policies Auto, Hash and Dense");

  /// C = A * B for one call.
  static Tensor<T, OutEnc, Space> run(const Space& space, const Tensor<T, EncA, Space>& A,
                                      const Tensor<T, EncB, Space>& B, const workspace::Options& options,
                                      workspace::Report* report) {
    return result_of(multiply(space, rows_of(A), rows_of(B), options, report, nullptr));
  }

  /// C = A * B through `handle`: CSR x CSR -> CSR products after the first run the numeric phase
  /// alone, into the first product's pattern.
  static Tensor<T, OutEnc, Space> run(const Space& space, const Tensor<T, EncA, Space>& A,
                                      const Tensor<T, EncB, Space>& B, SpgemmHandle& handle,
                                      workspace::Report* report) {
    if constexpr (detail::spgemm_has_numeric_phase_v<OutEnc, EncA, EncB>) {
      using State = cuda::SpgemmCudaState<T, OutEnc>;
      if (const State* kept = handle.state().get<State>()) {
        const ProfilingRegion profiling_region(region_name<T>("spgemm", "numeric"));
        // The values in scratch memory owned with the pattern they belong to.
        struct Owner {
          Tensor<T, OutEnc, Space> pattern;
          formats::cuda::DeviceScratch vals;
          Owner(const Tensor<T, OutEnc, Space>& p, cudaStream_t stream)
              : pattern(p),
                vals("tessera::spgemm values", p.nnz() * sizeof(T), stream, formats::cuda::ScratchUse::Result) {}
        };
        auto owner = std::make_shared<Owner>(kept->pattern, space.cuda_stream());
        auto c = kept->pattern.decompose();
        c.vals = typename Tensor<T, OutEnc, Space>::vals_view(static_cast<T*>(owner->vals.data()),
                                                             kept->pattern.nnz());
        cuda::spgemm_numeric(*kept->plan, args_of(A, B, handle.options()), c.levels[1].pos.data(),
                             c.levels[1].crd.data(), c.vals.data(), false, space.cuda_stream());
        return Tensor<T, OutEnc, Space>(kept->pattern.shape(), c, std::move(owner));
      }
      std::shared_ptr<const cuda::SpgemmPlan> plan;
      Tensor<T, OutEnc, Space> C = multiply(space, A, B, handle.options(), report, &plan);
      handle.state().emplace(State{C, std::move(plan)});
      return C;
    } else {
      return run(space, A, B, handle.options(), report);
    }
  }

 private:
  using RowsC = RowEncodingOf<OutEnc>;

  template <class Enc>
  static Tensor<T, RowEncodingOf<Enc>, Space> rows_of(const Tensor<T, Enc, Space>& t) {
    if constexpr (std::is_same_v<Enc, RowEncodingOf<Enc>>)
      return t;
    else
      return convert<RowEncodingOf<Enc>>(t);
  }

  static Tensor<T, OutEnc, Space> result_of(const Tensor<T, RowsC, Space>& C) {
    if constexpr (std::is_same_v<OutEnc, RowsC>)
      return C;
    else
      return convert<OutEnc>(C);
  }

  template <class EA, class EB>
  static cuda::SpgemmArgs args_of(const Tensor<T, EA, Space>& A, const Tensor<T, EB, Space>& B,
                                  const workspace::Options& options) {
    const auto& a = A.decompose();
    const auto& b = B.decompose();
    cuda::SpgemmArgs args;
    args.type = std::is_same_v<T, double> ? cuda::SpgemmType::F64 : cuda::SpgemmType::F32;
    args.a_wide = std::is_same_v<typename EA::offset_type, std::int64_t>;
    args.b_wide = std::is_same_v<typename EB::offset_type, std::int64_t>;
    args.c_wide = std::is_same_v<typename OutEnc::offset_type, std::int64_t>;
    args.accumulator = std::is_same_v<Policy, workspace::Dense>  ? cuda::SpgemmAccumulator::Dense
                       : std::is_same_v<Policy, workspace::Hash> ? cuda::SpgemmAccumulator::Hash
                                                                 : cuda::SpgemmAccumulator::Auto;
    args.rows = A.extent(0);
    args.inner = A.extent(1);
    args.cols = B.extent(1);
    args.a_pos = a.levels[1].pos.data();
    args.a_crd = a.levels[1].crd.data();
    args.a_vals = a.vals.data();
    args.b_pos = b.levels[1].pos.data();
    args.b_crd = b.levels[1].crd.data();
    args.b_vals = b.vals.data();
    // B's mean row length, as a power of two up to a warp (SpgemmArgs::b_lanes).
    const std::int64_t b_mean = B.extent(0) ? B.nnz() / B.extent(0) : 0;
    while (args.b_lanes < 32 && 2 * args.b_lanes <= b_mean) args.b_lanes *= 2;
    args.dense_budget_bytes = static_cast<std::size_t>(std::max<std::int64_t>(options.memory_budget_bytes, 0));
    return args;
  }

  // Symbolic then numeric phase into a new CSR tensor; `keep` takes the plan.
  template <class EA, class EB>
  static Tensor<T, RowsC, Space> multiply(const Space& space, const Tensor<T, EA, Space>& A,
                                          const Tensor<T, EB, Space>& B, const workspace::Options& options,
                                          workspace::Report* report,
                                          std::shared_ptr<const cuda::SpgemmPlan>* keep) {
    using Result = Tensor<T, RowsC, Space>;
    const ProfilingRegion profiling_region(region_name<T>("spgemm", std::string("rowwise/") +
                                                                        workspace::policy_name<Policy>));
    cuda::require_not_capturing(space.cuda_stream(), "tessera::spgemm", "counts the product's entries");
    const cuda::SpgemmArgs args = args_of(A, B, options);
    using Offset = typename RowsC::offset_type;
    const cudaStream_t stream = space.cuda_stream();
    // C's arrays come from the device pool of results (no device-wide synchronization to allocate
    // or free them), owned by the tensor.
    struct Owner {
      formats::cuda::DeviceScratch pos;
      std::optional<formats::cuda::DeviceScratch> entries;
      Owner(std::size_t bytes, cudaStream_t stream)
          : pos("tessera::spgemm row offsets", bytes, stream, formats::cuda::ScratchUse::Result) {}
    };
    const std::size_t rows = static_cast<std::size_t>(A.extent(0));
    auto owner = std::make_shared<Owner>((rows + 1) * sizeof(Offset), stream);
    typename Result::Storage c;
    c.levels[1].pos = typename Result::pos_view(static_cast<Offset*>(owner->pos.data()), rows + 1);
    const auto plan = cuda::SpgemmPlan::build(args, c.levels[1].pos.data(), stream);
    // Values first: their alignment holds for the column ids after them.
    const std::size_t nnz = static_cast<std::size_t>(plan->nnz());
    owner->entries.emplace("tessera::spgemm entries", nnz * (sizeof(T) + sizeof(int)), stream,
                           formats::cuda::ScratchUse::Result);
    c.vals = typename Result::vals_view(static_cast<T*>(owner->entries->data()), nnz);
    c.levels[1].crd = typename Result::crd_view(reinterpret_cast<int*>(c.vals.data() + nnz), nnz);
    const std::size_t numeric_bytes = cuda::spgemm_numeric(*plan, args, c.levels[1].pos.data(),
                                                           c.levels[1].crd.data(), c.vals.data(), true,
                                                           space.cuda_stream());
    if (report) {
      report->peak_bytes =
          static_cast<std::int64_t>(std::max(plan->symbolic_bytes(), plan->kept_bytes() + numeric_bytes));
      report->policy = workspace::policy_name<Policy>;
    }
    if (keep) *keep = plan;
    return Result({A.extent(0), B.extent(1)}, c, std::move(owner));
  }
};

}  // namespace tessera::kernels
#endif
