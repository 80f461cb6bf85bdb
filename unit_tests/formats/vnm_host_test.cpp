// VNM encoding on the host spaces: pattern checks, pruning by magnitude, encoding with
// validation (the error names the first offending window and column group), adopted arrays,
// round trips to dense, the stage plans of tiled kernels, and nm_spmm's portable kernel
// against the double-precision oracle on random and real matrices.
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include <Kokkos_Core.hpp>
#include <gtest/gtest.h>

#include "tessera/core/io/matrix_market.hpp"
#include "tessera/formats/vnm.hpp"
#include "tessera/kernels/nm_spmm/nm_spmm.hpp"
#include "tessera_test/broadcast_view.hpp"
#include "tessera_test/data.hpp"
#include "tessera_test/vnm.hpp"

namespace {

using tessera::VNM;
using tessera::VnmPattern;
using tessera_test::check_nm_spmm;
using tessera_test::random_dense;
using tessera_test::to_host_vector;
using tessera_test::to_view;
using Host = Kokkos::DefaultHostExecutionSpace;

template <class T>
using HostMatrix = Kokkos::View<T**, Kokkos::LayoutRight, Host>;

std::vector<VnmPattern> some_patterns() {
  std::vector<VnmPattern> out;
  for (int l : {4, 8, 16, 32, 64})
    for (auto nm : std::vector<std::pair<int, int>>{{1, 2}, {2, 4}, {3, 4}, {1, 8}, {5, 8}, {2, 7}, {16, 32}, {4, 32}, {31, 32}})
      out.push_back({nm.first, nm.second, l});
  return out;
}

TEST(VnmPattern, RejectsBadPatterns) {
  for (VnmPattern p : {VnmPattern{0, 4, 4}, {4, 4, 4}, {5, 4, 4}, {1, 33, 4}, {-1, 8, 4}, {1, 4, 3}, {1, 4, 128}, {1, 4, 0}})
    EXPECT_THROW(tessera::check_vnm_pattern(p), tessera::FormatError) << p.n << ":" << p.m << " L=" << p.l;
  EXPECT_NO_THROW(tessera::check_vnm_pattern({31, 32, 64}));
  EXPECT_NO_THROW(tessera::check_vnm_pattern({1, 2, 4}));
}

TEST(VnmPrune, KeepsTheLargestVectorsAndPads) {
  for (const VnmPattern& p : some_patterns()) {
    SCOPED_TRACE(std::to_string(p.n) + ":" + std::to_string(p.m) + " L=" + std::to_string(p.l));
    const std::int64_t k = 3 * p.m + 1, n = 2 * p.l + 3;  // both padded
    const auto dense = random_dense<double>(k, n, 11 + p.n + p.m + p.l);
    const auto B = tessera::prune_vnm<Host>(to_view<double, Host>(dense, k, n, "dense"), p);
    EXPECT_EQ(B.extent(0), k);
    EXPECT_EQ(B.extent(1), n);
    const auto& e = B.extents();
    EXPECT_EQ(e.padded_rows, 4 * p.m);
    EXPECT_EQ(e.padded_cols, 3 * p.l);
    EXPECT_EQ(static_cast<std::int64_t>(B.values().extent(0)), 4 * p.n);
    EXPECT_EQ(static_cast<std::int64_t>(B.meta().extent(1)), 3);
    const auto pruned = tessera::to_dense(B);
    // Per window and group: kept vectors are copied exactly, dropped ones are zero, and no
    // dropped vector is larger than a kept one.
    for (std::int64_t w = 0; w < e.windows; ++w)
      for (std::int64_t g = 0; g < e.groups; ++g) {
        double smallest_kept = INFINITY, largest_dropped = 0;
        int kept = 0;
        for (int d = 0; d < p.m; ++d) {
          const std::int64_t i = w * p.m + d;
          if (i >= k) continue;
          double norm = 0;
          bool is_kept = false;
          for (std::int64_t j = g * p.l; j < std::min(n, (g + 1) * p.l); ++j) {
            norm += dense[i * n + j] * dense[i * n + j];
            is_kept = is_kept || pruned(i, j) != 0.0;
          }
          for (std::int64_t j = g * p.l; j < std::min(n, (g + 1) * p.l); ++j)
            ASSERT_EQ(pruned(i, j), is_kept ? dense[i * n + j] : 0.0) << "row " << i << " col " << j;
          kept += is_kept;
          if (is_kept) smallest_kept = std::min(smallest_kept, norm);
          else largest_dropped = std::max(largest_dropped, norm);
        }
        EXPECT_LE(kept, p.n);
        EXPECT_GE(smallest_kept, largest_dropped) << "window " << w << " group " << g;
        if (w < e.windows - 1 || k % p.m == 0) EXPECT_EQ(kept, p.n);
      }
    // meta rises strictly inside every window and group.
    auto meta = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), B.meta());
    EXPECT_NO_THROW(tessera::check_vnm_meta(meta.data(), e, p));
  }
}

// A vector holding a NaN has a NaN norm, which ranks above every norm: it is kept (and
// shows in the products) rather than dropped, and the ranking stays a valid sort order.
TEST(VnmPrune, NaNVectorsAreKeptAsTheLargest) {
  const double nan = std::nan("");
  const VnmPattern p{2, 4, 4};
  // one window of 4 rows, one group of 4 columns; norms NaN, 2, 3, 4 -> rows 0 and 3 kept
  std::vector<double> dense(16);
  for (int j = 0; j < 4; ++j) dense[j] = 1, dense[4 + j] = 1, dense[8 + j] = 1.5, dense[12 + j] = 2;
  dense[1] = nan;
  const auto pruned = tessera::to_dense(tessera::prune_vnm<Host>(to_view<double, Host>(dense, 4, 4, "dense"), p));
  for (int j = 0; j < 4; ++j) {
    EXPECT_TRUE(j == 1 ? std::isnan(pruned(0, j)) : pruned(0, j) == 1.0) << "column " << j;
    EXPECT_EQ(pruned(1, j), 0.0);
    EXPECT_EQ(pruned(2, j), 0.0);
    EXPECT_EQ(pruned(3, j), 2.0);
  }
}

// Norms whose squares leave the range of a double: the vector of larger norm is kept, also
// where both squares would be inf or 0, or the larger one inf or 0 beside a finite one.
TEST(VnmPrune, RanksNormsWhoseSquaresOverflowOrUnderflow) {
  const double inf = INFINITY;
  struct Case {
    double smaller, larger;
  };
  for (const Case c : {Case{1e200, 1e300}, Case{1e300, inf}, Case{0.0, 1e-170}, Case{1e-200, 1e-170},
                       Case{1e-300, 1e150}, Case{4.9e-324, 1e-323}, Case{1.7e308, inf}, Case{1.0, 1.7e308}}) {
    for (bool larger_first : {false, true}) {
      SCOPED_TRACE(std::to_string(c.smaller) + " vs " + std::to_string(c.larger) +
                   (larger_first ? ", larger first" : ""));
      // One window of 2 rows (1:2, L = 4): rows of 4 equal values, the larger in row `big`.
      const int big = larger_first ? 0 : 1;
      std::vector<double> dense(8);
      for (int j = 0; j < 4; ++j) dense[big * 4 + j] = c.larger, dense[(1 - big) * 4 + j] = c.smaller;
      const auto pruned =
          tessera::to_dense(tessera::prune_vnm<Host>(to_view<double, Host>(dense, 2, 4, "dense"), {1, 2, 4}));
      for (int j = 0; j < 4; ++j) {
        EXPECT_EQ(pruned(big, j), c.larger) << "column " << j;
        EXPECT_EQ(pruned(1 - big, j), 0.0) << "column " << j;
      }
    }
  }
  // Vectors of different lengths of values: one 1e200 against four 0.9e200 (norm 1.8e200).
  std::vector<double> dense = {1e200, 0, 0, 0, 0.9e200, 0.9e200, 0.9e200, 0.9e200};
  const auto pruned =
      tessera::to_dense(tessera::prune_vnm<Host>(to_view<double, Host>(dense, 2, 4, "dense"), {1, 2, 4}));
  EXPECT_EQ(pruned(0, 0), 0.0);
  EXPECT_EQ(pruned(1, 0), 0.9e200);
}

TEST(VnmEncode, RoundTripsThroughDense) {
  for (const VnmPattern& p : some_patterns()) {
    const std::int64_t k = 5 * p.m - 1, n = 3 * p.l - 1;
    const auto B = tessera::prune_vnm<Host>(to_view<float, Host>(random_dense<float>(k, n, 5), k, n, "dense"), p);
    const auto dense = tessera::to_dense(B);
    const auto again = tessera::from_dense<VNM>(dense, p);
    EXPECT_EQ(to_host_vector(tessera::to_dense(again)), to_host_vector(dense));
    // Pruning an already-pruned matrix changes nothing either.
    EXPECT_EQ(to_host_vector(tessera::to_dense(tessera::prune_vnm(dense, p))), to_host_vector(dense));
  }
  // Zero matrix and empty shapes.
  HostMatrix<double> zero("zero", 10, 9);
  const auto Z = tessera::from_dense<VNM>(zero, {2, 4, 8});
  EXPECT_EQ(to_host_vector(tessera::to_dense(Z)), std::vector<double>(90, 0.0));
  for (auto shape : std::vector<std::pair<int, int>>{{0, 5}, {7, 0}, {0, 0}}) {
    HostMatrix<double> empty("empty", shape.first, shape.second);
    const auto E = tessera::from_dense<VNM>(empty, {1, 2, 4});
    EXPECT_EQ(E.extent(0), shape.first);
    EXPECT_EQ(E.extent(1), shape.second);
    EXPECT_EQ(tessera::to_dense(E).size(), static_cast<std::size_t>(shape.first * shape.second));
  }
}

TEST(VnmEncode, RejectsNonConformingWindowsNamingTheFirst) {
  const VnmPattern p{2, 4, 8};
  HostMatrix<double> dense("dense", 16, 24);  // 4 windows x 3 column groups
  // Window 2, group 1: three nonzero vectors (rows 8, 9, 11). Window 3, group 0 is bad too.
  for (int row : {8, 9, 11}) dense(row, 8 + row % 8) = 1.0;
  for (int row : {12, 13, 14}) dense(row, 0) = 1.0;
  try {
    tessera::from_dense<VNM>(dense, p);
    FAIL() << "a non-conforming matrix was accepted";
  } catch (const tessera::FormatError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("window 2 (rows 8..11)"), std::string::npos) << msg;
    EXPECT_NE(msg.find("column group 1 (columns 8..15)"), std::string::npos) << msg;
    EXPECT_NE(msg.find("3 nonzero vectors"), std::string::npos) << msg;
  }
  // The last window and group are named as far as the matrix reaches (10 x 70, 1:8, L = 16).
  HostMatrix<double> edge("edge", 10, 70);
  edge(8, 66) = edge(9, 69) = 1.0;
  try {
    tessera::from_dense<VNM>(edge, {1, 8, 16});
    FAIL() << "a non-conforming matrix was accepted";
  } catch (const tessera::FormatError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("window 1 (rows 8..9), column group 4 (columns 64..69)"), std::string::npos) << msg;
  }
  // Fewer than N nonzero vectors is fine (zero vectors fill the slots).
  HostMatrix<double> sparse("sparse", 16, 24);
  sparse(5, 3) = 2.0;
  EXPECT_EQ(tessera::to_dense(tessera::from_dense<VNM>(sparse, p))(5, 3), 2.0);
  EXPECT_THROW(tessera::from_dense<VNM>(sparse, {2, 4, 6}), tessera::FormatError);
}

// Shapes whose padded extents or arrays overflow are an OverflowError before anything is
// allocated or compared (they wrapped: a segfault, or an "expected -2.3e18").
TEST(VnmExtents, ShapesThatOverflowAreRefused) {
  const double one = 1.0;
  const auto huge = tessera_test::broadcast_view(std::int64_t{1} << 31, std::int64_t{1} << 30, one);  // 2^64 bytes
  EXPECT_THROW((void)tessera::prune_vnm<Host>(huge, {1, 2, 4}), tessera::OverflowError);
  const std::int64_t largest = std::numeric_limits<std::int64_t>::max();
  using T = tessera::Tensor<double, VNM, Host>;
  EXPECT_THROW(T({largest, 32}, {2, 8, 16}, {}), tessera::OverflowError);
  EXPECT_THROW(T({32, largest}, {2, 8, 16}, {}), tessera::OverflowError);
  EXPECT_THROW(T({std::int64_t{1} << 32, std::int64_t{1} << 32}, {2, 8, 16}, {}), tessera::OverflowError);
}

TEST(VnmArrays, AdoptsValidArraysAndRejectsBadMeta) {
  using T = tessera::Tensor<double, VNM, Host>;
  const VnmPattern p{2, 4, 4};
  auto make = [&](std::int64_t rows, std::int64_t groups) {
    return T::Storage{T::vals_view("vals", rows, groups * 4), T::meta_view("meta", rows, groups)};
  };
  auto good = make(4, 2);  // k = 8 (2 windows), n = 8
  for (int r = 0; r < 4; ++r)
    for (int g = 0; g < 2; ++g) good.meta(r, g) = static_cast<std::uint8_t>(r % 2 == 0 ? g : 3);
  for (int j = 0; j < 8; ++j) good.vals(1, j) = j;
  const auto B = tessera::from_vnm_arrays<double, Host>({8, 8}, p, good);
  EXPECT_EQ(tessera::to_dense(B)(3, 5), 5.0);  // row 1 = window 0 slot 1, position 3

  auto out_of_window = make(4, 2);
  for (int r = 0; r < 4; ++r)
    for (int g = 0; g < 2; ++g) out_of_window.meta(r, g) = static_cast<std::uint8_t>(r % 2);
  out_of_window.meta(3, 1) = 4;  // window 1, group 1, slot 1
  try {
    tessera::from_vnm_arrays<double, Host>({8, 8}, p, out_of_window);
    FAIL() << "meta past M accepted";
  } catch (const tessera::FormatError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("window 1"), std::string::npos) << msg;
    EXPECT_NE(msg.find("column group 1"), std::string::npos) << msg;
    EXPECT_NE(msg.find("slot 1"), std::string::npos) << msg;
  }
  auto not_rising = make(4, 2);
  for (int r = 0; r < 4; ++r)
    for (int g = 0; g < 2; ++g) not_rising.meta(r, g) = static_cast<std::uint8_t>(r % 2);
  not_rising.meta(1, 0) = 0;  // window 0, group 0: positions 0, 0
  EXPECT_THROW((tessera::from_vnm_arrays<double, Host>({8, 8}, p, not_rising)), tessera::FormatError);
  EXPECT_THROW((tessera::from_vnm_arrays<double, Host>({8, 8}, p, make(6, 2))), tessera::ShapeError);
  EXPECT_THROW((tessera::from_vnm_arrays<double, Host>({8, 9}, p, make(4, 2))), tessera::ShapeError);
}

TEST(VnmTensor, MirrorsAcrossSpacesAndDecomposes) {
  const VnmPattern p{3, 8, 16};
  const auto B = tessera::prune_vnm<Host>(to_view<float, Host>(random_dense<float>(40, 50, 3), 40, 50, "d"), p);
  const auto S = B.to<Kokkos::Serial>();
  EXPECT_EQ(to_host_vector(tessera::to_dense(S)), to_host_vector(tessera::to_dense(B)));
  const auto& arrays = S.decompose();
  EXPECT_EQ(arrays.vals.extent(0), 15u);  // 5 windows x 3
  EXPECT_EQ(arrays.vals.extent(1), 64u);
  EXPECT_EQ(arrays.meta.extent(1), 4u);
  EXPECT_EQ(S.pattern().n, 3);
  EXPECT_EQ(S.nnz(), 15 * 64);
}

// Walks a stage plan the way a tiled kernel does (every stage of every tile, columns from the
// column list or the plain rule, offsets from their stage base) and checks it reproduces B.
void check_plan(const std::vector<double>& dense, std::int64_t k, std::int64_t n, const VnmPattern& p, int tile_cols,
                bool packed) {
  SCOPED_TRACE(std::to_string(p.n) + ":" + std::to_string(p.m) + " L=" + std::to_string(p.l) +
               (packed ? " packed" : " plain"));
  const auto e = tessera::vnm_extents(k, n, p);
  std::vector<double> vals(e.stored_rows * e.padded_cols);
  std::vector<std::uint8_t> meta(e.stored_rows * e.groups);
  tessera::prune_vnm_host(dense.data(), n, e, p, vals.data(), meta.data());
  std::vector<double> expected(k * n);
  tessera::decode_vnm_host(vals.data(), meta.data(), e, p, expected.data(), n);
  const auto plan = tessera::vnm_stage_plan(meta.data(), e, p, tile_cols, packed);
  ASSERT_EQ(plan.offsets_ld % 16, 0) << "group rows start 16-byte aligned";
  std::vector<double> rebuilt(k * n, 0.0);
  const std::int64_t tiles = tessera::vnm_column_tiles(e, tile_cols);
  for (std::int64_t t = 0; t < tiles; ++t) {
    const std::int64_t pt = packed ? t : 0;
    std::int64_t next_row = 0;
    for (std::int32_t s = plan.tile_stage_pos[pt]; s < plan.tile_stage_pos[pt + 1]; ++s) {
      const auto& st = plan.stage[s];
      ASSERT_EQ(st.row, next_row) << "stages must cover the stored rows in order";
      ASSERT_TRUE(tessera::vnm_stage_fits(st.cols, st.slots, tile_cols)) << st.cols << " columns, " << st.slots << " rows";
      ASSERT_EQ(st.base % 16, 0);
      ASSERT_LE(st.base + tessera::kVnmOffsetRowBytes, plan.offsets_ld) << "a full stage copy stays inside the row";
      next_row += st.slots;
      for (std::int64_t g = t * tile_cols / p.l; g < std::min(e.groups, (t + 1) * tile_cols / p.l); ++g)
        for (int j = 0; j < st.slots; ++j) {
          const int c = plan.offsets[g * plan.offsets_ld + st.base + j];
          ASSERT_LT(c, st.cols);
          const std::int64_t col = packed ? plan.column_list[s * tessera::kVnmStageColumns + c] : (st.row / p.n) * p.m + c;
          const std::int64_t r = st.row + j;
          if (col >= k) continue;
          for (std::int64_t q = g * p.l; q < std::min(n, (g + 1) * p.l); ++q) rebuilt[col * n + q] += vals[r * e.padded_cols + q];
        }
    }
    ASSERT_EQ(next_row, e.stored_rows);
  }
  EXPECT_EQ(rebuilt, expected);
}

TEST(VnmStagePlan, ReproducesTheMatrixPlainAndPacked) {
  for (const VnmPattern& p : some_patterns())
    for (bool packed : {false, true}) {
      const std::int64_t k = 7 * p.m + 3, n = 300;
      check_plan(random_dense<double>(k, n, 17), k, n, p, 128, packed);
    }
  // Packing at high sparsity: tiles use few columns, so stages span several windows.
  const VnmPattern sparse{1, 32, 32};
  const auto e = tessera::vnm_extents(1024, 128, sparse);
  std::vector<double> vals(e.stored_rows * e.padded_cols);
  std::vector<std::uint8_t> meta(e.stored_rows * e.groups);
  tessera::prune_vnm_host(random_dense<double>(1024, 128, 2).data(), 128, e, sparse, vals.data(), meta.data());
  const auto plan = tessera::vnm_stage_plan(meta.data(), e, sparse, 128, true);
  EXPECT_LT(plan.stages(), e.windows / 4);  // at most 4 of 32 columns per window: >= 8 windows a stage
  EXPECT_THROW(tessera::vnm_stage_plan(meta.data(), e, sparse, 100, true), tessera::ShapeError);
}

template <class Space>
void native_on_random(std::uint64_t seed) {
  for (const VnmPattern& p : some_patterns()) {
    const std::int64_t m = 13, k = 4 * p.m + 3, n = 2 * p.l + 5;
    check_nm_spmm<double, Space>(m, random_dense<double>(k, n, seed), k, n, p, seed + 1, "double");
    check_nm_spmm<float, Space>(m, random_dense<float>(k, n, seed + 2), k, n, p, seed + 3, "float");
  }
  // Every N:M for one L; edge shapes.
  for (int M = 2; M <= 32; ++M)
    for (int N = 1; N < M; ++N) check_nm_spmm<float, Space>(5, random_dense<float>(2 * M + 1, 9, M), 2 * M + 1, 9, {N, M, 4}, N, "all N:M");
  check_nm_spmm<double, Space>(0, random_dense<double>(8, 8, 1), 8, 8, {1, 2, 4}, 1, "m = 0");
  check_nm_spmm<double, Space>(3, random_dense<double>(0, 8, 1), 0, 8, {1, 2, 4}, 1, "k = 0");
  check_nm_spmm<double, Space>(3, random_dense<double>(8, 0, 1), 8, 0, {1, 2, 4}, 1, "n = 0");
  check_nm_spmm<double, Space>(1, random_dense<double>(3, 2, 1), 3, 2, {3, 32, 64}, 1, "k < M, n < L");
}

TEST(VnmSpmmNative, SerialMatchesReference) { native_on_random<Kokkos::Serial>(100); }
#ifdef KOKKOS_ENABLE_OPENMP
TEST(VnmSpmmNative, OpenMPMatchesReference) { native_on_random<Kokkos::OpenMP>(200); }
#endif

TEST(VnmSpmmNative, WeightsPrunedFromRealMatrices) {
  for (const std::string name : {"west0497", "polblogs", "watt_2"}) {
    const auto coo = tessera::io::read_matrix_market(tessera_test::real_matrix(name));
    const std::int64_t k = coo.shape[0], n = coo.shape[1];
    std::vector<double> dense(k * n, 0.0);
    for (std::int64_t e = 0; e < coo.nnz(); ++e) dense[coo.coord(e, 0) * n + coo.coord(e, 1)] += coo.values[e];
    check_nm_spmm<double, Host>(24, dense, k, n, {2, 8, 16}, 7, name);
    check_nm_spmm<float, Host>(17, std::vector<float>(dense.begin(), dense.end()), k, n, {1, 4, 4}, 8, name);
  }
}

TEST(VnmSpmmNative, RejectsBadShapesAndCudaOnHost) {
  const auto B = tessera::prune_vnm<Host>(to_view<double, Host>(random_dense<double>(8, 8, 1), 8, 8, "d"), {1, 2, 4});
  HostMatrix<double> A("A", 3, 7), C("C", 3, 8), A_ok("A", 3, 8), C_bad("C", 4, 8);
  EXPECT_THROW(tessera::nm_spmm(1.0, A, B, 0.0, C), tessera::ShapeError);
  EXPECT_THROW(tessera::nm_spmm(1.0, A_ok, B, 0.0, C_bad), tessera::ShapeError);
  EXPECT_THROW(tessera::nm_spmm(1.0, A_ok, B, 0.0, C, {tessera::NmSpmmAlgorithm::CudaTiled}), tessera::NotCompiled);
}

}  // namespace
