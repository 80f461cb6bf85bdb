#include "tessera/core/dist/scope_guard.hpp"

#include <cstdlib>
#include <cstring>
#include <string>
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

#ifdef KOKKOS_ENABLE_CUDA
// Kokkos' own device options: where the user gave one, Kokkos decides.
bool kokkos_device_option(int argc, char* argv[]) {
  for (int i = 1; i < argc; ++i)
    for (const char* option : {"--kokkos-device-id", "--kokkos-num-devices", "--kokkos-map-device-id-by",
                               "--kokkos-device", "--kokkos-ndevices"})
      if (std::strncmp(argv[i], option, std::strlen(option)) == 0) return true;
  return false;
}

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
  (void)comm;
  (void)binding;
#ifdef KOKKOS_ENABLE_CUDA
  if (!kokkos_device_option(argc, argv)) device_ = pick_device(comm, binding);
#endif
  if (device_ < 0) {
    Kokkos::initialize(argc, argv);
    return;
  }
  // Kokkos takes the device as an option in every version (3.4 to 4.x); it strips the
  // options it reads, so the caller's argv is rewritten from the copy without ours.
  std::string option = "--kokkos-device-id=" + std::to_string(device_);
  std::vector<char*> args(argv, argv + argc);
  args.push_back(option.data());
  args.push_back(nullptr);
  int count = argc + 1;
  Kokkos::initialize(count, args.data());
  argc = 0;
  for (int i = 0; i < count; ++i)
    if (args[i] != option.data()) argv[argc++] = args[i];
  argv[argc] = nullptr;  // as main's argv ends
}

ScopeGuard::~ScopeGuard() { Kokkos::finalize(); }

}  // namespace tessera::dist
