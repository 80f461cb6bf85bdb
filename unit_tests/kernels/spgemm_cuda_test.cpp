// SpGEMM tests on CUDA: the shared body with the device policies, then the device kernels' own
// cases: every bin of the hash tables and the dense accumulator, float and int64 offsets, the
// real matrices (through a handle too), a generated Poisson matrix, rows split over several blocks,
// and the handle's numeric phase on big rows.
#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include <Kokkos_Core.hpp>
#include <gtest/gtest.h>

#include "tessera/core/poisson_3d_triplets.hpp"
#include "tessera/workspace/policies.hpp"

using TestSpaces = ::testing::Types<Kokkos::Cuda>;
using SpgemmPolicies = std::tuple<tessera::workspace::Dense, tessera::workspace::Hash, tessera::workspace::Auto>;

#include "spgemm_test_body.hpp"

namespace {

using Cuda = Kokkos::Cuda;

std::int64_t products(const HostCoo<double>& A, const HostCoo<double>& B) {
  std::vector<std::int64_t> b_row(B.shape[0], 0);
  for (std::int64_t n = 0; n < B.nnz(); ++n) ++b_row[B.coord(n, 0)];
  std::int64_t sum = 0;
  for (std::int64_t n = 0; n < A.nnz(); ++n) sum += b_row[A.coord(n, 1)];
  return sum;
}

// C = A * B on the device in encoding Enc and value type T, against the double reference.
template <class Policy, class T, class Enc>
void expect_product(const HostCoo<double>& A, const HostCoo<double>& B, const HostCoo<double>& ref,
                    const HostCoo<double>& scale, const std::string& what, const ws::Options& options = {}) {
  const auto a = tessera::from_coo<T, Enc, Cuda>(A);
  const auto b = tessera::from_coo<T, Enc, Cuda>(B);
  ws::Report report;
  const auto C = tessera::spgemm<Policy, Enc>(a, b, options, &report);
  tessera::validate(C);
  const std::string label = what + " policy=" + ws::policy_name<Policy> + (sizeof(T) == 4 ? " float" : " double");
  // Terms below T's normal range vanish in T (some real matrices hold values near 1e-97).
  const double floor = static_cast<double>(std::numeric_limits<T>::min()) * static_cast<double>(max_terms(A, B));
  tessera_test::expect_same_entries(tessera::to_coo(C), ref, scale, tessera_test::tolerance<T>(max_terms(A, B)), label,
                                    floor);
  if (ref.nnz() > 0) EXPECT_GT(report.peak_bytes, 0) << label;
}

HostCoo<double> doubled(HostCoo<double> coo) {  // exact in binary floating point
  for (double& v : coo.values) v *= 2.0;
  return coo;
}

// Through a handle: the product of A and B, then the numeric phase alone into its pattern, with
// 2 A for A (other arrays of the same pattern) so that values left from the first product fail.
template <class T>
void expect_handle_numeric_phase(const HostCoo<double>& A, const HostCoo<double>& B, const HostCoo<double>& ref,
                                 const HostCoo<double>& scale, const std::string& what) {
  const auto b = tessera::from_coo<T, tessera::CSR, Cuda>(B);
  tessera::SpgemmHandle handle;
  const auto first = tessera::spgemm(tessera::from_coo<T, tessera::CSR, Cuda>(A), b, handle);
  const auto again = tessera::spgemm(tessera::from_coo<T, tessera::CSR, Cuda>(doubled(A)), b, handle);
  const std::string label = what + " numeric phase" + (sizeof(T) == 4 ? " float" : " double");
  ASSERT_EQ(again.decompose().levels[1].crd.data(), first.decompose().levels[1].crd.data()) << label;
  const double floor = static_cast<double>(std::numeric_limits<T>::min()) * static_cast<double>(max_terms(A, B));
  tessera_test::expect_same_entries(tessera::to_coo(again), doubled(ref), doubled(scale),
                                    tessera_test::tolerance<T>(max_terms(A, B)), label, floor);
}

template <class Policy>
void expect_every_variant(const HostCoo<double>& A, const HostCoo<double>& B, const std::string& what,
                          const ws::Options& options = {}) {
  using Csr64 = tessera::WithIndexTypes<tessera::CSR, int, std::int64_t>;
  const auto ref = tessera::reference::spgemm(A, B);
  const auto scale = tessera::reference::spgemm(tessera_test::absolute_values(A), tessera_test::absolute_values(B));
  expect_product<Policy, double, tessera::CSR>(A, B, ref, scale, what, options);
  expect_product<Policy, float, tessera::CSR>(A, B, ref, scale, what, options);
  expect_product<Policy, double, Csr64>(A, B, ref, scale, what + " int64 offsets", options);
}

// Rows whose product counts and lengths climb through every table size (32 to 16384 slots) and
// past them: row i of A takes 2^(i / 3) entries, B's rows 1 to 40 entries over 60000 columns;
// plus a dense row of A and an empty one.
HostCoo<double> climbing_rows(std::int64_t inner, std::uint64_t seed) {
  HostCoo<double> A;
  A.shape = {50, inner};
  std::uint64_t state = seed;
  const auto next = [&] {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return state >> 33;
  };
  for (std::int64_t i = 0; i < 48; ++i) {
    const std::int64_t want = std::min<std::int64_t>(inner, std::int64_t{1} << (i / 3));
    std::vector<std::int64_t> cols;
    for (std::int64_t c = 0; c < inner && static_cast<std::int64_t>(cols.size()) < want; ++c)
      if (static_cast<std::int64_t>(next() % inner) < want) cols.push_back(c);
    for (std::int64_t c : cols) {
      A.coords.insert(A.coords.end(), {i, c});
      A.values.push_back(static_cast<double>(next() % 1000) / 500.0 - 1.0);
    }
  }
  for (std::int64_t c = 0; c < inner; ++c) {  // row 48 dense, row 49 empty
    A.coords.insert(A.coords.end(), {48, c});
    A.values.push_back(1.0 / static_cast<double>(c + 1));
  }
  return A;
}

HostCoo<double> rows_of_lengths(std::int64_t rows, std::int64_t cols, std::int64_t most, std::uint64_t seed) {
  HostCoo<double> B;
  B.shape = {rows, cols};
  std::uint64_t state = seed;
  const auto next = [&] {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return state >> 33;
  };
  for (std::int64_t i = 0; i < rows; ++i) {
    const std::int64_t length = 1 + static_cast<std::int64_t>(next() % most);
    std::vector<std::int64_t> picked;
    for (std::int64_t k = 0; k < length; ++k) picked.push_back(static_cast<std::int64_t>(next() % cols));
    std::sort(picked.begin(), picked.end());
    picked.erase(std::unique(picked.begin(), picked.end()), picked.end());
    for (std::int64_t j : picked) {
      B.coords.insert(B.coords.end(), {i, j});
      B.values.push_back(static_cast<double>(next() % 2000) / 1000.0 - 1.0);
    }
  }
  return B;
}

HostCoo<double> transposed(const HostCoo<double>& M) {
  HostCoo<double> T;
  T.shape = {M.shape[1], M.shape[0]};
  T.values = M.values;
  for (std::int64_t n = 0; n < M.nnz(); ++n) T.coords.insert(T.coords.end(), {M.coord(n, 1), M.coord(n, 0)});
  return T;
}

// Rows of more than 2^16 products, which the device splits over several blocks: A's rows take all
// of B's 20000 short rows (20 pieces), 5000 of them (5 pieces), only B's dense last row (one
// piece), none, 3 (a hash-table row), and 1200 short rows plus the dense one.
std::pair<HostCoo<double>, HostCoo<double>> split_rows_operands() {
  HostCoo<double> B = rows_of_lengths(20000, 100000, 40, 21);
  B.shape[0] = 20001;
  for (std::int64_t j = 0; j < B.shape[1]; ++j) {
    B.coords.insert(B.coords.end(), {20000, j});
    B.values.push_back(1.0 / static_cast<double>(j + 3));
  }
  HostCoo<double> A;
  A.shape = {6, B.shape[0]};
  const auto add = [&](std::int64_t i, std::int64_t k) {
    A.coords.insert(A.coords.end(), {i, k});
    A.values.push_back(static_cast<double>((i * 7919 + k * 104729) % 1999) / 999.5 - 1.0);
  };
  for (std::int64_t k = 0; k < 20000; ++k) add(0, k);
  for (std::int64_t k = 0; k < 20000; k += 4) add(1, k);
  add(2, 20000);
  for (std::int64_t k : {5, 900, 19999}) add(4, k);
  for (std::int64_t k = 0; k < 1200; ++k) add(5, k * 16);
  add(5, 20000);
  return {A, B};
}

}  // namespace

TEST(SpgemmCuda, RowsSplitOverSeveralBlocks) {
  const auto [A, B] = split_rows_operands();
  ASSERT_GT(products(A, B), 6 * (std::int64_t{1} << 16));
  expect_every_variant<ws::Auto>(A, B, "split rows");
  expect_every_variant<ws::Dense>(A, B, "split rows");
  // A budget below one row's accumulator: the split rows run one at a time.
  ws::Options one_at_a_time;
  one_at_a_time.memory_budget_bytes = 1;
  expect_every_variant<ws::Hash>(A, B, "split rows, one at a time", one_at_a_time);
  // The handle's numeric phase into the first product's pattern.
  tessera::SpgemmHandle handle;
  check_handle_product<Cuda>(handle, A, B, "split rows, first");
  check_handle_product<Cuda>(handle, with_values(A, 1.0), with_values(B, 3.0), "split rows, numeric");
}

TEST(SpgemmCuda, EveryTableSizeAndTheDenseAccumulator) {
  const HostCoo<double> B = rows_of_lengths(3000, 60000, 40, 7);
  const HostCoo<double> A = climbing_rows(B.shape[0], 8);
  expect_every_variant<ws::Auto>(A, B, "climbing rows");
  expect_every_variant<ws::Hash>(A, B, "climbing rows");
  expect_every_variant<ws::Dense>(A, B, "climbing rows");
  // Few columns: the tables hold every column (no collisions), whatever the product count.
  const HostCoo<double> narrow = rows_of_lengths(3000, 700, 40, 9);
  expect_every_variant<ws::Auto>(A, narrow, "climbing rows, 700 columns");
}

TEST(SpgemmCuda, FewColumnsOfManyProducts) {
  // C of 16 columns: every row fits the smallest table, yet rows of up to 2^15 entries of A make
  // up to 2^18 products: larger tables for their lanes, the dense accumulator, split rows.
  const HostCoo<double> B = rows_of_lengths(40000, 16, 8, 11);
  const HostCoo<double> A = climbing_rows(B.shape[0], 12);
  ASSERT_GT(products(A, B), 16 * 512);
  expect_every_variant<ws::Auto>(A, B, "climbing rows, 16 columns");
  expect_every_variant<ws::Hash>(A, B, "climbing rows, 16 columns");
  tessera::SpgemmHandle handle;
  check_handle_product<Cuda>(handle, A, B, "16 columns, first");
  check_handle_product<Cuda>(handle, with_values(A, 1.0), with_values(B, 3.0), "16 columns, numeric");
}

// Rows of A that meet a few rows of B of 1500 entries among many of 3, in the dense accumulator's
// bin and the split one; through a handle, their blocks walk the long rows of B with all their
// lanes (a row meeting more of them than a block lists walks the rest by sub-groups).
TEST(SpgemmCuda, LongRowsOfBAmongShortOnes) {
  constexpr std::int64_t kLong = 200, kCols = 6000;
  HostCoo<double> B;
  B.shape = {2 * kLong, kCols};
  for (std::int64_t k = 0; k < 2 * kLong; ++k)
    for (std::int64_t j = 0; j < (k < kLong ? 1500 : 3); ++j) {
      B.coords.insert(B.coords.end(), {k, (k * 37 + j * 7) % kCols});  // 7 is prime to kCols: distinct
      B.values.push_back(1.0 / static_cast<double>(j + k + 2));
    }
  HostCoo<double> A;
  A.shape = {4, B.shape[0]};
  const auto add = [&](std::int64_t i, std::int64_t k) {
    A.coords.insert(A.coords.end(), {i, k});
    A.values.push_back(static_cast<double>((i * 7919 + k * 104729) % 1999) / 999.5 - 1.0);
  };
  for (std::int64_t k = 0; k < 25; ++k) add(0, k * 8);               // past the largest table: dense
  for (std::int64_t k = kLong; k < 2 * kLong; ++k) add(0, k);
  for (std::int64_t k = 0; k < 140; ++k) add(1, k);                  // more than a block lists: split
  for (std::int64_t k = kLong; k < kLong + 100; ++k) add(1, k);
  for (std::int64_t k = kLong; k < 2 * kLong; ++k) add(2, k);        // short rows only
  add(3, 5);                                                         // one long row: a table
  expect_every_variant<ws::Auto>(A, B, "long rows of B");
  expect_every_variant<ws::Dense>(A, B, "long rows of B");
  tessera::SpgemmHandle handle;
  check_handle_product<Cuda>(handle, A, B, "long rows of B, first");
  check_handle_product<Cuda>(handle, with_values(A, 1.0), with_values(B, 3.0), "long rows of B, numeric");
}

// A block's row stages 256 of A's entries at a time and spreads their products over its lanes:
// rows of A across several stagings, whose rows of B are empty, of one entry, or hubs longer than
// the block, in every order.
TEST(SpgemmCuda, BlockRowsAcrossStagingsOfEmptyShortAndHubRowsOfB) {
  constexpr std::int64_t kInner = 1200, kCols = 9000;
  HostCoo<double> B;
  B.shape = {kInner, kCols};
  for (std::int64_t k = 0; k < kInner; ++k) {
    const std::int64_t length = k % 97 == 2 ? 3000 : k % 3 == 0 ? 0 : k % 3 == 1 ? 1 : 5;
    for (std::int64_t j = 0; j < length; ++j) {
      B.coords.insert(B.coords.end(), {k, (k * 131 + j * 11) % kCols});  // 11 is prime to kCols: distinct
      B.values.push_back(1.0 / static_cast<double>(j + 2) - 0.3);
    }
  }
  HostCoo<double> A;
  A.shape = {6, kInner};
  const auto add = [&](std::int64_t i, std::int64_t k) {
    A.coords.insert(A.coords.end(), {i, k});
    A.values.push_back(static_cast<double>((i * 7919 + k * 104729) % 1999) / 999.5 - 1.0);
  };
  for (std::int64_t k = 0; k < kInner; ++k) add(0, k);            // every row of B: five stagings
  for (std::int64_t k = 0; k < 300; ++k) add(1, k);               // one staging and a few entries
  for (std::int64_t k = 0; k < 256; ++k) add(2, 3 * k);           // empty rows, then a hub past them
  add(2, 3 * 97 + 2);
  for (std::int64_t k = 2; k < kInner; k += 97) add(3, k);        // hubs only
  for (std::int64_t k = 1; k < 1000; k += 3) add(4, k);           // one entry each: short rows only
  for (std::int64_t k = 0; k < 600; k += 2) add(5, k);
  expect_every_variant<ws::Auto>(A, B, "block rows across stagings");
  expect_every_variant<ws::Dense>(A, B, "block rows across stagings");
  tessera::SpgemmHandle handle;
  check_handle_product<Cuda>(handle, A, B, "block rows across stagings, first");
  check_handle_product<Cuda>(handle, with_values(A, -2.0), with_values(B, 0.5), "block rows across stagings, numeric");
}

// Every real matrix, whole products and the handle's numeric phase (C's columns in shared memory
// for most of them).
TEST(SpgemmCuda, PoissonAndRealMatrices) {
  const HostCoo<double> P = tessera::poisson_3d_triplets(24, 0, 24 * 24 * 24);
  expect_every_variant<ws::Auto>(P, P, "Poisson 24^3 squared");
  int checked = 0;
  for (const auto& path : tessera_test::real_matrix_paths()) {
    const auto M = tessera::io::read_matrix_market(path);
    const HostCoo<double> other = M.shape[0] == M.shape[1] ? M : transposed(M);
    if (products(M, other) > 20000000) continue;  // the serial oracle stays quick
    const auto ref = tessera::reference::spgemm(M, other);
    const auto scale =
        tessera::reference::spgemm(tessera_test::absolute_values(M), tessera_test::absolute_values(other));
    expect_product<ws::Auto, double, tessera::CSR>(M, other, ref, scale, path);
    expect_product<ws::Auto, float, tessera::CSR>(M, other, ref, scale, path);
    expect_handle_numeric_phase<double>(M, other, ref, scale, path);
    expect_handle_numeric_phase<float>(M, other, ref, scale, path);
    ++checked;
  }
  EXPECT_GE(checked, 40);
}

// A handle's numeric phase on rows of every bin, the dense ones included.
TEST(SpgemmCuda, HandleNumericPhaseOnEveryBin) {
  const HostCoo<double> B = rows_of_lengths(3000, 60000, 40, 11);
  const HostCoo<double> A = climbing_rows(B.shape[0], 12);
  tessera::SpgemmHandle handle;
  tessera::Tensor<double, tessera::CSR, Cuda> first;
  check_handle_product<Cuda>(handle, A, B, "climbing rows, first", &first);
  for (double shift : {1.0, 2.0}) {
    tessera::Tensor<double, tessera::CSR, Cuda> again;
    check_handle_product<Cuda>(handle, with_values(A, shift), with_values(B, shift + 0.5),
                               "climbing rows, numeric " + std::to_string(shift), &again);
    EXPECT_EQ(again.decompose().levels[1].crd.data(), first.decompose().levels[1].crd.data());
  }
}

TEST(SpgemmCuda, IntOffsetsRefuseAProductPastThem) {
  // 50000 x 1 times 1 x 50000: 2.5e9 entries, past int offsets; refused before C is allocated.
  HostCoo<double> column, row;
  column.shape = {50000, 1};
  row.shape = {1, 50000};
  for (std::int64_t i = 0; i < 50000; ++i) {
    column.coords.insert(column.coords.end(), {i, 0});
    column.values.push_back(1.0);
    row.coords.insert(row.coords.end(), {0, i});
    row.values.push_back(1.0);
  }
  const auto a = tessera::from_coo<float, tessera::CSR, Cuda>(column);
  const auto b = tessera::from_coo<float, tessera::CSR, Cuda>(row);
  try {
    (void)tessera::spgemm(a, b);
    FAIL() << "2.5e9 entries accepted with int offsets";
  } catch (const tessera::OverflowError& e) {
    EXPECT_NE(std::string(e.what()).find("2500000000"), std::string::npos) << e.what();
  }
}
