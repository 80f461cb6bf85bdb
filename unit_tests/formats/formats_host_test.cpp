// Formats tests on the host execution spaces of this build.
#include <Kokkos_Core.hpp>
#include <gtest/gtest.h>

#include "tessera_test/broadcast_view.hpp"
#include "tessera_test/host_spaces.hpp"

using TestSpaces = tessera_test::HostSpaces;

#include "formats_test_body.hpp"

namespace {

// from_dense copies its input into a row-major host array first: a shape whose bytes
// overflow is refused before that array is allocated (its size wrapped to 0 before).
TEST(FromDense, RefusesShapesThatOverflow) {
  const double one = 1.0;
  using Dcsr64 = tessera::WithIndexTypes<tessera::DCSR, std::int64_t, std::int64_t>;
  const auto huge = tessera_test::broadcast_view(std::int64_t{1} << 31, std::int64_t{1} << 30, one);  // 2^64 bytes
  EXPECT_THROW((void)tessera::from_dense<Dcsr64>(huge), tessera::OverflowError);
}

}  // namespace
