#pragma once
// Shared body of the SpTTM / SpTTM-I tests; a per-backend file defines TestSpaces.
// Every workspace policy x output encoding (CSF<3>, COOTensor<3>) x factor encoding
// (CSR, Dense<2>) against tessera::reference::{ttm, ttm_i} on random tensors (heavy
// and no deduplication, empty results, an empty B), with ISM switches that force
// many sort/merge rounds, and on the real Last.fm tensor.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "factor_matrix.hpp"
#include "sparse_result_compare.hpp"
#include "tessera/core/io/tns.hpp"
#include "tessera/formats/convert.hpp"
#include "tessera/formats/validate.hpp"
#include "tessera/kernels/ttm/reference/ttm_reference.hpp"
#include "tessera/kernels/ttm/ttm.hpp"
#include "tessera_test/data.hpp"
#include "tessera_test/random_coo.hpp"
#include "ttm_mode_test_body.hpp"

namespace {

using tessera::HostCoo;
using tessera_test::Factor;
using tessera_test::make_factor;
namespace ws = tessera::workspace;
using AllPolicies = std::tuple<ws::Dense, ws::Bucket, ws::Hash, ws::Coord, ws::Map, ws::SortOnce, ws::Auto>;

enum class Kind { Ttm, TtmI };

// Most products summed into one output entry: entries of B sharing the kept modes.
std::int64_t max_terms(const HostCoo<double>& B, Kind kind) {
  std::vector<std::int64_t> keys;
  for (std::int64_t n = 0; n < B.nnz(); ++n)
    keys.push_back(kind == Kind::Ttm ? B.coord(n, 1) * B.shape[2] + B.coord(n, 2)
                                     : B.coord(n, 0) * B.shape[2] + B.coord(n, 2));
  std::sort(keys.begin(), keys.end());
  std::int64_t most = 1, run = 0;
  for (std::size_t n = 0; n < keys.size(); ++n) most = std::max(most, run = (n > 0 && keys[n] == keys[n - 1]) ? run + 1 : 1);
  return most;
}

template <class Policy, class OutEnc, class Space, class Tb, class Tc>
void check_one(Kind kind, const Tb& b, const Tc& c, const HostCoo<double>& ref, const HostCoo<double>& scale, double tol,
               const ws::Options& options, const std::string& what) {
  ws::Report report;
  const auto A = kind == Kind::Ttm ? tessera::ttm<Policy, OutEnc>(b, c, options, &report)
                                   : tessera::ttm_i<Policy, OutEnc>(b, c, options, &report);
  const std::string label = what + " policy=" + ws::policy_name<Policy> + " ran=" + report.policy;
  tessera::validate(A);
  tessera_test::expect_same_entries(tessera::to_coo(A), ref, scale, tol, label);
  if (ref.nnz() > 0) EXPECT_GT(report.peak_bytes, 0) << label;
}

// Map keeps one sorted array over a whole output chunk of ttm: quadratic by design. Where the
// output holds more than kMapMaxEntries, Map multiplies the leading slices of B along mode 1
// (the output's mode 0) whose output fits, so that the larger and the real tensors still reach it.
constexpr std::int64_t kMapMaxEntries = 20000;

template <class Space, class FactorEnc, class Policies = AllPolicies>
void check_all(Kind kind, const HostCoo<double>& B, const Factor& C, const std::string& what,
               const ws::Options& options = {}) {
  const std::int64_t L = C.coo.shape[1];
  const auto ref = kind == Kind::Ttm ? tessera::reference::ttm(B, C.dense, C.stored, L)
                                     : tessera::reference::ttm_i(B, C.dense, C.stored, L);
  const auto B_abs = tessera_test::absolute_values(B);
  const Factor C_abs = tessera_test::factor_of(tessera_test::absolute_values(C.coo));
  const auto scale = kind == Kind::Ttm ? tessera::reference::ttm(B_abs, C_abs.dense, C_abs.stored, L)
                                       : tessera::reference::ttm_i(B_abs, C_abs.dense, C_abs.stored, L);
  const double tol = tessera_test::tolerance<double>(max_terms(B, kind));
  const auto b = tessera::from_coo<double, tessera::CSF<3>, Space>(B);
  const auto c = tessera::from_coo<double, FactorEnc, Space>(C.coo);
  const std::string name = what + (kind == Kind::Ttm ? " ttm" : " ttm_i");
  const bool map_on_head = kind == Kind::Ttm && ref.nnz() > kMapMaxEntries && B.shape[1] > 1;
  if (map_on_head) {
    const HostCoo<double> head = tessera_test::leading_slices_within(B, 1, ref, kMapMaxEntries);
    check_all<Space, FactorEnc, std::tuple<ws::Map>>(kind, head, C,
                                                     what + " (first " + std::to_string(head.shape[1]) + " of " +
                                                         std::to_string(B.shape[1]) + " mode-1 slices of B)",
                                                     options);
  }
  std::apply(
      [&](auto... policies) {
        (
            [&](auto policy) {
              using P = decltype(policy);
              if (std::is_same_v<P, ws::Map> && map_on_head) return;
              check_one<P, tessera::CSF<3>, Space>(kind, b, c, ref, scale, tol, options, name + " CSF");
              check_one<P, tessera::COOTensor<3>, Space>(kind, b, c, ref, scale, tol, options, name + " COO");
            }(policies),
            ...);
      },
      Policies{});
}

// B with entries n = 0..count-1 at (n % a, n, n): every (i, j) and (k, j) appears once.
HostCoo<double> diagonal_tensor(std::int64_t count, std::int64_t a) {
  HostCoo<double> B;
  B.shape = {a, count, count};
  for (std::int64_t n = 0; n < count; ++n) {
    B.coords.insert(B.coords.end(), {n % a, n, n});
    B.values.push_back(0.25 + 0.01 * static_cast<double>(n));
  }
  return B;
}

}  // namespace

template <class Space>
class Ttm : public ::testing::Test {};
TYPED_TEST_SUITE(Ttm, TestSpaces);

TYPED_TEST(Ttm, RandomSparseAndDenseFactors) {
  const auto B = tessera_test::random_coo({30, 20, 40}, 2000, 61);
  check_all<TypeParam, tessera::CSR>(Kind::Ttm, B, make_factor(30, 7, 90, 62), "sparse C");
  check_all<TypeParam, tessera::Dense<2>>(Kind::Ttm, B, make_factor(30, 3, -1, 63), "dense C");
  check_all<TypeParam, tessera::CSR>(Kind::TtmI, B, make_factor(20, 7, 60, 64), "sparse C");
  check_all<TypeParam, tessera::Dense<2>>(Kind::TtmI, B, make_factor(20, 3, -1, 65), "dense C");
}

TYPED_TEST(Ttm, HeavyAndNoDeduplication) {
  // Heavy: 4000 entries of B land on 3 x 3 (i, j) resp. (k, j) pairs, ~450 products each.
  check_all<TypeParam, tessera::Dense<2>>(Kind::Ttm, tessera_test::random_coo({400, 3, 3}, 4000, 66),
                                          make_factor(400, 4, -1, 67), "heavy dedup");
  check_all<TypeParam, tessera::Dense<2>>(Kind::TtmI, tessera_test::random_coo({3, 400, 3}, 4000, 68),
                                          make_factor(400, 4, -1, 69), "heavy dedup");
  // None: every output entry receives exactly one product.
  const auto B = diagonal_tensor(300, 7);
  check_all<TypeParam, tessera::Dense<2>>(Kind::Ttm, B, make_factor(7, 2, -1, 70), "no dedup");
  check_all<TypeParam, tessera::Dense<2>>(Kind::TtmI, B, make_factor(300, 2, -1, 71), "no dedup");
}

TYPED_TEST(Ttm, EmptyResults) {
  const auto B = tessera_test::random_coo({30, 20, 40}, 500, 72);
  // C stores nothing: no product exists.
  check_all<TypeParam, tessera::CSR>(Kind::Ttm, B, make_factor(30, 5, 0, 73), "C without entries");
  check_all<TypeParam, tessera::CSR>(Kind::TtmI, B, make_factor(20, 5, 0, 74), "C without entries");
  // B stores nothing.
  const auto none = tessera_test::random_coo({30, 20, 40}, 0, 75);
  check_all<TypeParam, tessera::Dense<2>>(Kind::Ttm, none, make_factor(30, 5, -1, 76), "empty B");
  check_all<TypeParam, tessera::Dense<2>>(Kind::TtmI, none, make_factor(20, 5, -1, 77), "empty B");
}

TYPED_TEST(Ttm, IsmSwitchesForceManyMerges) {
  const auto B = tessera_test::random_coo({60, 10, 10}, 3000, 78);
  for (bool pipelining : {false, true})
    for (bool double_buffer : {false, true}) {
      ws::Options options;
      options.ism.accumulation_capacity = 7;
      options.ism.pipelining = pipelining;
      options.ism.double_buffer = double_buffer;
      const std::string what = std::string("capacity 7 pipelining=") + (pipelining ? "on" : "off") +
                               " double_buffer=" + (double_buffer ? "on" : "off");
      check_all<TypeParam, tessera::Dense<2>>(Kind::Ttm, B, make_factor(60, 3, -1, 79), what, options);
      check_all<TypeParam, tessera::Dense<2>>(Kind::TtmI, B, make_factor(10, 3, -1, 80), what, options);
    }
}

TYPED_TEST(Ttm, DenseOverBudgetIsRefused) {
  const auto B = tessera::from_coo<double, tessera::CSF<3>, TypeParam>(tessera_test::random_coo({30, 20, 40}, 500, 81));
  const auto C = tessera::from_coo<double, tessera::Dense<2>, TypeParam>(make_factor(30, 5, -1, 82).coo);
  ws::Options options;
  options.memory_budget_bytes = 1000;
  EXPECT_THROW((tessera::ttm<ws::Dense>(B, C, options)), tessera::OverflowError);
  ws::Report report;
  tessera::ttm<ws::Auto>(B, C, options, &report);
  EXPECT_STREQ(report.policy, "hash");
}

TYPED_TEST(Ttm, RealLastfmTensor) {
  const auto X = tessera::io::read_tns(tessera_test::data_dir() + "/tensors/lastfm_user_artist_tag.tns.gz");
  ASSERT_EQ(X.order(), 3);
  // (user, artist, tag) -> (artist, user, tag): SpTTM contracts the largest mode and
  // keeps a user x tag x L result that a Dense workspace chunk can hold.
  HostCoo<double> Y = X;
  Y.shape = {X.shape[1], X.shape[0], X.shape[2]};
  for (std::int64_t n = 0; n < X.nnz(); ++n) std::swap(Y.coords[3 * n], Y.coords[3 * n + 1]);
  check_all<TypeParam, tessera::Dense<2>>(Kind::Ttm, Y, make_factor(Y.shape[0], 2, -1, 83), "lastfm");
  check_all<TypeParam, tessera::CSR>(Kind::TtmI, X, make_factor(X.shape[1], 4, X.shape[1] * 2, 84), "lastfm");
}

TYPED_TEST(Ttm, EveryModeWithAndWithoutHandle) {
  const auto B = tessera_test::random_coo({30, 20, 40}, 2000, 104);  // duplicates among them
  ttm_mode_test::check_every_mode<double, TypeParam>(B, 5, 105, "random");
  ttm_mode_test::check_every_mode<double, TypeParam>(tessera_test::random_coo({300, 200, 400}, 3000, 106), 2, 107,
                                                     "empty slices and fibers");
  ttm_mode_test::check_every_mode<double, TypeParam>(tessera_test::random_coo({30, 20, 40}, 0, 108), 3, 109,
                                                     "no nonzeros");
  ttm_mode_test::check_errors<double, TypeParam>(B, tessera_test::random_coo({30, 20, 40}, 1999, 110));
}

TYPED_TEST(Ttm, EveryModeOfLastfm) {
  const auto X = tessera::io::read_tns(tessera_test::data_dir() + "/tensors/lastfm_user_artist_tag.tns.gz");
  ttm_mode_test::check_every_mode<double, TypeParam>(X, 2, 111, "lastfm");
}

#if defined(KOKKOS_ENABLE_OPENMP) && defined(KOKKOS_ENABLE_SERIAL)
// Chunks split the output, never a sum: the structure is the same for any thread count, and
// the values bit for bit but with the sorting policies (Coord, SortOnce), whose sums of equal
// keys follow the sort, within rounding of them. The second tensor sums about 200 products
// into each output entry.
template <class Policy>
void expect_same_across_threads(const HostCoo<double>& omp, const HostCoo<double>& serial, const char* what) {
  EXPECT_EQ(omp.coords, serial.coords) << what;
  constexpr bool sorts = std::is_same_v<Policy, ws::Coord> || std::is_same_v<Policy, ws::SortOnce>;
  if (!sorts || omp.values.size() != serial.values.size()) {
    EXPECT_EQ(omp.values, serial.values) << what;
    return;
  }
  for (std::size_t n = 0; n < omp.values.size(); ++n)
    EXPECT_NEAR(omp.values[n], serial.values[n], 1e-7 * (1 + std::fabs(serial.values[n]))) << what << " entry " << n;
}

TEST(TtmDeterminism, OpenMPEqualsSerialBitwiseButSortingPolicies) {
  tessera::HostCoo<double> deep;
  deep.shape = {400, 64, 3};
  std::mt19937_64 rng(88);
  std::uniform_real_distribution<double> value(-1, 1);
  for (std::int64_t k = 0; k < 400; ++k)
    for (std::int64_t i = 0; i < 64; ++i)
      for (std::int64_t j = 0; j < 3; ++j)
        if (rng() % 2) {
          deep.coords.insert(deep.coords.end(), {k, i, j});
          deep.values.push_back(value(rng) * static_cast<double>(1 + rng() % 1000));
        }
  const std::vector<std::pair<tessera::HostCoo<double>, tessera::HostCoo<double>>> cases = {
      {tessera_test::random_coo({50, 40, 30}, 5000, 85), make_factor(50, 6, -1, 86).coo},
      {deep, make_factor(400, 2, -1, 89).coo}};
  const auto Ci = make_factor(40, 6, -1, 87).coo;
  std::apply(
      [&](auto... policies) {
        (
            [&](auto policy) {
              using P = decltype(policy);
              for (const auto& [coo, C] : cases) {
                SCOPED_TRACE(std::string(ws::policy_name<P>) + ", " + std::to_string(coo.shape[0]) + " x " +
                             std::to_string(coo.shape[1]) + " x " + std::to_string(coo.shape[2]));
                auto run = [&](auto space) {
                  using S = decltype(space);
                  const auto B = tessera::from_coo<double, tessera::CSF<3>, S>(coo);
                  return tessera::to_coo(tessera::ttm<P>(B, tessera::from_coo<double, tessera::Dense<2>, S>(C)));
                };
                expect_same_across_threads<P>(run(Kokkos::OpenMP()), run(Kokkos::Serial()), "ttm");
              }
              auto run_i = [&](auto space) {
                using S = decltype(space);
                const auto B = tessera::from_coo<double, tessera::CSF<3>, S>(cases[0].first);
                return tessera::to_coo(tessera::ttm_i<P>(B, tessera::from_coo<double, tessera::Dense<2>, S>(Ci)));
              };
              expect_same_across_threads<P>(run_i(Kokkos::OpenMP()), run_i(Kokkos::Serial()), "ttm_i");
            }(policies),
            ...);
      },
      AllPolicies{});
}
#endif
