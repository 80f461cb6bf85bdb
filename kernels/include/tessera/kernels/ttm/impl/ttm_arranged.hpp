#pragma once
// B as the kernels of tessera::ttm(space, B, mode, C) read it: a CSF<3> of B with its modes
// permuted so that the contracted one comes first (the host kernel contracts mode 0 of a CSF<3>)
// or last (the CUDA kernel writes a dense row per fiber of the first two levels), the other two in
// their order. Built by convert in B's space; a TtmHandle keeps one per mode.
#include <array>
#include <cstdint>
#include <optional>
#include <type_traits>

#include "tessera/core/tensor.hpp"
#include "tessera/formats/convert.hpp"
#include "tessera/formats/encoding.hpp"
#include "tessera/formats/levels.hpp"
#include "tessera/kernels/common/bind_handle.hpp"
#include "tessera/kernels/common/handle_state.hpp"
#include "tessera/kernels/ttm/ttm_handle.hpp"

namespace tessera::kernels {

/// Which level of the arranged B a space's kernel contracts.
enum class ContractedLevel { First, Last };

/// What a TtmHandle keeps for one mode: B arranged, and (CUDA) the result's last level.
template <class T, class Space>
struct TtmArranged {
  using Csf = Tensor<T, CSF<3>, Space>;  ///< B arranged
  Csf B;                                 ///< B, its modes permuted (see the file's comment)
  typename Csf::LevelArrays out_level;   ///< positions and coordinates of the result's dense rows
  std::int64_t out_columns = -1;         ///< the L that out_level holds rows of; -1: none yet
};

namespace detail {

// B's storage in level order (M0, M1, M2) is that of a CSF<3> of B with its modes so permuted.
template <int M0, int M1, int M2, class T, class Enc, class Space>
Tensor<T, CSF<3>, Space> permuted_csf(const Tensor<T, Enc, Space>& B) {
  using Ordered = Encoding<int, int, ModeOrder<M0, M1, M2>, levels::Compressed, levels::Compressed, levels::Compressed>;
  using Result = Tensor<T, CSF<3>, Space>;
  if constexpr (std::is_same_v<Ordered, CSF<3>> && std::is_same_v<Enc, CSF<3>>) {
    return B;
  } else {
    const auto ordered = convert<Ordered>(B);
    const auto& s = ordered.decompose();
    typename Result::Storage out;
    for (int l = 0; l < 3; ++l) out.levels[l] = {s.levels[l].pos, s.levels[l].crd};
    out.vals = s.vals;
    return Result({B.extent(M0), B.extent(M1), B.extent(M2)}, out);
  }
}

// B arranged for contracting `mode` at level Where.
template <ContractedLevel Where, class T, class Enc, class Space>
Tensor<T, CSF<3>, Space> arranged_csf(const Tensor<T, Enc, Space>& B, int mode) {
  if constexpr (Where == ContractedLevel::First) {
    if (mode == 0) return permuted_csf<0, 1, 2>(B);
    if (mode == 1) return permuted_csf<1, 0, 2>(B);
    return permuted_csf<2, 0, 1>(B);
  } else {
    if (mode == 0) return permuted_csf<1, 2, 0>(B);
    if (mode == 1) return permuted_csf<0, 2, 1>(B);
    return permuted_csf<0, 1, 2>(B);
  }
}

// What a TtmHandle keeps: the values array the copies were made from and one copy per mode.
template <class T, class Space>
struct TtmModeState {
  const void* source_values = nullptr;
  std::array<std::optional<TtmArranged<T, Space>>, 3> modes;
};

}  // namespace detail

/// B arranged for contracting `mode` at level Where, one call's copy (no handle).
template <ContractedLevel Where, class T, class Enc, class Space>
TtmArranged<T, Space> ttm_arranged(const Tensor<T, Enc, Space>& B, int mode) {
  return {detail::arranged_csf<Where>(B, mode)};
}

/// The same from `handle` when it keeps it, built (and kept) otherwise.
template <ContractedLevel Where, class T, class Enc, class Space>
TtmArranged<T, Space>& ttm_arranged(const Space& space, TtmHandle& handle, const Tensor<T, Enc, Space>& B, int mode) {
  using State = detail::TtmModeState<T, Space>;
  bind_handle_to_tensor(space, "tessera::ttm", handle, B);  // a new tensor drops the kept state
  auto& kept = state_for_values<State>(handle.state(), B.values().data()).modes[mode];
  if (!kept) kept = ttm_arranged<Where>(B, mode);
  return *kept;
}

}  // namespace tessera::kernels
