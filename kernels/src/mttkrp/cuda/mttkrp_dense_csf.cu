// Launches of the dense-factor MTTKRP kernels (mttkrp_dense_csf.hpp): checks, out zeroed, then one
// kernel (the CSF walk, or the batched one of the expanded form) whose group width and columns per
// lane follow the rank. Where out's rows are the roots (tessera::ttm), the walk of
// mttkrp_rows_kernel.cuh, which zeroes only the rows of roots cut between chunks.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>

#include "../../common/cuda_support.hpp"
#include "../../common/device_info.hpp"
#include "mttkrp_dense_kernel.cuh"
#include "mttkrp_leaves_kernel.cuh"
#include "mttkrp_rows_kernel.cuh"
#include "tessera/kernels/mttkrp/cuda/mttkrp_dense_csf.hpp"

namespace tessera::kernels::cuda {

KernelStatus mttkrp_dense_can_implement(const MttkrpDenseArgs& a) {
  if (a.type != MttkrpType::F32 && a.type != MttkrpType::F64)
    return KernelStatus::not_runnable("value types other than float and double have no CUDA MTTKRP kernel");
  if (a.order < 2 || a.order > kMttkrpMaxOrder)
    return KernelStatus::not_runnable("orders past " + std::to_string(kMttkrpMaxOrder) +
                                      " have no CUDA MTTKRP kernel (order " + std::to_string(a.order) + ")");
  if (a.rank < 0 || a.out_rows < 0) return KernelStatus::refused("negative rank or output rows");
  if (a.out_stride < a.rank) return KernelStatus::refused("out's row stride is shorter than the rank");
  if (a.crd[0] == nullptr && a.out_rows < a.nodes[0])
    return KernelStatus::refused("out has fewer rows than the root level has nodes");
  if (a.out_rows > 0 && a.rank > 0 && a.out == nullptr) return KernelStatus::refused("null out");
  const std::int64_t nnz = a.nodes[a.order - 1];
  for (int l = 0; l < a.order; ++l) {
    if (a.nodes[l] < 0 || a.nodes[l] > nnz) return KernelStatus::refused("level " + std::to_string(l) + " has a bad node count");
    if (a.leaf_coordinates && a.nodes[l] != nnz)
      return KernelStatus::refused("the expanded form holds one coordinate per leaf on every level");
    if (a.nodes[l] > std::numeric_limits<int>::max()) return KernelStatus::refused("more than 2^31 - 1 nodes on a level");
    if (nnz == 0 || a.rank == 0) continue;
    if ((a.crd[l] == nullptr && (l > 0 || a.leaf_coordinates)) || (l > 0 && !a.leaf_coordinates && a.pos[l] == nullptr))
      return KernelStatus::refused("null arrays on level " + std::to_string(l));
    if (l > 0 && (a.factors[l] == nullptr || a.factor_stride[l] < a.rank))
      return KernelStatus::refused("the factor of level " + std::to_string(l) + " is null or its row stride is shorter than the rank");
  }
  if (nnz > 0 && a.rank > 0 && a.vals == nullptr) return KernelStatus::refused("null values");
  return {};
}

namespace {

using mttkrp_detail::CsfOperands;

template <class T, int N, int G, int C>
void launch(const CsfOperands<T>& t, bool leaves, std::int64_t nnz, std::int64_t rank, cudaStream_t stream) {
  // About two groups per resident slot, at least a group's width of leaves each.
  const std::int64_t slots = static_cast<std::int64_t>(device_info().sms) * (2048 / G) * 2;
  const std::int64_t chunk = std::max<std::int64_t>(G, (nnz + slots - 1) / slots);
  const std::int64_t groups = (nnz + chunk - 1) / chunk;
  constexpr int kThreads = 256;
  const std::int64_t blocks = (groups * G + kThreads - 1) / kThreads;
  const std::int64_t tiles = (rank + G * C - 1) / (G * C);
  if (tiles > 65535) throw ShapeError("mttkrp: rank " + std::to_string(rank) + " is past the CUDA kernel's limit");
  const dim3 grid(static_cast<unsigned>(blocks), static_cast<unsigned>(tiles));
  if (leaves) {
    mttkrp_detail::mttkrp_dense_leaves<T, N, G, C><<<grid, kThreads, 0, stream>>>(t, chunk);
    TESSERA_CUDA_CHECK_LAUNCH("mttkrp_dense_leaves");
  } else {
    mttkrp_detail::mttkrp_dense_chunks<T, N, G, C><<<grid, kThreads, 0, stream>>>(t, chunk);
    TESSERA_CUDA_CHECK_LAUNCH("mttkrp_dense_chunks");
  }
}

template <class T, int N>
void launch_for_rank(const CsfOperands<T>& t, bool leaves, std::int64_t nnz, std::int64_t rank, cudaStream_t stream) {
  if (rank <= 4) return launch<T, N, 4, 1>(t, leaves, nnz, rank, stream);
  if (rank <= 8) return launch<T, N, 8, 1>(t, leaves, nnz, rank, stream);
  if (rank <= 16) return launch<T, N, 16, 1>(t, leaves, nnz, rank, stream);
  if (rank <= 32) return launch<T, N, 32, 1>(t, leaves, nnz, rank, stream);
  if (rank <= 64) return launch<T, N, 32, 2>(t, leaves, nnz, rank, stream);
  return launch<T, N, 32, 4>(t, leaves, nnz, rank, stream);
}

template <class T, int V, int P>
void launch_rows(const CsfOperands<T>& t, std::int64_t nnz, std::int64_t rank, cudaStream_t stream) {
  constexpr int kThreads = 256;
  // About four waves of groups, at least two batches of leaves each.
  const std::int64_t wanted = static_cast<std::int64_t>(device_info().sms) * (2048 / P) * 4;
  const std::int64_t chunk = std::max<std::int64_t>(2 * mttkrp_detail::kRowsBatch, (nnz + wanted - 1) / wanted);
  const std::int64_t groups = (nnz + chunk - 1) / chunk;
  const std::int64_t blocks = (groups * P + kThreads - 1) / kThreads;
  const std::int64_t tiles = (rank / V + P - 1) / P;
  if (tiles > 65535) throw ShapeError("ttm: " + std::to_string(rank) + " columns are past the CUDA kernel's limit");
  if (groups > 1) {
    mttkrp_detail::zero_cut_roots<T>
        <<<static_cast<unsigned>((groups - 1 + kThreads - 1) / kThreads), kThreads, 0, stream>>>(t, chunk, groups - 1);
    TESSERA_CUDA_CHECK_LAUNCH("zero_cut_roots");
  }
  mttkrp_detail::mttkrp_rows_chunks<T, V, P>
      <<<dim3(static_cast<unsigned>(blocks), static_cast<unsigned>(tiles)), kThreads, 0, stream>>>(t, chunk);
  TESSERA_CUDA_CHECK_LAUNCH("mttkrp_rows_chunks");
}

// P: the lanes of a group, the rank's vectors up to 32.
template <class T, int V>
void launch_rows_for_rank(const CsfOperands<T>& t, std::int64_t nnz, std::int64_t rank, cudaStream_t stream) {
  const std::int64_t vectors = rank / V;
  if (vectors <= 1) return launch_rows<T, V, 1>(t, nnz, rank, stream);
  if (vectors <= 2) return launch_rows<T, V, 2>(t, nnz, rank, stream);
  if (vectors <= 4) return launch_rows<T, V, 4>(t, nnz, rank, stream);
  if (vectors <= 8) return launch_rows<T, V, 8>(t, nnz, rank, stream);
  if (vectors <= 16) return launch_rows<T, V, 16>(t, nnz, rank, stream);
  return launch_rows<T, V, 32>(t, nnz, rank, stream);
}

// 16-byte vectors of columns where the rank, the row strides and both pointers allow, else one
// column per lane.
template <class T>
void launch_rows_any(const CsfOperands<T>& t, std::int64_t nnz, std::int64_t rank, cudaStream_t stream) {
  constexpr int V = 16 / sizeof(T);
  const auto aligned = [](const void* p) { return reinterpret_cast<std::uintptr_t>(p) % 16 == 0; };
  if (rank % V == 0 && t.stride[1] % V == 0 && t.out_stride % V == 0 && aligned(t.factors[1]) && aligned(t.out))
    return launch_rows_for_rank<T, V>(t, nnz, rank, stream);
  launch_rows_for_rank<T, 1>(t, nnz, rank, stream);
}

template <class T>
void run_typed(const MttkrpDenseArgs& a, cudaStream_t stream) {
  const std::int64_t nnz = a.nodes[a.order - 1];
  // Every row of out a root's (tessera::ttm): the rows walk stores them, zeroing only cut ones.
  const bool roots_are_rows = a.order == 2 && !a.leaf_coordinates && a.crd[0] == nullptr &&
                              a.out_rows == a.nodes[0] && nnz > 0 && a.rank > 0;
  if (a.out_rows > 0 && a.rank > 0 && !roots_are_rows)
    TESSERA_CUDA_CHECK(cudaMemset2DAsync(a.out, static_cast<std::size_t>(a.out_stride) * sizeof(T), 0,
                                         static_cast<std::size_t>(a.rank) * sizeof(T),
                                         static_cast<std::size_t>(a.out_rows), stream));
  if (nnz == 0 || a.rank == 0) return;
  CsfOperands<T> t{};
  for (int l = 0; l < a.order; ++l) {
    t.nodes[l] = a.nodes[l];
    t.pos[l] = a.pos[l];
    t.crd[l] = a.crd[l];
    t.factors[l] = static_cast<const T*>(a.factors[l]);
    t.stride[l] = a.factor_stride[l];
  }
  t.vals = static_cast<const T*>(a.vals);
  t.out = static_cast<T*>(a.out);
  t.out_stride = a.out_stride;
  t.rank = a.rank;
  if (roots_are_rows) return launch_rows_any<T>(t, nnz, a.rank, stream);
  const bool leaves = a.leaf_coordinates;
  switch (a.order) {
    case 2: return launch_for_rank<T, 2>(t, leaves, nnz, a.rank, stream);
    case 3: return launch_for_rank<T, 3>(t, leaves, nnz, a.rank, stream);
    case 4: return launch_for_rank<T, 4>(t, leaves, nnz, a.rank, stream);
    default: return launch_for_rank<T, 5>(t, leaves, nnz, a.rank, stream);
  }
}

}  // namespace

void mttkrp_dense_csf(const MttkrpDenseArgs& args, cudaStream_t stream) {
  require_ok(mttkrp_dense_can_implement(args), "mttkrp (CUDA)");
  if (args.type == MttkrpType::F32) run_typed<float>(args, stream);
  else run_typed<double>(args, stream);
}

}  // namespace tessera::kernels::cuda
