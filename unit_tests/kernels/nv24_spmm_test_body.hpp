// Shared body of the nm_spmm (NV24) tests; the including file defines TestSpaces.
// C = A * B for a 2:4-pruned weight B against the double-precision reference
// (tessera::reference::dense_product of A and reference::prune_2_4(B)), inputs rounded to
// the tested precision before the reference sees them; C poisoned with NaN before every
// run; random and odd shapes, empty extents, non-row-major A and C, weights pruned from
// real matrices, shape errors.
#include <Kokkos_Core.hpp>
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "tessera/core/io/matrix_market.hpp"
#include "tessera/formats/nv24.hpp"
#include "tessera/kernels/nm_spmm/nm_spmm.hpp"
#include "tessera/kernels/nm_spmm/reference/nv24_reference.hpp"
#include "tessera_test/compare.hpp"
#include "tessera_test/data.hpp"

namespace nv24_test {

using Half = Kokkos::Experimental::half_t;
using tessera::nv24::detail::from_double;
using tessera::nv24::detail::to_double;

// Relative error bound: fp32 accumulation, output rounded to T (fp16 2^-11, bf16 2^-8). Where
// Kokkos' half_t is a float (host builds), it gets float's bound.
template <class T>
double tolerance() {
  if constexpr (std::is_same_v<T, double>) return 1e-12;
  else if constexpr (std::is_same_v<T, float> || sizeof(T) == sizeof(float)) return 1e-5;
  else if constexpr (std::is_same_v<T, tessera::bf16_t>) return 1e-2;
  else return 2e-3;
}

template <class T>
std::vector<double> random_values(std::int64_t count, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  std::vector<double> v(static_cast<std::size_t>(count));
  for (double& x : v) x = to_double(from_double<T>(u(rng)));
  return v;
}

template <class T, class Layout, class Space>
Kokkos::View<T**, Layout, Space> to_view(const std::vector<double>& v, std::int64_t rows, std::int64_t cols,
                                         const std::string& label) {
  Kokkos::View<T**, Layout, Space> out(label, rows, cols);
  auto h = Kokkos::create_mirror_view(out);
  for (std::int64_t i = 0; i < rows; ++i)
    for (std::int64_t j = 0; j < cols; ++j) h(i, j) = from_double<T>(v[i * cols + j]);
  Kokkos::deep_copy(out, h);
  return out;
}

// Runs nm_spmm (C = alpha * A * W + beta * C) on (A, W = prune_nv24(B)) through `handle` and
// compares with the reference; B is k x n row-major. With beta zero, C starts poisoned (NaN).
template <class T, class Layout, class Space>
void check(const std::vector<double>& A, const std::vector<double>& B, std::int64_t m, std::int64_t k,
           std::int64_t n, const std::string& what, tessera::NmSpmmHandle& handle, double alpha = 1,
           double beta = 0) {
  const auto W = tessera::prune_nv24<T, Space>(to_view<T, Kokkos::LayoutRight, Space>(B, k, n, "B"));
  const auto Av = to_view<T, Layout, Space>(A, m, k, "A");
  std::vector<double> C0(static_cast<std::size_t>(m * n), std::numeric_limits<double>::quiet_NaN());
  if (beta != 0)
    for (std::size_t i = 0; i < C0.size(); ++i) C0[i] = to_double(from_double<T>(0.25 * static_cast<double>(i % 7) - 0.5));
  const auto C = to_view<T, Layout, Space>(C0, m, n, "C");
  tessera::nm_spmm(Space(), from_double<T>(alpha), Av, W, from_double<T>(beta), C, handle);
  Kokkos::fence();
  auto ref = tessera::reference::dense_product(A, tessera::reference::prune_2_4(B, k, n), m, k, n);
  for (std::size_t i = 0; i < ref.size(); ++i) ref[i] = alpha * ref[i] + (beta != 0 ? beta * C0[i] : 0.0);
  auto hC = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), C);
  std::vector<double> got;
  for (std::int64_t i = 0; i < m; ++i)
    for (std::int64_t j = 0; j < n; ++j) got.push_back(to_double(hC(i, j)));
  for (double g : got) ASSERT_FALSE(std::isnan(g)) << what << ": unwritten (NaN) output";
  EXPECT_LE(tessera_test::relative_error(got, ref), tolerance<T>())
      << what << " m " << m << " k " << k << " n " << n << " alpha " << alpha << " beta " << beta;
}

template <class T, class Layout, class Space>
void check(const std::vector<double>& A, const std::vector<double>& B, std::int64_t m, std::int64_t k,
           std::int64_t n, const std::string& what, const tessera::NmSpmmOptions& opts = {}, double alpha = 1,
           double beta = 0) {
  tessera::NmSpmmHandle handle(opts);
  check<T, Layout, Space>(A, B, m, k, n, what, handle, alpha, beta);
}

template <class T, class Space>
void random_shapes(std::uint64_t seed) {
  struct Dims {
    std::int64_t m, k, n;
  };
  for (const Dims& d : {Dims{0, 8, 8}, Dims{8, 0, 8}, Dims{8, 8, 0}, Dims{1, 1, 1}, Dims{3, 7, 5}, Dims{16, 64, 16},
                        Dims{33, 65, 17}, Dims{130, 300, 70}, Dims{257, 129, 131}, Dims{64, 1000, 300}}) {
    const auto A = random_values<T>(d.m * d.k, seed++), B = random_values<T>(d.k * d.n, seed++);
    check<T, Kokkos::LayoutRight, Space>(A, B, d.m, d.k, d.n, "random LayoutRight");
    check<T, Kokkos::LayoutLeft, Space>(A, B, d.m, d.k, d.n, "random LayoutLeft");
    check<T, Kokkos::LayoutRight, Space>(A, B, d.m, d.k, d.n, "random, alpha and beta", {}, 0.5, -2.0);
    check<T, Kokkos::LayoutLeft, Space>(A, B, d.m, d.k, d.n, "random LayoutLeft, alpha", {}, -1.5, 0.0);
  }
}

}  // namespace nv24_test

template <class Space>
class Nv24Spmm : public ::testing::Test {};
TYPED_TEST_SUITE(Nv24Spmm, TestSpaces);

TYPED_TEST(Nv24Spmm, HalfOnRandomAndOddShapes) { nv24_test::random_shapes<nv24_test::Half, TypeParam>(1); }
TYPED_TEST(Nv24Spmm, Bf16OnRandomAndOddShapes) { nv24_test::random_shapes<tessera::bf16_t, TypeParam>(101); }

TYPED_TEST(Nv24Spmm, WeightsPrunedFromRealMatrices) {
  using Space = TypeParam;
  using T = nv24_test::Half;
  std::uint64_t seed = 7;
  for (const char* name : {"west0497", "cryg2500", "cora"}) {
    const auto coo = tessera::io::read_matrix_market(tessera_test::real_matrix(name));
    const std::int64_t k = coo.shape[0], n = coo.shape[1], m = 96;
    double peak = 0;
    for (double v : coo.values) peak = std::max(peak, std::abs(v));
    std::vector<double> B(static_cast<std::size_t>(k * n), 0.0);
    for (std::int64_t e = 0; e < coo.nnz(); ++e)  // duplicates (if any) summed, scaled into fp16 range
      B[coo.coord(e, 0) * n + coo.coord(e, 1)] += coo.values[e] / (peak > 0 ? peak : 1.0);
    for (double& b : B) b = nv24_test::to_double(nv24_test::from_double<T>(b));
    const auto A = nv24_test::random_values<T>(m * k, seed++);
    nv24_test::check<T, Kokkos::LayoutRight, Space>(A, B, m, k, n, name);
  }
}

TYPED_TEST(Nv24Spmm, RejectsMismatchedShapes) {
  using Space = TypeParam;
  using T = nv24_test::Half;
  const auto W = tessera::prune_nv24<T, Space>(Kokkos::View<T**, Kokkos::LayoutRight, Space>("B", 64, 32));
  Kokkos::View<T**, Kokkos::LayoutRight, Space> A("A", 8, 64), A_bad("A", 8, 63), C("C", 8, 32), C_bad("C", 9, 32),
      C_bad2("C", 8, 31);
  const T one(1.0f), zero(0.0f);
  EXPECT_THROW(tessera::nm_spmm(one, A_bad, W, zero, C), tessera::ShapeError);
  EXPECT_THROW(tessera::nm_spmm(one, A, W, zero, C_bad), tessera::ShapeError);
  EXPECT_THROW(tessera::nm_spmm(one, A, W, zero, C_bad2), tessera::ShapeError);
  EXPECT_NO_THROW(tessera::nm_spmm(one, A, W, zero, C));
  // C on A's memory: A's first 32 columns would be overwritten while being read.
  const auto C_on_A = Kokkos::subview(A, Kokkos::ALL, std::make_pair(0, 32));
  EXPECT_THROW(tessera::nm_spmm(one, A, W, zero, C_on_A), tessera::AliasError);
  // Column windows of one row-major matrix that overlap without starting at one element.
  Kokkos::View<T**, Kokkos::LayoutRight, Space> AC("AC", 8, 96);
  EXPECT_THROW(tessera::nm_spmm(one, Kokkos::subview(AC, Kokkos::ALL, std::make_pair(0, 64)), W, zero,
                                Kokkos::subview(AC, Kokkos::ALL, std::make_pair(1, 33))),
               tessera::AliasError);
}

// A handle serves the weight it was first used with: a copy of it (other arrays, same meta)
// passes, a weight of another shape or another 2:4 pattern raises ShapeError, reset() rebinds.
TYPED_TEST(Nv24Spmm, HandleServesItsOwnWeight) {
  using Space = TypeParam;
  using T = nv24_test::Half;
  const std::int64_t k = 64, n = 32, m = 8;
  const auto B = nv24_test::random_values<T>(k * n, 91);
  auto B_shifted = B;  // the same values one row down: another 2:4 pattern of the same shape
  std::rotate(B_shifted.begin(), B_shifted.end() - n, B_shifted.end());
  const auto W = tessera::prune_nv24<T, Space>(nv24_test::to_view<T, Kokkos::LayoutRight, Space>(B, k, n, "B"));
  const auto W_copy = tessera::prune_nv24<T, Space>(nv24_test::to_view<T, Kokkos::LayoutRight, Space>(B, k, n, "B"));
  const auto W_other =
      tessera::prune_nv24<T, Space>(nv24_test::to_view<T, Kokkos::LayoutRight, Space>(B_shifted, k, n, "B"));
  const auto W_wide = tessera::prune_nv24<T, Space>(Kokkos::View<T**, Kokkos::LayoutRight, Space>("B", k, 2 * n));
  Kokkos::View<T**, Kokkos::LayoutRight, Space> A("A", m, k), C("C", m, n), C_wide("C", m, 2 * n);
  const T one(1.0f), zero(0.0f);
  tessera::NmSpmmHandle handle;
  EXPECT_FALSE(handle.bound());
  tessera::nm_spmm(one, A, W, zero, C, handle);
  EXPECT_TRUE(handle.bound());
  EXPECT_NO_THROW(tessera::nm_spmm(one, A, W_copy, zero, C, handle)) << "a copy of the weight";
  EXPECT_THROW(tessera::nm_spmm(one, A, W_other, zero, C, handle), tessera::ShapeError);
  EXPECT_THROW(tessera::nm_spmm(one, A, W_wide, zero, C_wide, handle), tessera::ShapeError);
  handle.reset();
  EXPECT_NO_THROW(tessera::nm_spmm(one, A, W_wide, zero, C_wide, handle));
}
