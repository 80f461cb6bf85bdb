#pragma once
// Shared body of the assembly tests (from_coo, convert, transpose, DeviceCoo in the tensor's
// space); a per-backend file defines TestSpaces.
// Reference: a small serial builder written for this test: entry ids ordered by their
// storage-order tuples with std::stable_sort, duplicates summed in input order in the input's
// precision, level arrays by counting children per parent. Every array must match bit for bit.
#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "tessera/tessera.hpp"
#include "tessera_test/data.hpp"
#include "tessera_test/random_coo.hpp"

#include "encodings_under_test.hpp"

namespace {

template <class T>
struct RefArrays {
  std::vector<std::vector<std::int64_t>> pos, crd;  // per storage level; empty where unused
  std::vector<T> vals;
};

template <class Enc, class T, class U>
RefArrays<T> reference_arrays(const HostCoo<U>& coo) {
  constexpr int N = Enc::order;
  using Tuple = std::array<std::int64_t, N>;
  const auto tuple_of = [&](std::int64_t id) {
    Tuple t;
    for (int l = 0; l < N; ++l) t[l] = coo.coord(id, Enc::mode_order[l]);
    return t;
  };
  std::vector<std::int64_t> ids(coo.nnz());
  std::iota(ids.begin(), ids.end(), std::int64_t{0});
  std::stable_sort(ids.begin(), ids.end(), [&](std::int64_t a, std::int64_t b) { return tuple_of(a) < tuple_of(b); });
  std::vector<Tuple> entries;
  std::vector<U> sums;
  for (const std::int64_t id : ids) {
    if (!entries.empty() && entries.back() == tuple_of(id)) {
      sums.back() += coo.values[id];
    } else {
      entries.push_back(tuple_of(id));
      sums.push_back(coo.values[id]);
    }
  }
  const std::int64_t count = static_cast<std::int64_t>(entries.size());
  RefArrays<T> out;
  out.pos.resize(N);
  out.crd.resize(N);
  std::vector<std::int64_t> at(count, 0);  // position of each entry at the current level
  std::int64_t positions = 1;
  for (int l = 0; l < N; ++l) {
    const std::int64_t extent = coo.shape[Enc::mode_order[l]];
    const auto kind = Enc::level_kinds[l];
    if (kind == tessera::LevelKind::Dense) {
      for (std::int64_t e = 0; e < count; ++e) at[e] = at[e] * extent + entries[e][l];
      positions *= extent;
    } else if (kind == tessera::LevelKind::Singleton) {
      out.crd[l].assign(positions, 0);
      for (std::int64_t e = 0; e < count; ++e) out.crd[l][at[e]] = entries[e][l];
    } else {
      std::vector<std::int64_t> children(positions, 0), next(count);
      std::int64_t nodes = 0;
      for (std::int64_t e = 0; e < count; ++e) {
        const bool fresh = kind == tessera::LevelKind::CompressedNonUnique || e == 0 || at[e] != at[e - 1] ||
                           entries[e][l] != entries[e - 1][l];
        if (fresh) {
          out.crd[l].push_back(entries[e][l]);
          ++children[at[e]];
          ++nodes;
        }
        next[e] = nodes - 1;
      }
      out.pos[l].assign(1, 0);
      for (const std::int64_t c : children) out.pos[l].push_back(out.pos[l].back() + c);
      at = next;
      positions = nodes;
    }
  }
  out.vals.assign(positions, T(0));
  for (std::int64_t e = 0; e < count; ++e) out.vals[at[e]] = static_cast<T>(sums[e]);
  return out;
}

template <class View>
std::vector<std::int64_t> as_int64(const View& v) {
  const auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), v);
  return std::vector<std::int64_t>(h.data(), h.data() + h.size());
}

// Every array of `t` equals the reference's, values bit for bit.
template <class Tens, class T>
void expect_arrays(const Tens& t, const RefArrays<T>& ref, const std::string& what) {
  using Enc = typename Tens::encoding_type;
  SCOPED_TRACE(what);
  for (int l = 0; l < Enc::order; ++l) {
    EXPECT_EQ(as_int64(t.level(l).pos), ref.pos[l]) << "pos of level " << l;
    EXPECT_EQ(as_int64(t.level(l).crd), ref.crd[l]) << "crd of level " << l;
  }
  const auto vals = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), t.values());
  ASSERT_EQ(vals.size(), ref.vals.size());
  if (!ref.vals.empty())  // memcmp takes no null pointers, which empty arrays may have
    EXPECT_EQ(std::memcmp(vals.data(), ref.vals.data(), ref.vals.size() * sizeof(T)), 0) << "values differ in some bit";
}

// Unsorted input with duplicates, explicit zeros and a -0.0.
HostCoo<double> messy_coo(const std::vector<std::int64_t>& shape, std::int64_t nnz, std::uint64_t seed) {
  auto coo = tessera_test::random_coo(shape, nnz, seed);
  const int order = coo.order();
  for (std::int64_t n = 0; n < coo.nnz(); n += 7) coo.values[n] = 0.0;
  if (coo.nnz() > 3) coo.values[3] = -0.0;
  const std::int64_t original = coo.nnz();
  for (std::int64_t n = 0; n < original; n += 5) {  // a second value at an existing coordinate
    for (int m = 0; m < order; ++m) coo.coords.push_back(coo.coord(n, m));
    coo.values.push_back(0.125 * static_cast<double>(n % 11) - 0.5);
  }
  return coo;
}

// The same entries in another order (Fisher-Yates with a fixed seed).
template <class U>
HostCoo<U> shuffled(HostCoo<U> coo, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  const int order = coo.order();
  for (std::int64_t i = coo.nnz() - 1; i > 0; --i) {
    const std::int64_t j = std::uniform_int_distribution<std::int64_t>(0, i)(rng);
    for (int m = 0; m < order; ++m) std::swap(coo.coords[i * order + m], coo.coords[j * order + m]);
    std::swap(coo.values[i], coo.values[j]);
  }
  return coo;
}

// The summed entries of `coo` in mode order (each sum starts from the first value, so a lone
// -0.0 stays -0.0; zeros dropped when `drop_zeros`), as unique triplets.
HostCoo<double> summed_entries(const HostCoo<double>& coo, bool drop_zeros) {
  const int order = coo.order();
  const auto tuple_of = [&](std::int64_t id) {
    return std::vector<std::int64_t>(coo.coords.begin() + id * order, coo.coords.begin() + (id + 1) * order);
  };
  std::vector<std::int64_t> ids(coo.nnz());
  std::iota(ids.begin(), ids.end(), std::int64_t{0});
  std::stable_sort(ids.begin(), ids.end(), [&](std::int64_t a, std::int64_t b) { return tuple_of(a) < tuple_of(b); });
  std::vector<std::vector<std::int64_t>> tuples;
  std::vector<double> sums;
  for (const std::int64_t id : ids) {
    if (!tuples.empty() && tuples.back() == tuple_of(id)) {
      sums.back() += coo.values[id];
    } else {
      tuples.push_back(tuple_of(id));
      sums.push_back(coo.values[id]);
    }
  }
  HostCoo<double> out;
  out.shape = coo.shape;
  for (std::size_t e = 0; e < tuples.size(); ++e) {
    if (drop_zeros && sums[e] == 0.0) continue;
    out.coords.insert(out.coords.end(), tuples[e].begin(), tuples[e].end());
    out.values.push_back(sums[e]);
  }
  return out;
}

HostCoo<double> swapped_modes(HostCoo<double> coo) {
  std::swap(coo.shape[0], coo.shape[1]);
  for (std::int64_t n = 0; n < coo.nnz(); ++n) std::swap(coo.coords[2 * n], coo.coords[2 * n + 1]);
  return coo;
}

template <class Space>
class Assembly : public ::testing::Test {};
TYPED_TEST_SUITE(Assembly, TestSpaces);

TYPED_TEST(Assembly, FromCooMatchesTheSerialReferenceBitForBit) {
  std::vector<tessera_test::MatrixCase> cases = tessera_test::edge_case_matrices(31);
  cases.push_back({"messy_90x70", messy_coo({90, 70}, 1500, 7)});
  // Enough entries for several chunks and passes of the host radix sort.
  cases.push_back({"messy_3000x2500", messy_coo({3000, 2500}, 300000, 8)});
  cases.push_back({"sorted_unique", summed_entries(messy_coo({60, 80}, 900, 9), false)});
  auto sorted_with_duplicates = summed_entries(messy_coo({60, 80}, 900, 10), false);
  sorted_with_duplicates.coords.insert(sorted_with_duplicates.coords.end(), {59, 79, 59, 79});
  sorted_with_duplicates.values.insert(sorted_with_duplicates.values.end(), {0.25, 0.5});
  cases.push_back({"sorted_with_duplicates", sorted_with_duplicates});
  for (const auto& c : cases)
    for_each_encoding<MatrixEncodings>([&](auto tag) {
      using Enc = typename decltype(tag)::type;
      expect_arrays(tessera::from_coo<double, Enc, TypeParam>(c.coo), reference_arrays<Enc, double>(c.coo), c.name);
    });
}

// Duplicates are summed in the triplets' precision, then converted.
TYPED_TEST(Assembly, DuplicatesAreSummedInTheInputPrecision) {
  const auto coo = messy_coo({20, 30}, 2000, 11);
  HostCoo<float> single;
  single.shape = coo.shape;
  single.coords = coo.coords;
  for (const double v : coo.values) single.values.push_back(static_cast<float>(v) * 1.1f);
  for_each_encoding<MatrixEncodings>([&](auto tag) {
    using Enc = typename decltype(tag)::type;
    expect_arrays(tessera::from_coo<double, Enc, TypeParam>(single), reference_arrays<Enc, double>(single), "float in");
    expect_arrays(tessera::from_coo<float, Enc, TypeParam>(coo), reference_arrays<Enc, float>(coo), "double in");
  });
}

TYPED_TEST(Assembly, HigherOrdersAndKeysOfSeveralWords) {
  const auto coo3 = shuffled(messy_coo({9, 14, 6}, 600, 12), 1);
  for_each_encoding<Order3Encodings>([&](auto tag) {
    using Enc = typename decltype(tag)::type;
    expect_arrays(tessera::from_coo<double, Enc, TypeParam>(coo3), reference_arrays<Enc, double>(coo3), "order 3");
  });
  const auto coo4 = messy_coo({5, 7, 4, 6}, 500, 13);
  for_each_encoding<Order4Encodings>([&](auto tag) {
    using Enc = typename decltype(tag)::type;
    expect_arrays(tessera::from_coo<double, Enc, TypeParam>(coo4), reference_arrays<Enc, double>(coo4), "order 4");
  });
  // 3 x 40 bits of coordinates: keys of two words, sorted word by word.
  const std::int64_t big = std::int64_t{1} << 40;
  auto wide = messy_coo({7, 5, 6}, 400, 14);
  wide.shape = {big, big, big};
  for (std::size_t i = 0; i < wide.coords.size(); ++i) wide.coords[i] = wide.coords[i] * (big / 8) + (i % 3);
  using Csf64 = tessera::WithIndexTypes<tessera::CSF<3>, std::int64_t, std::int64_t>;
  using Coo64 = tessera::WithIndexTypes<tessera::COOTensor<3>, std::int64_t, std::int64_t>;
  expect_arrays(tessera::from_coo<double, Csf64, TypeParam>(wide), reference_arrays<Csf64, double>(wide), "wide CSF");
  expect_arrays(tessera::from_coo<double, Coo64, TypeParam>(wide), reference_arrays<Coo64, double>(wide), "wide COO");
}

TYPED_TEST(Assembly, RealMatricesShuffled) {
  for (const char* name : {"west0497", "bcsstk13"}) {
    const auto coo = shuffled(tessera::io::read_matrix_market(tessera_test::real_matrix(name)), 5);
    for_each_encoding<std::tuple<tessera::CSR, tessera::CSC, tessera::DCSR, tessera::COO>>([&](auto tag) {
      using Enc = typename decltype(tag)::type;
      expect_arrays(tessera::from_coo<double, Enc, TypeParam>(coo), reference_arrays<Enc, double>(coo), name);
    });
  }
}

TYPED_TEST(Assembly, ConvertMatchesTheReferenceBitForBit) {
  for (const auto& coo : {messy_coo({37, 53}, 700, 15), messy_coo({1, 1}, 3, 16), messy_coo({40, 3}, 0, 17)})
    for_each_encoding<MatrixEncodings>([&](auto src_tag) {
      using Src = typename decltype(src_tag)::type;
      const auto src = tessera::from_coo<double, Src, TypeParam>(coo);
      const auto entries = summed_entries(coo, last_level_dense<Src>());  // a dense last level drops zeros
      for_each_encoding<MatrixEncodings>([&](auto dst_tag) {
        using Dst = typename decltype(dst_tag)::type;
        expect_arrays(tessera::convert<Dst>(src), reference_arrays<Dst, double>(entries), "conversion");
      });
    });
}

TYPED_TEST(Assembly, TransposeEveryMatrixEncoding) {
  for (const auto& coo : {messy_coo({37, 53}, 700, 18), messy_coo({1000, 3}, 40, 19), messy_coo({0, 5}, 0, 20)})
    for_each_encoding<MatrixEncodings>([&](auto tag) {
      using Enc = typename decltype(tag)::type;
      const auto A = tessera::from_coo<double, Enc, TypeParam>(coo);
      const auto At = tessera::transpose(A);
      EXPECT_EQ(At.shape(), (tessera::Shape<2>{A.shape()[1], A.shape()[0]}));
      const auto expected = swapped_modes(summed_entries(coo, last_level_dense<Enc>()));
      expect_arrays(At, reference_arrays<Enc, double>(expected), "transpose");
      expect_arrays(tessera::transpose(At), reference_arrays<Enc, double>(swapped_modes(expected)), "transposed back");
    });
}

// CSR <-> CSC and the transpose of compressed rows have a dedicated kernel on the GPU (a column's
// slots sorted by row, a global sort past a length limit): columns of every length, values of
// 4 and 8 bytes, 64-bit offsets, real matrices.
TYPED_TEST(Assembly, CompressedTransposesOfLongColumnsAndRealMatrices) {
  std::vector<tessera_test::MatrixCase> cases;
  // A full column that a block sorts (of no power of two), and two past the block's limit.
  for (const std::int64_t full : {std::int64_t{9000}, std::int64_t{100000}, std::int64_t{300000}}) {
    auto coo = messy_coo({full, 5}, 2000, 22);
    for (std::int64_t i = full - 1; i >= 0; --i) {
      coo.coords.insert(coo.coords.end(), {i, 2});
      coo.values.push_back(0.5 * static_cast<double>(i % 97) - 3.0);
    }
    cases.push_back({"full_column_of_" + std::to_string(full), coo});
  }
  for (const char* name : {"west0497", "lp_fit2p", "BOYD1_A", "soc-Slashdot0902"})
    cases.push_back({name, tessera::io::read_matrix_market(tessera_test::real_matrix(name))});
  using Csr64 = tessera::WithIndexTypes<tessera::CSR, int, std::int64_t>;
  using Csc64 = tessera::WithIndexTypes<tessera::CSC, int, std::int64_t>;
  for (const auto& c : cases) {
    const auto entries = summed_entries(c.coo, false);
    const auto A = tessera::from_coo<double, tessera::CSR, TypeParam>(c.coo);
    expect_arrays(tessera::convert<tessera::CSC>(A), reference_arrays<tessera::CSC, double>(entries), c.name + " CSC");
    expect_arrays(tessera::transpose(A), reference_arrays<tessera::CSR, double>(swapped_modes(entries)),
                  c.name + " transpose");
    const auto C = tessera::convert<tessera::CSC>(A);
    expect_arrays(tessera::convert<tessera::CSR>(C), reference_arrays<tessera::CSR, double>(entries), c.name + " back");
    const auto A32 = tessera::from_coo<float, tessera::CSR, TypeParam>(c.coo);
    expect_arrays(tessera::convert<tessera::CSC>(A32), reference_arrays<tessera::CSC, float>(entries),
                  c.name + " float");
    const auto A64 = tessera::from_coo<double, Csr64, TypeParam>(c.coo);
    expect_arrays(tessera::convert<Csc64>(A64), reference_arrays<Csc64, double>(entries), c.name + " int64 offsets");
  }
}

// A column-major dense array with zeros and a -0.0 (a zero, not stored): from_dense stores its
// nonzeros exactly, to_dense gives them back.
TYPED_TEST(Assembly, DenseArraysInAndOut) {
  using Mem = typename TypeParam::memory_space;
  Kokkos::View<double**, Kokkos::LayoutLeft, Mem> dense("dense", 23, 17);
  auto host = Kokkos::create_mirror_view(dense);
  HostCoo<double> nonzeros;  // row-major order
  nonzeros.shape = {23, 17};
  for (std::int64_t i = 0; i < 23; ++i)
    for (std::int64_t j = 0; j < 17; ++j) {
      host(i, j) = (i * 5 + j) % 3 == 0 ? 0.0 : 0.25 * static_cast<double>(i) - 0.125 * static_cast<double>(j);
      if (host(i, j) == 0.0) continue;
      nonzeros.coords.insert(nonzeros.coords.end(), {i, j});
      nonzeros.values.push_back(host(i, j));
    }
  host(4, 4) = -0.0;
  Kokkos::deep_copy(dense, host);
  for_each_encoding<MatrixEncodings>([&](auto tag) {
    using Enc = typename decltype(tag)::type;
    const auto A = tessera::from_dense<Enc, TypeParam>(dense);
    expect_arrays(A, reference_arrays<Enc, double>(nonzeros), "from_dense");
    const auto back = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), tessera::to_dense(A));
    for (int i = 0; i < 23; ++i)
      for (int j = 0; j < 17; ++j) ASSERT_EQ(back(i, j), host(i, j)) << i << ", " << j;
  });
}

TYPED_TEST(Assembly, TripletsAlreadyInTheSpace) {
  const auto coo = messy_coo({45, 38}, 800, 21);
  const auto device = tessera::to_device<TypeParam>(coo);
  EXPECT_EQ(device.nnz(), coo.nnz());
  EXPECT_EQ(device.order(), 2);
  const auto back = tessera::to_host(device);
  EXPECT_EQ(back.coords, coo.coords);
  EXPECT_EQ(back.values, coo.values);
  for_each_encoding<MatrixEncodings>([&](auto tag) {
    using Enc = typename decltype(tag)::type;
    const auto A = tessera::from_coo<double, Enc, TypeParam>(device);
    expect_arrays(A, reference_arrays<Enc, double>(coo), "from DeviceCoo");
    // to_device_coo lists the stored entries in storage order: they rebuild the same arrays.
    const auto entries = tessera::to_device_coo(A);
    const auto host_entries = tessera::to_host(entries);
    EXPECT_EQ(host_entries.coords, tessera::to_coo(A).coords);
    EXPECT_EQ(host_entries.values, tessera::to_coo(A).values);
    expect_arrays(tessera::from_coo<double, Enc, TypeParam>(entries),
                  reference_arrays<Enc, double>(summed_entries(coo, last_level_dense<Enc>())), "round trip");
  });
}

TYPED_TEST(Assembly, BadTripletsAreReportedByTheirFirstEntry) {
  // Entries 2 and 5 are outside the shape: the error names entry 2, wherever it ran.
  HostCoo<double> coo{{4, 6}, {0, 0, 1, 1, 4, 0, 2, 2, 3, 5, 0, -3, 1, 2}, {1, 2, 3, 4, 5, 6, 7}};
  const auto expect_entry_2 = [](auto&& build) {
    try {
      build();
      ADD_FAILURE() << "out-of-range coordinate accepted";
    } catch (const tessera::IndexError& e) {
      EXPECT_NE(std::string(e.what()).find("entry 2 has coordinate 4 in mode 0, outside [0, 4)"), std::string::npos)
          << e.what();
    }
  };
  expect_entry_2([&] { (void)tessera::from_coo<double, tessera::CSR, TypeParam>(coo); });
  expect_entry_2([&] { (void)tessera::from_coo<double, tessera::CSR, TypeParam>(tessera::to_device<TypeParam>(coo)); });
  // Coordinates and values of different lengths, or of another order.
  auto device = tessera::to_device<TypeParam>(HostCoo<double>{{4, 6}, {0, 0, 1, 1}, {1, 2}});
  device.values = typename decltype(device)::values_view("short", 1);
  EXPECT_THROW((void)(tessera::from_coo<double, tessera::CSR, TypeParam>(device)), tessera::ShapeError);
  const auto order3 = tessera::to_device<TypeParam>(HostCoo<double>{{4, 6, 2}, {0, 0, 1}, {1}});
  EXPECT_THROW((void)(tessera::from_coo<double, tessera::CSR, TypeParam>(order3)), tessera::ShapeError);
}

}  // namespace
