#pragma once
// Shared body of the formats tests; a per-backend file defines TestSpaces.
// Oracle: a std::map from coordinates to the summed value, built from the same
// COO input without any of the library's code.
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "tessera/tessera.hpp"
#include "tessera_test/data.hpp"
#include "tessera_test/random_coo.hpp"

#include "encodings_under_test.hpp"

namespace {

using Coords = std::vector<std::int64_t>;
using EntryMap = std::map<Coords, double>;

EntryMap reference_entries(const HostCoo<double>& coo) {
  EntryMap m;
  for (std::int64_t n = 0; n < coo.nnz(); ++n) {
    Coords c(coo.coords.begin() + n * coo.order(), coo.coords.begin() + (n + 1) * coo.order());
    m[c] += coo.values[n];
  }
  return m;
}

EntryMap entries_of(const HostCoo<double>& coo, bool drop_zeros) {
  EntryMap m;
  for (std::int64_t n = 0; n < coo.nnz(); ++n) {
    if (drop_zeros && coo.values[n] == 0.0) continue;
    Coords c(coo.coords.begin() + n * coo.order(), coo.coords.begin() + (n + 1) * coo.order());
    EXPECT_EQ(m.count(c), 0u) << "coordinate stored twice";
    m[c] = coo.values[n];
  }
  return m;
}

EntryMap without_zeros(EntryMap m) {
  for (auto it = m.begin(); it != m.end();) it = it->second == 0.0 ? m.erase(it) : std::next(it);
  return m;
}

// Checks a tensor holds exactly the reference entries, through to_coo and to_dense.
template <class Tens>
void expect_holds(const Tens& t, const EntryMap& ref, const std::string& what) {
  using Enc = typename Tens::encoding_type;
  SCOPED_TRACE(what);
  const auto coo = tessera::to_coo(t);
  const bool dense = last_level_dense<Enc>();
  const auto got = entries_of(coo, false);
  EXPECT_EQ(dense ? without_zeros(ref) : ref, got);
  if (!dense) EXPECT_EQ(t.nnz(), static_cast<std::int64_t>(ref.size()));
  // Entries come out in storage order.
  for (std::int64_t n = 1; n < coo.nnz(); ++n) {
    Coords a, b;
    for (int l = 0; l < Enc::order; ++l) {
      a.push_back(coo.coord(n - 1, Enc::mode_order[l]));
      b.push_back(coo.coord(n, Enc::mode_order[l]));
    }
    EXPECT_LT(a, b) << "entries " << n - 1 << " and " << n << " out of storage order";
  }
  // Dense image agrees entry by entry (where a dense image is affordable).
  std::int64_t size = 1;
  for (auto e : t.shape()) size *= e;
  if (size > (std::int64_t{1} << 22)) return;
  auto dense_view = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), tessera::to_dense(t));
  ASSERT_EQ(static_cast<std::int64_t>(dense_view.size()), size);
  std::vector<double> expected(size, 0.0);
  for (const auto& [c, v] : ref) {
    std::int64_t linear = 0;
    for (int m = 0; m < Enc::order; ++m) linear = linear * t.shape()[m] + c[m];
    expected[linear] = v;
  }
  for (std::int64_t p = 0; p < size; ++p) ASSERT_EQ(static_cast<double>(dense_view.data()[p]), expected[p]) << "at " << p;
}

template <class Space>
class Formats : public ::testing::Test {};
TYPED_TEST_SUITE(Formats, TestSpaces);

TYPED_TEST(Formats, CsrArraysOfAKnownMatrix) {
  // [[1 0 2]
  //  [0 0 0]
  //  [3 4 0]] given unsorted with a duplicate (2 = 1.5 + 0.5).
  HostCoo<double> coo{{3, 3}, {2, 1, 0, 2, 2, 0, 0, 0, 0, 2}, {4, 1.5, 3, 1, 0.5}};
  auto A = tessera::from_coo<double, tessera::CSR, TypeParam>(coo);
  const auto& s = A.decompose();
  auto pos = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), s.levels[1].pos);
  auto crd = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), s.levels[1].crd);
  auto val = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), s.vals);
  EXPECT_EQ(s.levels[0].pos.extent(0), 0u);
  EXPECT_EQ(std::vector<int>(pos.data(), pos.data() + pos.size()), (std::vector<int>{0, 2, 2, 4}));
  EXPECT_EQ(std::vector<int>(crd.data(), crd.data() + crd.size()), (std::vector<int>{0, 2, 0, 1}));
  EXPECT_EQ(std::vector<double>(val.data(), val.data() + val.size()), (std::vector<double>{1, 2, 3, 4}));
  EXPECT_EQ(A.nnz(), 4);
  EXPECT_EQ(A.shape(), (tessera::Shape<2>{3, 3}));

  auto D = tessera::from_coo<double, tessera::DCSR, TypeParam>(coo);
  auto dpos = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), D.decompose().levels[0].pos);
  auto dcrd = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), D.decompose().levels[0].crd);
  EXPECT_EQ(std::vector<int>(dpos.data(), dpos.data() + dpos.size()), (std::vector<int>{0, 2}));
  EXPECT_EQ(std::vector<int>(dcrd.data(), dcrd.data() + dcrd.size()), (std::vector<int>{0, 2}));
}

TYPED_TEST(Formats, MatrixRoundTripsEveryEncoding) {
  for (const auto& c : tessera_test::edge_case_matrices(11)) {
    const auto ref = reference_entries(c.coo);
    for_each_encoding<MatrixEncodings>([&](auto tag) {
      using Enc = typename decltype(tag)::type;
      expect_holds(tessera::from_coo<double, Enc, TypeParam>(c.coo), ref, c.name);
    });
  }
}

TYPED_TEST(Formats, EveryConversionPair) {
  const auto coo = tessera_test::random_coo({37, 53}, 400, 5);
  const auto ref = reference_entries(coo);
  for_each_encoding<MatrixEncodings>([&](auto src_tag) {
    using Src = typename decltype(src_tag)::type;
    const auto src = tessera::from_coo<double, Src, TypeParam>(coo);
    for_each_encoding<MatrixEncodings>([&](auto dst_tag) {
      using Dst = typename decltype(dst_tag)::type;
      expect_holds(tessera::convert<Dst>(src), ref, "conversion");
    });
  });
}

TYPED_TEST(Formats, HigherOrderRoundTripsAndConversions) {
  const auto coo3 = tessera_test::random_coo({9, 14, 6}, 300, 21);
  const auto ref3 = reference_entries(coo3);
  for_each_encoding<Order3Encodings>([&](auto tag) {
    using Enc = typename decltype(tag)::type;
    const auto t = tessera::from_coo<double, Enc, TypeParam>(coo3);
    expect_holds(t, ref3, "order 3");
    for_each_encoding<Order3Encodings>([&](auto dst) {
      expect_holds(tessera::convert<typename decltype(dst)::type>(t), ref3, "order 3 conversion");
    });
  });
  const auto coo4 = tessera_test::random_coo({5, 7, 4, 6}, 250, 22);
  const auto ref4 = reference_entries(coo4);
  for_each_encoding<Order4Encodings>([&](auto tag) {
    using Enc = typename decltype(tag)::type;
    const auto t = tessera::from_coo<double, Enc, TypeParam>(coo4);
    expect_holds(t, ref4, "order 4");
    expect_holds(tessera::convert<tessera::CSF<4>>(t), ref4, "order 4 to CSF");
  });
  const auto empty = tessera_test::random_coo({3, 0, 5}, 0, 1);
  expect_holds(tessera::from_coo<double, tessera::CSF<3>, TypeParam>(empty), {}, "zero extent");
}

TYPED_TEST(Formats, DenseViewsInAndOut) {
  using Mem = typename TypeParam::memory_space;
  Kokkos::View<float**, Kokkos::LayoutLeft, Mem> dense("dense", 6, 4);
  auto host = Kokkos::create_mirror_view(dense);
  EntryMap ref;
  for (int i = 0; i < 6; ++i)
    for (int j = 0; j < 4; ++j) {
      host(i, j) = (i * 3 + j) % 4 == 0 ? float(0) : float(i - 2 * j);
      if (host(i, j) != 0) ref[{i, j}] = host(i, j);
    }
  Kokkos::deep_copy(dense, host);
  const auto csc = tessera::from_dense<tessera::CSC, TypeParam>(dense);
  static_assert(std::is_same_v<typename std::decay_t<decltype(csc)>::value_type, float>);
  EXPECT_EQ(csc.nnz(), static_cast<std::int64_t>(ref.size()));
  const auto back = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), tessera::to_dense(csc));
  for (int i = 0; i < 6; ++i)
    for (int j = 0; j < 4; ++j) EXPECT_EQ(back(i, j), host(i, j));
}

// A stored -0.0 keeps its sign through to_dense (filling the zeros and adding the stored
// entries to them made it +0.0).
TYPED_TEST(Formats, ToDenseKeepsTheSignOfStoredZeros) {
  const auto csr = tessera::from_coo<double, tessera::CSR, TypeParam>(HostCoo<double>{{1, 2}, {0, 0}, {-0.0}});
  ASSERT_EQ(csr.nnz(), 1);
  const auto dense = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), tessera::to_dense(csr));
  EXPECT_TRUE(std::signbit(dense(0, 0)));
  EXPECT_FALSE(std::signbit(dense(0, 1)));
}

TYPED_TEST(Formats, MirrorsAcrossSpaces) {
  const auto coo = tessera_test::random_coo({40, 30}, 200, 8);
  const auto A = tessera::from_coo<double, tessera::CSR, TypeParam>(coo);
  const auto H = A.template to<Kokkos::DefaultHostExecutionSpace>();
  expect_holds(H, reference_entries(coo), "host mirror");
  const auto back = H.template to<TypeParam>();
  expect_holds(back, reference_entries(coo), "mirror back");
  if constexpr (std::is_same_v<typename TypeParam::memory_space, Kokkos::HostSpace>)
    EXPECT_EQ(H.decompose().vals.data(), A.decompose().vals.data()) << "same memory space shares arrays";
}

TYPED_TEST(Formats, RealMatricesThroughCsrAndCsc) {
  for (const char* name : {"west0497", "bcsstk13", "lp_fit2p", "cage10"}) {
    const auto coo = tessera::io::read_matrix_market(tessera_test::real_matrix(name));
    const auto ref = reference_entries(coo);
    const auto A = tessera::from_coo<double, tessera::CSR, TypeParam>(coo);
    expect_holds(tessera::convert<tessera::CSC>(A), ref, name);
    expect_holds(tessera::convert<tessera::COO>(tessera::convert<tessera::DCSC>(A)), ref, name);
  }
}

TYPED_TEST(Formats, BadCooInputIsReported) {
  using tessera::CSR;
  auto build = [](const HostCoo<double>& coo) { (void)tessera::from_coo<double, CSR, TypeParam>(coo); };
  try {
    build(HostCoo<double>{{3, 4}, {0, 1, 2, 4}, {1, 2}});
    FAIL() << "out-of-range coordinate accepted";
  } catch (const tessera::IndexError& e) {
    EXPECT_NE(std::string(e.what()).find("entry 1 has coordinate 4 in mode 1"), std::string::npos) << e.what();
  }
  try {
    build(HostCoo<double>{{3, 4}, {0, -1}, {1}});
    FAIL() << "negative coordinate accepted";
  } catch (const tessera::IndexError& e) {
    EXPECT_NE(std::string(e.what()).find("coordinate -1"), std::string::npos) << e.what();
  }
  EXPECT_THROW(build(HostCoo<double>{{3, 4, 5}, {0, 0, 0}, {1}}), tessera::ShapeError);
  EXPECT_THROW(build(HostCoo<double>{{3, 4}, {0, 0, 1}, {1, 2}}), tessera::ShapeError);
  EXPECT_THROW(build(HostCoo<double>{{-3, 4}, {}, {}}), tessera::ShapeError);
  try {
    build(HostCoo<double>{{std::int64_t{1} << 33, 4}, {}, {}});
    FAIL() << "extent beyond int accepted";
  } catch (const tessera::OverflowError& e) {
    EXPECT_NE(std::string(e.what()).find("8589934592"), std::string::npos) << e.what();
  }
  // The message names the width of the encoding's index type.
  using Csr16 = tessera::WithIndexTypes<tessera::CSR, std::int16_t, std::int16_t>;
  try {
    (void)tessera::from_coo<double, Csr16, TypeParam>(HostCoo<double>{{40000, 3}, {}, {}});
    FAIL() << "extent beyond int16 accepted";
  } catch (const tessera::OverflowError& e) {
    EXPECT_NE(std::string(e.what()).find("16-bit index type (max 32767)"), std::string::npos) << e.what();
  }
  // 100000 x 100000 dense positions do not fit int offsets; with 64-bit offsets they would.
  EXPECT_THROW((tessera::from_coo<double, tessera::Dense<2>, TypeParam>(HostCoo<double>{{100000, 100000}, {}, {}})),
               tessera::OverflowError);
}

TYPED_TEST(Formats, AdoptedArraysAreValidated) {
  using Tens = tessera::Tensor<double, tessera::CSR, TypeParam>;
  auto make = [](std::vector<int> pos, std::vector<int> crd, std::vector<double> vals) {
    typename Tens::Storage s;
    s.levels[1].pos = tessera::detail::upload_array<typename Tens::pos_view>("pos", pos);
    s.levels[1].crd = tessera::detail::upload_array<typename Tens::crd_view>("crd", crd);
    s.vals = tessera::detail::upload_array<typename Tens::vals_view>("vals", vals);
    return tessera::from_arrays<double, tessera::CSR, TypeParam>({2, 3}, s);
  };
  EXPECT_NO_THROW(make({0, 1, 3}, {2, 0, 1}, {1, 2, 3}));
  EXPECT_THROW(make({0, 1}, {2}, {1}), tessera::FormatError);               // pos too short
  EXPECT_THROW(make({0, 2, 1}, {2, 0}, {1, 2}), tessera::FormatError);      // pos decreases
  EXPECT_THROW(make({0, 1, 3}, {2, 0, 3}, {1, 2, 3}), tessera::IndexError); // column 3 of 3
  EXPECT_THROW(make({0, 1, 3}, {2, 1, 0}, {1, 2, 3}), tessera::IndexError); // unsorted row
  EXPECT_THROW(make({0, 1, 3}, {2, 0, 1}, {1, 2}), tessera::FormatError);   // vals too short

  // COO: the (row, column) tuples must rise strictly, the columns ordered where rows tie.
  using Coo = tessera::Tensor<double, tessera::COO, TypeParam>;
  auto make_coo = [](std::vector<int> rows, std::vector<int> cols) {
    typename Coo::Storage s;
    s.levels[0].pos = tessera::detail::upload_array<typename Coo::pos_view>("pos", std::vector<int>{0, 3});
    s.levels[0].crd = tessera::detail::upload_array<typename Coo::crd_view>("rows", rows);
    s.levels[1].crd = tessera::detail::upload_array<typename Coo::crd_view>("cols", cols);
    s.vals = tessera::detail::upload_array<typename Coo::vals_view>("vals", std::vector<double>{1, 2, 3});
    return tessera::from_arrays<double, tessera::COO, TypeParam>({2, 3}, s);
  };
  EXPECT_NO_THROW(make_coo({0, 0, 1}, {1, 2, 0}));
  EXPECT_NO_THROW(make_coo({0, 1, 1}, {2, 0, 2}));  // columns may fall where the row changes
  const auto expect_index_error = [&](std::vector<int> rows, std::vector<int> cols, const std::string& fragment) {
    try {
      make_coo(rows, cols);
      ADD_FAILURE() << "accepted; expected " << fragment;
    } catch (const tessera::IndexError& e) {
      EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
    }
  };
  expect_index_error({0, 0, 1}, {2, 1, 0}, "level 1: entries not sorted at position 1 (2 then 1");
  expect_index_error({0, 0, 1}, {1, 1, 0}, "entries 0 and 1 have the same coordinates");
  expect_index_error({1, 0, 1}, {0, 1, 2}, "level 0: coordinates not sorted at position 1");
}

// Dense positions past int64 (2^30 x 2^30 x 16 = 2^64) or past the encoding's offsets must be
// refused, not wrapped into a small count that empty arrays would then satisfy.
TYPED_TEST(Formats, AdoptedDenseLevelsAreCountedWithoutOverflow) {
  using Dense3 = tessera::Dense<3>;
  using Dense3x64 = tessera::WithIndexTypes<Dense3, std::int64_t, std::int64_t>;
  const typename tessera::Tensor<double, Dense3x64, TypeParam>::Storage empty64;
  const std::int64_t big = std::int64_t{1} << 30;
  try {
    (void)tessera::from_arrays<double, Dense3x64, TypeParam>({big, big, 16}, empty64);
    FAIL() << "2^64 dense positions accepted";
  } catch (const tessera::OverflowError& e) {
    EXPECT_NE(std::string(e.what()).find("more positions than int64 can count"), std::string::npos) << e.what();
  }
  const typename tessera::Tensor<double, Dense3, TypeParam>::Storage empty;
  EXPECT_THROW((tessera::from_arrays<double, Dense3, TypeParam>({big, big, 1}, empty)), tessera::OverflowError);
  EXPECT_THROW((tessera::from_arrays<double, Dense3, TypeParam>({2, 3, 4}, empty)), tessera::FormatError);
}

// to_dense sizes its array from the shape: a shape whose elements or bytes overflow is an
// error before anything is allocated or written.
TYPED_TEST(Formats, ToDenseRefusesShapesThatOverflow) {
  const std::int64_t big = std::int64_t{1} << 30;
  const auto csf = tessera::from_coo<double, tessera::CSF<3>, TypeParam>(HostCoo<double>{{big, big, 2}, {5, 7, 1}, {1.0}});
  EXPECT_THROW((void)tessera::to_dense(csf), tessera::OverflowError);  // 2^61 elements, 2^64 bytes
  using Dcsr64 = tessera::WithIndexTypes<tessera::DCSR, std::int64_t, std::int64_t>;
  const std::int64_t huge = std::int64_t{1} << 32;
  const auto dcsr = tessera::from_coo<double, Dcsr64, TypeParam>(HostCoo<double>{{huge, huge}, {5, 7}, {1.0}});
  EXPECT_THROW((void)tessera::to_dense(dcsr), tessera::OverflowError);  // 2^64 elements
}

// Sizes that fit the index types but not memory: an OutOfMemoryError naming the array and its
// bytes, where std::bad_alloc (host vectors) and Kokkos' runtime_error (Views) said neither.
TYPED_TEST(Formats, AllocationsThatDoNotFitAreOutOfMemoryErrors) {
  using Csr64 = tessera::WithIndexTypes<tessera::CSR, std::int64_t, std::int64_t>;
  const std::int64_t rows = std::int64_t{1} << 46;  // 2^46 + 1 row positions: 512 TiB
  // AddressSanitizer ends the process where operator new fails instead of throwing
  // (a failed malloc, as Kokkos' allocations use, returns null under allocator_may_return_null).
#ifdef __SANITIZE_ADDRESS__
  constexpr bool failed_new_throws = false;
#else
  constexpr bool failed_new_throws = true;
#endif
  if (failed_new_throws) try {
    (void)tessera::from_coo<double, Csr64, TypeParam>(HostCoo<double>{{rows, 4}, {5, 1}, {1.0}});
    ADD_FAILURE() << "no OutOfMemoryError";
  } catch (const tessera::OutOfMemoryError& e) {
    EXPECT_EQ(e.label(), "tessera::pos1");
    EXPECT_EQ(e.bytes(), (static_cast<std::size_t>(rows) + 1) * sizeof(std::int64_t));
    EXPECT_NE(std::string(e.what()).find("'tessera::pos1'"), std::string::npos) << e.what();
  }
  using Dcsr64 = tessera::WithIndexTypes<tessera::DCSR, std::int64_t, std::int64_t>;
  const std::int64_t side = std::int64_t{1} << 23;  // a dense image of 2^46 doubles: 512 TiB
  const auto dcsr = tessera::from_coo<double, Dcsr64, TypeParam>(HostCoo<double>{{side, side}, {5, 7}, {1.0}});
  try {
    (void)tessera::to_dense(dcsr);
    ADD_FAILURE() << "no OutOfMemoryError";
  } catch (const tessera::OutOfMemoryError& e) {
    EXPECT_EQ(e.label(), "tessera::dense");
    EXPECT_EQ(e.bytes(), static_cast<std::size_t>(side) * static_cast<std::size_t>(side) * sizeof(double));
    EXPECT_NE(std::string(e.what()).find(TypeParam::memory_space::name()), std::string::npos) << e.what();
  }
}

#ifdef TESSERA_HAVE_KOKKOSKERNELS
TYPED_TEST(Formats, CrsMatrixInteropSharesArrays) {
  const auto coo = tessera_test::random_coo({50, 70}, 500, 3);
  const auto A = tessera::from_coo<double, tessera::CSR, TypeParam>(coo);
  const auto M = tessera::to_crs_matrix(A);
  EXPECT_EQ(M.values.data(), A.decompose().vals.data());
  EXPECT_EQ(M.graph.row_map.data(), A.decompose().levels[1].pos.data());
  EXPECT_EQ(M.graph.entries.data(), A.decompose().levels[1].crd.data());
  EXPECT_EQ(M.numRows(), 50);
  EXPECT_EQ(M.numCols(), 70);
  const auto B = tessera::from_crs_matrix(M);
  EXPECT_EQ(B.decompose().vals.data(), M.values.data());
  EXPECT_EQ(B.decompose().levels[1].pos.data(), M.graph.row_map.data());
  expect_holds(B, reference_entries(coo), "from CrsMatrix");
}
#endif

}  // namespace
