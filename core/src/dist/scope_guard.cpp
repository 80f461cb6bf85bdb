#include "tessera/core/dist/scope_guard.hpp"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <string>
#include <thread>
#include <vector>

#include <Kokkos_Core.hpp>
#ifdef KOKKOS_ENABLE_CUDA
#include <cuda_runtime.h>
#endif

#include "tessera/core/dist/collective_error.hpp"
#include "tessera/core/error.hpp"

namespace tessera::dist {
namespace {

struct NodeComm {
  explicit NodeComm(MPI_Comm comm) { MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node); }
  ~NodeComm() { MPI_Comm_free(&node); }
  MPI_Comm node = MPI_COMM_NULL;
};

// Whether the command line holds one of Kokkos' own `options` (where it does, Kokkos decides).
bool has_option(int argc, char* argv[], std::initializer_list<const char*> options) {
  for (int i = 1; i < argc; ++i)
    for (const char* option : options)
      if (std::strncmp(argv[i], option, std::strlen(option)) == 0) return true;
  return false;
}

// Kokkos 3.7 renamed --kokkos-threads (kept as a deprecated spelling in 4.x).
#if KOKKOS_VERSION >= 30700
constexpr const char* kThreadsOption = "--kokkos-num-threads=";
#else
constexpr const char* kThreadsOption = "--kokkos-threads=";
#endif

// The node's hardware threads split over its ranks (at least one each).
int threads_per_rank(int local_ranks) {
  const unsigned cores = std::thread::hardware_concurrency();
  return std::max(1, static_cast<int>(cores) / std::max(1, local_ranks));
}

#ifdef KOKKOS_ENABLE_CUDA
int pick_device(MPI_Comm comm, const DeviceBinding& binding) {
  const int local = node_local_rank(comm), ranks = node_local_size(comm);
  int device = -1;
  agree_on_errors(comm, [&] {
    int devices = 0;
    const cudaError_t status = cudaGetDeviceCount(&devices);
    if (status != cudaSuccess)
      throw CudaError(std::string("dist::ScopeGuard: cudaGetDeviceCount: ") + cudaGetErrorString(status));
    const char* env = std::getenv("TESSERA_SHARE_GPUS");
    device = device_of_rank(local, ranks, devices, binding.share_devices || (env && std::string(env) == "1"));
  });
  return device;
}
#endif

}  // namespace

int device_of_rank(int local_rank, int local_ranks, int devices, bool share) {
  if (devices <= 0) throw CudaError("dist::ScopeGuard: no GPU is visible to this rank");
  if (local_ranks > devices && !share)
    throw Error("dist::ScopeGuard: " + std::to_string(local_ranks) + " ranks on this node and " +
                std::to_string(devices) +
                " GPUs; start at most one rank per GPU, or set TESSERA_SHARE_GPUS=1 "
                "(DeviceBinding::share_devices) to let ranks share GPUs");
  return local_rank % devices;
}

int node_local_rank(MPI_Comm comm) {
  const NodeComm node(comm);
  int rank = 0;
  MPI_Comm_rank(node.node, &rank);
  return rank;
}

int node_local_size(MPI_Comm comm) {
  const NodeComm node(comm);
  int size = 0;
  MPI_Comm_size(node.node, &size);
  return size;
}

int node_leader(MPI_Comm comm) {
  const NodeComm node(comm);
  int leader = 0;
  MPI_Comm_rank(comm, &leader);
  MPI_Bcast(&leader, 1, MPI_INT, 0, node.node);
  return leader;
}

ScopeGuard::ScopeGuard(MPI_Comm comm, int& argc, char* argv[], const DeviceBinding& binding) {
  (void)binding;
  std::vector<std::string> options;
#ifdef KOKKOS_ENABLE_CUDA
  if (!has_option(argc, argv, {"--kokkos-device-id", "--kokkos-num-devices", "--kokkos-map-device-id-by",
                               "--kokkos-device", "--kokkos-ndevices"})) {
    device_ = pick_device(comm, binding);
    options.push_back("--kokkos-device-id=" + std::to_string(device_));
  }
#endif
#if defined(KOKKOS_ENABLE_OPENMP) || defined(KOKKOS_ENABLE_THREADS)
  // The host threads of the ranks of a node share its cores, unless the user chose a number.
  const int local_ranks = node_local_size(comm);
  if (!std::getenv("OMP_NUM_THREADS") && !has_option(argc, argv, {"--kokkos-threads", "--kokkos-num-threads"}))
    options.push_back(kThreadsOption + std::to_string(threads_per_rank(local_ranks)));
#else
  (void)comm;
#endif
  // Kokkos takes both as options in every version (3.4 to 4.x); it strips the options it reads,
  // so the caller's argv is rewritten from the copy without ours.
  std::vector<char*> args(argv, argv + argc);
  for (std::string& option : options) args.push_back(option.data());
  args.push_back(nullptr);
  int count = static_cast<int>(args.size()) - 1;
  Kokkos::initialize(count, args.data());
  argc = 0;
  for (int i = 0; i < count; ++i)
    if (std::none_of(options.begin(), options.end(), [&](std::string& o) { return args[i] == o.data(); }))
      argv[argc++] = args[i];
  argv[argc] = nullptr;  // as main's argv ends
}

ScopeGuard::~ScopeGuard() { Kokkos::finalize(); }

}  // namespace tessera::dist
