// tessera::spmv on a SlicedEll, both slice loops (AVX-512 where this CPU has it, and
// the portable one) on both column layouts (narrow 16-bit, wide 32-bit), against the
// double-precision oracle on the edge cases, a larger power-law matrix and every real
// matrix; Inf in x stays in the rows that use it.
#include <cmath>
#include <cstdint>
#include <cstddef>
#include <limits>
#include <string>
#include <vector>

#include <Kokkos_Core.hpp>
#include <gtest/gtest.h>

#include "spmv_spmm_checks.hpp"
#include "tessera/core/io/matrix_market.hpp"
#include "tessera/kernels/spmv/sliced_ell_spmv.hpp"
#include "tessera_test/data.hpp"
#include "tessera_test/host_spaces.hpp"

namespace {

using tessera::HostCoo;
using tessera::SlicedEllKernel;
using tessera_test::check_spmv;

using TestSpaces = tessera_test::HostSpaces;

template <class Space>
class SlicedEllSpmv : public ::testing::Test {};
TYPED_TEST_SUITE(SlicedEllSpmv, TestSpaces);

// Builds the sliced copy of the CSR tensor the check made, then multiplies with it.
struct SlicedSpmv {
  SlicedEllKernel kernel;
  tessera::SlicedEllColumns columns;
  template <class Tensor, class T, class XView, class YView>
  void operator()(const Tensor& A, T alpha, const XView& x, T beta, const YView& y) const {
    const auto ell = tessera::make_sliced_ell(A, columns);
    tessera::spmv(typename Tensor::execution_space(), alpha, ell, x, beta, y, kernel);
  }
};

// Every (loop, layout) pair. On a CPU without the AVX-512 slice loop Auto runs the portable
// one, so the Auto test says it was skipped instead of passing on the portable loop again.
const SlicedSpmv kPortable[] = {{SlicedEllKernel::Portable, tessera::SlicedEllColumns::Auto},
                                {SlicedEllKernel::Portable, tessera::SlicedEllColumns::Wide}};
const SlicedSpmv kAuto[] = {{SlicedEllKernel::Auto, tessera::SlicedEllColumns::Auto},
                            {SlicedEllKernel::Auto, tessera::SlicedEllColumns::Wide}};
const SlicedSpmv kVariants[] = {kAuto[0], kAuto[1], kPortable[0], kPortable[1]};

std::string variant_name(const SlicedSpmv& v) {
  return std::string(v.kernel == SlicedEllKernel::Auto ? "auto" : "portable") +
         (v.columns == tessera::SlicedEllColumns::Auto ? " narrow-if-fits" : " wide");
}

template <class Space, std::size_t V>
void edge_cases(const SlicedSpmv (&variants)[V], bool with_float) {
  for (const auto& v : variants)
    for (const auto& c : tessera_test::edge_case_matrices(57)) {
      const std::string what = c.name + " " + variant_name(v);
      check_spmv<double, Space>(c.coo, 1.0, 0.0, 1, what, v);
      check_spmv<double, Space>(c.coo, -0.5, 2.0, 2, what, v);
      if (!with_float) continue;
      check_spmv<float, Space>(c.coo, 1.5, 0.0, 3, what, v);
      check_spmv<float, Space>(c.coo, 1.0, -1.0, 4, what, v);
    }
}

TYPED_TEST(SlicedEllSpmv, EdgeCasesPortableLoop) { edge_cases<TypeParam>(kPortable, true); }

// The AVX-512 slice loop serves double only (float runs the portable loop under Auto).
TYPED_TEST(SlicedEllSpmv, EdgeCasesAvx512Loop) {
  if (!tessera::kernels::impl::sliced_ell_vectorised<double>())
    GTEST_SKIP() << "this CPU has no AVX-512: the AVX-512 slice loop was not run";
  edge_cases<TypeParam>(kAuto, false);
}

TYPED_TEST(SlicedEllSpmv, PowerLawRowsAcrossWindowsAndThreads) {
  // 1003 rows (not a multiple of 8 or 128): row r has about 2000 / (r + 1) entries.
  HostCoo<double> coo;
  coo.shape = {1003, 777};
  std::uint64_t state = 12345;
  const auto next = [&state] { return (state = state * 6364136223846793005ULL + 1442695040888963407ULL) >> 33; };
  for (std::int64_t r = 0; r < 1003; ++r)
    for (std::int64_t k = 0; k < 2000 / (r + 1); ++k) {
      coo.coords.push_back(r);
      coo.coords.push_back(static_cast<std::int64_t>(next() % 777));
      coo.values.push_back(static_cast<double>(next() % 2001) / 1000.0 - 1.0);
    }
  for (const auto& v : kVariants) {
    check_spmv<double, TypeParam>(coo, 1.0, 0.0, 5, "power law " + variant_name(v), v);
    check_spmv<double, TypeParam>(coo, 2.0, 0.25, 6, "power law " + variant_name(v), v);
  }
}

TYPED_TEST(SlicedEllSpmv, EveryRealMatrix) {
  for (const auto& path : tessera_test::real_matrix_paths()) {
    const auto coo = tessera::io::read_matrix_market(path);
    for (const auto& v : kVariants) check_spmv<double, TypeParam>(coo, 1.0, 0.5, 9, path + " " + variant_name(v), v);
  }
}

// Padding is never multiplied: an Inf in x(0) (the column the portable loop reads for
// padding) makes only the rows holding column 0 non-finite.
TYPED_TEST(SlicedEllSpmv, InfInXReachesOnlyItsRows) {
  const auto coo = tessera_test::random_coo({300, 40}, 900, 8);
  const auto A = tessera::from_coo<double, tessera::CSR, TypeParam>(coo);
  std::vector<bool> uses0(300, false);
  for (std::int64_t n = 0; n < coo.nnz(); ++n)
    if (coo.coord(n, 1) == 0) uses0[coo.coord(n, 0)] = true;
  Kokkos::View<double*, typename TypeParam::memory_space> x("x", 40), y("y", 300);
  Kokkos::deep_copy(x, 1.0);
  x(0) = std::numeric_limits<double>::infinity();
  for (const auto& v : kVariants) {
    Kokkos::deep_copy(y, std::numeric_limits<double>::quiet_NaN());
    v(A, 1.0, x, 0.0, y);
    TypeParam().fence();
    std::int64_t finite = 0;
    for (std::int64_t r = 0; r < 300; ++r) {
      EXPECT_EQ(std::isfinite(y(r)), !uses0[r]) << "row " << r << " " << variant_name(v);
      finite += std::isfinite(y(r));
    }
    EXPECT_GT(finite, 0);
    EXPECT_LT(finite, 300);
  }
}

TYPED_TEST(SlicedEllSpmv, MismatchedShapesAreRejected) {
  const auto A = tessera::from_coo<double, tessera::CSR, TypeParam>(tessera_test::random_coo({5, 3}, 6, 1));
  const auto ell = tessera::make_sliced_ell(A);
  Kokkos::View<double*, typename TypeParam::memory_space> x3("x", 3), x4("x", 4), y5("y", 5), y4("y", 4);
  EXPECT_NO_THROW(tessera::spmv(TypeParam(), 1.0, ell, x3, 0.0, y5));
  try {
    tessera::spmv(TypeParam(), 1.0, ell, x4, 0.0, y5);
    FAIL() << "x of the wrong length accepted";
  } catch (const tessera::ShapeError& e) {
    EXPECT_STREQ(e.what(), "spmv(SlicedEll): x.extent(0) is 4, expected 3");
  }
  EXPECT_THROW(tessera::spmv(TypeParam(), 1.0, ell, x3, 0.0, y4), tessera::ShapeError);
  Kokkos::View<double*, typename TypeParam::memory_space> v("v", 8);
  const auto x = Kokkos::subview(v, std::make_pair(0, 3));
  EXPECT_THROW(tessera::spmv(TypeParam(), 1.0, ell, x, 0.0, Kokkos::subview(v, std::make_pair(2, 7))),
               tessera::AliasError);
  EXPECT_NO_THROW(tessera::spmv(TypeParam(), 1.0, ell, x, 0.0, Kokkos::subview(v, std::make_pair(3, 8))));

  // alpha == 0 reads neither A nor x (BLAS): y = beta y, zeros for beta == 0.
  Kokkos::deep_copy(x3, std::numeric_limits<double>::quiet_NaN());
  Kokkos::deep_copy(y5, 3.0);
  tessera::spmv(TypeParam(), 0.0, ell, x3, 2.0, y5);
  const auto scaled = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), y5);
  for (int i = 0; i < 5; ++i) EXPECT_EQ(scaled(i), 6.0) << "row " << i;
  Kokkos::deep_copy(y5, std::numeric_limits<double>::quiet_NaN());
  tessera::spmv(TypeParam(), 0.0, ell, x3, 0.0, y5);
  const auto zeroed = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), y5);
  for (int i = 0; i < 5; ++i) EXPECT_EQ(zeroed(i), 0.0) << "row " << i;
}

}  // namespace
