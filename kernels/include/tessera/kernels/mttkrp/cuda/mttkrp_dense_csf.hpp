#pragma once
/// \file
/// Tessera's CUDA MTTKRP with dense factors on a CSF tensor whose root level is the output
/// mode, fp32 and fp64, int positions and coordinates, orders 2 to kMttkrpMaxOrder:
/// \code{.unparsed}
///   out(crd_0(p), r) = sum over the leaves e under root p of vals(e) * prod_{l >= 1} F_l(crd_l(e's level-l node), r)
/// \endcode
/// Raw-pointer interface (no Kokkos): tessera::mttkrp on Kokkos::Cuda and the benchmark call it.
///
/// Algorithm (kernels/src/mttkrp/cuda/): the leaves are cut into equal chunks, one per group of
/// lanes (4 to 32 lanes, one to four rank columns per lane; ranks past 128 take several column
/// tiles), so a long slice or fiber is shared among groups and short ones are batched. A group
/// finds its leaf's ancestors by binary search, then walks the leaves in order keeping one
/// partial row per level in registers: a leaf adds vals * F_{last} to the lowest row; a node
/// that ends multiplies its row by its factor row and adds it to its parent's (the CSF
/// factorization: one factor row per node, not per leaf); a root that ends, and every open
/// node at the chunk's end, adds its row to `out` with atomic adds. In the expanded form
/// (leaf_coordinates) a batch of leaves loads all its factor rows at once and multiplies them per
/// leaf. The last bits of `out` vary between calls when a root spans several chunks.
#include <cstdint>

#include <cuda_runtime_api.h>

#include "tessera/kernels/common/cuda/kernel_status.hpp"

namespace tessera::kernels::cuda {

/// Value types of the MTTKRP kernels.
enum class MttkrpType : int { F32 = 0, F64 = 1 };

/// Most levels (tensor order) the kernels are compiled for.
inline constexpr int kMttkrpMaxOrder = 5;

/// The tensor (CSF arrays in device memory, level 0 = the output mode), the factors and `out`.
struct MttkrpDenseArgs {
  MttkrpType type = MttkrpType::F64;             ///< of vals, the factors and out
  int order = 3;                                  ///< levels of the CSF
  /// The tensor in its expanded form: every level holds one coordinate per leaf (nodes[l] = the
  /// nonzeros, sorted by level 0's coordinate; pos is not read). The front end picks it where
  /// fibers hold about one nonzero, which the CSF walk would spend a dependent load on each.
  bool leaf_coordinates = false;
  std::int64_t rank = 0;                          ///< columns of the factors and of out
  std::int64_t nodes[kMttkrpMaxOrder] = {};       ///< stored coordinates per level (the last: the nonzeros)
  const int* pos[kMttkrpMaxOrder] = {};           ///< level l >= 1: nodes[l - 1] + 1 positions
  /// level l: nodes[l] coordinates. crd[0] null (CSF walk only): out has a row per root node, the
  /// root's position (tessera::ttm's fibers).
  const int* crd[kMttkrpMaxOrder] = {};
  const void* vals = nullptr;                     ///< nodes[order - 1] values
  const void* factors[kMttkrpMaxOrder] = {};      ///< level l >= 1: the factor of its mode, row-major
  std::int64_t factor_stride[kMttkrpMaxOrder] = {};  ///< elements between rows of factors[l]
  void* out = nullptr;                            ///< out_rows x rank, overwritten
  std::int64_t out_rows = 0;                      ///< bounds crd_0
  std::int64_t out_stride = 0;                    ///< elements between rows of out
};

/// Whether mttkrp_dense_csf runs these arguments (and why not). Reads no device memory: the
/// coordinates are trusted to lie within the factors' rows and out_rows (a CSF built by the
/// library, checked against the factors by the front end).
KernelStatus mttkrp_dense_can_implement(const MttkrpDenseArgs& args);

/// Overwrites out with the MTTKRP of args on `stream`. Throws what mttkrp_dense_can_implement
/// refuses (ShapeError / NotCompiled) and CudaError.
void mttkrp_dense_csf(const MttkrpDenseArgs& args, cudaStream_t stream);

}  // namespace tessera::kernels::cuda
