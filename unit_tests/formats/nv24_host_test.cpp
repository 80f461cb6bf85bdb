// NV24 encoding on the host spaces: the metadata layout (checked against the slot table
// measured on an H100 for mma.sp m16n8k32), pruning by magnitude against an independent
// pruning rule, validation errors naming the first offending group, round trips, space
// transfers, adopted arrays.
#include <Kokkos_Core.hpp>
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "tessera/formats/nv24.hpp"
#include "tessera/kernels/nm_spmm/reference/nv24_reference.hpp"
#include "tessera_test/broadcast_view.hpp"
#include "tessera_test/host_spaces.hpp"

namespace {

using Half = Kokkos::Experimental::half_t;
namespace nv = tessera::nv24;
using nv::detail::from_double;
using nv::detail::to_double;

// k x n row-major values in [-1, 1), rounded to T.
template <class T>
std::vector<double> random_dense(std::int64_t k, std::int64_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  std::vector<double> B(static_cast<std::size_t>(k * n));
  for (double& b : B) b = to_double(from_double<T>(u(rng)));
  return B;
}

template <class T, class Space>
Kokkos::View<T**, Kokkos::LayoutRight, Space> to_view(const std::vector<double>& B, std::int64_t k, std::int64_t n) {
  Kokkos::View<T**, Kokkos::LayoutRight, Space> v("B", k, n);
  auto h = Kokkos::create_mirror_view(v);
  for (std::int64_t i = 0; i < k; ++i)
    for (std::int64_t j = 0; j < n; ++j) h(i, j) = from_double<T>(B[i * n + j]);
  Kokkos::deep_copy(v, h);
  return v;
}

template <class View>
std::vector<double> from_view(const View& v) {
  auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), v);
  std::vector<double> out;
  for (std::size_t i = 0; i < h.extent(0); ++i)
    for (std::size_t j = 0; j < h.extent(1); ++j) out.push_back(to_double(h(i, j)));
  return out;
}

TEST(Nv24Layout, SlotsOfATileAreABijectionOntoWordsAndNibbles) {
  std::set<std::pair<std::int64_t, int>> seen;
  const std::int64_t kp = 2 * nv::kKTile;  // two k tiles: tile (R, T) at word (R * 2 + T) * 32
  for (std::int64_t row = 0; row < 2 * nv::kRowTile; ++row)
    for (std::int64_t g = 0; g < kp / nv::kGroup; ++g) {
      const auto s = nv::meta_slot(row, g, kp);
      EXPECT_EQ(s.shift % 4, 0);
      EXPECT_EQ((s.word / nv::kTileWords), (row / nv::kRowTile) * 2 + g / 16);
      EXPECT_TRUE(seen.insert({s.word, s.shift}).second) << "row " << row << " group " << g;
    }
  EXPECT_EQ(seen.size(), static_cast<std::size_t>(4 * nv::kTileWords * 8));
  EXPECT_EQ(nv::meta_words(17, kp), 2 * 2 * nv::kTileWords);
}

TEST(Nv24Layout, MatchesTheSlotsMeasuredOnSparseTensorCores) {
  // (lane, nibble) -> (row, group) as an H100 reads them for selector 0 (lanes 4g, 4g+1)
  // and selector 1 (lanes 4g+2, 4g+3, the second k32 half).
  struct Known {
    int lane, nibble, row, group;
  };
  for (const Known& e : {Known{0, 0, 0, 0}, Known{0, 4, 8, 0}, Known{1, 3, 0, 7}, Known{1, 7, 8, 7},
                         Known{5, 2, 1, 6}, Known{28, 5, 15, 1}, Known{2, 0, 0, 8}, Known{3, 7, 8, 15},
                         Known{30, 1, 7, 9}}) {
    const auto s = nv::meta_slot(e.row, e.group, nv::kKTile);
    EXPECT_EQ(s.word, e.lane) << "row " << e.row << " group " << e.group;
    EXPECT_EQ(s.shift, 4 * e.nibble) << "row " << e.row << " group " << e.group;
  }
}

template <class Space>
class Nv24Format : public ::testing::Test {};
using tessera_test::HostSpaces;
TYPED_TEST_SUITE(Nv24Format, HostSpaces);

template <class T, class Space>
void check_prune(std::int64_t k, std::int64_t n, std::uint64_t seed) {
  const auto B = random_dense<T>(k, n, seed);
  const auto W = tessera::prune_nv24(to_view<T, Space>(B, k, n));
  static_assert(std::is_same_v<decltype(W), const tessera::Nv24Tensor<T, Space>>);
  EXPECT_EQ(W.extent(0), k);
  EXPECT_EQ(W.extent(1), n);
  EXPECT_EQ(W.k_padded(), nv::padded_k(k));
  EXPECT_EQ(W.decompose().vals.extent(0), static_cast<std::size_t>(n));
  EXPECT_EQ(W.decompose().vals.extent(1), static_cast<std::size_t>(W.k_padded() / 2));
  const auto expected = tessera::reference::prune_2_4(B, k, n);
  EXPECT_EQ(from_view(tessera::to_dense(W)), expected) << "k " << k << " n " << n;
  // round trip of an already-2:4 weight through the validating constructor
  const auto W2 = tessera::nv24_from_dense(to_view<T, Space>(expected, k, n));
  EXPECT_EQ(from_view(tessera::to_dense(W2)), expected);
}

TYPED_TEST(Nv24Format, PruneKeepsTheTwoLargestOfEveryFourAlongK) {
  using Space = TypeParam;
  std::uint64_t seed = 1;
  for (auto [k, n] : {std::pair<std::int64_t, std::int64_t>{0, 0}, {0, 5}, {5, 0}, {1, 1}, {3, 2}, {5, 7}, {64, 16},
                      {65, 17}, {130, 33}, {257, 40}}) {
    check_prune<double, Space>(k, n, seed++);
    check_prune<float, Space>(k, n, seed++);
    check_prune<Half, Space>(k, n, seed++);
    check_prune<tessera::bf16_t, Space>(k, n, seed++);
  }
}

TYPED_TEST(Nv24Format, TiesKeepTheEarlierEntries) {
  using Space = TypeParam;
  // column 0: all equal -> rows 0, 1 kept; column 1: -3 and 3 tie for largest -> rows 1 and 2
  const std::vector<double> B = {1, 0.5, 1, -3, 1, 3, 1, 0.5};
  const auto W = tessera::prune_nv24(to_view<double, Space>(B, 4, 2));
  EXPECT_EQ(from_view(tessera::to_dense(W)), (std::vector<double>{1, 0, 1, -3, 0, 3, 0, 0}));
}

// A NaN ranks above every magnitude wherever it sits in its group: it is kept (and shows
// in the products) rather than dropped for a smaller number.
TYPED_TEST(Nv24Format, NaNsAreKeptAsTheLargest) {
  using Space = TypeParam;
  const double nan = std::nan("");
  // columns: [1, NaN, 2, 3] -> NaN and 3; [NaN, 1, 2, 3] -> NaN and 3; [5, 1, NaN, NaN] -> both NaNs
  const std::vector<double> B = {1, nan, 5, nan, 1, 1, 2, 2, nan, 3, 3, nan};
  const auto pruned = from_view(tessera::to_dense(tessera::prune_nv24(to_view<double, Space>(B, 4, 3))));
  const std::vector<double> expected = {0, nan, 0, nan, 0, 0, 0, 0, nan, 3, 3, nan};
  ASSERT_EQ(pruned.size(), expected.size());
  for (std::size_t i = 0; i < expected.size(); ++i)
    EXPECT_TRUE(std::isnan(expected[i]) ? std::isnan(pruned[i]) : pruned[i] == expected[i]) << "entry " << i;
}

TYPED_TEST(Nv24Format, NonConformingWeightNamesTheFirstOffendingGroup) {
  using Space = TypeParam;
  const std::int64_t k = 70, n = 9;
  auto B = tessera::reference::prune_2_4(random_dense<double>(k, n, 5), k, n);
  // two violations: column 6 group 3 (rows 12..15) and column 2 group 9 (rows 36..39); the
  // first in the encoder's order (columns of B, then groups) is column 2
  for (std::int64_t r = 12; r < 16; ++r) B[r * n + 6] = 0.25;
  for (std::int64_t r = 36; r < 39; ++r) B[r * n + 2] = -0.5;
  B[39 * n + 2] = 0.0;
  try {
    tessera::nv24_from_dense(to_view<double, Space>(B, k, n));
    FAIL() << "no FormatError";
  } catch (const tessera::FormatError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("column 2 of the weight, group 9 (rows 36..39) has 3 nonzeros"), std::string::npos) << msg;
  }
  // a partial last group (k = 7: rows 4..6) is checked too
  std::vector<double> tail(static_cast<std::size_t>(7 * 1), 0.0);
  tail[4] = tail[5] = tail[6] = 1.0;
  try {
    tessera::nv24_from_dense(to_view<double, Space>(tail, 7, 1));
    FAIL() << "no FormatError";
  } catch (const tessera::FormatError& e) {
    EXPECT_NE(std::string(e.what()).find("column 0 of the weight, group 1 (rows 4..6) has 3 nonzeros"),
              std::string::npos)
        << e.what();
  }
}

// Extents whose padding, value array or metadata overflow are an OverflowError before
// anything is allocated or compared (they wrapped: a segfault, or an "expected -4.6e18").
TEST(Nv24Extents, ShapesThatOverflowAreRefused) {
  const double one = 1.0;
  const std::int64_t big = std::int64_t{1} << 34;
  EXPECT_THROW((void)tessera::prune_nv24(tessera_test::broadcast_view(big, big, one)), tessera::OverflowError);
  // k x n values fit int64, their bytes do not (2^61 doubles).
  const auto wide = tessera_test::broadcast_view(std::int64_t{1} << 32, std::int64_t{1} << 30, one);
  EXPECT_THROW((void)tessera::prune_nv24(wide), tessera::OverflowError);
  const std::int64_t largest = std::numeric_limits<std::int64_t>::max();
  EXPECT_THROW((tessera::Nv24Tensor<double, Kokkos::Serial>(largest, 20, {})), tessera::OverflowError);
  EXPECT_THROW((tessera::Nv24Tensor<double, Kokkos::Serial>(64, largest, {})), tessera::OverflowError);
}

TYPED_TEST(Nv24Format, MovesBetweenSpacesAndAdoptsCheckedArrays) {
  using Space = TypeParam;
  const std::int64_t k = 100, n = 20;
  const auto B = tessera::reference::prune_2_4(random_dense<float>(k, n, 9), k, n);
  const auto W = tessera::nv24_from_dense(to_view<float, Space>(B, k, n));
  const auto Ws = W.template to<Kokkos::Serial>();
  EXPECT_EQ(from_view(tessera::to_dense(Ws)), B);
  const auto back = Ws.template to<Space>();
  EXPECT_EQ(from_view(tessera::to_dense(back)), B);

  // adopted arrays: a copy of W's arrays is accepted, a broken nibble or a value in the
  // k padding is not, wrong extents are a ShapeError
  using W_t = tessera::Nv24Tensor<float, Space>;
  auto copy = [&] {
    typename W_t::Storage s;
    s.vals = typename W_t::vals_view("v", W.decompose().vals.extent(0), W.decompose().vals.extent(1));
    s.meta = typename W_t::meta_view("m", W.decompose().meta.extent(0));
    Kokkos::deep_copy(s.vals, W.decompose().vals);
    Kokkos::deep_copy(s.meta, W.decompose().meta);
    return s;
  };
  EXPECT_EQ(from_view(tessera::to_dense(tessera::nv24_from_arrays<float, Space>(k, n, copy()))), B);
  // A copy with the nibble of (column, group) set to positions (i0, i1): refused, naming it.
  const auto expect_bad_nibble = [&](std::int64_t column, std::int64_t group, int i0, int i1,
                                     const std::string& named) {
    auto s = copy();
    const auto slot = nv::meta_slot(column, group, W.k_padded());
    auto hm = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), s.meta);
    hm(slot.word) = (hm(slot.word) & ~(0xFu << slot.shift)) | (std::uint32_t(nv::nibble(i0, i1)) << slot.shift);
    Kokkos::deep_copy(s.meta, hm);
    try {
      tessera::nv24_from_arrays<float, Space>(k, n, s);
      ADD_FAILURE() << "no FormatError for " << named;
    } catch (const tessera::FormatError& e) {
      EXPECT_NE(std::string(e.what()).find(named), std::string::npos) << e.what();
    }
  };
  expect_bad_nibble(13, 5, 2, 1, "column 13, group 5");
  // n = 20: columns 20..31 of the second row tile are padding, their nibbles checked too
  expect_bad_nibble(25, 3, 1, 0, "padding column 25 (n = 20), group 3 is 0x1");
  {
    auto s = copy();
    auto hv = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), s.vals);
    hv(4, 2 * 26) = 1.0f;  // group 26 covers rows 104..107 >= k = 100: padding
    Kokkos::deep_copy(s.vals, hv);
    EXPECT_THROW((tessera::nv24_from_arrays<float, Space>(k, n, s)), tessera::FormatError);
  }
  EXPECT_THROW((W_t(k + 64, n, copy())), tessera::ShapeError);
  EXPECT_THROW((W_t(k, n + 1, copy())), tessera::ShapeError);
}

}  // namespace
