#pragma once
/// \file
/// MttkrpDenseImpl for Kokkos::Cuda: the chunked CSF kernel of mttkrp_dense_csf.hpp for float and
/// double, on the instance's stream (no host synchronization: it can be captured in a graph once
/// the handle keeps the mode's CSF).
#include "tessera/kernels/common/cuda_config.hpp"
#include "tessera/kernels/mttkrp/impl/mttkrp_dense_impl.hpp"

#if TESSERA_CUDA_KERNELS
#include <type_traits>

#include "tessera/kernels/mttkrp/cuda/mttkrp_dense_csf.hpp"

namespace tessera::kernels {

/// The dense-factor MTTKRP of float and double tensors on Kokkos::Cuda.
template <class T, int N>
struct MttkrpDenseImpl<Kokkos::Cuda, T, N,
                       std::enable_if_t<(std::is_same_v<T, float> || std::is_same_v<T, double>) &&
                                        N <= cuda::kMttkrpMaxOrder>> {
  /// Overwrites f.out on the instance's stream.
  static void run(const Kokkos::Cuda& space, const ModeCsf<T, N, Kokkos::Cuda>& X, const DenseFactors<T, N>& f) {
    cuda::MttkrpDenseArgs args;
    args.type = std::is_same_v<T, float> ? cuda::MttkrpType::F32 : cuda::MttkrpType::F64;
    args.order = N;
    args.leaf_coordinates = X.leaf_coordinates;
    args.rank = f.rank;
    for (int l = 0; l < N; ++l) {
      args.nodes[l] = X.nodes[l];
      args.pos[l] = X.pos[l].data();
      args.crd[l] = X.crd[l].data();
      args.factors[l] = f.factor[l];
      args.factor_stride[l] = f.stride[l];
    }
    args.vals = X.vals.data();
    args.out = f.out;
    args.out_rows = f.out_rows;
    args.out_stride = f.out_stride;
    cuda::mttkrp_dense_csf(args, space.cuda_stream());
  }
};

}  // namespace tessera::kernels
#endif
