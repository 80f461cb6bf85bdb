#pragma once
// Shared checks of the VNM tests: random operands, pruning through the library, and
// nm_spmm against the double-precision oracle with the output poisoned (NaN) first.
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include <Kokkos_Core.hpp>
#include <gtest/gtest.h>

#include "tessera/kernels/nm_spmm/reference/vnm_spmm_reference.hpp"
#include "tessera/kernels/nm_spmm/nm_spmm.hpp"
#include "tessera_test/compare.hpp"

namespace tessera_test {

// Row-major values in [-1, 1) (rounded to T), shape rows x cols.
template <class T>
std::vector<T> random_dense(std::int64_t rows, std::int64_t cols, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  std::vector<T> v(rows * cols);
  for (auto& x : v) x = static_cast<T>(u(rng));
  return v;
}

template <class T, class Space>
Kokkos::View<T**, Kokkos::LayoutRight, Space> to_view(const std::vector<T>& host, std::int64_t rows,
                                                      std::int64_t cols, const char* label) {
  Kokkos::View<T**, Kokkos::LayoutRight, Space> v(std::string(label), static_cast<std::size_t>(rows), static_cast<std::size_t>(cols));
  Kokkos::deep_copy(v, Kokkos::View<const T**, Kokkos::LayoutRight, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>(
                           host.data(), rows, cols));
  return v;
}

template <class View>
std::vector<double> to_host_vector(const View& v) {
  auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), v);
  std::vector<double> out(h.size());
  for (std::size_t i = 0; i < h.size(); ++i) out[i] = static_cast<double>(h.data()[i]);
  return out;
}

// C = A * B for B pruned from `dense` (k x n): nm_spmm vs reference::vnm_spmm, and the
// reference itself vs a dense product with to_dense(B). A and C are Views of the given
// layouts (LayoutLeft: column-major).
template <class T, class Space, class ALayout = Kokkos::LayoutRight, class CLayout = Kokkos::LayoutRight>
void check_nm_spmm(std::int64_t m, const std::vector<T>& dense, std::int64_t k, std::int64_t n,
                   const tessera::VnmPattern& p, std::uint64_t seed, const std::string& what,
                   const tessera::NmSpmmOptions& opts = {}, bool reuse_handle = false) {
  SCOPED_TRACE(what + ": m=" + std::to_string(m) + " k=" + std::to_string(k) + " n=" + std::to_string(n) + " " +
               std::to_string(p.n) + ":" + std::to_string(p.m) + " L=" + std::to_string(p.l));
  const auto A_host = random_dense<T>(m, k, seed);
  Kokkos::View<T**, ALayout, Space> A("A", m, k);
  Kokkos::deep_copy(A, to_view<T, Space>(A_host, m, k, "A"));
  const auto B = tessera::prune_vnm<Space>(to_view<T, Space>(dense, k, n, "B"), p);
  Kokkos::View<T**, CLayout, Space> C("C", m, n);
  Kokkos::deep_copy(C, std::numeric_limits<T>::quiet_NaN());
  if (reuse_handle) {  // the second call runs on what the first one kept
    tessera::NmSpmmHandle handle(opts);
    tessera::nm_spmm(Space(), T(1), A, B, T(0), C, handle);
    tessera::nm_spmm(Space(), T(1), A, B, T(0), C, handle);
  } else {
    tessera::nm_spmm(T(1), A, B, T(0), C, opts);
  }
  Kokkos::fence();

  const auto vals = to_host_vector(B.values());
  auto meta_view = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), B.meta());
  const std::vector<std::uint8_t> meta(meta_view.data(), meta_view.data() + meta_view.size());
  std::vector<double> A_double(A_host.begin(), A_host.end());
  const auto ref = tessera::reference::vnm_spmm(A_double, m, vals, meta, B.extents(), p);

  // Independent check of the oracle: dense product with the decoded matrix.
  const auto B_dense = to_host_vector(tessera::to_dense(B));
  std::vector<double> dense_ref(m * n, 0.0);
  for (std::int64_t i = 0; i < m; ++i)
    for (std::int64_t q = 0; q < k; ++q)
      for (std::int64_t j = 0; j < n; ++j) dense_ref[i * n + j] += A_double[i * k + q] * B_dense[q * n + j];
  EXPECT_LE(relative_error(dense_ref, ref), 1e-12);

  Kokkos::View<T**, Kokkos::LayoutRight, Space> C_rows("C_rows", m, n);  // ref's order
  Kokkos::deep_copy(C_rows, C);
  EXPECT_LE(relative_error(to_host_vector(C_rows), ref), tolerance<T>(k));
}

}  // namespace tessera_test
