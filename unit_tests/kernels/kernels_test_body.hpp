#pragma once
// Shared body of the spmv/spmm tests; a per-backend file defines TestSpaces.
// Oracle: tessera::reference (serial, double, straight from the COO triplets).
// Outputs are poisoned with NaN before every beta == 0 run, so an unwritten
// entry or a read of C fails the comparison.
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "tessera/kernels/spmm/reference/spmm_reference.hpp"
#include "tessera/kernels/spmv/reference/spmv_reference.hpp"
#include "tessera/tessera.hpp"
#include "tessera_test/compare.hpp"
#include "tessera_test/data.hpp"
#include "tessera_test/random_coo.hpp"

namespace {

using tessera::HostCoo;

std::int64_t longest_row(const HostCoo<double>& coo) {
  std::vector<std::int64_t> count(coo.shape[0], 0);
  std::int64_t longest = 0;
  for (std::int64_t n = 0; n < coo.nnz(); ++n) longest = std::max(longest, ++count[coo.coord(n, 0)]);
  return longest;
}

template <class T, class Space>
void check_spmv(const HostCoo<double>& coo, double alpha, double beta, std::uint64_t seed, const std::string& what) {
  SCOPED_TRACE(what + " alpha=" + std::to_string(alpha) + " beta=" + std::to_string(beta));
  using Mem = typename Space::memory_space;
  const auto A = tessera::from_coo<T, tessera::CSR, Space>(coo);
  const auto rows = coo.shape[0], cols = coo.shape[1];
  std::vector<double> x = tessera_test::random_vector(cols, seed), y = tessera_test::random_vector(rows, seed + 1);
  Kokkos::View<T*, Mem> xd("x", cols), yd("y", rows);
  auto xh = Kokkos::create_mirror_view(xd);
  auto yh = Kokkos::create_mirror_view(yd);
  for (std::int64_t j = 0; j < cols; ++j) xh(j) = static_cast<T>(x[j]);
  for (std::int64_t i = 0; i < rows; ++i) yh(i) = beta == 0.0 ? std::numeric_limits<T>::quiet_NaN() : static_cast<T>(y[i]);
  // The reference sees exactly the rounded inputs the kernel sees.
  for (std::int64_t j = 0; j < cols; ++j) x[j] = static_cast<double>(xh(j));
  for (std::int64_t i = 0; i < rows; ++i) y[i] = static_cast<double>(static_cast<T>(y[i]));
  HostCoo<double> rounded = coo;
  for (auto& v : rounded.values) v = static_cast<double>(static_cast<T>(v));
  Kokkos::deep_copy(xd, xh);
  Kokkos::deep_copy(yd, yh);
  tessera::spmv(static_cast<T>(alpha), A, xd, static_cast<T>(beta), yd);
  Kokkos::deep_copy(yh, yd);
  tessera::reference::spmv(alpha, rounded, x, beta, y);
  std::vector<double> got(yh.data(), yh.data() + rows);
  EXPECT_LE(tessera_test::relative_error(got, y), tessera_test::tolerance<T>(longest_row(coo) + 1));
}

template <class T, class Layout, class Space>
void check_spmm(const HostCoo<double>& coo, std::int64_t n, double alpha, double beta, std::uint64_t seed,
                const std::string& what) {
  SCOPED_TRACE(what + " n=" + std::to_string(n) + " beta=" + std::to_string(beta) + " layout=" +
               (std::is_same_v<Layout, Kokkos::LayoutLeft> ? "left" : "right"));
  using Mem = typename Space::memory_space;
  const auto A = tessera::from_coo<T, tessera::CSR, Space>(coo);
  const auto rows = coo.shape[0], k = coo.shape[1];
  std::vector<double> B = tessera_test::random_vector(k * n, seed), C = tessera_test::random_vector(rows * n, seed + 1);
  Kokkos::View<T**, Layout, Mem> Bd("B", k, n), Cd("C", rows, n);
  auto Bh = Kokkos::create_mirror_view(Bd);
  auto Ch = Kokkos::create_mirror_view(Cd);
  for (std::int64_t r = 0; r < k; ++r)
    for (std::int64_t j = 0; j < n; ++j) {
      Bh(r, j) = static_cast<T>(B[r * n + j]);
      B[r * n + j] = static_cast<double>(Bh(r, j));
    }
  for (std::int64_t i = 0; i < rows; ++i)
    for (std::int64_t j = 0; j < n; ++j) {
      Ch(i, j) = beta == 0.0 ? std::numeric_limits<T>::quiet_NaN() : static_cast<T>(C[i * n + j]);
      C[i * n + j] = static_cast<double>(static_cast<T>(C[i * n + j]));
    }
  HostCoo<double> rounded = coo;
  for (auto& v : rounded.values) v = static_cast<double>(static_cast<T>(v));
  Kokkos::deep_copy(Bd, Bh);
  Kokkos::deep_copy(Cd, Ch);
  tessera::spmm(static_cast<T>(alpha), A, Bd, static_cast<T>(beta), Cd);
  Kokkos::deep_copy(Ch, Cd);
  tessera::reference::spmm(alpha, rounded, B, n, beta, C);
  std::vector<double> got(rows * n);
  for (std::int64_t i = 0; i < rows; ++i)
    for (std::int64_t j = 0; j < n; ++j) got[i * n + j] = static_cast<double>(Ch(i, j));
  EXPECT_LE(tessera_test::relative_error(got, C), tessera_test::tolerance<T>(longest_row(coo) + 1));
}

template <class Space>
class Kernels : public ::testing::Test {};
TYPED_TEST_SUITE(Kernels, TestSpaces);

TYPED_TEST(Kernels, SpmvEdgeCases) {
  for (const auto& c : tessera_test::edge_case_matrices(31)) {
    check_spmv<double, TypeParam>(c.coo, 1.0, 0.0, 1, c.name);
    check_spmv<double, TypeParam>(c.coo, -0.5, 2.0, 2, c.name);
    check_spmv<float, TypeParam>(c.coo, 1.5, 0.0, 3, c.name);
    check_spmv<float, TypeParam>(c.coo, 1.0, -1.0, 4, c.name);
  }
}

TYPED_TEST(Kernels, SpmmEdgeCasesBothLayouts) {
  for (const auto& c : tessera_test::edge_case_matrices(41))
    for (std::int64_t n : {1, 7, 16, 33}) {
      check_spmm<double, Kokkos::LayoutRight, TypeParam>(c.coo, n, 1.0, 0.0, 5, c.name);
      check_spmm<double, Kokkos::LayoutLeft, TypeParam>(c.coo, n, 0.75, 1.25, 6, c.name);
      check_spmm<float, Kokkos::LayoutRight, TypeParam>(c.coo, n, 2.0, 0.5, 7, c.name);
      check_spmm<float, Kokkos::LayoutLeft, TypeParam>(c.coo, n, 1.0, 0.0, 8, c.name);
    }
}

TYPED_TEST(Kernels, SpmvAndSpmmOnEveryRealMatrix) {
  for (const auto& path : tessera_test::real_matrix_paths()) {
    const auto coo = tessera::io::read_matrix_market(path);
    check_spmv<double, TypeParam>(coo, 1.0, 0.5, 9, path);
    check_spmm<double, Kokkos::LayoutRight, TypeParam>(coo, 8, 1.0, 0.0, 10, path);
  }
}

TYPED_TEST(Kernels, MismatchedShapesAreRejected) {
  using Mem = typename TypeParam::memory_space;
  const auto A = tessera::from_coo<double, tessera::CSR, TypeParam>(tessera_test::random_coo({5, 3}, 6, 1));
  Kokkos::View<double*, Mem> x3("x", 3), x4("x", 4), y5("y", 5), y4("y", 4);
  EXPECT_NO_THROW(tessera::spmv(1.0, A, x3, 0.0, y5));
  try {
    tessera::spmv(1.0, A, x4, 0.0, y5);
    FAIL() << "x of the wrong length accepted";
  } catch (const tessera::ShapeError& e) {
    EXPECT_STREQ(e.what(), "spmv: x.extent(0) is 4, expected 3");
  }
  EXPECT_THROW(tessera::spmv(1.0, A, x3, 0.0, y4), tessera::ShapeError);
  Kokkos::View<double**, Mem> B34("B", 3, 4), B44("B", 4, 4), C54("C", 5, 4), C53("C", 5, 3);
  EXPECT_NO_THROW(tessera::spmm(1.0, A, B34, 0.0, C54));
  EXPECT_THROW(tessera::spmm(1.0, A, B44, 0.0, C54), tessera::ShapeError);
  EXPECT_THROW(tessera::spmm(1.0, A, B34, 0.0, C53), tessera::ShapeError);
}

}  // namespace
