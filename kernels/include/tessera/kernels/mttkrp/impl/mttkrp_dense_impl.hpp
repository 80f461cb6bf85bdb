#pragma once
// The host implementation of the dense-factor tessera::mttkrp (the primary template of
// MttkrpDenseImpl): one team per slice of the mode-rooted CSF, walking its leaves in order with
// one partial row per level, so a slice's row is written once and the result does not depend
// on the thread count. Kokkos::Cuda has its own (cuda/mttkrp_dense_cuda.hpp).
#include <array>
#include <cstddef>
#include <cstdint>

#include <Kokkos_Core.hpp>

#include "tessera/kernels/mttkrp/impl/mode_rooted_csf.hpp"

namespace tessera::kernels {

/// The factors as the levels of a mode-rooted CSF read them, and the output.
template <class T, int N>
struct DenseFactors {
  std::array<const T*, N> factor{};        ///< level l >= 1: the factor of its mode, row-major
  std::array<std::int64_t, N> stride{};    ///< elements between rows of factor[l]
  T* out = nullptr;                        ///< out_rows x rank, overwritten
  std::int64_t out_rows = 0, out_stride = 0, rank = 0;
};

template <class Space, class T, int N, class Enable = void>
struct MttkrpDenseImpl {
  static void run(const Space& space, const ModeCsf<T, N, Space>& X, const DenseFactors<T, N>& f) {
    static_assert(Kokkos::SpaceAccessibility<Kokkos::HostSpace, typename Space::memory_space>::accessible,
                  "this mttkrp runs on host execution spaces and on Kokkos::Cuda for float and double");
    static_assert(!reads_expanded_form_v<T, Space>, "the host walks the CSF form");
    const std::int64_t R = f.rank, out_stride = f.out_stride;
    T* const out = f.out;
    Kokkos::parallel_for(
        "tessera::mttkrp_dense_zero", Kokkos::RangePolicy<Space, Kokkos::IndexType<std::int64_t>>(space, 0, f.out_rows),
        [=](const std::int64_t i) {
          for (std::int64_t r = 0; r < R; ++r) out[i * out_stride + r] = T(0);
        });
    if (X.nodes[N - 1] == 0 || R == 0) return;
    std::array<const int*, N> pos{}, crd{};
    for (int l = 0; l < N; ++l) {
      pos[l] = X.pos[l].data();
      crd[l] = X.crd[l].data();
    }
    const T* const vals = X.vals.data();
    const std::size_t bytes = sizeof(T) * static_cast<std::size_t>((N - 1) * R);
    using Policy = Kokkos::TeamPolicy<Space, Kokkos::Schedule<Kokkos::Dynamic>>;
    Policy policy(space, static_cast<int>(X.nodes[0]), 1);
    Kokkos::parallel_for(
        "tessera::mttkrp_dense", policy.set_scratch_size(0, Kokkos::PerTeam(bytes)),
        [=](const typename Policy::member_type& team) {
          T* const acc = static_cast<T*>(team.team_scratch(0).get_shmem(bytes));  // row of level l at acc + l * R
          for (std::int64_t i = 0; i < (N - 1) * R; ++i) acc[i] = T(0);
          // The slice's open node per level, the first child past it, and its leaves [lo, hi).
          std::int64_t node[N > 1 ? N - 1 : 1], end[N > 1 ? N - 1 : 1];
          node[0] = team.league_rank();
          for (int l = 1; l < N - 1; ++l) node[l] = pos[l][node[l - 1]];
          for (int l = 0; l < N - 1; ++l) end[l] = pos[l + 1][node[l] + 1];
          const std::int64_t lo = pos[N - 1][node[N - 2]];
          std::int64_t hi = node[0] + 1;
          for (int l = 1; l < N; ++l) hi = pos[l][hi];
          const T* const leaf_factor = f.factor[N - 1];
          for (std::int64_t e = lo; e < hi; ++e) {
            const T v = vals[e];
            const T* g = leaf_factor + crd[N - 1][e] * f.stride[N - 1];
            T* a = acc + (N - 2) * R;
            for (std::int64_t r = 0; r < R; ++r) a[r] += v * g[r];
            // Close the nodes below the root that end with leaf e: their rows times their factor
            // rows go to their parents'.
            std::int64_t done = e;
            for (int l = N - 2; l >= 1 && done + 1 == end[l]; --l) {
              const T* h = f.factor[l] + crd[l][node[l]] * f.stride[l];
              T* below = acc + l * R;
              T* above = below - R;
              for (std::int64_t r = 0; r < R; ++r) {
                above[r] += below[r] * h[r];
                below[r] = T(0);
              }
              done = node[l]++;
              if (e + 1 < hi) end[l] = pos[l + 1][node[l] + 1];
            }
          }
          T* o = out + crd[0][node[0]] * out_stride;
          for (std::int64_t r = 0; r < R; ++r) o[r] = acc[r];
        });
  }
};

}  // namespace tessera::kernels
