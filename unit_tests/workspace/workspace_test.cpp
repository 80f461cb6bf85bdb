// Workspace module tests: every policy's workspace against a std::map oracle on
// streams of scattered (key, value) pairs, over several accumulations in a row
// (reuse), with the ISM switches that force sort/merge rounds; the reallocation
// heuristic, key spaces, Auto's choice and peak-byte reporting.
#include <cstdint>
#include <map>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include <gtest/gtest.h>

#include "tessera/workspace/auto_policy.hpp"
#include "tessera/workspace/workspace.hpp"

namespace {

namespace ws = tessera::workspace;

struct Stream {
  std::vector<std::int64_t> keys;
  std::vector<double> vals;
};

// n pairs over `distinct` keys spread across a key space of `size` keys.
Stream random_stream(std::int64_t n, std::int64_t distinct, std::int64_t size, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<std::int64_t> pool(distinct);
  for (auto& k : pool) k = std::uniform_int_distribution<std::int64_t>(0, size - 1)(rng);
  Stream s;
  for (std::int64_t i = 0; i < n; ++i) {
    s.keys.push_back(pool[std::uniform_int_distribution<std::int64_t>(0, distinct - 1)(rng)]);
    s.vals.push_back(std::uniform_real_distribution<double>(-1, 1)(rng));
  }
  return s;
}

template <class Policy, int N>
void check_policy(const ws::KeySpace<N>& space, const ws::IsmOptions& options, const std::string& what) {
  SCOPED_TRACE(what + " policy=" + ws::policy_name<Policy>);
  ws::WorkspaceFor<Policy, double, N> w(options);
  // Several accumulations through the same workspace: reuse must leave nothing behind.
  const std::vector<std::tuple<std::int64_t, std::int64_t>> rounds = {{0, 1}, {5000, 40}, {3000, 3000}, {1, 1}, {800, 200}};
  std::uint64_t seed = 1;
  for (const auto& [n, distinct] : rounds) {
    const Stream s = random_stream(n, std::min(distinct, space.size()), space.size(), seed++);
    std::map<std::int64_t, double> oracle;
    w.reset(space, n);
    for (std::int64_t i = 0; i < n; ++i) {
      w.add(s.keys[i], s.vals[i]);
      oracle[s.keys[i]] += s.vals[i];
    }
    std::vector<std::int64_t> got_keys;
    std::vector<double> got_vals;
    w.drain([&](std::int64_t k, double v) {
      got_keys.push_back(k);
      got_vals.push_back(v);
    });
    ASSERT_EQ(got_keys.size(), oracle.size()) << "n=" << n;
    std::size_t e = 0;
    for (const auto& [k, v] : oracle) {
      ASSERT_EQ(got_keys[e], k) << "entry " << e;
      EXPECT_NEAR(got_vals[e], v, 1e-12 * (1 + n)) << "key " << k;
      ++e;
    }
  }
  EXPECT_GT(w.peak_bytes(), 0);
}

template <int N>
void check_all_policies(const ws::KeySpace<N>& space, const ws::IsmOptions& options, const std::string& what) {
  check_policy<ws::Dense, N>(space, options, what);
  check_policy<ws::Bucket, N>(space, options, what);
  check_policy<ws::Hash, N>(space, options, what);
  check_policy<ws::Coord, N>(space, options, what);
  check_policy<ws::Map, N>(space, options, what);
  check_policy<ws::SortOnce, N>(space, options, what);
}

TEST(Workspace, EveryPolicyMatchesOracleAcrossIsmSwitches) {
  for (bool pipelining : {false, true})
    for (bool double_buffer : {false, true})
      for (std::int64_t capacity : {0, 1, 16, 1000}) {
        ws::IsmOptions options;
        options.pipelining = pipelining;
        options.double_buffer = double_buffer;
        options.accumulation_capacity = capacity;
        const std::string what = "pipelining=" + std::to_string(pipelining) +
                                 " double_buffer=" + std::to_string(double_buffer) + " capacity=" + std::to_string(capacity);
        check_all_policies<1>(ws::KeySpace<1>({5000}), options, what + " order=1");
        check_all_policies<2>(ws::KeySpace<2>({70, 90}), options, what + " order=2");
        check_all_policies<3>(ws::KeySpace<3>({13, 1, 400}), options, what + " order=3");
      }
}

TEST(Workspace, KeySpaceRoundTripsAndRejectsOverflow) {
  const ws::KeySpace<3> space({5, 7, 11});
  EXPECT_EQ(space.size(), 385);
  const std::array<std::int64_t, 3> c{4, 2, 9};
  EXPECT_EQ(space.coords(space.key(c)), c);
  EXPECT_EQ(space.first(space.key(c)), 4);
  EXPECT_THROW(ws::KeySpace<2>({std::int64_t{1} << 40, 2}), tessera::OverflowError);
  EXPECT_THROW(ws::KeySpace<3>({std::int64_t{1} << 30, std::int64_t{1} << 30, std::int64_t{1} << 30}),
               tessera::OverflowError);
}

TEST(Workspace, ReallocationGrowsPiecewiseLinearlyNotByDoubling) {
  EXPECT_EQ(ws::grown_capacity(10), 10 + 256);            // small: a minimum step
  EXPECT_EQ(ws::grown_capacity(100000), 150000);           // medium: +50%
  EXPECT_EQ(ws::grown_capacity(std::int64_t{1} << 30), (std::int64_t{1} << 30) + (std::int64_t{1} << 22));
  ws::ByteMeter meter;
  {
    ws::GrowableArray<double> a(&meter);
    for (int i = 0; i < 100000; ++i) a.push_back(i);
    EXPECT_EQ(a[99999], 99999.0);
    EXPECT_LT(a.capacity(), 2 * 100000);
  }
  EXPECT_GE(meter.peak(), 100000 * 8);
}

TEST(Workspace, SparsePeakBytesFarBelowDenseOnSparseStreams) {
  const ws::KeySpace<2> space({2000, 2000});
  const Stream s = random_stream(20000, 5000, space.size(), 7);
  auto peak = [&](auto w) {
    w->reset(space, 5000);
    for (std::size_t i = 0; i < s.keys.size(); ++i) w->add(s.keys[i], s.vals[i]);
    w->drain([](std::int64_t, double) {});
    return w->peak_bytes();
  };
  const ws::IsmOptions options;
  const auto dense = peak(std::make_unique<ws::WorkspaceFor<ws::Dense, double, 2>>(options));
  const auto hash = peak(std::make_unique<ws::WorkspaceFor<ws::Hash, double, 2>>(options));
  const auto coord = peak(std::make_unique<ws::WorkspaceFor<ws::Coord, double, 2>>(options));
  EXPECT_GE(dense, 2000 * 2000 * 9);
  EXPECT_LT(3 * hash, dense);
  EXPECT_LT(3 * coord, dense);
}

TEST(Workspace, AutoChoosesDenseOnlyWithinBudget) {
  ws::AutoInputs in;
  in.positions = 1000;
  in.nnz_estimate = 10;
  in.workspaces = 2;
  in.budget_bytes = std::int64_t{1} << 30;
  EXPECT_TRUE(ws::auto_prefers_dense(in));  // cache-resident
  in.positions = std::int64_t{1} << 28;
  EXPECT_FALSE(ws::auto_prefers_dense(in));  // over budget
  in.positions = std::int64_t{1} << 24;
  EXPECT_FALSE(ws::auto_prefers_dense(in));  // large and barely touched
  in.products = in.positions;
  EXPECT_TRUE(ws::auto_prefers_dense(in));   // large, but reused over as many products
  in.products = in.positions / 8;
  EXPECT_TRUE(ws::auto_prefers_dense(in));   // reused over an eighth as many: still Dense
  in.products = in.positions / 8 - 1;
  EXPECT_FALSE(ws::auto_prefers_dense(in));  // below an eighth: Hash
  in.products = in.positions;
  in.positions = std::int64_t{1} << 28;
  EXPECT_FALSE(ws::auto_prefers_dense(in));  // reused, but over budget
  in.positions = std::int64_t{1} << 24;
  in.products = 0;
  in.nnz_estimate = std::int64_t{1} << 22;
  EXPECT_TRUE(ws::auto_prefers_dense(in));   // large but well filled
  int dense_calls = 0;
  ws::with_policy<ws::Auto>(true, [&](auto p) { dense_calls += std::is_same_v<decltype(p), ws::Dense>; });
  ws::with_policy<ws::Hash>(true, [&](auto p) { dense_calls += std::is_same_v<decltype(p), ws::Dense>; });
  EXPECT_EQ(dense_calls, 1);
}

}  // namespace
