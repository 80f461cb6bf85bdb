// spmv and spmm tests on the host execution spaces of this build.
#include <Kokkos_Core.hpp>
#include <gtest/gtest.h>

#include "tessera_test/host_spaces.hpp"

using TestSpaces = tessera_test::HostSpaces;

#include "kernels_test_body.hpp"

#include <random>

#include "tessera/kernels/common/row_partition.hpp"
#include "tessera/kernels/common/strided_overlap.hpp"

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

// The alias check's closed form against enumerating both index sets, on random strided
// sets of 1 and 2 dimensions (the second sharing the first's strides), small enough to list.
TEST(StridedOverlap, ClosedFormAgreesWithEnumeration) {
  using tessera::kernels::detail::StridedSet;
  std::mt19937_64 rng(42);
  const auto draw = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  const auto elements = [](const StridedSet& s, std::int64_t base) {
    std::vector<std::int64_t> out;
    for (std::int64_t i = 0; i < s.extent[0]; ++i)
      for (std::int64_t j = 0; j < (s.dims == 2 ? s.extent[1] : 1); ++j)
        out.push_back(base + i * s.stride[0] + j * s.stride[1]);
    return out;
  };
  int shared_cases = 0;
  for (int trial = 0; trial < 20000; ++trial) {
    StridedSet out, in;
    out.dims = in.dims = draw(0, 2);
    for (int k = 0; k < out.dims; ++k) {
      out.stride[k] = in.stride[k] = draw(1, 12);
      out.extent[k] = draw(2, 6);
      in.extent[k] = draw(2, 6);
    }
    if (out.dims == 1) in.stride[0] = draw(1, 12);  // 1-D sets may differ in stride
    if (out.dims == 2 && out.stride[0] > out.stride[1]) {
      std::swap(out.stride[0], out.stride[1]), std::swap(in.stride[0], in.stride[1]);
      std::swap(out.extent[0], out.extent[1]), std::swap(in.extent[0], in.extent[1]);
    }
    const std::int64_t d = draw(-60, 60);
    const auto a = elements(out, 0), b = elements(in, d);
    bool shared = false;
    for (const auto x : a) shared = shared || std::find(b.begin(), b.end(), x) != b.end();
    shared_cases += shared;
    EXPECT_EQ(tessera::kernels::detail::provably_disjoint(out, in, d), !shared)
        << "dims " << out.dims << " strides " << out.stride[0] << "," << out.stride[1] << " / " << in.stride[0]
        << " extents " << out.extent[0] << "," << out.extent[1] << " / " << in.extent[0] << "," << in.extent[1]
        << " apart " << d;
  }
  EXPECT_GT(shared_cases, 1000);  // both answers drawn often
}

}  // namespace
