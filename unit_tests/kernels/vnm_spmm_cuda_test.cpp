// tessera::nm_spmm on Kokkos::Cuda with VNM weights: the tiled CUDA-core kernel (plain and
// packed stage plans, a plan built once and reused) and the portable kernel on the GPU,
// against the double-precision oracle, C poisoned with NaN before every run.
#include <string>
#include <vector>

#include <Kokkos_Core.hpp>
#include <gtest/gtest.h>

#include "tessera/core/io/matrix_market.hpp"
#include "tessera/formats/vnm.hpp"
#include "tessera/kernels/nm_spmm/vnm_spmm.hpp"
#include "tessera_test/data.hpp"
#include "tessera_test/vnm.hpp"

namespace {

using tessera::NmSpmmAlgorithm;
using tessera::NmSpmmOptions;
using tessera::VnmLayout;
using tessera::VnmPattern;
using tessera_test::check_nm_spmm;
using tessera_test::random_dense;
using Cuda = Kokkos::Cuda;

const NmSpmmOptions kPlain{NmSpmmAlgorithm::CudaTiled, VnmLayout::Plain};
const NmSpmmOptions kPacked{NmSpmmAlgorithm::CudaTiled, VnmLayout::Packed};

TEST(VnmSpmmCuda, EveryPatternOnOddShapes) {
  // Every N:M with M <= 32 for every L; m, k, n cross the row tiles and the stages.
  std::uint64_t seed = 1;
  for (int M = 2; M <= 32; ++M)
    for (int N = 1; N < M; ++N)
      for (int L : {4, 8, 16, 32, 64}) {
        const std::int64_t m = 37 + 13 * (seed % 11), k = M * (3 + seed % 5) + seed % 3, n = 3 * L + 1 + seed % 17;
        const auto& opts = (N + M + L) % 2 ? kPlain : kPacked;
        check_nm_spmm<float, Cuda>(m, random_dense<float>(k, n, seed), k, n, {N, M, L}, seed + 1000, "sweep", opts);
        ++seed;
      }
}

TEST(VnmSpmmCuda, LargerShapesBothLayoutsAndSplitK) {
  // m small and k long: the launch splits k across blocks (atomic sums into zeroed C).
  for (VnmPattern p : {VnmPattern{16, 32, 32}, {4, 32, 32}, {2, 4, 4}, {1, 8, 64}, {5, 7, 16}})
    for (const auto* opts : {&kPlain, &kPacked}) {
      check_nm_spmm<float, Cuda>(130, random_dense<float>(2050, 260, p.n), 2050, 260, p, 3, "split-k", *opts);
      check_nm_spmm<float, Cuda>(300, random_dense<float>(257, 390, p.m), 257, 390, p, 4, "tiles", *opts, true);
    }
}

TEST(VnmSpmmCuda, EdgeShapes) {
  for (const auto* opts : {&kPlain, &kPacked}) {
    check_nm_spmm<float, Cuda>(1, random_dense<float>(5, 3, 1), 5, 3, {1, 8, 32}, 2, "k < M, n < L", *opts);
    check_nm_spmm<float, Cuda>(200, random_dense<float>(96, 1, 1), 96, 1, {1, 2, 4}, 2, "n = 1", *opts);
    check_nm_spmm<float, Cuda>(3, random_dense<float>(0, 9, 1), 0, 9, {1, 2, 4}, 2, "k = 0", *opts);
    check_nm_spmm<float, Cuda>(0, random_dense<float>(8, 9, 1), 8, 9, {1, 2, 4}, 2, "m = 0", *opts);
    check_nm_spmm<float, Cuda>(4, random_dense<float>(8, 0, 1), 8, 0, {1, 2, 4}, 2, "n = 0", *opts);
  }
}

TEST(VnmSpmmCuda, WeightsPrunedFromRealMatrices) {
  for (const std::string name : {"west0497", "polblogs", "watt_2"}) {
    const auto coo = tessera::io::read_matrix_market(tessera_test::real_matrix(name));
    const std::int64_t k = coo.shape[0], n = coo.shape[1];
    std::vector<float> dense(k * n, 0.f);
    for (std::int64_t e = 0; e < coo.nnz(); ++e)
      dense[coo.coord(e, 0) * n + coo.coord(e, 1)] += static_cast<float>(coo.values[e]);
    check_nm_spmm<float, Cuda>(96, dense, k, n, {8, 32, 32}, 5, name);
    check_nm_spmm<float, Cuda>(64, dense, k, n, {1, 4, 8}, 6, name, kPacked);
  }
}

TEST(VnmSpmmCuda, NativeOnTheGpuAndDouble) {
  const NmSpmmOptions native{NmSpmmAlgorithm::Native};
  check_nm_spmm<float, Cuda>(70, random_dense<float>(99, 130, 1), 99, 130, {3, 8, 16}, 2, "native float", native);
  // double has no tiled kernel: Auto runs the portable one, asking for CudaTiled is an error.
  check_nm_spmm<double, Cuda>(70, random_dense<double>(99, 130, 1), 99, 130, {3, 8, 16}, 2, "auto double");
  const auto B = tessera::prune_vnm<Cuda>(tessera_test::to_view<double, Cuda>(random_dense<double>(8, 8, 1), 8, 8, "d"),
                                          VnmPattern{1, 2, 4});
  Kokkos::View<double**, Kokkos::LayoutRight, Cuda> A("A", 2, 8), C("C", 2, 8), C_bad("C", 3, 8);
  EXPECT_THROW(tessera::nm_spmm(A, B, C, {NmSpmmAlgorithm::CudaTiled}), tessera::NotCompiled);
  EXPECT_THROW(tessera::nm_spmm(A, B, C_bad), tessera::ShapeError);
}

TEST(VnmSpmmCuda, RejectsAPlanOfAnotherMatrix) {
  const VnmPattern p{2, 8, 32};
  const auto B = tessera::prune_vnm<Cuda>(tessera_test::to_view<float, Cuda>(random_dense<float>(64, 256, 1), 64, 256, "b"), p);
  const auto other =
      tessera::prune_vnm<Cuda>(tessera_test::to_view<float, Cuda>(random_dense<float>(64, 512, 2), 64, 512, "o"), p);
  const auto plan = tessera::vnm_spmm_prepare(other);
  Kokkos::View<float**, Kokkos::LayoutRight, Cuda> A("A", 5, 64), C("C", 5, 256);
  EXPECT_THROW(tessera::nm_spmm(Cuda(), A, B, &plan, C), tessera::ShapeError);
  const auto own = tessera::vnm_spmm_prepare(B);
  EXPECT_NO_THROW(tessera::nm_spmm(Cuda(), A, B, &own, C));
}

}  // namespace
