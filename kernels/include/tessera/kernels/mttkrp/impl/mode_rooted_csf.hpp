#pragma once
// The tensor as the dense-factor MTTKRP of one mode reads it: a CSF whose root level is that
// mode and whose other levels keep their relative order, built by convert in the tensor's space
// and kept in an MttkrpHandle. Where the CUDA kernels run and fibers hold fewer than two nonzeros
// on average, the same order with every level's coordinate per nonzero (a COO) instead.
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>

#include <Kokkos_Core.hpp>

#include "tessera/core/error.hpp"
#include "tessera/core/tensor.hpp"
#include "tessera/formats/convert.hpp"
#include "tessera/formats/encoding.hpp"
#include "tessera/formats/levels.hpp"
#include "tessera/kernels/common/bind_handle.hpp"
#include "tessera/kernels/common/handle_state.hpp"
#include "tessera/kernels/common/cuda_config.hpp"
#include "tessera/kernels/mttkrp/mttkrp_handle.hpp"

namespace tessera::kernels {

namespace detail {
template <int N, int Mode, class Root, class Below, class Seq>
struct ModeRootedEncoding;
template <int N, int Mode, class Root, class Below, int... I>
struct ModeRootedEncoding<N, Mode, Root, Below, std::integer_sequence<int, I...>> {
  using type = Encoding<int, int, ModeOrder<Mode, (I < Mode ? I : I + 1)...>, Root,
                        std::conditional_t<I >= 0, Below, void>...>;
};
}  // namespace detail

/// CSF<N> rooted at `Mode`: levels (Mode, the other modes in increasing order), int indices.
template <int N, int Mode>
using ModeRootedCsf = typename detail::ModeRootedEncoding<N, Mode, levels::Compressed, levels::Compressed,
                                                          std::make_integer_sequence<int, N - 1>>::type;
/// The COO of the same level order: one coordinate per nonzero on every level.
template <int N, int Mode>
using ModeRootedCoo = typename detail::ModeRootedEncoding<N, Mode, levels::CompressedNonUnique, levels::Singleton,
                                                          std::make_integer_sequence<int, N - 1>>::type;

/// The CUDA kernels read the COO form too (the host walks the CSF alone).
template <class T, class Space>
constexpr bool reads_expanded_form_v =
    runs_cuda_kernels_v<Space> && (std::is_same_v<T, float> || std::is_same_v<T, double>);

/// The arrays of a mode-rooted CSF: level l holds mode modes[l]; level 0 is the output mode.
template <class T, int N, class Space>
struct ModeCsf {
  using device_type = Kokkos::Device<Space, typename Space::memory_space>;  ///< of the arrays
  std::array<int, N> modes{};                                              ///< mode of each level
  bool leaf_coordinates = false;  ///< a COO: every level holds a coordinate per leaf, no positions
  std::array<std::int64_t, N> nodes{};                                     ///< coordinates per level
  std::array<Kokkos::View<const int*, device_type>, N> pos, crd;           ///< per level
  Kokkos::View<const T*, device_type> vals;                                ///< per leaf
};

namespace detail {

template <class T, int N, class Space, class Enc>
ModeCsf<T, N, Space> mode_csf_of(const Tensor<T, Enc, Space>& rooted) {
  ModeCsf<T, N, Space> m;
  const auto& s = rooted.decompose();
  for (int l = 0; l < N; ++l) {
    m.modes[l] = Enc::mode_order[l];
    m.pos[l] = s.levels[l].pos;
    m.crd[l] = s.levels[l].crd;
    m.nodes[l] = static_cast<std::int64_t>(s.levels[l].crd.extent(0));
  }
  m.vals = s.vals;
  m.leaf_coordinates = Enc::level_kinds[0] == LevelKind::CompressedNonUnique;
  return m;
}

template <class Rooted, class T, class Enc, class Space>
ModeCsf<T, Enc::order, Space> rooted_as(const Tensor<T, Enc, Space>& X) {
  if constexpr (std::is_same_v<Enc, Rooted>) return mode_csf_of<T, Enc::order>(X);
  else return mode_csf_of<T, Enc::order>(convert<Rooted>(X));
}

template <int Mode, class T, class Enc, class Space>
ModeCsf<T, Enc::order, Space> build_mode_csf(const Tensor<T, Enc, Space>& X) {
  constexpr int N = Enc::order;
  if constexpr (reads_expanded_form_v<T, Space> && N >= 3) {
    if constexpr (std::is_same_v<Enc, ModeRootedCoo<N, Mode>>) return mode_csf_of<T, N>(X);
    auto csf = rooted_as<ModeRootedCsf<N, Mode>>(X);
    if (csf.nodes[N - 1] >= 2 * csf.nodes[N - 2]) return csf;
    return rooted_as<ModeRootedCoo<N, Mode>>(X);  // fibers of about one nonzero
  } else {
    return rooted_as<ModeRootedCsf<N, Mode>>(X);
  }
}

template <class T, class Enc, class Space, int... M>
ModeCsf<T, Enc::order, Space> build_mode_csf(const Tensor<T, Enc, Space>& X, int mode,
                                             std::integer_sequence<int, M...>) {
  std::optional<ModeCsf<T, Enc::order, Space>> out;
  ((mode == M ? (out = build_mode_csf<M>(X), 0) : 0), ...);
  return std::move(*out);
}

// What an MttkrpHandle keeps: the values array the copies were made from and one copy per mode.
template <class T, int N, class Space>
struct MttkrpModeState {
  const void* source_values = nullptr;
  std::array<std::optional<ModeCsf<T, N, Space>>, N> modes;
};

}  // namespace detail

/// X rooted at `mode`, from `handle` when it keeps it, built (and kept) otherwise.
template <class T, class Enc, class Space>
const ModeCsf<T, Enc::order, Space>& mode_rooted_csf(const Space& space, MttkrpHandle& handle,
                                                     const Tensor<T, Enc, Space>& X, int mode) {
  constexpr int N = Enc::order;
  using State = detail::MttkrpModeState<T, N, Space>;
  bind_handle_to_tensor(space, "tessera::mttkrp", handle, X);  // a new tensor drops the kept state
  auto& kept = state_for_values<State>(handle.state(), X.values().data()).modes[mode];
  if (!kept) kept = detail::build_mode_csf(X, mode, std::make_integer_sequence<int, N>());
  return *kept;
}

}  // namespace tessera::kernels
