// nm_spmm (NV24) on Kokkos::Cuda: the sparse-tensor-core kernel (mma.sp, fp16 and bf16)
// through the shared body, plus A with an unaligned row stride (packed first), the portable
// kernel forced on the GPU, and every tile shape of the raw entry (the sm_90a wgmma.sp tiles
// too on a compute capability 9.0 device), fp16 and bf16, with and without K splits, k = 0,
// against the same reference; the launch choice on Hopper, and the wgmma.sp tiles refused
// elsewhere; NmSpmmOptions::tune through a handle.
#include <Kokkos_Core.hpp>
#include <gtest/gtest.h>

#include <cstdint>
#include <type_traits>
#include <vector>

using TestSpaces = ::testing::Types<Kokkos::Cuda>;

#include "nv24_spmm_test_body.hpp"

TEST(Nv24SpmmCuda, DefaultIsTheSparseTensorCoreKernel) {
  using tessera::NmSpmmAlgorithm;
  using tessera::Nv24Tensor;
  EXPECT_EQ((tessera::nm_spmm_default_algorithm<Nv24Tensor<nv24_test::Half, Kokkos::Cuda>>()),
            NmSpmmAlgorithm::SparseTensorCore);
  EXPECT_EQ((tessera::nm_spmm_default_algorithm<Nv24Tensor<tessera::bf16_t, Kokkos::Cuda>>()),
            NmSpmmAlgorithm::SparseTensorCore);
  EXPECT_EQ((tessera::nm_spmm_default_algorithm<Nv24Tensor<float, Kokkos::Cuda>>()), NmSpmmAlgorithm::Native);
}

TEST(Nv24SpmmCuda, NativeKernelOnTheGpu) {
  using T = nv24_test::Half;
  const auto A = nv24_test::random_values<T>(50 * 70, 11), B = nv24_test::random_values<T>(70 * 40, 12);
  nv24_test::check<T, Kokkos::LayoutRight, Kokkos::Cuda>(A, B, 50, 70, 40, "native on cuda",
                                                         {tessera::NmSpmmAlgorithm::Native});
}

// With tune, the handle's first product of a batch size times the candidate launches (into a
// scratch output) and keeps the fastest: right against the reference, C (LayoutLeft: through the
// temporary; an unaligned A: packed first) as well, one timing per batch size whatever the
// layouts, none on later calls.
TEST(Nv24SpmmCuda, TunedLaunchTimedOncePerBatchSize) {
  using T = nv24_test::Half;
  tessera::NmSpmmOptions tuned;
  tuned.tune = true;
  tessera::NmSpmmHandle handle(tuned);
  const auto kept = [&] {
    const auto* st = handle.state().get<tessera::kernels::cuda::Nv24CudaState>();
    return st ? st->launches.size() : std::size_t(0);
  };
  const auto A = nv24_test::random_values<T>(700 * 512, 23), B = nv24_test::random_values<T>(512 * 390, 24);
  nv24_test::check<T, Kokkos::LayoutRight, Kokkos::Cuda>(A, B, 700, 512, 390, "tuned", handle);
  EXPECT_EQ(kept(), 1u);
  nv24_test::check<T, Kokkos::LayoutLeft, Kokkos::Cuda>(A, B, 700, 512, 390, "tuned LayoutLeft", handle);
  EXPECT_EQ(kept(), 1u) << "a tuned batch size is not timed again";
  nv24_test::check<T, Kokkos::LayoutRight, Kokkos::Cuda>(A, B, 300, 512, 390, "tuned, another batch", handle, 2.0,
                                                         0.5);
  EXPECT_EQ(kept(), 2u);
  // A weight of another shape is refused by this handle; a handle of its own tunes it.
  const auto A2 = nv24_test::random_values<tessera::bf16_t>(45 * 37, 25);
  const auto B2 = nv24_test::random_values<tessera::bf16_t>(37 * 29, 26);
  EXPECT_THROW((nv24_test::check<tessera::bf16_t, Kokkos::LayoutRight, Kokkos::Cuda>(A2, B2, 45, 37, 29, "other", handle)),
               tessera::ShapeError);
  nv24_test::check<tessera::bf16_t, Kokkos::LayoutRight, Kokkos::Cuda>(A2, B2, 45, 37, 29, "tuned, A packed", tuned);
}

TEST(Nv24SpmmCuda, UnalignedRowStrideIsPacked) {
  // k = 37: a row-major A has row stride 37 (not a multiple of 8), so A is packed first
  using T = tessera::bf16_t;
  const auto A = nv24_test::random_values<T>(45 * 37, 21), B = nv24_test::random_values<T>(37 * 29, 22);
  nv24_test::check<T, Kokkos::LayoutRight, Kokkos::Cuda>(A, B, 45, 37, 29, "unaligned lda");
}

namespace {
namespace kc = tessera::kernels::cuda;

bool is_hopper() {
  cudaDeviceProp prop;
  return cudaGetDeviceProperties(&prop, 0) == cudaSuccess && prop.major == 9 && prop.minor == 0;
}
std::vector<kc::Nv24Tile> runnable_tiles() {
  std::vector<kc::Nv24Tile> tiles = {kc::Nv24Tile::Large, kc::Nv24Tile::Medium, kc::Nv24Tile::Small};
  if (is_hopper())
    tiles.insert(tiles.end(), {kc::Nv24Tile::HopperWide, kc::Nv24Tile::HopperSquare, kc::Nv24Tile::HopperTall,
                               kc::Nv24Tile::HopperLarge});
  return tiles;
}

// Every runnable tile, with 1 and 3 K splits, and on Hopper head + tail launches of two
// wgmma.sp tiles, on an m x k x n product (A with row stride lda, a multiple of 8, so that it
// is read in place); outputs poisoned with NaN first.
template <class T>
void check_tiles(std::int64_t m, std::int64_t k, std::int64_t n, std::int64_t lda, std::uint64_t seed) {
  const auto A = nv24_test::random_values<T>(m * k, seed), B = nv24_test::random_values<T>(k * n, seed + 1);
  const auto W = tessera::prune_nv24<T, Kokkos::Cuda>(nv24_test::to_view<T, Kokkos::LayoutRight, Kokkos::Cuda>(B, k, n, "B"));
  Kokkos::View<T**, Kokkos::LayoutRight, Kokkos::Cuda> Apad("A", m, lda);
  auto Asub = Kokkos::subview(Apad, Kokkos::ALL, std::pair<std::int64_t, std::int64_t>(0, k));
  Kokkos::deep_copy(Asub, nv24_test::to_view<T, Kokkos::LayoutRight, Kokkos::Cuda>(A, m, k, "A"));
  const auto ref = tessera::reference::dense_product(A, tessera::reference::prune_2_4(B, k, n), m, k, n);
  const kc::Nv24Type type = std::is_same_v<T, tessera::bf16_t> ? kc::Nv24Type::BF16 : kc::Nv24Type::F16;
  std::vector<kc::Nv24Launch> launches;
  for (kc::Nv24Tile tile : runnable_tiles())
    for (int splits : {1, 3}) launches.push_back({tile, splits});
  if (is_hopper() && m > 1)
    launches.insert(launches.end(), {{kc::Nv24Tile::HopperLarge, 1, kc::Nv24Tile::HopperTall, m / 3},
                                     {kc::Nv24Tile::HopperWide, 1, kc::Nv24Tile::HopperLarge, 1}});
  for (const kc::Nv24Launch& launch : launches) {
    Kokkos::View<T**, Kokkos::LayoutRight, Kokkos::Cuda> C("C", m, n);
    Kokkos::deep_copy(C, nv24_test::from_double<T>(std::numeric_limits<double>::quiet_NaN()));
    const auto& s = W.decompose();
    kc::Nv24Args args{type, m, n, k, W.k_padded(), Apad.data(), lda, s.vals.data(), s.meta.data(), C.data(), n};
    kc::nv24_spmm(args, Kokkos::Cuda().cuda_stream(), launch);
    Kokkos::fence();
    auto hC = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), C);
    std::vector<double> got;
    for (std::int64_t i = 0; i < m; ++i)
      for (std::int64_t j = 0; j < n; ++j) got.push_back(nv24_test::to_double(hC(i, j)));
    EXPECT_LE(tessera_test::relative_error(got, ref), nv24_test::tolerance<T>())
        << kc::to_string(launch) << ", m " << m << " k " << k << " n " << n;
  }
}
}  // namespace

TEST(Nv24SpmmCuda, EveryTileShapeAndSplitK) {
  check_tiles<nv24_test::Half>(300, 515, 270, 520, 31);
  check_tiles<tessera::bf16_t>(300, 515, 270, 520, 41);
  check_tiles<nv24_test::Half>(257, 1000, 130, 1000, 51);  // 16 k tiles: the pipeline wraps around
}

TEST(Nv24SpmmCuda, EveryTileShapeWithKZero) {
  check_tiles<tessera::bf16_t>(33, 0, 65, 8, 61);  // C = 0 from every tile
}

TEST(Nv24SpmmCuda, HopperTilesChosenOnComputeCapability90) {
  kc::Nv24Args args{kc::Nv24Type::F16, 4096, 4096, 4096, 4096, nullptr, 4096, nullptr, nullptr, nullptr, 4096};
  const kc::Nv24Launch l = kc::nv24_choose(args);
  const bool hopper_tile =
      l.tile == kc::Nv24Tile::HopperWide || l.tile == kc::Nv24Tile::HopperSquare || l.tile == kc::Nv24Tile::HopperTall ||
      l.tile == kc::Nv24Tile::HopperLarge;
  EXPECT_EQ(hopper_tile, is_hopper()) << kc::to_string(l.tile);
  if (!is_hopper()) {
    EXPECT_THROW(kc::nv24_choose(args, kc::Nv24Tile::HopperWide), tessera::NotCompiled);
  }
}

TEST(Nv24SpmmCuda, BadLaunchesRejected) {
  kc::Nv24Args args{kc::Nv24Type::F16, 4, 4, 16, 64, nullptr, 16, nullptr, nullptr, nullptr, 4};
  EXPECT_THROW(kc::nv24_spmm(args, nullptr, kc::Nv24Launch{kc::Nv24Tile::Auto, 1}), tessera::ShapeError);
  EXPECT_THROW(kc::nv24_spmm(args, nullptr, kc::Nv24Launch{kc::Nv24Tile::Large, 0}), tessera::ShapeError);
  if (is_hopper()) {
    EXPECT_THROW(kc::nv24_spmm(args, nullptr, {kc::Nv24Tile::HopperLarge, 2, kc::Nv24Tile::HopperTall, 1}),
                 tessera::ShapeError);
    EXPECT_THROW(kc::nv24_spmm(args, nullptr, {kc::Nv24Tile::HopperLarge, 1, kc::Nv24Tile::Large, 1}),
                 tessera::ShapeError);
    EXPECT_THROW(kc::nv24_spmm(args, nullptr, {kc::Nv24Tile::HopperLarge, 1, kc::Nv24Tile::HopperTall, 4}),
                 tessera::ShapeError);
  } else {
    EXPECT_THROW(kc::nv24_spmm(args, nullptr, kc::Nv24Launch{kc::Nv24Tile::HopperLarge, 1}), tessera::NotCompiled);
  }
}
