#pragma once
/// \file
/// dist::ScopeGuard: starts Kokkos on one MPI rank, on that rank's own GPU in CUDA builds,
/// and finalizes it at scope exit (the MPI counterpart of Kokkos::ScopeGuard).
///
/// \code
///   MPI_Init(&argc, &argv);
///   {
///     tessera::dist::ScopeGuard kokkos(MPI_COMM_WORLD, argc, argv);  // rank -> GPU
///     ...
///   }
///   MPI_Finalize();
/// \endcode
///
/// The GPU is the rank's index among the ranks of its node (MPI_Comm_split_type with
/// MPI_COMM_TYPE_SHARED), so no launcher flags or environment variables are needed. More ranks
/// on a node than GPUs raise Error on every rank, unless sharing is asked for
/// (DeviceBinding::share_devices or TESSERA_SHARE_GPUS=1): then ranks go round-robin. Kokkos
/// device options on the command line (--kokkos-device-id, --kokkos-num-devices,
/// --kokkos-map-device-id-by) take precedence: the guard then leaves the choice to Kokkos. The
/// host threads of each rank are the node's hardware threads over its ranks (OpenMP's default
/// would give every rank all of them), unless OMP_NUM_THREADS or a Kokkos threads option sets them.
#include <mpi.h>

namespace tessera::dist {

/// How ScopeGuard maps ranks to GPUs.
struct DeviceBinding {
  /// Allow several ranks per GPU (tests, debugging); the environment variable
  /// TESSERA_SHARE_GPUS=1 sets it too.
  bool share_devices = false;
};

/// This rank's index among the ranks of `comm` on the same node (collective).
int node_local_rank(MPI_Comm comm);
/// Number of ranks of `comm` on this rank's node (collective).
int node_local_size(MPI_Comm comm);
/// The lowest rank of `comm` on this rank's node: equal on two ranks exactly when they share a
/// node (collective).
int node_leader(MPI_Comm comm);

/// The GPU of the rank `local_rank` of `local_ranks` on a node with `devices` GPUs: its local
/// rank, or round-robin when `share` allows several ranks per GPU. Error when the ranks
/// outnumber the GPUs without `share`, or when there is no GPU.
int device_of_rank(int local_rank, int local_ranks, int devices, bool share);

/// Kokkos started on this rank's GPU for the guard's lifetime (see the file's comment).
class ScopeGuard {
 public:
  /// Collective over `comm`. Errors (too many ranks per GPU, no GPU in a CUDA build) are
  /// raised on every rank before Kokkos starts.
  ScopeGuard(MPI_Comm comm, int& argc, char* argv[], const DeviceBinding& binding = {});
  ~ScopeGuard();
  ScopeGuard(const ScopeGuard&) = delete;
  ScopeGuard& operator=(const ScopeGuard&) = delete;

  /// The GPU this rank runs on (-1 in host builds, or where Kokkos' own options chose).
  int device() const noexcept { return device_; }

 private:
  int device_ = -1;
};

}  // namespace tessera::dist
