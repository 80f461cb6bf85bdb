// tessera::spmm's host row loops, each against the double-precision oracle: the
// AVX-512 loop (where this CPU has it) with cached and with streaming stores, and the
// portable loop. Column counts around the loop's tile widths (16 doubles, 32 floats)
// cover masked tiles and C rows that are not 64-byte aligned, where streaming falls
// back to ordinary stores. Outputs are poisoned (spmv_spmm_checks.hpp).
#include <cstdint>
#include <cstddef>
#include <string>

#include <Kokkos_Core.hpp>
#include <gtest/gtest.h>

#include "spmv_spmm_checks.hpp"
#include "tessera/core/io/matrix_market.hpp"
#include "tessera_test/data.hpp"
#include "tessera_test/host_spaces.hpp"

namespace {

using tessera::SpmmHostLoop;
using tessera::SpmmOptions;
using tessera::SpmmOutputStores;
using tessera_test::check_spmm;

using TestSpaces = tessera_test::HostSpaces;

template <class Space>
class SpmmHostLoops : public ::testing::Test {};
TYPED_TEST_SUITE(SpmmHostLoops, TestSpaces);

SpmmOptions loop_options(SpmmHostLoop loop, SpmmOutputStores stores) {
  SpmmOptions opts;
  opts.algorithm = tessera::SpmmAlgorithm::Native;
  opts.host_loop = loop;
  opts.output_stores = stores;
  return opts;
}

// The portable loop, and the AVX-512 loop with either store (streaming applies to it only).
// On a CPU without AVX-512 Auto runs the portable loop, so the AVX-512 tests say they were
// skipped instead of passing on the portable loop again.
const SpmmOptions kPortable[] = {loop_options(SpmmHostLoop::Portable, SpmmOutputStores::Cached)};
const SpmmOptions kAvx512[] = {loop_options(SpmmHostLoop::Auto, SpmmOutputStores::Cached),
                               loop_options(SpmmHostLoop::Auto, SpmmOutputStores::Streaming)};

bool cpu_runs_avx512_loop() {
  return tessera::spmm_host_loop_is_avx512<double>() && tessera::spmm_host_loop_is_avx512<float>();
}
#define SKIP_WITHOUT_AVX512() \
  if (!cpu_runs_avx512_loop()) GTEST_SKIP() << "this CPU has no AVX-512: the AVX-512 spmm loop was not run"

std::string variant_name(const SpmmOptions& o) {
  return std::string(o.host_loop == SpmmHostLoop::Auto ? "auto loop" : "portable loop") +
         (o.output_stores == SpmmOutputStores::Streaming ? ", streaming" : ", cached");
}

template <class Space, std::size_t V>
void edge_cases(const SpmmOptions (&variants)[V]) {
  for (const auto& v : variants)
    for (const auto& c : tessera_test::edge_case_matrices(71))
      for (std::int64_t n : {1, 7, 8, 9, 16, 17, 31, 32, 33, 40}) {
        const std::string what = c.name + " " + variant_name(v);
        check_spmm<double, Kokkos::LayoutRight, Space>(c.coo, n, 1.0, 0.0, 1, what, v);
        check_spmm<double, Kokkos::LayoutRight, Space>(c.coo, n, 0.75, 1.25, 2, what, v);
        check_spmm<float, Kokkos::LayoutRight, Space>(c.coo, n, 2.0, 0.0, 3, what, v);
        check_spmm<float, Kokkos::LayoutRight, Space>(c.coo, n, -1.0, 0.5, 4, what, v);
      }
}

template <class Space, std::size_t V>
void real_matrices(const SpmmOptions (&variants)[V]) {
  for (const auto& path : tessera_test::real_matrix_paths()) {
    const auto coo = tessera::io::read_matrix_market(path);
    for (const auto& v : variants) {
      check_spmm<double, Kokkos::LayoutRight, Space>(coo, 16, 1.0, 0.0, 5, path + " " + variant_name(v), v);
      check_spmm<float, Kokkos::LayoutRight, Space>(coo, 20, 1.0, -2.0, 6, path + " " + variant_name(v), v);
    }
  }
}

TYPED_TEST(SpmmHostLoops, EdgeCasesPortableLoop) { edge_cases<TypeParam>(kPortable); }

TYPED_TEST(SpmmHostLoops, EdgeCasesAvx512LoopEveryWidth) {
  SKIP_WITHOUT_AVX512();
  edge_cases<TypeParam>(kAvx512);
}

TYPED_TEST(SpmmHostLoops, EveryRealMatrixPortableLoop) { real_matrices<TypeParam>(kPortable); }

TYPED_TEST(SpmmHostLoops, EveryRealMatrixAvx512Loop) {
  SKIP_WITHOUT_AVX512();
  real_matrices<TypeParam>(kAvx512);
}

// With output_stores Auto, a C of at least kSpmmStreamingMinBytes is streamed: one
// such product (70000 x 32 doubles, 17.9 MB) against the oracle.
TYPED_TEST(SpmmHostLoops, AutoStoresOnALargeOutput) {
  SKIP_WITHOUT_AVX512();
  const auto coo = tessera_test::random_coo({70000, 5000}, 210000, 9);
  const SpmmOptions opts = loop_options(SpmmHostLoop::Auto, SpmmOutputStores::Auto);
  ASSERT_TRUE(tessera::spmm_streams_output(opts.output_stores, true, 70000 * 32 * 8));
  check_spmm<double, Kokkos::LayoutRight, TypeParam>(coo, 32, 1.0, 0.0, 10, "large output", opts);
}

TEST(SpmmStreamingChoice, FollowsTheOptionAndTheSize) {
  const std::int64_t big = tessera::kSpmmStreamingMinBytes;
  EXPECT_TRUE(tessera::spmm_streams_output(SpmmOutputStores::Auto, true, big));
  EXPECT_FALSE(tessera::spmm_streams_output(SpmmOutputStores::Auto, true, big - 1));
  EXPECT_TRUE(tessera::spmm_streams_output(SpmmOutputStores::Streaming, true, 1));
  EXPECT_FALSE(tessera::spmm_streams_output(SpmmOutputStores::Cached, true, 4 * big));
  // beta != 0 reads C anyway: never streamed.
  EXPECT_FALSE(tessera::spmm_streams_output(SpmmOutputStores::Streaming, false, 4 * big));
  EXPECT_FALSE(tessera::spmm_streams_output(SpmmOutputStores::Auto, false, 4 * big));
}

}  // namespace
