#pragma once
// Shared body of the spmv/spmm tests; a per-backend file defines TestSpaces.
// Oracle: tessera::reference (serial, double, straight from the COO triplets).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <utility>
#include <vector>

#include "spmv_spmm_checks.hpp"
#include "tessera_test/data.hpp"
#include "tessera_test/random_coo.hpp"

namespace {

using tessera::HostCoo;
using tessera_test::check_spmm;
using tessera_test::check_spmv;

template <class Space>
class Kernels : public ::testing::Test {};
TYPED_TEST_SUITE(Kernels, TestSpaces);

TYPED_TEST(Kernels, SpmvEdgeCases) {
  for (const auto& c : tessera_test::edge_case_matrices(31)) {
    check_spmv<double, TypeParam>(c.coo, 1.0, 0.0, 1, c.name);
    check_spmv<double, TypeParam>(c.coo, -0.5, 2.0, 2, c.name);
    check_spmv<float, TypeParam>(c.coo, 1.5, 0.0, 3, c.name);
    check_spmv<float, TypeParam>(c.coo, 1.0, -1.0, 4, c.name);
    check_spmv<double, TypeParam, true>(c.coo, 1.0, 0.0, 11, c.name);
    check_spmv<double, TypeParam, true>(c.coo, 0.5, 1.5, 12, c.name);
  }
}

// op(A) = A^T on CSR and both ops on CSC (the transposed view of its CSR arrays), through
// options alone and through a handle (on Kokkos::Cuda: with the matrix's plan).
TYPED_TEST(Kernels, SpmvTransposedAndCsc) {
  using tessera::Op;
  using tessera_test::CsrSpmv;
  const CsrSpmv transposed{Op::Transpose, false}, transposed_handle{Op::Transpose, true},
      plain_handle{Op::NoTranspose, true};
  for (const auto& c : tessera_test::edge_case_matrices(37)) {
    check_spmv<double, TypeParam, false, CsrSpmv>(c.coo, 1.0, 0.0, 21, c.name, transposed);
    check_spmv<double, TypeParam, false, CsrSpmv>(c.coo, -0.5, 2.0, 22, c.name, transposed_handle);
    check_spmv<float, TypeParam, false, CsrSpmv>(c.coo, 1.5, 0.5, 23, c.name, transposed);
    check_spmv<double, TypeParam, false, CsrSpmv>(c.coo, 1.0, -1.0, 24, c.name, plain_handle);
    check_spmv<double, TypeParam, false, CsrSpmv, tessera::CSC>(c.coo, 1.0, 0.0, 25, c.name, CsrSpmv{});
    check_spmv<double, TypeParam, false, CsrSpmv, tessera::CSC>(c.coo, 0.5, 1.5, 26, c.name, transposed_handle);
    check_spmv<float, TypeParam, false, CsrSpmv, tessera::CSC>(c.coo, 2.0, 0.0, 27, c.name, plain_handle);
    check_spmv<double, TypeParam, true, CsrSpmv>(c.coo, 1.0, 0.25, 28, c.name, transposed);
  }
}

// Rows longer than a CUDA plan's row block (kSpmvStreamNnz nonzeros) and than its chunks, among
// short and empty ones: with a handle they run in chunks, without one in a single block; int64
// row offsets too.
HostCoo<double> long_rows_coo() {
  HostCoo<double> coo = tessera_test::random_coo({3000, 90000}, 6000, 43);
  for (const std::int64_t row : {5, 100, 2999})  // 90000, 5000 and 45000 entries
    for (std::int64_t j = 0; j < 90000; j += (row == 5 ? 1 : row == 100 ? 18 : 2)) {
      coo.coords.push_back(row);
      coo.coords.push_back(j);
      coo.values.push_back(0.001 * static_cast<double>(j % 89) - 0.04);
    }
  return coo;
}

TYPED_TEST(Kernels, SpmvRowsLongerThanThePlansCut) {
  using tessera::Op;
  using tessera_test::CsrSpmv;
  const HostCoo<double> coo = long_rows_coo();
  using Csr64 = tessera::WithIndexTypes<tessera::CSR, int, std::int64_t>;
  for (const Op op : {Op::NoTranspose, Op::Transpose}) {
    check_spmv<double, TypeParam, false, CsrSpmv>(coo, 1.0, 0.0, 51, "long rows", CsrSpmv{op, true});
    check_spmv<double, TypeParam, false, CsrSpmv>(coo, 0.5, -1.0, 52, "long rows", CsrSpmv{op, false});
    check_spmv<float, TypeParam, false, CsrSpmv>(coo, 1.0, 0.5, 53, "long rows", CsrSpmv{op, true});
    check_spmv<double, TypeParam, false, CsrSpmv, Csr64>(coo, 2.0, 0.5, 54, "long rows int64", CsrSpmv{op, true});
  }
}

// The same rows for SpMM with few columns (on Kokkos::Cuda: the row blocks' chunks, one lane
// count per N), and with more.
TYPED_TEST(Kernels, SpmmRowsLongerThanAPlansBlock) {
  const HostCoo<double> coo = long_rows_coo();
  for (const std::int64_t n : {1, 3, 8, 16, 20}) {
    check_spmm<double, Kokkos::LayoutRight, TypeParam>(coo, n, 1.0, 0.0, 61, "long rows");
    check_spmm<float, Kokkos::LayoutRight, TypeParam>(coo, n, 0.5, -1.0, 62, "long rows");
  }
  if constexpr (tessera::kernels::runs_cuda_kernels_v<TypeParam>) {  // the row blocks, asked for by name
    const tessera::SpmmOptions row_blocks{tessera::SpmmAlgorithm::CudaRowBlocks};
    for (const std::int64_t n : {9, 16}) {
      check_spmm<double, Kokkos::LayoutRight, TypeParam>(coo, n, 1.0, 0.5, 63, "long rows", row_blocks);
      check_spmm<float, Kokkos::LayoutRight, TypeParam>(coo, n, 2.0, 0.0, 64, "long rows", row_blocks);
      for (const auto& c : tessera_test::edge_case_matrices(48))
        check_spmm<double, Kokkos::LayoutRight, TypeParam>(c.coo, n, 1.0, 0.0, 65, c.name, row_blocks);
    }
  }
}

TYPED_TEST(Kernels, SpmmTransposedAndCsc) {
  using tessera::Op;
  for (const auto& c : tessera_test::edge_case_matrices(47))
    for (std::int64_t n : {1, 7, 33}) {
      check_spmm<double, Kokkos::LayoutRight, TypeParam>(c.coo, n, 1.0, 0.0, 31, c.name, {}, -1, Op::Transpose);
      check_spmm<float, Kokkos::LayoutLeft, TypeParam>(c.coo, n, 0.5, 1.5, 32, c.name, {}, -1, Op::Transpose);
      check_spmm<double, Kokkos::LayoutLeft, TypeParam, tessera::CSC>(c.coo, n, 1.0, 0.5, 33, c.name);
      check_spmm<double, Kokkos::LayoutRight, TypeParam, tessera::CSC>(c.coo, n, -1.0, 0.0, 34, c.name, {}, -1,
                                                                        Op::Transpose);
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
    check_spmv<double, TypeParam, false, tessera_test::CsrSpmv>(coo, 1.0, 0.0, 19, path,
                                                               {tessera::Op::NoTranspose, true});
    check_spmv<double, TypeParam, false, tessera_test::CsrSpmv>(coo, -1.0, 0.5, 29, path, {tessera::Op::Transpose, true});
    check_spmm<double, Kokkos::LayoutRight, TypeParam>(coo, 8, 1.0, 0.0, 10, path);
  }
}

// alpha == 0 reads neither A nor the input (BLAS): an Inf in A and a NaN in x or B do not
// reach the output, which becomes beta times itself, or zeros for beta == 0 (NaN before).
template <class T, class Layout, class Space>
void check_alpha_zero() {
  using Mem = typename Space::memory_space;
  const T inf = std::numeric_limits<T>::infinity(), nan = std::numeric_limits<T>::quiet_NaN();
  const auto A = tessera::from_coo<T, tessera::CSR, Space>(tessera::HostCoo<T>{{2, 2}, {0, 0, 1, 1}, {inf, T(1)}});
  Kokkos::View<T*, Mem> x("x", 2), y("y", 2);
  Kokkos::View<T**, Layout, Mem> B("B", 2, 3), C("C", 2, 3);
  Kokkos::deep_copy(x, nan);
  Kokkos::deep_copy(B, nan);
  for (const T beta : {T(2), T(0)}) {
    SCOPED_TRACE("beta " + std::to_string(static_cast<double>(beta)));
    Kokkos::deep_copy(y, beta == T(0) ? nan : T(3));
    Kokkos::deep_copy(C, beta == T(0) ? nan : T(3));
    tessera::spmv(T(0), A, x, beta, y);
    tessera::spmm(T(0), A, B, beta, C);
    const auto y_host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), y);
    const auto C_host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), C);
    for (int i = 0; i < 2; ++i) {
      EXPECT_EQ(y_host(i), T(3) * beta) << "y(" << i << ")";
      for (int j = 0; j < 3; ++j) EXPECT_EQ(C_host(i, j), T(3) * beta) << "C(" << i << ", " << j << ")";
    }
  }
}

TYPED_TEST(Kernels, AlphaZeroReadsNeitherAnorTheInput) {
  check_alpha_zero<double, Kokkos::LayoutRight, TypeParam>();
  check_alpha_zero<float, Kokkos::LayoutLeft, TypeParam>();
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

// An output on the memory of an input would make the result depend on thread order: refused.
// Columns of one row-major matrix interleave without sharing elements: accepted (and right).
TYPED_TEST(Kernels, OutputsOverlappingInputsAreRejected) {
  using Mem = typename TypeParam::memory_space;
  const auto A = tessera::from_coo<double, tessera::CSR, TypeParam>(tessera_test::random_coo({4, 4}, 10, 2));
  Kokkos::View<double*, Mem> v("v", 8);
  const auto v03 = Kokkos::subview(v, std::make_pair(0, 4)), v25 = Kokkos::subview(v, std::make_pair(2, 6)),
             v47 = Kokkos::subview(v, std::make_pair(4, 8));
  try {
    tessera::spmv(1.0, A, v03, 0.0, v03);
    FAIL() << "y aliasing x accepted";
  } catch (const tessera::AliasError& e) {
    EXPECT_STREQ(e.what(), "spmv: y overlaps x, which it reads; pass y its own memory");
  }
  EXPECT_THROW(tessera::spmv(1.0, A, v03, 0.0, v25), tessera::AliasError);
  EXPECT_NO_THROW(tessera::spmv(1.0, A, v03, 0.0, v47));
  Kokkos::View<double**, Mem> B("B", 4, 4);
  EXPECT_THROW(tessera::spmm(1.0, A, B, 0.0, B), tessera::AliasError);

  // V(:, 1) = A V(:, 0) with V row-major (strided columns whose ranges interleave).
  Kokkos::View<double**, Kokkos::LayoutRight, Mem> V("V", 4, 2);
  auto V_host = Kokkos::create_mirror_view(V);
  for (int i = 0; i < 4; ++i) V_host(i, 0) = i + 1.0, V_host(i, 1) = std::nan("");
  Kokkos::deep_copy(V, V_host);
  ASSERT_NO_THROW(tessera::spmv(1.0, A, Kokkos::subview(V, Kokkos::ALL, 0), 0.0, Kokkos::subview(V, Kokkos::ALL, 1)));
  Kokkos::deep_copy(V_host, V);
  const auto coo = tessera_test::random_coo({4, 4}, 10, 2);
  std::vector<double> expected(4, 0.0);
  for (std::int64_t e = 0; e < coo.nnz(); ++e) expected[coo.coord(e, 0)] += coo.values[e] * (coo.coord(e, 1) + 1.0);
  for (int i = 0; i < 4; ++i) {
    EXPECT_NEAR(V_host(i, 1), expected[i], 1e-12) << "row " << i;  // values in [-1, 1], x <= 4
    EXPECT_EQ(V_host(i, 0), i + 1.0) << "row " << i;
  }

  // Strided Views whose ranges meet are checked element by element: a row and a column of one
  // column-major matrix share an element; a row segment and a column segment beside it do not.
  Kokkos::View<double**, Kokkos::LayoutLeft, Mem> M("M", 8, 8);
  EXPECT_THROW(tessera::spmv(1.0, A, Kokkos::subview(M, 1, std::make_pair(0, 4)), 0.0,
                             Kokkos::subview(M, std::make_pair(0, 4), 1)),
               tessera::AliasError);
  EXPECT_NO_THROW(tessera::spmv(1.0, A, Kokkos::subview(M, 0, std::make_pair(4, 8)), 0.0,
                                Kokkos::subview(M, std::make_pair(1, 5), 4)));
  // Column windows of one row-major matrix: overlapping ones refused, neighbouring ones right.
  Kokkos::View<double**, Kokkos::LayoutRight, Mem> W("W", 4, 6);
  auto W_host = Kokkos::create_mirror_view(W);
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 6; ++j) W_host(i, j) = j < 3 ? i - j * 0.5 : std::nan("");
  Kokkos::deep_copy(W, W_host);
  const auto left = Kokkos::subview(W, Kokkos::ALL, std::make_pair(0, 3));
  EXPECT_THROW(tessera::spmm(1.0, A, left, 0.0, Kokkos::subview(W, Kokkos::ALL, std::make_pair(1, 4))),
               tessera::AliasError);
  ASSERT_NO_THROW(tessera::spmm(1.0, A, left, 0.0, Kokkos::subview(W, Kokkos::ALL, std::make_pair(3, 6))));
  Kokkos::deep_copy(W_host, W);
  for (int i = 0; i < 4; ++i)
    for (int c = 0; c < 3; ++c) {
      double want = 0;
      for (std::int64_t e = 0; e < coo.nnz(); ++e)
        if (coo.coord(e, 0) == i) want += coo.values[e] * (coo.coord(e, 1) - c * 0.5);
      EXPECT_NEAR(W_host(i, 3 + c), want, 1e-12) << "row " << i << " column " << c;
      EXPECT_EQ(W_host(i, c), i - c * 0.5) << "row " << i << " column " << c;
    }
}

// An SpmmHandle serves the matrix it was first used with: the same matrix again and a copy of
// it (other arrays, same pattern) pass and compute right, another pattern of the same shape and
// nonzero count or another shape raise ShapeError, and reset() rebinds.
TYPED_TEST(Kernels, SpmmHandleServesItsOwnMatrix) {
  using Space = TypeParam;
  using Mem = typename Space::memory_space;
  const HostCoo<double> coo = tessera_test::random_coo({60, 50}, 400, 71);
  HostCoo<double> shifted = coo;  // every column moved by one: another pattern, same nnz
  for (std::size_t e = 1; e < shifted.coords.size(); e += 2) shifted.coords[e] = (shifted.coords[e] + 1) % 50;
  const auto A = tessera::from_coo<double, tessera::CSR, Space>(coo);
  const auto A_copy = tessera::from_coo<double, tessera::CSR, Space>(coo);
  const auto A_other = tessera::from_coo<double, tessera::CSR, Space>(shifted);
  const auto A_wide = tessera::from_coo<double, tessera::CSR, Space>(HostCoo<double>{{60, 51}, coo.coords, coo.values});
  ASSERT_EQ(A.nnz(), A_other.nnz());
  Kokkos::View<double**, Kokkos::LayoutRight, Mem> B("B", 50, 3), B_wide("B", 51, 3), C("C", 60, 3), C_ref("C", 60, 3);
  Kokkos::deep_copy(B, 1.0);
  Kokkos::deep_copy(B_wide, 1.0);
  tessera::spmm(1.0, A, B, 0.0, C_ref);
  tessera::SpmmHandle handle;
  EXPECT_FALSE(handle.bound());
  tessera::spmm(1.0, A, B, 0.0, C, handle);
  EXPECT_TRUE(handle.bound());
  tessera::spmm(1.0, A_copy, B, 0.0, C, handle);
  const auto got = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), C);
  const auto want = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), C_ref);
  for (std::int64_t i = 0; i < 60; ++i)
    for (std::int64_t j = 0; j < 3; ++j) EXPECT_EQ(got(i, j), want(i, j)) << "row " << i;
  EXPECT_THROW(tessera::spmm(1.0, A_other, B, 0.0, C, handle), tessera::ShapeError);
  EXPECT_THROW(tessera::spmm(1.0, A_wide, B_wide, 0.0, C, handle), tessera::ShapeError);
  handle.reset();
  EXPECT_FALSE(handle.bound());
  EXPECT_NO_THROW(tessera::spmm(1.0, A_other, B, 0.0, C, handle));
}

}  // namespace
