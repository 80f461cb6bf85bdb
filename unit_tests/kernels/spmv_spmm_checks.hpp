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
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "tessera/kernels/spmm/reference/spmm_reference.hpp"
#include "tessera/kernels/spmv/reference/spmv_reference.hpp"
#include "tessera/tessera.hpp"
#include "tessera_test/compare.hpp"
#include "tessera_test/random_coo.hpp"

namespace tessera_test {

using tessera::HostCoo;

// y = alpha * op(A) * x + beta * y by tessera::spmv, through a handle (bound, with a plan
// where the space has one) when use_handle is set, with options alone otherwise.
struct CsrSpmv {
  tessera::Op op = tessera::Op::NoTranspose;
  bool use_handle = false;
  tessera::SpmvOptions options{};
  template <class Tensor, class T, class XView, class YView>
  void operator()(const Tensor& A, T alpha, const XView& x, T beta, const YView& y) const {
    if (use_handle) {  // a first call into scratch builds the plan; the checked call reuses it
      tessera::SpmvHandle handle(options);
      const Kokkos::View<T*, typename YView::memory_space> scratch("scratch", y.extent(0));
      tessera::spmv(op, alpha, A, x, T(0), scratch, handle);
      tessera::spmv(op, alpha, A, x, beta, y, handle);
    } else {
      tessera::spmv(op, alpha, A, x, beta, y, options);
    }
  }
};

// The product the check's reference computes: A, or A^T where the multiply says so.
template <class Multiply, class = void>
struct TransposesA : std::false_type {};
template <class Multiply>
struct TransposesA<Multiply, std::void_t<decltype(std::declval<Multiply>().op)>> : std::true_type {};

inline HostCoo<double> transposed(const HostCoo<double>& coo) {
  HostCoo<double> t{{coo.shape[1], coo.shape[0]}, coo.coords, coo.values};
  for (std::int64_t n = 0; n < coo.nnz(); ++n) std::swap(t.coords[2 * n], t.coords[2 * n + 1]);
  return t;
}

// Strided: x and y are passed as rows of column-major (2 x n) arrays (LayoutStride
// Views), which takes the kernels' View-accessor path instead of raw pointers.
// multiply(A, alpha, x, beta, y) runs the kernel under test on the tensor A of encoding Enc.
template <class T, class Space, bool Strided = false, class Multiply = CsrSpmv, class Enc = tessera::CSR>
void check_spmv(const HostCoo<double>& coo, double alpha, double beta, std::uint64_t seed, const std::string& what,
                const Multiply& multiply = {}) {
  bool transpose = false;
  if constexpr (TransposesA<Multiply>::value) transpose = multiply.op == tessera::Op::Transpose;
  SCOPED_TRACE(what + " alpha=" + std::to_string(alpha) + " beta=" + std::to_string(beta) +
               (Strided ? " strided" : "") + (transpose ? " op=T" : "") +
               (tessera::is_csc_like_v<Enc> ? " CSC" : ""));
  using Mem = typename Space::memory_space;
  const auto A = tessera::from_coo<T, Enc, Space>(coo);
  const HostCoo<double> product = transpose ? transposed(coo) : coo;  // what the reference multiplies
  const auto rows = product.shape[0], cols = product.shape[1];
  std::vector<double> x = tessera_test::random_vector(cols, seed), y = tessera_test::random_vector(rows, seed + 1);
  Kokkos::View<T*, Mem> xd("x", cols), yd("y", rows);
  auto xh = Kokkos::create_mirror_view(xd);
  auto yh = Kokkos::create_mirror_view(yd);
  for (std::int64_t j = 0; j < cols; ++j) xh(j) = static_cast<T>(x[j]);
  for (std::int64_t i = 0; i < rows; ++i) yh(i) = beta == 0.0 ? static_cast<T>(std::numeric_limits<float>::quiet_NaN()) : static_cast<T>(y[i]);
  // The reference sees exactly the rounded inputs the kernel sees.
  for (std::int64_t j = 0; j < cols; ++j) x[j] = static_cast<double>(xh(j));
  for (std::int64_t i = 0; i < rows; ++i) y[i] = static_cast<double>(static_cast<T>(y[i]));
  HostCoo<double> rounded = product;
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
  EXPECT_TRUE(tessera_test::entrywise_close(got, y, scale, tessera_test::tolerance<T>(longest_row(product) + 1)));
}

// C = alpha * op(A) * B + beta * C by tessera::spmm on the tensor of encoding Enc built from coo.
template <class T, class Layout, class Space, class Enc = tessera::CSR>
void check_spmm(const HostCoo<double>& coo, std::int64_t n, double alpha, double beta, std::uint64_t seed,
                const std::string& what, const tessera::SpmmOptions& opts = {}, double tol = -1,
                tessera::Op op = tessera::Op::NoTranspose) {
  SCOPED_TRACE(what + " n=" + std::to_string(n) + " beta=" + std::to_string(beta) + " layout=" +
               (std::is_same_v<Layout, Kokkos::LayoutLeft> ? "left" : "right") +
               (op == tessera::Op::Transpose ? " op=T" : "") + (tessera::is_csc_like_v<Enc> ? " CSC" : ""));
  using Mem = typename Space::memory_space;
  const auto A = tessera::from_coo<T, Enc, Space>(coo);
  const HostCoo<double> product = op == tessera::Op::Transpose ? transposed(coo) : coo;  // what the reference multiplies
  const auto rows = product.shape[0], k = product.shape[1];
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
  HostCoo<double> rounded = product;
  for (auto& v : rounded.values) v = static_cast<double>(static_cast<T>(v));
  Kokkos::deep_copy(Bd, Bh);
  Kokkos::deep_copy(Cd, Ch);
  if (seed % 2 == 0) {  // both ways in: a handle (bound, fingerprinted) and options alone
    tessera::SpmmHandle handle(opts);
    tessera::spmm(Space(), op, static_cast<T>(alpha), A, Bd, static_cast<T>(beta), Cd, handle);
  } else {
    tessera::spmm(op, static_cast<T>(alpha), A, Bd, static_cast<T>(beta), Cd, opts);
  }
  Kokkos::deep_copy(Ch, Cd);
  std::vector<double> scale = absolute_values(C);
  tessera::reference::spmm(std::abs(alpha), absolute_values(rounded), absolute_values(B), n, std::abs(beta), scale);
  tessera::reference::spmm(alpha, rounded, B, n, beta, C);
  std::vector<double> got(rows * n);
  for (std::int64_t i = 0; i < rows; ++i)
    for (std::int64_t j = 0; j < n; ++j) got[i * n + j] = static_cast<double>(Ch(i, j));
  if constexpr (std::is_floating_point_v<T>) {
    if (tol < 0) tol = tessera_test::tolerance<T>(longest_row(product) + 1);
  } else {
    ASSERT_GE(tol, 0) << "value types other than float/double need an explicit tolerance";
  }
  // Kokkos' half_t has no std::numeric_limits; where it is 2 bytes it is IEEE fp16.
  const double rounding_floor =
      sizeof(T) == 2 ? std::ldexp(1.0, -24) : static_cast<double>(std::numeric_limits<T>::denorm_min());
  EXPECT_TRUE(tessera_test::entrywise_close(got, C, scale, tol, rounding_floor));
}

}  // namespace tessera_test
