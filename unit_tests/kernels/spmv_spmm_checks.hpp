#pragma once
// Checks shared by the spmv/spmm test bodies: build A from COO, run the kernel on
// inputs drawn at random, compare with tessera::reference (serial, double) on the
// same rounded inputs. Outputs are poisoned with NaN before every beta == 0 run, so
// an unwritten entry or a read of C fails the comparison.
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include <gtest/gtest.h>

#include "tessera/kernels/spmm/reference/spmm_reference.hpp"
#include "tessera/kernels/spmv/reference/spmv_reference.hpp"
#include "tessera/tessera.hpp"
#include "tessera_test/compare.hpp"
#include "tessera_test/random_coo.hpp"

namespace tessera_test {

using tessera::HostCoo;

// y = alpha * A * x + beta * y by tessera::spmv on the CSR tensor.
struct CsrSpmv {
  template <class Tensor, class T, class XView, class YView>
  void operator()(const Tensor& A, T alpha, const XView& x, T beta, const YView& y) const {
    tessera::spmv(alpha, A, x, beta, y);
  }
};

// Strided: x and y are passed as rows of column-major (2 x n) arrays (LayoutStride
// Views), which takes the kernels' View-accessor path instead of raw pointers.
// multiply(A, alpha, x, beta, y) runs the kernel under test on the CSR tensor A.
template <class T, class Space, bool Strided = false, class Multiply = CsrSpmv>
void check_spmv(const HostCoo<double>& coo, double alpha, double beta, std::uint64_t seed, const std::string& what,
                const Multiply& multiply = {}) {
  SCOPED_TRACE(what + " alpha=" + std::to_string(alpha) + " beta=" + std::to_string(beta) +
               (Strided ? " strided" : ""));
  using Mem = typename Space::memory_space;
  const auto A = tessera::from_coo<T, tessera::CSR, Space>(coo);
  const auto rows = coo.shape[0], cols = coo.shape[1];
  std::vector<double> x = tessera_test::random_vector(cols, seed), y = tessera_test::random_vector(rows, seed + 1);
  Kokkos::View<T*, Mem> xd("x", cols), yd("y", rows);
  auto xh = Kokkos::create_mirror_view(xd);
  auto yh = Kokkos::create_mirror_view(yd);
  for (std::int64_t j = 0; j < cols; ++j) xh(j) = static_cast<T>(x[j]);
  for (std::int64_t i = 0; i < rows; ++i) yh(i) = beta == 0.0 ? static_cast<T>(std::numeric_limits<float>::quiet_NaN()) : static_cast<T>(y[i]);
  // The reference sees exactly the rounded inputs the kernel sees.
  for (std::int64_t j = 0; j < cols; ++j) x[j] = static_cast<double>(xh(j));
  for (std::int64_t i = 0; i < rows; ++i) y[i] = static_cast<double>(static_cast<T>(y[i]));
  HostCoo<double> rounded = coo;
  for (auto& v : rounded.values) v = static_cast<double>(static_cast<T>(v));
  Kokkos::deep_copy(xd, xh);
  Kokkos::deep_copy(yd, yh);
  if constexpr (Strided) {
    Kokkos::View<T**, Kokkos::LayoutLeft, Mem> xs("xs", 2, cols), ys("ys", 2, rows);
    const auto x_row = Kokkos::subview(xs, 1, Kokkos::ALL());
    const auto y_row = Kokkos::subview(ys, 1, Kokkos::ALL());
    Kokkos::deep_copy(x_row, xd);
    Kokkos::deep_copy(y_row, yd);
    multiply(A, static_cast<T>(alpha), x_row, static_cast<T>(beta), y_row);
    Kokkos::deep_copy(yd, y_row);
  } else {
    multiply(A, static_cast<T>(alpha), xd, static_cast<T>(beta), yd);
  }
  Kokkos::deep_copy(yh, yd);
  std::vector<double> scale = absolute_values(y);
  tessera::reference::spmv(std::abs(alpha), absolute_values(rounded), absolute_values(x), std::abs(beta), scale);
  tessera::reference::spmv(alpha, rounded, x, beta, y);
  std::vector<double> got(yh.data(), yh.data() + rows);
  EXPECT_TRUE(tessera_test::entrywise_close(got, y, scale, tessera_test::tolerance<T>(longest_row(coo) + 1)));
}

template <class T, class Layout, class Space, class Enc = tessera::CSR>
void check_spmm(const HostCoo<double>& coo, std::int64_t n, double alpha, double beta, std::uint64_t seed,
                const std::string& what, const tessera::SpmmOptions& opts = {}, double tol = -1) {
  SCOPED_TRACE(what + " n=" + std::to_string(n) + " beta=" + std::to_string(beta) + " layout=" +
               (std::is_same_v<Layout, Kokkos::LayoutLeft> ? "left" : "right"));
  using Mem = typename Space::memory_space;
  const auto A = tessera::from_coo<T, Enc, Space>(coo);
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
      Ch(i, j) = beta == 0.0 ? static_cast<T>(std::numeric_limits<float>::quiet_NaN()) : static_cast<T>(C[i * n + j]);
      C[i * n + j] = static_cast<double>(static_cast<T>(C[i * n + j]));
    }
  HostCoo<double> rounded = coo;
  for (auto& v : rounded.values) v = static_cast<double>(static_cast<T>(v));
  Kokkos::deep_copy(Bd, Bh);
  Kokkos::deep_copy(Cd, Ch);
  if (seed % 2 == 0) {  // both ways in: a handle (bound, fingerprinted) and options alone
    tessera::SpmmHandle handle(opts);
    tessera::spmm(static_cast<T>(alpha), A, Bd, static_cast<T>(beta), Cd, handle);
  } else {
    tessera::spmm(static_cast<T>(alpha), A, Bd, static_cast<T>(beta), Cd, opts);
  }
  Kokkos::deep_copy(Ch, Cd);
  std::vector<double> scale = absolute_values(C);
  tessera::reference::spmm(std::abs(alpha), absolute_values(rounded), absolute_values(B), n, std::abs(beta), scale);
  tessera::reference::spmm(alpha, rounded, B, n, beta, C);
  std::vector<double> got(rows * n);
  for (std::int64_t i = 0; i < rows; ++i)
    for (std::int64_t j = 0; j < n; ++j) got[i * n + j] = static_cast<double>(Ch(i, j));
  if constexpr (std::is_floating_point_v<T>) {
    if (tol < 0) tol = tessera_test::tolerance<T>(longest_row(coo) + 1);
  } else {
    ASSERT_GE(tol, 0) << "value types other than float/double need an explicit tolerance";
  }
  // Kokkos' half_t has no std::numeric_limits; where it is 2 bytes it is IEEE fp16.
  const double rounding_floor =
      sizeof(T) == 2 ? std::ldexp(1.0, -24) : static_cast<double>(std::numeric_limits<T>::denorm_min());
  EXPECT_TRUE(tessera_test::entrywise_close(got, C, scale, tol, rounding_floor));
}

}  // namespace tessera_test
