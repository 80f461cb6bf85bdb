#pragma once
// Compares a sparse kernel result with a reference HostCoo: the same set of
// coordinates (exactly: structure is deterministic) and each value within
// tolerance x its sum of |terms| (the reference of the same product on absolute
// values, which has the same structure: the references keep every reached entry), plus an
// absolute floor where the value type cannot hold the terms (float products of values below
// its normal range).
// Both sides are put in lexicographic mode order first, so results stored
// column-major (CSC, transposed output) compare directly.
#include <algorithm>
#include <cstdint>
#include <numeric>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "tessera/core/coo.hpp"
#include "tessera_test/compare.hpp"

namespace tessera_test {

inline tessera::HostCoo<double> lexicographic(const tessera::HostCoo<double>& coo) {
  const int N = coo.order();
  std::vector<std::int64_t> ids(coo.nnz());
  std::iota(ids.begin(), ids.end(), std::int64_t{0});
  std::stable_sort(ids.begin(), ids.end(), [&](std::int64_t a, std::int64_t b) {
    return std::lexicographical_compare(coo.coords.begin() + a * N, coo.coords.begin() + (a + 1) * N,
                                        coo.coords.begin() + b * N, coo.coords.begin() + (b + 1) * N);
  });
  tessera::HostCoo<double> out;
  out.shape = coo.shape;
  for (std::int64_t id : ids) {
    out.coords.insert(out.coords.end(), coo.coords.begin() + id * N, coo.coords.begin() + (id + 1) * N);
    out.values.push_back(coo.values[id]);
  }
  return out;
}

template <class T>
void expect_same_entries(const tessera::HostCoo<T>& got_any_order, const tessera::HostCoo<double>& ref_any_order,
                         const tessera::HostCoo<double>& scale_any_order, double tolerance, const std::string& what,
                         double absolute_floor = 0) {
  tessera::HostCoo<double> g;
  g.shape = got_any_order.shape;
  g.coords = got_any_order.coords;
  g.values.assign(got_any_order.values.begin(), got_any_order.values.end());
  const auto got = lexicographic(g), ref = lexicographic(ref_any_order), scale = lexicographic(scale_any_order);
  ASSERT_EQ(got.shape, ref.shape) << what;
  ASSERT_EQ(got.nnz(), ref.nnz()) << what << ": number of stored entries";
  ASSERT_TRUE(got.coords == ref.coords) << what << ": stored coordinates differ";
  ASSERT_TRUE(scale.coords == ref.coords) << what << ": the scale reference has other coordinates";
  EXPECT_TRUE(entrywise_close(got.values, ref.values, scale.values, tolerance, absolute_floor)) << what;
}

}  // namespace tessera_test
