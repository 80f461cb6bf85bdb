#pragma once
// Shared body of the dense-factor MTTKRP tests (mttkrp(space, X, mode, factors, out)); a
// per-backend file defines TestSpaces. Every mode of random tensors of orders 2 to 4 (duplicates,
// empty slices, one slice holding most nonzeros, fibers of one nonzero, zero nonzeros), ranks 1
// to 130, CSF and COO inputs, float and double, and the real Last.fm tensor, against a
// double-precision sum over the COO triplets; outputs are poisoned first. Then the handle's reuse
// and its refusals. On CUDA both kernels run: the CSF walk (long fibers: most modes here) and
// the expanded form (fibers of under two nonzeros: FibersOfOneNonzero, the order-4 tensor, the
// huge slice's mode 0).
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include <Kokkos_Core.hpp>
#include <gtest/gtest.h>

#include "tessera/core/error.hpp"
#include "tessera/core/io/tns.hpp"
#include "tessera/formats/convert.hpp"
#include "tessera/kernels/mttkrp/mttkrp_dense.hpp"
#include "tessera_test/data.hpp"
#include "tessera_test/random_coo.hpp"

namespace {

using tessera::HostCoo;
using HostMatrix = std::vector<double>;  // row-major rows x R

template <class T, class Space>
using Matrix = Kokkos::View<T**, Kokkos::LayoutRight, Space>;

// Factor rows x R, values in [-1, 1), the same for a (seed, rows, R) on every backend.
HostMatrix random_factor(std::int64_t rows, std::int64_t R, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> value(-1.0, 1.0);
  HostMatrix f(static_cast<std::size_t>(rows * R));
  for (auto& x : f) x = value(rng);
  return f;
}

template <class T, class Space>
Matrix<T, Space> to_space(const HostMatrix& f, std::int64_t rows, std::int64_t R) {
  Matrix<T, Space> v("factor", rows, R);
  auto h = Kokkos::create_mirror_view(v);
  for (std::int64_t i = 0; i < rows * R; ++i) h.data()[i] = static_cast<T>(f[i]);
  Kokkos::deep_copy(v, h);
  return v;
}

// The factors as T holds them, back in double (the reference multiplies what the kernel reads).
HostMatrix rounded(const HostMatrix& f, bool to_float) {
  if (!to_float) return f;
  HostMatrix out(f.size());
  for (std::size_t i = 0; i < f.size(); ++i) out[i] = static_cast<float>(f[i]);
  return out;
}

// out(i, r) and the sum of |terms| behind it, from the triplets in double.
void reference(const HostCoo<double>& X, int mode, const std::vector<HostMatrix>& U, std::int64_t R,
               HostMatrix& out, HostMatrix& scale) {
  out.assign(static_cast<std::size_t>(X.shape[mode] * R), 0.0);
  scale = out;
  for (std::int64_t e = 0; e < X.nnz(); ++e)
    for (std::int64_t r = 0; r < R; ++r) {
      double term = X.values[e];
      for (int m = 0; m < X.order(); ++m)
        if (m != mode) term *= U[m][X.coord(e, m) * R + r];
      out[X.coord(e, mode) * R + r] += term;
      scale[X.coord(e, mode) * R + r] += std::abs(term);
    }
}

template <class T>
double tolerance() {
  return std::is_same_v<T, float> ? 2e-5 : 1e-12;
}

// Every mode of X (encoding Enc, value type T) at rank R through one handle, against the reference.
template <class T, class Enc, class Space, int N>
void check_modes(const HostCoo<double>& X, std::int64_t R, std::uint64_t seed, const std::string& what) {
  ASSERT_EQ(X.order(), N);
  constexpr bool is_float = std::is_same_v<T, float>;
  HostCoo<double> X_as_T = X;  // the kernel reads values rounded to T
  for (auto& v : X_as_T.values) v = static_cast<T>(v);
  const auto tensor = tessera::from_coo<T, Enc, Space>(X);
  std::vector<HostMatrix> U;
  std::array<Matrix<T, Space>, N> factors;
  for (int m = 0; m < N; ++m) {
    U.push_back(rounded(random_factor(X.shape[m], R, seed + 97 * m), is_float));
    factors[m] = to_space<T, Space>(U[m], X.shape[m], R);
  }
  tessera::MttkrpHandle handle;
  for (int pass = 0; pass < 2; ++pass)  // the second pass reuses the kept rearrangements
    for (int mode = 0; mode < N; ++mode) {
      const std::string label = what + " mode " + std::to_string(mode) + " rank " + std::to_string(R) + " pass " +
                                std::to_string(pass);
      Matrix<T, Space> out("out", X.shape[mode], R);
      Kokkos::deep_copy(out, std::numeric_limits<T>::quiet_NaN());
      if (pass == 0 && mode == 1) tessera::mttkrp(Space(), tensor, mode, factors, out);  // handle-less form
      else tessera::mttkrp(Space(), tensor, mode, factors, out, handle);
      const auto got = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), out);
      HostMatrix ref, scale;
      // Sums of duplicates are rounded to T once stored: compare with the values as stored.
      reference(is_float ? X_as_T : X, mode, U, R, ref, scale);
      std::int64_t bad = 0;
      for (std::int64_t i = 0; i < X.shape[mode] * R; ++i) {
        const double err = std::abs(static_cast<double>(got.data()[i]) - ref[i]);
        const double allowed = tolerance<T>() * std::max(scale[i], 1.0) * (is_float ? 4.0 : 1.0);
        if (!(err <= allowed) && bad++ < 5)
          ADD_FAILURE() << label << ": out(" << i / R << ", " << i % R << ") = " << got.data()[i] << ", expected "
                        << ref[i] << " (terms' size " << scale[i] << ")";
      }
      EXPECT_EQ(bad, 0) << label;
    }
}

template <class Space>
class MttkrpDense : public ::testing::Test {};
TYPED_TEST_SUITE(MttkrpDense, TestSpaces);

TYPED_TEST(MttkrpDense, Order3EveryModeRankAndInputEncoding) {
  const auto X = tessera_test::random_coo({30, 20, 40}, 3000, 11);  // duplicates among them
  for (std::int64_t R : {1, 7, 16, 64}) {
    check_modes<double, tessera::CSF<3>, TypeParam, 3>(X, R, 3, "csf double");
    check_modes<double, tessera::COOTensor<3>, TypeParam, 3>(X, R, 4, "coo double");
    check_modes<float, tessera::CSF<3>, TypeParam, 3>(X, R, 5, "csf float");
  }
}

// Fibers of about one nonzero: the CUDA kernels read these modes in the expanded (COO) form.
TYPED_TEST(MttkrpDense, FibersOfOneNonzero) {
  const auto X = tessera_test::random_coo({200, 300, 400}, 5000, 19);
  for (std::int64_t R : {5, 16, 64, 130}) {
    check_modes<double, tessera::CSF<3>, TypeParam, 3>(X, R, 13, "short fibers double");
    check_modes<float, tessera::COOTensor<3>, TypeParam, 3>(X, R, 14, "short fibers float");
  }
}

TYPED_TEST(MttkrpDense, Order4AndOrder2) {
  const auto X = tessera_test::random_coo({12, 9, 15, 11}, 2500, 12);
  for (std::int64_t R : {3, 33, 130})  // 130: more columns than one tile of the CUDA kernel
    check_modes<double, tessera::CSF<4>, TypeParam, 4>(X, R, 6, "order 4 csf");
  check_modes<float, tessera::COOTensor<4>, TypeParam, 4>(X, 16, 7, "order 4 coo float");
  check_modes<double, tessera::CSR, TypeParam, 2>(tessera_test::random_coo({50, 70}, 900, 13), 8, 8, "matrix csr");
}

TYPED_TEST(MttkrpDense, EmptySlicesHugeSliceAndNoNonzeros) {
  check_modes<double, tessera::CSF<3>, TypeParam, 3>(tessera_test::random_coo({30, 4000, 20}, 300, 14), 16, 9,
                                                     "mostly empty slices");
  // One slice of mode 0 holds 40000 of the 40500 nonzeros: many chunks add into one row.
  auto X = tessera_test::random_coo({6, 300, 200}, 500, 15);
  const auto heavy = tessera_test::random_coo({1, 300, 200}, 40000, 16);
  for (std::int64_t e = 0; e < heavy.nnz(); ++e) {
    X.coords.insert(X.coords.end(), {3, heavy.coord(e, 1), heavy.coord(e, 2)});
    X.values.push_back(heavy.values[e]);
  }
  check_modes<double, tessera::CSF<3>, TypeParam, 3>(X, 16, 10, "one huge slice");
  check_modes<double, tessera::CSF<3>, TypeParam, 3>(tessera_test::random_coo({30, 20, 40}, 0, 17), 16, 11,
                                                     "no nonzeros");
  check_modes<double, tessera::CSF<3>, TypeParam, 3>(tessera_test::random_coo({0, 20, 40}, 0, 18), 4, 12,
                                                     "empty mode");
}

TYPED_TEST(MttkrpDense, RealLastfmTensor) {
  const auto X = tessera::io::read_tns(tessera_test::data_dir() + "/tensors/lastfm_user_artist_tag.tns.gz");
  check_modes<double, tessera::CSF<3>, TypeParam, 3>(X, 16, 21, "lastfm double");
  check_modes<float, tessera::COOTensor<3>, TypeParam, 3>(X, 64, 22, "lastfm float");
}

TYPED_TEST(MttkrpDense, HandleFollowsValuesAndRefusesOtherTensors) {
  using Space = TypeParam;
  auto X = tessera_test::random_coo({10, 12, 14}, 400, 31);
  const auto a = tessera::from_coo<double, tessera::CSF<3>, Space>(X);
  for (auto& v : X.values) v *= -2.0;
  const auto b = tessera::from_coo<double, tessera::CSF<3>, Space>(X);  // same pattern, new values
  std::array<Matrix<double, Space>, 3> factors;
  for (int m = 0; m < 3; ++m) factors[m] = to_space<double, Space>(random_factor(X.shape[m], 5, m), X.shape[m], 5);
  Matrix<double, Space> out_a("out_a", 12, 5), out_b("out_b", 12, 5);
  tessera::MttkrpHandle handle;
  tessera::mttkrp(Space(), a, 1, factors, out_a, handle);
  tessera::mttkrp(Space(), b, 1, factors, out_b, handle);
  const auto ha = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), out_a);
  const auto hb = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), out_b);
  double norm = 0;
  for (std::size_t i = 0; i < ha.span(); ++i) {
    EXPECT_NEAR(hb.data()[i], -2.0 * ha.data()[i], 1e-12 * (1 + std::abs(ha.data()[i]))) << i;
    norm += std::abs(ha.data()[i]);
  }
  EXPECT_GT(norm, 0.0);

  const auto other = tessera::from_coo<double, tessera::CSF<3>, Space>(tessera_test::random_coo({10, 12, 14}, 400, 32));
  EXPECT_THROW(tessera::mttkrp(Space(), other, 1, factors, out_a, handle), tessera::ShapeError);
  handle.reset();
  EXPECT_NO_THROW(tessera::mttkrp(Space(), other, 1, factors, out_a, handle));

  EXPECT_THROW(tessera::mttkrp(Space(), a, 3, factors, out_a), tessera::IndexError);
  EXPECT_THROW(tessera::mttkrp(Space(), a, 0, factors, out_a), tessera::ShapeError);  // out has 12 rows, mode 0 10
  Matrix<double, Space> wrong_rank("wrong_rank", 10, 4);
  EXPECT_THROW(tessera::mttkrp(Space(), a, 0, factors, wrong_rank), tessera::ShapeError);
  // out may be the mode's own factor (not read), not another one.
  const auto square = tessera::from_coo<double, tessera::CSF<3>, Space>(tessera_test::random_coo({12, 12, 14}, 300, 33));
  auto shared = factors;
  shared[0] = Matrix<double, Space>("U0", 12, 5);
  EXPECT_THROW(tessera::mttkrp(Space(), square, 1, shared, shared[0]), tessera::AliasError);
  EXPECT_NO_THROW(tessera::mttkrp(Space(), square, 1, shared, shared[1]));
  auto short_factors = factors;
  short_factors[2] = Matrix<double, Space>("short", 13, 5);
  EXPECT_THROW(tessera::mttkrp(Space(), a, 1, short_factors, out_a), tessera::ShapeError);
}

}  // namespace
