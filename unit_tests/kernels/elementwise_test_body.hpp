#pragma once
// Shared body of the element-wise tests (add, multiply_elementwise, scaling, diagonal) for the
// spaces of TestSpaces, against a double-precision map of (row, column) -> value built from the
// triplets: random operands of partly shared patterns, identical and disjoint patterns, the
// edge-case matrices (empty, rectangular, one dense row, duplicates in the triplets), real
// matrices with their transposes, CSR and CSC, float and double.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <Kokkos_Core.hpp>
#include <gtest/gtest.h>

#include "tessera/core/io/matrix_market.hpp"
#include "tessera/formats/convert.hpp"
#include "tessera/formats/validate.hpp"
#include "tessera/kernels/elementwise/elementwise.hpp"
#include "tessera/kernels/elementwise/scale.hpp"
#include "tessera_test/data.hpp"
#include "tessera_test/random_coo.hpp"

namespace {

using tessera::CSC;
using tessera::CSR;
using tessera::HostCoo;
using Entries = std::map<std::pair<std::int64_t, std::int64_t>, double>;

// Duplicates summed, values rounded to T as the tensor holds them.
template <class T>
Entries entries_of(const HostCoo<double>& coo) {
  Entries summed, out;
  for (std::int64_t n = 0; n < coo.nnz(); ++n) summed[{coo.coords[2 * n], coo.coords[2 * n + 1]}] += coo.values[n];
  for (const auto& [at, v] : summed) out[at] = static_cast<double>(static_cast<T>(v));
  return out;
}

template <class T, class Enc, class Space>
Entries entries_of(const tessera::Tensor<T, Enc, Space>& t) {
  tessera::validate(t);  // sorted, no duplicates, positions consistent
  const HostCoo<T> coo = tessera::to_coo(t);
  Entries out;
  for (std::int64_t n = 0; n < coo.nnz(); ++n) {
    const auto at = std::make_pair(coo.coords[2 * n], coo.coords[2 * n + 1]);
    EXPECT_EQ(out.count(at), 0u) << "duplicate entry (" << at.first << ", " << at.second << ")";
    out[at] = static_cast<double>(coo.values[n]);
  }
  return out;
}

HostCoo<double> transposed(const HostCoo<double>& coo) {
  HostCoo<double> t = coo;
  t.shape = {coo.shape[1], coo.shape[0]};
  for (std::int64_t n = 0; n < coo.nnz(); ++n) std::swap(t.coords[2 * n], t.coords[2 * n + 1]);
  return t;
}

// The same pattern with other values.
HostCoo<double> revalued(HostCoo<double> coo, double scale) {
  for (std::size_t n = 0; n < coo.values.size(); ++n) coo.values[n] = scale * coo.values[n] + 0.25 * (n % 7);
  return coo;
}

// Entries with (i + j) % 2 == parity: two such halves have disjoint patterns.
HostCoo<double> checkerboard(const HostCoo<double>& coo, int parity) {
  HostCoo<double> out;
  out.shape = coo.shape;
  for (std::int64_t n = 0; n < coo.nnz(); ++n)
    if ((coo.coords[2 * n] + coo.coords[2 * n + 1]) % 2 == parity) {
      out.coords.push_back(coo.coords[2 * n]);
      out.coords.push_back(coo.coords[2 * n + 1]);
      out.values.push_back(coo.values[n]);
    }
  return out;
}

// Each entry within 2 eps of its sum of |terms|, plus `floor` for results below T's normal range.
void expect_entries(const Entries& got, const Entries& want, const Entries& scale, double eps, const std::string& what,
                    double floor = 0) {
  SCOPED_TRACE(what);
  ASSERT_EQ(got.size(), want.size());
  auto g = got.begin();
  for (const auto& [at, v] : want) {
    ASSERT_EQ(g->first, at) << "pattern differs at (" << at.first << ", " << at.second << ")";
    EXPECT_NEAR(g->second, v, 2 * eps * scale.at(at) + floor) << "(" << at.first << ", " << at.second << ")";
    ++g;
  }
}

template <class T, class Enc, class Space>
void check_add_and_multiply(const HostCoo<double>& a_coo, const HostCoo<double>& b_coo, double alpha, double beta,
                            const std::string& what) {
  const auto A = tessera::from_coo<T, Enc, Space>(a_coo);
  const auto B = tessera::from_coo<T, Enc, Space>(b_coo);
  const Entries a = entries_of<T>(a_coo), b = entries_of<T>(b_coo);
  const T ta = static_cast<T>(alpha), tb = static_cast<T>(beta);
  Entries sum, sum_scale, product, product_scale;
  for (const auto& [at, v] : a) {
    sum[at] += static_cast<double>(ta) * v;
    sum_scale[at] += std::fabs(static_cast<double>(ta) * v);
  }
  for (const auto& [at, v] : b) {
    sum[at] += static_cast<double>(tb) * v;
    sum_scale[at] += std::fabs(static_cast<double>(tb) * v);
    if (const auto it = a.find(at); it != a.end()) {
      product[at] = it->second * v;
      product_scale[at] = std::fabs(it->second * v);
    }
  }
  const double eps = std::numeric_limits<T>::epsilon(), floor = std::numeric_limits<T>::min();
  expect_entries(entries_of(tessera::add(Space(), ta, A, tb, B)), sum, sum_scale, eps, what + ": add", floor);
  expect_entries(entries_of(tessera::multiply_elementwise(Space(), A, B)), product, product_scale, eps,
                 what + ": multiply_elementwise", floor);
  // Dropping zeros keeps the nonzero entries of the sum (all that are clearly nonzero), no zero.
  tessera::ElementwiseOptions drop;
  drop.drop_zeros = true;
  const Entries dropped = entries_of(tessera::add(Space(), ta, A, tb, B, drop));
  for (const auto& [at, v] : dropped) {
    EXPECT_NE(v, 0.0) << what << ": a zero kept with drop_zeros";
    ASSERT_EQ(sum.count(at), 1u) << what << ": an entry outside the union";
    EXPECT_NEAR(v, sum.at(at), 2 * eps * sum_scale.at(at) + floor);
  }
  for (const auto& [at, v] : sum)
    if (std::fabs(v) > 4 * eps * sum_scale.at(at) + floor) EXPECT_EQ(dropped.count(at), 1u) << what << ": a nonzero dropped";
}

// A with a row of `length` entries at row `row`, every `stride`-th column from `first`: a slice
// long enough that device spaces merge entry by entry (merge_entries.hpp).
HostCoo<double> with_long_row(HostCoo<double> coo, std::int64_t row, std::int64_t first, std::int64_t stride,
                              std::int64_t length) {
  for (std::int64_t n = 0; n < length; ++n) {
    coo.coords.push_back(row);
    coo.coords.push_back(first + n * stride);
    coo.values.push_back(1.0 + static_cast<double>(n % 13) / 8);
  }
  return coo;
}

// C = A + B (Union) or A .* B through the entry-by-entry merge alone, on any space.
template <bool Union, class Space>
Entries merged_by_entries(const HostCoo<double>& a_coo, const HostCoo<double>& b_coo) {
  namespace impl = tessera::kernels::impl;
  using Csr = tessera::Tensor<double, CSR, Space>;
  const Space space;
  const auto A = tessera::from_coo<double, CSR, Space>(a_coo), B = tessera::from_coo<double, CSR, Space>(b_coo);
  const auto& a = A.decompose();
  const auto& b = B.decompose();
  const std::int64_t slices = A.extent(0);
  const auto m = impl::match_entries(space, slices, A.nnz(), a.levels[1].pos, a.levels[1].crd, b.levels[1].pos,
                                     b.levels[1].crd);
  typename Csr::Storage c;
  c.levels[1].pos = typename Csr::pos_view("pos", slices + 1);
  impl::count_by_entries<Union>(space, slices, a.levels[1].pos, b.levels[1].pos, m, c.levels[1].pos);
  tessera::detail::counts_to_offsets(space, c.levels[1].pos, slices);
  const auto pos = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), c.levels[1].pos);
  c.levels[1].crd = typename Csr::crd_view("crd", pos(slices));
  c.vals = typename Csr::vals_view("vals", pos(slices));
  const auto combine = KOKKOS_LAMBDA(double x, double y) { return Union ? x + y : x * y; };
  impl::write_by_entries<Union>(space, slices, A.nnz(), B.nnz(), a.levels[1].pos, a.levels[1].crd, a.vals,
                                b.levels[1].pos, b.levels[1].crd, b.vals, combine, m, c.levels[1].pos, c.levels[1].crd,
                                c.vals);
  return entries_of(Csr(A.shape(), std::move(c)));
}

// The entry-by-entry merge against the reference (sum and product maps of the triplets).
template <class Space>
void check_merged_by_entries(const HostCoo<double>& a_coo, const HostCoo<double>& b_coo, const std::string& what) {
  const Entries a = entries_of<double>(a_coo), b = entries_of<double>(b_coo);
  Entries sum = a, sum_scale, product, product_scale;
  for (const auto& [at, v] : a) sum_scale[at] = std::fabs(v);
  for (const auto& [at, v] : b) {
    sum[at] += v;
    sum_scale[at] += std::fabs(v);
    if (const auto it = a.find(at); it != a.end()) {
      product[at] = it->second * v;
      product_scale[at] = std::fabs(it->second * v);
    }
  }
  const double eps = std::numeric_limits<double>::epsilon();
  expect_entries(merged_by_entries<true, Space>(a_coo, b_coo), sum, sum_scale, eps, what + ": union by entries");
  expect_entries(merged_by_entries<false, Space>(a_coo, b_coo), product, product_scale, eps,
                 what + ": intersection by entries");
}

template <class Space>
class Elementwise : public ::testing::Test {};
TYPED_TEST_SUITE(Elementwise, TestSpaces);

TYPED_TEST(Elementwise, AddAndMultiplyMatchTheReferenceOnEdgeCases) {
  const auto first = tessera_test::edge_case_matrices(11), second = tessera_test::edge_case_matrices(12);
  for (std::size_t c = 0; c < first.size(); ++c) {
    const auto& a = first[c].coo;
    const auto& b = second[c].coo;  // same shape, another pattern
    const std::string name = first[c].name;
    check_add_and_multiply<double, CSR, TypeParam>(a, b, 1.5, -0.5, name + " (partly shared patterns)");
    check_add_and_multiply<float, CSR, TypeParam>(a, b, 1.0, 2.0, name + " (float)");
    check_add_and_multiply<double, CSC, TypeParam>(a, b, -1.0, 1.0, name + " (CSC)");
    check_add_and_multiply<double, CSR, TypeParam>(a, revalued(a, -1.0), 1.0, 1.0, name + " (identical patterns)");
    check_add_and_multiply<double, CSR, TypeParam>(checkerboard(a, 0), checkerboard(a, 1), 1.0, 3.0,
                                                   name + " (disjoint patterns)");
    HostCoo<double> empty;
    empty.shape = a.shape;
    check_add_and_multiply<double, CSR, TypeParam>(a, empty, 2.0, 1.0, name + " (B empty)");
  }
}

TYPED_TEST(Elementwise, AddOfRealMatricesAndTheirTransposes) {
  for (const char* name : {"west0497", "bcsstk13", "cage10", "lp_fit2p", "mbeacxc"}) {
    const HostCoo<double> A = tessera::io::read_matrix_market(tessera_test::real_matrix(name));
    if (A.shape[0] == A.shape[1]) {
      check_add_and_multiply<double, CSR, TypeParam>(A, transposed(A), 1.0, 1.0, std::string(name) + " + A^T");
      check_add_and_multiply<float, CSC, TypeParam>(A, transposed(A), 0.5, 0.5, std::string(name) + " + A^T (float, CSC)");
    }
    check_add_and_multiply<double, CSR, TypeParam>(A, revalued(A, 0.5), 1.0, -2.0, std::string(name) + " + A'");
  }
}

// Operands past kOnePassMaxEntries together (and C's arrays past kSizedAheadMaxBytes): host spaces
// count first, then write; device spaces allocate C once nnz(C) is known.
TYPED_TEST(Elementwise, LargeOperandsMatchTheReference) {
  const std::int64_t each = tessera::kernels::impl::kOnePassMaxEntries;
  const HostCoo<double> a = tessera_test::random_coo({4000, 3000}, each, 51), b = tessera_test::random_coo({4000, 3000}, each, 52);
  check_add_and_multiply<double, CSR, TypeParam>(a, b, 1.0, -1.0, "random 4000 x 3000");
  check_add_and_multiply<double, CSR, TypeParam>(a, revalued(a, -1.0), 1.0, 1.0, "identical patterns");
}

// Long slices in both operands: device spaces merge them entry by entry (a team would walk each
// long slice alone); the same kernels run here on every space, on the edge cases too.
TYPED_TEST(Elementwise, LongSlicesMatchTheReference) {
  const HostCoo<double> a = with_long_row(tessera_test::random_coo({3000, 200000}, 300000, 53), 7, 0, 5, 40000);
  const HostCoo<double> b = with_long_row(tessera_test::random_coo({3000, 200000}, 300000, 54), 7, 1, 3, 60000);
  check_add_and_multiply<double, CSR, TypeParam>(a, b, 1.0, -0.5, "a long row in both");
  check_add_and_multiply<float, CSR, TypeParam>(a, b, 2.0, 1.0, "a long row in both (float)");
  check_add_and_multiply<double, CSR, TypeParam>(a, revalued(a, 2.0), 1.0, 1.0, "a long row, identical patterns");
  check_merged_by_entries<TypeParam>(a, b, "a long row in both");
  check_merged_by_entries<TypeParam>(checkerboard(a, 0), checkerboard(a, 1), "disjoint patterns");
  const auto first = tessera_test::edge_case_matrices(11), second = tessera_test::edge_case_matrices(12);
  for (std::size_t c = 0; c < first.size(); ++c)
    check_merged_by_entries<TypeParam>(first[c].coo, second[c].coo, first[c].name);
}

// Blocks of mostly short slices and a few of 33 to about 256 entries: on CUDA such blocks merge
// the short slices a thread each and walk the others a warp each (merge_row_blocks.hpp).
TYPED_TEST(Elementwise, MixedSliceLengthsMatchTheReference) {
  HostCoo<double> a = tessera_test::random_coo({4096, 4096}, 4 * 4096, 55);
  for (std::int64_t row = 3; row < 4096; row += 97) a = with_long_row(a, row, row % 7, 1 + row % 5, 33 + row % 200);
  const HostCoo<double> b = tessera_test::random_coo({4096, 4096}, 4 * 4096, 56);
  check_add_and_multiply<double, CSR, TypeParam>(a, transposed(a), 1.0, 1.0, "mixed slices + A^T");
  check_add_and_multiply<float, CSR, TypeParam>(a, revalued(a, 0.5), 1.0, -1.0, "mixed slices, identical patterns");
  check_add_and_multiply<double, CSR, TypeParam>(a, b, 2.0, 1.0, "mixed slices + random");
}

// Rows of up to 32 entries in each operand, 33 to 64 together: on CUDA a warp walks each with the
// other operand's row in its lanes' registers (merge_row_blocks.hpp). Bands of width 32 shifted
// against each other: partly shared, every column of B below A's (an entry of A past all 32 of
// B's), identical; and rows of 40 beside 20 (an operand of more than a lane per entry). 64-bit
// coordinates shuffle as two words.
HostCoo<double> band(std::int64_t rows, std::int64_t cols, std::int64_t shift, std::int64_t width) {
  HostCoo<double> coo;
  coo.shape = {rows, cols};
  for (std::int64_t i = 0; i < rows; ++i)
    for (std::int64_t j = i + shift; j < i + shift + width; ++j)
      if (j >= 0 && j < cols) {
        coo.coords.push_back(i);
        coo.coords.push_back(j);
        coo.values.push_back(1.0 + static_cast<double>((i + 3 * j) % 11) / 4);
      }
  return coo;
}

TYPED_TEST(Elementwise, BandsOfAWarpPerRowMatchTheReference) {
  const HostCoo<double> a = band(3000, 3100, -15, 32);
  check_add_and_multiply<double, CSR, TypeParam>(a, transposed(band(3100, 3000, -20, 32)), 1.0, 2.0,
                                                 "bands of 32, partly shared");
  check_add_and_multiply<float, CSR, TypeParam>(a, band(3000, 3100, -60, 32), 1.0, -1.0, "B's band below A's");
  check_add_and_multiply<double, CSR, TypeParam>(a, revalued(a, 0.5), 1.0, 1.0, "identical bands");
  check_add_and_multiply<double, CSR, TypeParam>(band(3000, 3100, -20, 40), band(3000, 3100, 5, 20), 1.0, 1.0,
                                                 "bands of 40 and 20");
  using CSR64 = tessera::WithIndexTypes<CSR, std::int64_t, std::int64_t>;
  check_add_and_multiply<double, CSR64, TypeParam>(a, band(3000, 3100, -8, 32), 1.0, 1.0, "bands, 64-bit indices");
}

// Slices of 257 to 33 000 entries beside short ones: on CUDA the whole team merges those of blocks
// with a slice past kTeamMergeMin along the merge path (merge_path.hpp), in operands small enough
// that C is sized ahead and, up to kLongWalk entries, in larger ones too. Rows 5-12: partly
// shared, in A alone, in B alone, identical and disjoint columns; in the larger operands rows 5
// and 6 share a block on a GPU the size of an H100 or H200 (RowBlocks::of).
TYPED_TEST(Elementwise, TeamMergedSlicesMatchTheReference) {
  const auto long_rows = [](HostCoo<double> a, HostCoo<double> b, std::int64_t scale) {
    a = with_long_row(a, 5, 0, 2, 20 * scale);
    b = with_long_row(b, 5, 1, 3, 13 * scale);
    a = with_long_row(a, 6, 0, 1, 257);
    b = with_long_row(b, 9, 10, 7, 5 * scale);
    a = with_long_row(a, 11, 3, 4, 3 * scale);
    b = with_long_row(b, 11, 3, 4, 3 * scale);
    a = with_long_row(a, 12, 0, 2, 1 * scale);
    b = with_long_row(b, 12, 1, 2, 1 * scale);
    return std::pair{a, b};
  };
  const auto [a, b] = long_rows(tessera_test::random_coo({600, 50000}, 3000, 57),
                                tessera_test::random_coo({600, 50000}, 3000, 58), 1000);
  check_add_and_multiply<double, CSR, TypeParam>(a, b, 1.0, -0.5, "long rows, C sized ahead");
  check_add_and_multiply<float, CSR, TypeParam>(a, b, 2.0, 1.0, "long rows, C sized ahead (float)");
  check_add_and_multiply<double, CSC, TypeParam>(transposed(a), transposed(b), 1.0, 1.0,
                                                 "long columns, C sized ahead (CSC)");
  check_add_and_multiply<double, CSR, TypeParam>(a, revalued(a, 2.0), 1.0, 1.0, "long rows, identical patterns");
  const std::int64_t each = tessera::kernels::impl::kOnePassMaxEntries;
  const auto [big_a, big_b] = long_rows(tessera_test::random_coo({4000, 50000}, each, 59),
                                        tessera_test::random_coo({4000, 50000}, each, 60), 100);
  check_add_and_multiply<double, CSR, TypeParam>(big_a, big_b, 1.0, 1.0, "long rows, C allocated after counting");
}

TYPED_TEST(Elementwise, ZerosAreKeptUnlessDropped) {
  const HostCoo<double> a = tessera_test::random_coo({60, 40}, 500, 21);
  const auto A = tessera::from_coo<double, CSR, TypeParam>(a);
  const auto kept = tessera::add(TypeParam(), 1.0, A, -1.0, A);
  EXPECT_EQ(kept.nnz(), A.nnz());
  for (const auto& [at, v] : entries_of(kept)) EXPECT_EQ(v, 0.0);
  tessera::ElementwiseOptions drop;
  drop.drop_zeros = true;
  EXPECT_EQ(tessera::add(TypeParam(), 1.0, A, -1.0, A, drop).nnz(), 0);
  EXPECT_EQ(tessera::multiply_elementwise(TypeParam(), A, tessera::add(TypeParam(), 0.0, A, 0.0, A), drop).nnz(), 0);
}

TYPED_TEST(Elementwise, AHandleReusesThePatternForNewValues) {
  const HostCoo<double> a = tessera_test::random_coo({300, 200}, 3000, 31), b = tessera_test::random_coo({300, 200}, 2500, 32);
  const auto A = tessera::from_coo<double, CSR, TypeParam>(a);
  const auto B = tessera::from_coo<double, CSR, TypeParam>(b);
  tessera::ElementwiseHandle handle;
  const auto first = tessera::add(TypeParam(), 1.0, A, 1.0, B, handle);
  EXPECT_TRUE(handle.bound());
  // New values, same patterns: the numeric phase alone, into the kept pattern.
  const auto A2 = tessera::from_coo<double, CSR, TypeParam>(revalued(a, 3.0));
  const auto B2 = tessera::from_coo<double, CSR, TypeParam>(revalued(b, -1.0));
  const auto second = tessera::add(TypeParam(), 2.0, A2, 0.5, B2, handle);
  EXPECT_EQ(second.level(1).crd.data(), first.level(1).crd.data());
  EXPECT_EQ(entries_of(second), entries_of(tessera::add(TypeParam(), 2.0, A2, 0.5, B2)));
  tessera::ElementwiseHandle product;
  (void)tessera::multiply_elementwise(TypeParam(), A, B, product);
  EXPECT_EQ(entries_of(tessera::multiply_elementwise(TypeParam(), A2, B2, product)),
            entries_of(tessera::multiply_elementwise(TypeParam(), A2, B2)));
  // Another pattern through the same handle is refused.
  const auto C = tessera::from_coo<double, CSR, TypeParam>(tessera_test::random_coo({300, 200}, 3000, 33));
  EXPECT_THROW(tessera::add(TypeParam(), 1.0, C, 1.0, B, handle), tessera::ShapeError);
  EXPECT_THROW(tessera::add(TypeParam(), 1.0, A, 1.0,
                            tessera::from_coo<double, CSR, TypeParam>(tessera_test::random_coo({300, 201}, 10, 34))),
               tessera::ShapeError);
}

// A values-only result shares the kept pattern's arrays: it must keep them alive after the
// handle and the first result are gone, while later calls take and return memory (on the GPU
// the arrays come from the scratch pool, which would hand freed blocks to the next calls).
TYPED_TEST(Elementwise, AValuesOnlyResultOutlivesItsHandle) {
  const HostCoo<double> a = tessera_test::random_coo({400, 300}, 6000, 35), b = tessera_test::random_coo({400, 300}, 5000, 36);
  const auto A = tessera::from_coo<double, CSR, TypeParam>(a);
  const auto B = tessera::from_coo<double, CSR, TypeParam>(b);
  std::optional<tessera::Tensor<double, CSR, TypeParam>> second;
  {
    tessera::ElementwiseHandle handle;
    const auto first = tessera::add(TypeParam(), 1.0, A, 1.0, B, handle);
    second.emplace(tessera::add(TypeParam(), 2.0, A, -1.0, B, handle));
  }
  const Entries want = entries_of(tessera::add(TypeParam(), 2.0, A, -1.0, B));
  for (int churn = 0; churn < 4; ++churn) {
    const auto other = tessera::add(TypeParam(), 1.0, B, 3.0, B);
    Kokkos::fence();
  }
  EXPECT_EQ(entries_of(*second), want);
}

TYPED_TEST(Elementwise, ScalingAndDiagonalMatrices) {
  for (const auto& c : tessera_test::edge_case_matrices(41)) {
    SCOPED_TRACE(c.name);
    const std::int64_t m = c.coo.shape[0], n = c.coo.shape[1];
    std::vector<double> dr = tessera_test::random_vector(m, 42), dc = tessera_test::random_vector(n, 43);
    Kokkos::View<double*, typename TypeParam::memory_space> row_d("row_d", m), col_d("col_d", n);
    Kokkos::deep_copy(row_d, Kokkos::View<double*, Kokkos::HostSpace>(dr.data(), m));
    Kokkos::deep_copy(col_d, Kokkos::View<double*, Kokkos::HostSpace>(dc.data(), n));
    Entries want, scale;
    for (const auto& [at, v] : entries_of<double>(c.coo)) {
      want[at] = dr[at.first] * v * dc[at.second];
      scale[at] = std::fabs(want[at]);
    }
    const auto csr = tessera::from_coo<double, CSR, TypeParam>(c.coo);
    tessera::scale_rows(TypeParam(), row_d, csr);
    tessera::scale_columns(TypeParam(), csr, col_d);
    const double eps = std::numeric_limits<double>::epsilon();
    expect_entries(entries_of(csr), want, scale, eps, "CSR");
    const auto csc = tessera::from_coo<double, CSC, TypeParam>(c.coo);
    tessera::scale_columns(TypeParam(), csc, col_d);
    tessera::scale_rows(TypeParam(), row_d, csc);
    expect_entries(entries_of(csc), want, scale, eps, "CSC");
    if (m != n) EXPECT_THROW(tessera::scale_rows(TypeParam(), col_d, csr), tessera::ShapeError);

    Entries diag, ones;
    for (std::int64_t i = 0; i < m; ++i) {
      diag[{i, i}] = dr[i];
      ones[{i, i}] = 1.0;
    }
    expect_entries(entries_of(tessera::diagonal<CSR>(TypeParam(), row_d)), diag, diag, 0, "diagonal");
    expect_entries(entries_of(tessera::identity<float, CSC>(TypeParam(), m)), ones, ones, 0, "identity");
  }
}

}  // namespace
