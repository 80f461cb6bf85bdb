// spmv and spmm tests on the host execution spaces of this build.
#include <Kokkos_Core.hpp>
#include <gtest/gtest.h>

#include "tessera_test/host_spaces.hpp"

using TestSpaces = tessera_test::HostSpaces;

#include "kernels_test_body.hpp"

#include "tessera/kernels/common/row_partition.hpp"

namespace {

// Reports no threads, as Kokkos 3.4's OpenMP does when started with --kokkos-threads=0.
struct NoThreadsSpace {
  int concurrency() const { return 0; }
};

TEST(RowPartition, ChunkCountsStayPositiveWhenASpaceReportsNoThreads) {
  EXPECT_EQ(tessera::kernels::host_threads(NoThreadsSpace{}), 1);
  EXPECT_EQ(tessera::kernels::one_chunk_per_thread(NoThreadsSpace{}, 100), 1);
  EXPECT_EQ(tessera::kernels::one_chunk_per_thread(NoThreadsSpace{}, 0), 1);
  EXPECT_EQ(tessera::kernels::host_chunk_count(NoThreadsSpace{}), 8);
}

}  // namespace
