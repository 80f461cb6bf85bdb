// GoogleTest main for the distributed tests, run under mpiexec: MPI first, then
// Kokkos (dist::ScopeGuard, on the rank's GPU in CUDA builds), torn down in reverse. In CUDA builds every rank of a machine without a
// GPU skips the binary (exit 77, ctest "skipped"). Each rank runs every test; a
// failure on any rank makes that rank, and so mpiexec, exit non-zero.
#include <cstdio>

#include <Kokkos_Core.hpp>
#include <gtest/gtest.h>
#include <mpi.h>

#include "tessera/core/dist/scope_guard.hpp"

#ifdef KOKKOS_ENABLE_CUDA
#include <cuda_runtime.h>
#endif

namespace {

// Ranks other than 0 print only their failures, tagged with the rank.
class FailurePrinter : public ::testing::EmptyTestEventListener {
 public:
  explicit FailurePrinter(int rank) : rank_(rank) {}
  void OnTestPartResult(const ::testing::TestPartResult& result) override {
    if (!result.failed()) return;
    std::printf("[rank %d] %s:%d: Failure\n%s\n", rank_, result.file_name() ? result.file_name() : "?",
                result.line_number(), result.message());
    std::fflush(stdout);
  }

 private:
  int rank_;
};

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
#ifdef KOKKOS_ENABLE_CUDA
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::printf("SKIPPED: this build uses CUDA and no CUDA device is present\n");
    MPI_Finalize();
    return 77;
  }
#endif
  ::testing::InitGoogleTest(&argc, argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  // One progress report (rank 0's); the other ranks print their failures.
  if (rank != 0) {
    auto& listeners = ::testing::UnitTest::GetInstance()->listeners();
    delete listeners.Release(listeners.default_result_printer());
    listeners.Append(new FailurePrinter(rank));
  }
  int result = 0;
  {
    // The tests start more ranks than there are GPUs: ranks share them, round-robin.
    tessera::dist::ScopeGuard kokkos(MPI_COMM_WORLD, argc, argv, tessera::dist::DeviceBinding{true});
    result = RUN_ALL_TESTS();
  }
  MPI_Finalize();
  return result;
}
