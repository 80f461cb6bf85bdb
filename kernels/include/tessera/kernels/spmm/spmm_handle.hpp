#pragma once
/// \file
/// Options of tessera::spmm and the handle that keeps what a sequence of calls on one matrix
/// reuses (on Kokkos::Cuda: the matrix's plans and the tuned kernel picks).
#include <cstdint>

#include "tessera/kernels/common/basic_handle.hpp"

namespace tessera {

/// Algorithm of tessera::spmm (see spmm.hpp).
enum class SpmmAlgorithm { Auto, Native, TensorCore, CudaCoreRowSplit, CudaRowBlocks };
/// Row loop of Native on host spaces (SpmmOptions::host_loop).
enum class SpmmHostLoop { Auto, Portable };
/// Stores of C by the AVX-512 loop (SpmmOptions::output_stores).
enum class SpmmOutputStores { Auto, Cached, Streaming };
/// SpmmOptions::tune on Kokkos::Cuda: the L2 state its timed calls start from. ColdL2 for
/// operands read from DRAM (produced long before the call, or larger than the L2); WarmL2 for a
/// B produced just before the call (a GNN layer's features) or for operands multiplied back to
/// back while they fit in the L2.
enum class SpmmTuneCache { ColdL2, WarmL2 };

/// Name of an algorithm, e.g. "TensorCore".
inline const char* to_string(SpmmAlgorithm a) {
  switch (a) {
    case SpmmAlgorithm::Auto: return "Auto";
    case SpmmAlgorithm::Native: return "Native";
    case SpmmAlgorithm::TensorCore: return "TensorCore";
    case SpmmAlgorithm::CudaCoreRowSplit: return "CudaCoreRowSplit";
    case SpmmAlgorithm::CudaRowBlocks: return "CudaRowBlocks";
  }
  return "?";
}

/// Options of tessera::spmm.
struct SpmmOptions {
  SpmmAlgorithm algorithm = SpmmAlgorithm::Auto;  ///< SpmmAlgorithm says which
  /// float inputs may run through TF32 tensor cores (about 1e-3 relative error) when Auto
  /// chooses; off by default so float results keep fp32 accuracy.
  bool allow_tf32 = false;
  /// Host spaces, Native: Auto runs the AVX-512 row loop where it applies; Portable always runs
  /// the portable one.
  SpmmHostLoop host_loop = SpmmHostLoop::Auto;
  /// The AVX-512 loop with beta == 0 can write C with streaming (non-temporal) stores, which
  /// save reading C's lines before overwriting them but leave C out of the cache. Auto streams
  /// when C holds at least kSpmmStreamingMinBytes.
  SpmmOutputStores output_stores = SpmmOutputStores::Auto;
  /// Kokkos::Cuda, Auto: time both CUDA kernels on the first call for a value type, N and
  /// operand layouts (into a scratch output; that call synchronizes) and run the faster from then
  /// on, instead of the rule on the plan's row statistics. Worth it for a matrix multiplied many
  /// times with one N, through a handle that keeps the pick. Ignored on host spaces, by the
  /// explicit algorithms, and while the stream is being captured into a graph.
  bool tune = false;
  /// The L2 state the timed calls start from: the one the caller's calls will see.
  SpmmTuneCache tune_cache = SpmmTuneCache::ColdL2;
};

/// Auto's threshold for streaming stores: an output this large does not stay in a core's
/// private caches and takes a large share of a shared last-level cache.
inline constexpr std::int64_t kSpmmStreamingMinBytes = std::int64_t(16) << 20;

/// Kept across calls on one matrix A: which tensor it serves (checked on every call, see
/// kernels::PatternBinding) and, on Kokkos::Cuda, A's plan and the tuned kernel picks. A call
/// given SpmmOptions instead builds what it needs for that call alone. Not thread-safe: one
/// handle per thread. Copies share the kept state.
class SpmmHandle : public kernels::BasicHandle<SpmmOptions> {
 public:
  using BasicHandle::BasicHandle;
};

}  // namespace tessera
