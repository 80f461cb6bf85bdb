#pragma once
// Shared body of the SpMTTKRP tests; a per-backend file defines TestSpaces.
// Every workspace policy of the space x factor encodings (sparse CSR, Dense<2>) against
// tessera::reference::mttkrp on random tensors (heavy and no deduplication, an
// empty result) and on the real Last.fm tensor.
#include <cstdint>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

#include <gtest/gtest.h>

#include "factor_matrix.hpp"
#include "sparse_result_compare.hpp"
#include "tessera/core/io/tns.hpp"
#include "tessera/formats/convert.hpp"
#include "tessera/formats/validate.hpp"
#include "tessera/kernels/common/cuda_config.hpp"
#include "tessera/kernels/mttkrp/impl/mttkrp_by_spgemm.hpp"
#include "tessera/kernels/mttkrp/mttkrp.hpp"
#include "tessera/kernels/mttkrp/reference/mttkrp_reference.hpp"
#include "tessera_test/data.hpp"
#include "tessera_test/random_coo.hpp"

namespace {

using tessera::HostCoo;
namespace ws = tessera::workspace;
using AllPolicies = std::tuple<ws::Dense, ws::Bucket, ws::Hash, ws::Coord, ws::Map, ws::SortOnce, ws::Auto>;
// The policies a space's SpGEMM-based or fiber-walking kernel takes.
template <class Space>
using PoliciesOf = std::conditional_t<tessera::kernels::is_cuda_space_v<Space>,
                                      std::tuple<ws::Dense, ws::Hash, ws::Auto>, AllPolicies>;

using tessera_test::Factor;
using tessera_test::factor_of;
using tessera_test::make_factor;

template <class Space, class FactorEnc>
void check_all(const HostCoo<double>& B, const Factor& C, const Factor& D, const std::string& what) {
  const std::int64_t J = C.coo.shape[1];
  const auto ref = tessera::reference::mttkrp(B, C.dense, C.stored, D.dense, D.stored, J);
  const Factor C_abs = factor_of(tessera_test::absolute_values(C.coo));
  const Factor D_abs = factor_of(tessera_test::absolute_values(D.coo));
  const auto scale = tessera::reference::mttkrp(tessera_test::absolute_values(B), C_abs.dense, C_abs.stored, D_abs.dense,
                                                D_abs.stored, J);
  const auto b = tessera::from_coo<double, tessera::CSF<3>, Space>(B);
  const auto c = tessera::from_coo<double, FactorEnc, Space>(C.coo);
  const auto d = tessera::from_coo<double, FactorEnc, Space>(D.coo);
  std::apply(
      [&](auto... policies) {
        (
            [&](auto policy) {
              using P = decltype(policy);
              ws::Report report;
              const auto A = tessera::mttkrp<P>(b, c, d, {}, &report);
              const std::string label = what + " policy=" + ws::policy_name<P> + " ran=" + report.policy;
              tessera::validate(A);
              const double tol = tessera_test::tolerance<double>(B.nnz());
              tessera_test::expect_same_entries(tessera::to_coo(A), ref, scale, tol, label);
              const auto A_coo = tessera::mttkrp<P, tessera::COO>(b, c, d);
              tessera_test::expect_same_entries(tessera::to_coo(A_coo), ref, scale, tol, label + " COO output");
              // The device algorithm (factor rows per fiber, then SpGEMM) on the host spaces too.
              if constexpr (!tessera::kernels::is_cuda_space_v<Space>) {
                const auto by_spgemm = tessera::kernels::impl::mttkrp_by_spgemm<P, tessera::CSR>(Space(), b, c, d, {},
                                                                                                 nullptr);
                tessera::validate(by_spgemm);
                tessera_test::expect_same_entries(tessera::to_coo(by_spgemm), ref, scale, tol,
                                                  label + " by SpGEMM");
              }
            }(policies),
            ...);
      },
      PoliciesOf<Space>{});
}

}  // namespace

template <class Space>
class Mttkrp : public ::testing::Test {};
TYPED_TEST_SUITE(Mttkrp, TestSpaces);

TYPED_TEST(Mttkrp, RandomSparseAndDenseFactors) {
  const auto B = tessera_test::random_coo({30, 20, 40}, 2000, 41);
  check_all<TypeParam, tessera::CSR>(B, make_factor(30, 12, 150, 42), make_factor(20, 12, 100, 43), "sparse factors");
  check_all<TypeParam, tessera::Dense<2>>(B, make_factor(30, 6, -1, 44), make_factor(20, 6, -1, 45), "dense factors");
  // Heavy deduplication: every entry of B lands on 3 output rows.
  auto heavy = tessera_test::random_coo({25, 25, 3}, 3000, 46);
  check_all<TypeParam, tessera::Dense<2>>(heavy, make_factor(25, 5, -1, 47), make_factor(25, 5, -1, 48), "heavy dedup");
  // No deduplication: one entry per output row, one column.
  HostCoo<double> single;
  single.shape = {10, 10, 100};
  for (std::int64_t i = 0; i < 100; ++i) {
    single.coords.insert(single.coords.end(), {i % 10, (i / 10) % 10, i});
    single.values.push_back(0.5 + 0.01 * static_cast<double>(i));
  }
  check_all<TypeParam, tessera::Dense<2>>(single, make_factor(10, 1, -1, 49), make_factor(10, 1, -1, 50), "no dedup");
  // Empty result: C's and D's stored columns never meet.
  HostCoo<double> c_only_col0, d_only_col1;
  c_only_col0.shape = {30, 8};
  d_only_col1.shape = {20, 8};
  for (std::int64_t r = 0; r < 30; ++r) {
    c_only_col0.coords.insert(c_only_col0.coords.end(), {r, 0});
    c_only_col0.values.push_back(1.0);
  }
  for (std::int64_t r = 0; r < 20; ++r) {
    d_only_col1.coords.insert(d_only_col1.coords.end(), {r, 1});
    d_only_col1.values.push_back(1.0);
  }
  const Factor c = factor_of(c_only_col0), d = factor_of(d_only_col1);
  check_all<TypeParam, tessera::CSR>(B, c, d, "empty result");
}

// The standard's edge cases: B without entries, B of a zero extent, and a B whose output rows
// are mostly empty, with one slice holding most entries, duplicates of one coordinate in it
// (summed), and factors with empty rows.
TYPED_TEST(Mttkrp, EmptyHugeSliceAndDuplicateEdgeCases) {
  check_all<TypeParam, tessera::CSR>(tessera_test::random_coo({30, 20, 40}, 0, 1), make_factor(30, 5, 40, 2),
                                     make_factor(20, 5, 40, 3), "B without entries");
  check_all<TypeParam, tessera::Dense<2>>(tessera_test::random_coo({0, 20, 40}, 0, 1), make_factor(0, 5, -1, 2),
                                          make_factor(20, 5, -1, 3), "zero extent");
  auto B = tessera_test::random_coo({30, 20, 4000}, 300, 4);  // most of the 4000 output rows empty
  for (std::int64_t e = 0; e < 3000; ++e) {  // slice 17: 3000 entries, each coordinate 50 times
    B.coords.insert(B.coords.end(), {e % 30, (e * 7) % 20, 17});
    B.values.push_back(0.01 * static_cast<double>(e % 50) - 0.2);
  }
  check_all<TypeParam, tessera::CSR>(B, make_factor(30, 9, 100, 5), make_factor(20, 9, 60, 6),
                                     "empty rows, one huge slice, duplicates");
}

// Workspaces over huge outputs: on the host an explicit Dense one is refused against the memory
// budget (it was allocated: bad_alloc, or std::terminate under OpenMP), and Auto, whose byte count
// of a dense workspace wrapped negative at 1.2e9 x 1.2e9 positions, takes Hash and is right; on the
// GPU the product over B's 1.2e9 output rows is right (SpGEMM runs over the rows B has).
TYPED_TEST(Mttkrp, HugeOutputsKeepToTheBudget) {
  constexpr bool gpu = tessera::kernels::is_cuda_space_v<TypeParam>;
  const auto single = [](std::int64_t rows, std::int64_t cols, std::int64_t row, std::int64_t col, double v) {
    return HostCoo<double>{{rows, cols}, {row, col}, {v}};
  };
  const std::int64_t n = 200000;
  const auto B = tessera::from_coo<double, tessera::CSF<3>, TypeParam>(HostCoo<double>{{1, 1, n}, {0, 0, 7}, {2.0}});
  const auto C = tessera::from_coo<double, tessera::CSR, TypeParam>(single(1, n, 0, 9, 3.0));
  if (!gpu) try {
    (void)tessera::mttkrp<ws::Dense>(B, C, C);
    FAIL() << "a Dense workspace of 4e10 positions was accepted";
  } catch (const tessera::OverflowError& e) {
    // 4e10 positions of 9 bytes per thread: 360.0 GB on one thread, 720.0 GB on two
    EXPECT_NE(std::string(e.what()).find("mttkrp: Dense workspaces of 40000000000 positions"), std::string::npos)
        << e.what();
    EXPECT_NE(std::string(e.what()).find("0.0 GB, over memory_budget_bytes"), std::string::npos) << e.what();
  }
  const std::int64_t big = 1200000000;
  const auto Bb = tessera::from_coo<double, tessera::CSF<3>, TypeParam>(HostCoo<double>{{1, 1, big}, {0, 0, 5}, {2.0}});
  const auto Cb = tessera::from_coo<double, tessera::CSR, TypeParam>(single(1, big, 0, 11, 3.0));
  ws::Report report;
  const auto A = tessera::to_coo(tessera::mttkrp<ws::Auto, tessera::DCSR>(Bb, Cb, Cb, {}, &report));
  if (!gpu) EXPECT_STREQ(report.policy, "hash");
  EXPECT_EQ(A.coords, (std::vector<std::int64_t>{5, 11}));
  EXPECT_EQ(A.values, (std::vector<double>{18.0}));
  if constexpr (!gpu) {  // the device algorithm on the host: no array of the 1.2e9 output rows either
    const auto by_spgemm = tessera::to_coo(
        tessera::kernels::impl::mttkrp_by_spgemm<ws::Auto, tessera::DCSR>(TypeParam(), Bb, Cb, Cb, {}, nullptr));
    EXPECT_EQ(by_spgemm.coords, A.coords);
    EXPECT_EQ(by_spgemm.values, A.values);
  }
}

TYPED_TEST(Mttkrp, RealLastfmTensor) {
  const auto X = tessera::io::read_tns(tessera_test::data_dir() + "/tensors/lastfm_user_artist_tag.tns.gz");
  ASSERT_EQ(X.order(), 3);
  check_all<TypeParam, tessera::Dense<2>>(X, make_factor(X.shape[0], 4, -1, 53), make_factor(X.shape[1], 4, -1, 54),
                                          "lastfm");
}
