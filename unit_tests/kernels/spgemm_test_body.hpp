#pragma once
// Shared body of the SpGEMM tests; a per-backend file defines TestSpaces and SpgemmPolicies (the
// workspace policies its spaces take). Every workspace policy x every algorithm (row-wise to CSR and DCSR, row-wise
// transposed, outer product from CSC and DCSC) against tessera::reference::spgemm, on random
// matrices (heavy, no and some deduplication, empty products, edge shapes) and on
// the small real matrices (B * S(B)^T), plus ISM switches that force many
// sort/merge rounds (tiny accumulation arrays, pipelining, single buffer).
#include <cmath>
#include <cstdint>
#include <string>
#include <tuple>
#include <vector>

#include <gtest/gtest.h>

#include "sparse_result_compare.hpp"
#include "tessera/core/io/matrix_market.hpp"
#include "tessera/kernels/spgemm/reference/spgemm_reference.hpp"
#include "tessera/kernels/common/cuda_config.hpp"
#include "tessera/kernels/spgemm/spgemm.hpp"
#include "tessera/formats/convert.hpp"
#include "tessera/formats/validate.hpp"
#include "tessera_test/data.hpp"
#include "tessera_test/random_coo.hpp"
#include "tessera_test/type_list.hpp"

namespace {

using tessera::HostCoo;
namespace ws = tessera::workspace;

std::int64_t max_terms(const HostCoo<double>& A, const HostCoo<double>& B) {
  std::vector<std::int64_t> a_col(A.shape[1], 0);
  for (std::int64_t n = 0; n < A.nnz(); ++n) ++a_col[A.coord(n, 1)];
  std::int64_t most = 1;
  for (auto c : a_col) most = std::max(most, c);
  return most * std::max<std::int64_t>(B.nnz(), 1);
}

// Map keeps one sorted array over a whole second-order output: quadratic by design. Where the
// product holds more than kMapMaxEntries, Map multiplies the leading rows of A whose product
// fits (at least one row), so that the larger and the real matrices still reach it.
constexpr std::int64_t kMapMaxEntries = 20000;

template <class Policy, class OutEnc, class EncA, class EncB, class Space>
void check_one(const HostCoo<double>& A, const HostCoo<double>& B, const HostCoo<double>& ref,
               const HostCoo<double>& scale, const ws::Options& options, const std::string& what) {
  const auto a = tessera::from_coo<double, EncA, Space>(A);
  const auto b = tessera::from_coo<double, EncB, Space>(B);
  ws::Report report;
  // Host spaces only: Kokkos::Cuda multiplies row-wise whatever the encodings.
  constexpr bool second_order = !(OutEnc::mode_order[0] == 0 && std::is_same_v<EncA, tessera::CSR>) &&
                                !tessera::kernels::is_cuda_space_v<Space>;
  const double dense_bytes = 9.0 * static_cast<double>(A.shape[0]) * static_cast<double>(B.shape[1]);
  if (std::is_same_v<Policy, ws::Dense> && second_order && dense_bytes > options.memory_budget_bytes) {
    EXPECT_THROW((tessera::spgemm<Policy, OutEnc>(a, b, options)), tessera::OverflowError) << what;
    return;
  }
  if (std::is_same_v<Policy, ws::Map> && second_order && ref.nnz() > kMapMaxEntries && A.shape[0] > 1) {
    const HostCoo<double> head = tessera_test::leading_slices_within(A, 0, ref, kMapMaxEntries);
    check_one<Policy, OutEnc, EncA, EncB, Space>(
        head, B, tessera::reference::spgemm(head, B),
        tessera::reference::spgemm(tessera_test::absolute_values(head), tessera_test::absolute_values(B)), options,
        what + " (first " + std::to_string(head.shape[0]) + " of " + std::to_string(A.shape[0]) + " rows of A)");
    return;
  }
  const auto C = tessera::spgemm<Policy, OutEnc>(a, b, options, &report);
  const std::string label = what + " policy=" + ws::policy_name<Policy> + " ran=" + report.policy;
  tessera::validate(C);
  tessera_test::expect_same_entries(tessera::to_coo(C), ref, scale, tessera_test::tolerance<double>(max_terms(A, B)),
                                    label);
  if (ref.nnz() > 0) EXPECT_GT(report.peak_bytes, 0) << label;
}

template <class Space>
void check_all(const HostCoo<double>& A, const HostCoo<double>& B, const std::string& what,
               const ws::Options& options = {}) {
  const auto ref = tessera::reference::spgemm(A, B);
  const auto scale = tessera::reference::spgemm(tessera_test::absolute_values(A), tessera_test::absolute_values(B));
  std::apply(
      [&](auto... policies) {
        (
            [&](auto policy) {
              using P = decltype(policy);
              check_one<P, tessera::CSR, tessera::CSR, tessera::CSR, Space>(A, B, ref, scale, options, what + " rowwise");
              check_one<P, tessera::DCSR, tessera::CSR, tessera::CSR, Space>(A, B, ref, scale, options,
                                                                            what + " rowwise-dcsr");
              check_one<P, tessera::CSC, tessera::CSR, tessera::CSR, Space>(A, B, ref, scale, options,
                                                                           what + " rowwise-transposed");
              check_one<P, tessera::CSR, tessera::CSC, tessera::CSR, Space>(A, B, ref, scale, options, what + " outer");
              check_one<P, tessera::DCSC, tessera::DCSC, tessera::DCSR, Space>(A, B, ref, scale, options,
                                                                              what + " outer-dcsc-transposed");
            }(policies),
            ...);
      },
      SpgemmPolicies{});
}

}  // namespace

template <class Space>
class Spgemm : public ::testing::Test {};
TYPED_TEST_SUITE(Spgemm, TestSpaces);

TYPED_TEST(Spgemm, RandomEdgeCases) {
  for (const auto& c : tessera_test::edge_case_matrices(11)) {
    // A * A^T always has matching inner extents, whatever the shape.
    HostCoo<double> At;
    At.shape = {c.coo.shape[1], c.coo.shape[0]};
    At.values = c.coo.values;
    for (std::int64_t n = 0; n < c.coo.nnz(); ++n) {
      At.coords.push_back(c.coo.coord(n, 1));
      At.coords.push_back(c.coo.coord(n, 0));
    }
    check_all<TypeParam>(c.coo, At, c.name);
  }
}

TYPED_TEST(Spgemm, DeduplicationExtremes) {
  // Heavy: a few dense-ish rows times a short-wide B, every product lands on few keys.
  check_all<TypeParam>(tessera_test::random_coo({30, 40}, 1200, 21), tessera_test::random_coo({40, 8}, 300, 22),
                       "heavy_dedup");
  // None: A is a permutation-like diagonal, so every product is a distinct entry.
  HostCoo<double> diag;
  diag.shape = {300, 300};
  for (std::int64_t i = 0; i < 300; ++i) {
    diag.coords.push_back(i);
    diag.coords.push_back((i * 7) % 300);
    diag.values.push_back(1.0 + 0.01 * static_cast<double>(i));
  }
  check_all<TypeParam>(diag, tessera_test::random_coo({300, 500}, 3000, 23), "no_dedup");
  // Products that produce nothing: A's columns and B's rows never meet.
  HostCoo<double> left = tessera_test::random_coo({50, 60}, 200, 24), right = tessera_test::random_coo({60, 70}, 200, 25);
  for (std::int64_t n = 0; n < left.nnz(); ++n) left.coords[2 * n + 1] = left.coords[2 * n + 1] % 30;
  for (std::int64_t n = 0; n < right.nnz(); ++n) right.coords[2 * n] = 30 + right.coords[2 * n] % 30;
  check_all<TypeParam>(left, right, "empty_product");
}

// Both placements of the Dense policy's output rows (and Auto's choice between them),
// forced on inputs whose products fold a lot, not at all, or into nothing.
TYPED_TEST(Spgemm, DenseRowOutputPlacements) {
  std::vector<std::pair<HostCoo<double>, HostCoo<double>>> cases = {
      {tessera_test::random_coo({30, 40}, 1200, 41), tessera_test::random_coo({40, 8}, 300, 42)},
      {tessera_test::random_coo({1, 50}, 40, 43), tessera_test::random_coo({50, 900}, 2000, 44)},
      {tessera_test::random_coo({700, 90}, 900, 45), tessera_test::random_coo({90, 3000}, 1500, 46)}};
  for (const auto& c : tessera_test::edge_case_matrices(12)) cases.emplace_back(c.coo, tessera::reference::shifted_transpose(c.coo));
  // Wide rows: output columns spread over 300000 (many 4096-column words of the
  // ordering bitmap), with the first and last columns and both sides of word edges;
  // a row of two columns 999999 apart; and a product whose one row covers nearly all
  // of its 5000 columns.
  HostCoo<double> wide_left = tessera_test::random_coo({200, 90}, 2000, 47);
  HostCoo<double> wide_right = tessera_test::random_coo({90, 300000}, 1500, 48);
  for (auto [i, j] : {std::pair<std::int64_t, std::int64_t>{0, 0}, {0, 1}}) {
    wide_left.coords.insert(wide_left.coords.end(), {i, j});
    wide_left.values.push_back(0.5);
  }
  for (auto [i, j] : {std::pair<std::int64_t, std::int64_t>{0, 0}, {0, 299999}, {0, 63}, {0, 64}, {1, 4095},
                      {1, 4096}, {1, 262143}, {1, 262144}}) {
    wide_right.coords.insert(wide_right.coords.end(), {i, j});
    wide_right.values.push_back(0.25);
  }
  cases.emplace_back(wide_left, wide_right);
  HostCoo<double> pair_left, far_right;
  pair_left.shape = {1, 2};
  pair_left.coords = {0, 0, 0, 1};
  pair_left.values = {2.0, 3.0};
  far_right.shape = {2, 1000000};
  far_right.coords = {0, 999999, 1, 0};
  far_right.values = {5.0, 7.0};
  cases.emplace_back(pair_left, far_right);
  cases.emplace_back(tessera_test::random_coo({1, 50}, 50, 49), tessera_test::random_coo({50, 5000}, 20000, 50));
  // Banded: B's rows fold many columns into each 32-column block (the symbolic pass
  // counts by blocks); columns 0 and 299 sit at block edges.
  HostCoo<double> band;
  band.shape = {300, 300};
  for (std::int64_t i = 0; i < 300; ++i)
    for (std::int64_t j = std::max<std::int64_t>(0, i - 20); j <= std::min<std::int64_t>(299, i + 20); ++j) {
      band.coords.push_back(i);
      band.coords.push_back(j);
      band.values.push_back(1.0 / static_cast<double>(1 + i + 2 * j));
    }
  cases.emplace_back(band, tessera::reference::shifted_transpose(band));
  for (const auto& [A, B] : cases) {
    const auto ref = tessera::reference::spgemm(A, B);
    const auto scale = tessera::reference::spgemm(tessera_test::absolute_values(A), tessera_test::absolute_values(B));
    for (auto placement : {ws::RowOutput::Buffered, ws::RowOutput::Symbolic, ws::RowOutput::Auto}) {
      ws::Options options;
      options.row_output = placement;
      const std::string what = "row_output=" + std::to_string(static_cast<int>(placement)) + " A " +
                               std::to_string(A.shape[0]) + "x" + std::to_string(A.shape[1]);
      check_one<ws::Dense, tessera::CSR, tessera::CSR, tessera::CSR, TypeParam>(A, B, ref, scale, options, what);
      check_one<ws::Dense, tessera::DCSR, tessera::CSR, tessera::CSR, TypeParam>(A, B, ref, scale, options, what + " dcsr");
    }
  }
}

TYPED_TEST(Spgemm, IsmSwitchesForceManyMerges) {
  const auto A = tessera_test::random_coo({60, 100}, 600, 31), B = tessera_test::random_coo({100, 80}, 800, 32);
  for (bool pipelining : {false, true})
    for (bool double_buffer : {false, true})
      for (std::int64_t capacity : {3, 64}) {
        ws::Options options;
        options.ism.accumulation_capacity = capacity;
        options.ism.pipelining = pipelining;
        options.ism.double_buffer = double_buffer;
        check_all<TypeParam>(A, B,
                             "capacity=" + std::to_string(capacity) + " pipelining=" + std::to_string(pipelining) +
                                 " double_buffer=" + std::to_string(double_buffer),
                             options);
      }
}

// An error raised inside the parallel loop (here the workspaces' 32-bit output coordinates
// against 3e9 columns) reaches the caller as the exception, on every host space; under
// OpenMP it ended the program in std::terminate.
TYPED_TEST(Spgemm, ErrorsInsideTheParallelLoopReachTheCaller) {
  if constexpr (tessera::kernels::is_cuda_space_v<TypeParam>) {
    GTEST_SKIP() << "int64 column ids have no CUDA kernels";
  } else {
    using Csc64 = tessera::WithIndexTypes<tessera::CSC, std::int64_t, std::int64_t>;
    using Csr64 = tessera::WithIndexTypes<tessera::CSR, std::int64_t, std::int64_t>;
    const std::int64_t wide = 3000000000;
    const auto A = tessera::from_coo<double, Csc64, TypeParam>(HostCoo<double>{{2, 1}, {1, 0}, {2.0}});
    const auto B = tessera::from_coo<double, Csr64, TypeParam>(HostCoo<double>{{1, wide}, {0, wide - 1}, {3.0}});
    try {
      (void)tessera::spgemm<ws::Hash, Csr64>(A, B);
      FAIL() << "3e9 output columns accepted";
    } catch (const tessera::OverflowError& e) {
      EXPECT_NE(std::string(e.what()).find("3000000000"), std::string::npos) << e.what();
    }
  }
}

TYPED_TEST(Spgemm, RealMatricesTimesShiftedTranspose) {
  int checked = 0;
  for (const auto& path : tessera_test::real_matrix_paths()) {
    const auto B = tessera::io::read_matrix_market(path);
    if (B.nnz() > 30000) continue;  // the serial oracle and 28 variants per matrix stay quick
    ws::Options options;
    options.memory_budget_bytes = std::int64_t{1} << 28;  // Dense over 256 MiB must refuse, not allocate
    check_all<TypeParam>(B, tessera::reference::shifted_transpose(B), path, options);
    ++checked;
  }
  EXPECT_GE(checked, 5);
}

namespace {
HostCoo<double> with_values(HostCoo<double> coo, double shift) {  // same pattern, other values
  for (std::size_t e = 0; e < coo.values.size(); ++e) coo.values[e] = std::cos(shift + 0.37 * static_cast<double>(e));
  return coo;
}

template <class Space>
void check_handle_product(tessera::SpgemmHandle& handle, const HostCoo<double>& A, const HostCoo<double>& B,
                          const std::string& what, tessera::Tensor<double, tessera::CSR, Space>* out = nullptr) {
  const auto a = tessera::from_coo<double, tessera::CSR, Space>(A);
  const auto b = tessera::from_coo<double, tessera::CSR, Space>(B);
  const auto C = tessera::spgemm(a, b, handle);
  tessera::validate(C);
  tessera_test::expect_same_entries(
      tessera::to_coo(C), tessera::reference::spgemm(A, B),
      tessera::reference::spgemm(tessera_test::absolute_values(A), tessera_test::absolute_values(B)),
      tessera_test::tolerance<double>(max_terms(A, B)), what);
  if (out) *out = C;
}
}  // namespace

// Through an SpgemmHandle, the first product computes C and keeps its pattern; products of new
// values on the same patterns (new arrays too) run only the numeric phase into that pattern and
// are right against the reference; operands of other patterns are refused until reset().
TYPED_TEST(Spgemm, HandleReusesTheSymbolicPhase) {
  using Space = TypeParam;
  const auto west = tessera::io::read_matrix_market(tessera_test::real_matrix("west0497"));
  for (const auto& [A, B, name] :
       {std::tuple{tessera_test::random_coo({120, 90}, 900, 3), tessera_test::random_coo({90, 70}, 600, 4), "random"},
        std::tuple{west, tessera::reference::shifted_transpose(west), "west0497 x S(west0497)^T"}}) {
    tessera::SpgemmHandle handle;
    tessera::Tensor<double, tessera::CSR, Space> first, second;
    check_handle_product<Space>(handle, A, B, std::string(name) + ", first", &first);
    check_handle_product<Space>(handle, with_values(A, 1.0), with_values(B, 2.0), std::string(name) + ", numeric",
                                &second);
    EXPECT_EQ(second.decompose().levels[1].crd.data(), first.decompose().levels[1].crd.data())
        << "the second product reuses the first one's pattern";
    EXPECT_NE(second.decompose().vals.data(), first.decompose().vals.data());
    const auto a = tessera::from_coo<double, tessera::CSR, Space>(A);
    const auto other = tessera::from_coo<double, tessera::CSR, Space>(
        tessera_test::random_coo({B.shape[0], B.shape[1]}, B.nnz(), 99));
    EXPECT_THROW(tessera::spgemm(a, other, handle), tessera::ShapeError);
    handle.reset();
    check_handle_product<Space>(handle, A, A.shape[1] == A.shape[0] ? A : B, std::string(name) + ", after reset");
  }
}
