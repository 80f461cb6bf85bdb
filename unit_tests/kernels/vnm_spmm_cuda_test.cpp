// tessera::nm_spmm on Kokkos::Cuda with VNM weights: the tiled CUDA-core kernel (plain and
// packed stage plans, a plan built once and reused, forced launches with either copier,
// column-major A and C) and the portable kernel on the GPU, against the double-precision
// oracle, C poisoned with NaN before every run.
#include <cuda_runtime_api.h>

#include <limits>
#include <string>
#include <utility>
#include <vector>

#include <Kokkos_Core.hpp>
#include <gtest/gtest.h>

#include "tessera/core/io/matrix_market.hpp"
#include "tessera/formats/vnm.hpp"
#include "tessera/kernels/nm_spmm/nm_spmm.hpp"
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

TEST(VnmSpmmCuda, ColumnMajorAAndC) {
  // LayoutLeft A: plain plans read its columns directly (no panel pass), packed plans and the
  // portable kernel take it as it is; LayoutLeft C: stored down its columns.
  using Left = Kokkos::LayoutLeft;
  using Right = Kokkos::LayoutRight;
  const NmSpmmOptions native{NmSpmmAlgorithm::Native};
  for (const auto* opts : {&kPlain, &kPacked, &native}) {
    const std::string kind = opts == &kPlain ? "plain" : opts == &kPacked ? "packed" : "native";
    const std::int64_t k1 = 37 * 32 + 3;
    check_nm_spmm<float, Cuda, Left, Right>(300, random_dense<float>(k1, 390, 1), k1, 390, {4, 32, 32}, 2,
                                            kind + " A left", *opts);
    check_nm_spmm<float, Cuda, Right, Left>(129, random_dense<float>(1000, 129, 3), 1000, 129, {5, 7, 8}, 4,
                                            kind + " C left", *opts);
    check_nm_spmm<float, Cuda, Left, Left>(131, random_dense<float>(2050, 260, 5), 2050, 260, {16, 32, 32}, 6,
                                           kind + " both left, split-K", *opts);
    check_nm_spmm<float, Cuda, Left, Left>(7, random_dense<float>(64, 300, 7), 64, 300, {3, 16, 8}, 8,
                                           kind + " both left, m = 7", *opts);
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
  EXPECT_THROW(tessera::nm_spmm(1.0, A, B, 0.0, C, {NmSpmmAlgorithm::CudaTiled}), tessera::NotCompiled);
  EXPECT_THROW(tessera::nm_spmm(1.0, A, B, 0.0, C_bad), tessera::ShapeError);
}

TEST(VnmSpmmCuda, RawKernelWithEitherCopier) {
  // The raw entry with forced launches: warp 0 copying (what GPUs other than compute
  // capability 9.0 run) and, where the device runs it, the producer warpgroup; row tiles,
  // split-K and the device's own choice (Auto), each against the oracle, C poisoned.
  namespace kc = tessera::kernels::cuda;
  int dev = 0, major = 0, minor = 0;
  ASSERT_EQ(cudaGetDevice(&dev), cudaSuccess);
  ASSERT_EQ(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev), cudaSuccess);
  ASSERT_EQ(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, dev), cudaSuccess);
  const bool sm90a = major == 9 && minor == 0;
  std::vector<kc::VnmLaunch> launches;
  for (const auto copier : {kc::VnmCopier::ComputingWarp, kc::VnmCopier::ProducerWarpgroup, kc::VnmCopier::Auto})
    for (const auto& [rows, split] : {std::pair{kc::VnmRowTile::Rows128, 1}, {kc::VnmRowTile::Rows64, 3}})
      launches.push_back({rows, split, copier});
  std::uint64_t seed = 11;
  for (VnmPattern p : {VnmPattern{16, 32, 32}, {3, 8, 64}, {1, 2, 4}}) {
    const std::int64_t m = 300, k = 37 * p.m + 3, n = 390;
    const auto A_host = random_dense<float>(m, k, seed);
    const auto A = tessera_test::to_view<float, Cuda>(A_host, m, k, "A");
    const auto B = tessera::prune_vnm<Cuda>(tessera_test::to_view<float, Cuda>(random_dense<float>(k, n, seed + 1), k, n, "B"), p);
    const auto stages = tessera::prepare_vnm_stages(B, kc::kVnmTileCols, /*packed=*/false);
    const auto vals = tessera_test::to_host_vector(B.values());
    auto meta_view = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), B.meta());
    const std::vector<std::uint8_t> meta(meta_view.data(), meta_view.data() + meta_view.size());
    const std::vector<double> A_double(A_host.begin(), A_host.end());
    const auto ref = tessera::reference::vnm_spmm(A_double, m, vals, meta, B.extents(), p);
    Kokkos::View<float**, Kokkos::LayoutRight, Cuda> C("C", m, n);
    for (const auto& l : launches) {
      SCOPED_TRACE(std::to_string(p.n) + ":" + std::to_string(p.m) + " L=" + std::to_string(p.l) + " " + l.describe());
      Kokkos::deep_copy(C, std::numeric_limits<float>::quiet_NaN());
      Kokkos::fence();
      const auto args = kc::make_vnm_args(A, B, stages, C);
      if (l.copier == kc::VnmCopier::ProducerWarpgroup && !sm90a) {
        EXPECT_THROW(kc::vnm_spmm(args, nullptr, &l), tessera::Error);
        continue;
      }
      kc::vnm_spmm(args, nullptr, &l);
      ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
      EXPECT_LE(tessera_test::relative_error(tessera_test::to_host_vector(C), ref), tessera_test::tolerance<float>(k));
    }
    seed += 2;
  }
}

// A handle keeps the stage plan of the weight it was first used with and refuses others.
TEST(VnmSpmmCuda, HandleRefusesAnotherWeight) {
  const VnmPattern p{2, 8, 32};
  const auto B = tessera::prune_vnm<Cuda>(tessera_test::to_view<float, Cuda>(random_dense<float>(64, 256, 1), 64, 256, "b"), p);
  const auto other =
      tessera::prune_vnm<Cuda>(tessera_test::to_view<float, Cuda>(random_dense<float>(64, 512, 2), 64, 512, "o"), p);
  Kokkos::View<float**, Kokkos::LayoutRight, Cuda> A("A", 5, 64), C("C", 5, 256), C_other("C", 5, 512);
  tessera::NmSpmmHandle handle;
  tessera::nm_spmm(Cuda(), 1.0f, A, B, 0.0f, C, handle);
  EXPECT_NE(handle.state().get<tessera::VnmStages<Cuda>>(), nullptr) << "the stage plan is kept";
  EXPECT_THROW(tessera::nm_spmm(Cuda(), 1.0f, A, other, 0.0f, C_other, handle), tessera::ShapeError);
  // Same shape and pattern, another mask (the next layer's weight): only the meta tells them apart.
  const auto twin =
      tessera::prune_vnm<Cuda>(tessera_test::to_view<float, Cuda>(random_dense<float>(64, 256, 3), 64, 256, "t"), p);
  EXPECT_THROW(tessera::nm_spmm(Cuda(), 1.0f, A, twin, 0.0f, C, handle), tessera::ShapeError);
  EXPECT_NO_THROW(tessera::nm_spmm(Cuda(), 1.0f, A, B.to<Cuda>(), 0.0f, C, handle)) << "a tensor sharing B's arrays";
  handle.reset();
  EXPECT_NO_THROW(tessera::nm_spmm(Cuda(), 1.0f, A, twin, 0.0f, C, handle));
}

}  // namespace
