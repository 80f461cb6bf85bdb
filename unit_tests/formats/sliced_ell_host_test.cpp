// SlicedEll layout (formats/sliced_ell.hpp): rows sorted by length inside their window,
// column-major slices of eight, padding marked and valued 0, narrow (16-bit offsets)
// and wide (32-bit) columns, built from CSR tensors with duplicates, empty rows and no
// rows at all.
#include <algorithm>
#include <cstdint>
#include <vector>

#include <Kokkos_Core.hpp>
#include <gtest/gtest.h>

#include "tessera/formats/convert.hpp"
#include "tessera/formats/sliced_ell.hpp"
#include "tessera_test/random_coo.hpp"

namespace {

using tessera::HostCoo;
using Host = Kokkos::DefaultHostExecutionSpace;
using Ell = tessera::SlicedEll<double>;
using tessera::SlicedEllColumns;

// Column of stored entry q of slice s, -1 for padding, whichever the layout.
int column_of(const Ell& e, std::int64_t s, std::int64_t q) {
  if (!e.narrow) return e.crd(q);
  return e.offset(q) == Ell::kPadOffset ? -1 : e.base(s) + e.offset(q);
}

// Row r holds entries (r, j) for j in cols[r], value 10 r + j.
HostCoo<double> rows_with(std::int64_t ncols, const std::vector<std::vector<std::int64_t>>& cols) {
  HostCoo<double> coo;
  coo.shape = {static_cast<std::int64_t>(cols.size()), ncols};
  for (std::size_t r = 0; r < cols.size(); ++r)
    for (const auto j : cols[r]) {
      coo.coords.push_back(static_cast<std::int64_t>(r));
      coo.coords.push_back(j);
      coo.values.push_back(10.0 * static_cast<double>(r) + static_cast<double>(j));
    }
  return coo;
}

TEST(SlicedEll, KnownMatrixLayout) {
  // Row lengths 1 3 0 2 5 1 0 2 4 1: sorted (stable) 4 8 1 3 7 0 5 9 | 2 6.
  const auto coo = rows_with(6, {{2}, {0, 3, 5}, {}, {1, 4}, {0, 1, 2, 3, 4}, {5}, {}, {0, 5}, {1, 2, 3, 4}, {3}});
  const auto A = tessera::from_coo<double, tessera::CSR, Host>(coo);
  const Ell e = tessera::make_sliced_ell(A, SlicedEllColumns::Wide);
  ASSERT_FALSE(e.narrow);
  EXPECT_EQ(e.rows, 10);
  EXPECT_EQ(e.cols, 6);
  EXPECT_EQ(e.nnz, 19);
  ASSERT_EQ(e.slices(), 2);
  EXPECT_EQ(e.start(0), 0);
  EXPECT_EQ(e.start(1), 40);  // 8 lanes x longest row (5)
  EXPECT_EQ(e.start(2), 40);  // rows 2 and 6 are empty
  EXPECT_DOUBLE_EQ(e.padding_ratio(), 40.0 / 19.0);
  const std::vector<int> row_of = {4, 8, 1, 3, 7, 0, 5, 9, 2, 6, -1, -1, -1, -1, -1, -1};
  ASSERT_EQ(e.row_of.extent(0), row_of.size());
  for (std::size_t i = 0; i < row_of.size(); ++i) EXPECT_EQ(e.row_of(i), row_of[i]) << "lane " << i;
  // Lane 2 holds row 1 (columns 0 3 5), then padding.
  const std::vector<int> lane2 = {0, 3, 5, -1, -1};
  for (std::int64_t k = 0; k < 5; ++k) {
    EXPECT_EQ(e.crd(8 * k + 2), lane2[k]) << "entry " << k;
    EXPECT_DOUBLE_EQ(e.vals(8 * k + 2), lane2[k] < 0 ? 0.0 : 10.0 + lane2[k]) << "entry " << k;
  }
  // Lane 0 holds row 4, all five columns.
  for (std::int64_t k = 0; k < 5; ++k) {
    EXPECT_EQ(e.crd(8 * k), k);
    EXPECT_DOUBLE_EQ(e.vals(8 * k), 40.0 + static_cast<double>(k));
  }
  // The narrow layout of the same matrix: slice 0's columns from 0, slice 1 empty.
  const Ell n = tessera::make_sliced_ell(A);
  ASSERT_TRUE(n.narrow);
  EXPECT_EQ(n.crd.extent(0), 0u);
  EXPECT_EQ(n.base(0), 0);
  for (std::int64_t k = 0; k < 5; ++k) {
    EXPECT_EQ(n.offset(8 * k + 2), lane2[k] < 0 ? Ell::kPadOffset : lane2[k]) << "entry " << k;
    EXPECT_EQ(n.vals(8 * k + 2), e.vals(8 * k + 2));
  }
}

TEST(SlicedEll, NarrowOnlyWhenEverySliceSpansFewerThan65535Columns) {
  // Rows 0-7 (slice 0) use columns 70000..70009, rows 8-15 (slice 1) columns 3 and 65537:
  // slice 0 fits in 16-bit offsets from 70000, slice 1 (span 65534) just fits.
  std::vector<std::vector<std::int64_t>> cols(16);
  for (std::int64_t r = 0; r < 8; ++r) cols[r] = {70000 + r, 70002 + r};
  for (std::int64_t r = 8; r < 16; ++r) cols[r] = {3, 65537};
  const Ell fits = tessera::make_sliced_ell(tessera::from_coo<double, tessera::CSR, Host>(rows_with(80000, cols)));
  ASSERT_TRUE(fits.narrow);
  EXPECT_EQ(fits.base(0), 70000);
  EXPECT_EQ(fits.base(1), 3);
  for (std::int64_t l = 0; l < 8; ++l) {
    EXPECT_EQ(column_of(fits, 1, fits.start(1) + l), 3);
    EXPECT_EQ(column_of(fits, 1, fits.start(1) + 8 + l), 65537);
  }
  cols[15] = {3, 65538};  // span 65535: the padding marker's value, so wide
  const Ell wide = tessera::make_sliced_ell(tessera::from_coo<double, tessera::CSR, Host>(rows_with(80000, cols)));
  EXPECT_FALSE(wide.narrow);
  EXPECT_EQ(wide.crd(wide.start(1) + 8 + 7), 65538);
}

TEST(SlicedEll, SortsOnlyInsideWindowsAndKeepsEveryEntry) {
  // 300 rows of length r % 7 (duplicates summed by from_coo do not change the pattern here).
  std::vector<std::vector<std::int64_t>> cols(300);
  for (std::int64_t r = 0; r < 300; ++r)
    for (std::int64_t k = 0; k < r % 7; ++k) cols[r].push_back((r * 13 + k * 31) % 90);
  for (auto& c : cols) std::sort(c.begin(), c.end()), c.erase(std::unique(c.begin(), c.end()), c.end());
  const auto A = tessera::from_coo<double, tessera::CSR, Host>(rows_with(90, cols));
  for (const auto layout : {SlicedEllColumns::Auto, SlicedEllColumns::Wide}) {
    std::vector<int> seen(300, 0);
    const Ell e = tessera::make_sliced_ell(A, layout);
    EXPECT_EQ(e.narrow, layout == SlicedEllColumns::Auto);
    ASSERT_EQ(e.slices(), 38);  // ceil(300 / 8)
    for (std::int64_t s = 0; s < e.slices(); ++s)
      for (std::int64_t l = 0; l < 8; ++l) {
        const std::int64_t slot = 8 * s + l;
        const int r = e.row_of(slot);
        if (slot >= 300) {
          EXPECT_EQ(r, -1);
          continue;
        }
        ASSERT_GE(r, 0);
        ++seen[r];
        EXPECT_EQ(r / Ell::kSortWindow, slot / Ell::kSortWindow) << "row " << r << " left its window";
        if (slot % Ell::kSortWindow != 0) {  // lengths do not grow inside a window
          const int prev = e.row_of(slot - 1);
          EXPECT_GE(cols[prev].size(), cols[r].size()) << "slot " << slot;
        }
        std::vector<std::int64_t> got;
        for (std::int64_t q = e.start(s) + l; q < e.start(s + 1); q += 8) {
          const int c = column_of(e, s, q);
          if (c < 0) {
            EXPECT_EQ(e.vals(q), 0.0);
            continue;
          }
          got.push_back(c);
          EXPECT_DOUBLE_EQ(e.vals(q), 10.0 * r + static_cast<double>(c));
        }
        EXPECT_EQ(got, cols[r]) << "row " << r;
      }
    for (int r = 0; r < 300; ++r) EXPECT_EQ(seen[r], 1) << "row " << r;
  }
}

TEST(SlicedEll, DuplicatesAreSummedAndEmptyShapesWork) {
  const auto dup = tessera::from_coo<double, tessera::CSR, Host>(tessera_test::random_coo({20, 20}, 5000, 3));
  const Ell d = tessera::make_sliced_ell(dup);
  EXPECT_EQ(d.nnz, dup.nnz());
  std::int64_t live = 0;
  for (std::int64_t s = 0; s < d.slices(); ++s)
    for (std::int64_t q = d.start(s); q < d.start(s + 1); ++q) live += column_of(d, s, q) >= 0;
  EXPECT_EQ(live, dup.nnz());

  const Ell none =
      tessera::make_sliced_ell(tessera::from_coo<double, tessera::CSR, Host>(tessera_test::random_coo({0, 7}, 0, 1)));
  EXPECT_EQ(none.slices(), 0);
  EXPECT_EQ(none.padding_ratio(), 1.0);
  const auto empty =
      tessera::make_sliced_ell(tessera::from_coo<float, tessera::CSR, Host>(tessera_test::random_coo({13, 5}, 0, 1)));
  EXPECT_EQ(empty.slices(), 2);
  EXPECT_EQ(empty.start(2), 0);
  EXPECT_EQ(empty.row_of(12), 12);
  EXPECT_EQ(empty.row_of(13), -1);
}

}  // namespace
