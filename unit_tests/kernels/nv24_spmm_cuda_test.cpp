// nm_spmm (NV24) on Kokkos::Cuda: the sparse-tensor-core kernel (mma.sp, fp16 and bf16)
// through the shared body, plus A with an unaligned row stride (packed first), the portable
// kernel forced on the GPU, and every tile shape of the raw entry, with and without K
// splits, against the same reference.
#include <Kokkos_Core.hpp>
#include <gtest/gtest.h>

using TestSpaces = ::testing::Types<Kokkos::Cuda>;

#include "nv24_spmm_test_body.hpp"

TEST(Nv24SpmmCuda, DefaultIsTheSparseTensorCoreKernel) {
  EXPECT_EQ((tessera::nv24_default_algorithm<nv24_test::Half, Kokkos::Cuda>()),
            tessera::Nv24Algorithm::SparseTensorCore);
  EXPECT_EQ((tessera::nv24_default_algorithm<tessera::bf16_t, Kokkos::Cuda>()),
            tessera::Nv24Algorithm::SparseTensorCore);
  EXPECT_EQ((tessera::nv24_default_algorithm<float, Kokkos::Cuda>()), tessera::Nv24Algorithm::Native);
}

TEST(Nv24SpmmCuda, NativeKernelOnTheGpu) {
  using T = nv24_test::Half;
  const auto A = nv24_test::random_values<T>(50 * 70, 11), B = nv24_test::random_values<T>(70 * 40, 12);
  nv24_test::check<T, Kokkos::LayoutRight, Kokkos::Cuda>(A, B, 50, 70, 40, "native on cuda",
                                                         tessera::Nv24Algorithm::Native);
}

TEST(Nv24SpmmCuda, UnalignedRowStrideIsPacked) {
  // k = 37: a row-major A has row stride 37 (not a multiple of 8), so A is packed first
  using T = tessera::bf16_t;
  const auto A = nv24_test::random_values<T>(45 * 37, 21), B = nv24_test::random_values<T>(37 * 29, 22);
  nv24_test::check<T, Kokkos::LayoutRight, Kokkos::Cuda>(A, B, 45, 37, 29, "unaligned lda");
}

TEST(Nv24SpmmCuda, EveryTileShapeAndSplitK) {
  namespace kc = tessera::kernels::cuda;
  using T = nv24_test::Half;
  const std::int64_t m = 300, k = 515, n = 270;
  const auto A = nv24_test::random_values<T>(m * k, 31), B = nv24_test::random_values<T>(k * n, 32);
  const auto W = tessera::prune_nv24<T, Kokkos::Cuda>(nv24_test::to_view<T, Kokkos::LayoutRight, Kokkos::Cuda>(B, k, n, "B"));
  // row stride 520 (a multiple of 8) so that A is read in place
  Kokkos::View<T**, Kokkos::LayoutRight, Kokkos::Cuda> Apad("A", m, 520);
  auto Asub = Kokkos::subview(Apad, Kokkos::ALL, std::pair<std::int64_t, std::int64_t>(0, k));
  Kokkos::deep_copy(Asub, nv24_test::to_view<T, Kokkos::LayoutRight, Kokkos::Cuda>(A, m, k, "A"));
  const auto ref = tessera::reference::dense_product(A, tessera::reference::prune_2_4(B, k, n), m, k, n);
  for (kc::Nv24Tile tile : {kc::Nv24Tile::Large, kc::Nv24Tile::Medium, kc::Nv24Tile::Small})
  for (int splits : {1, 3}) {
    Kokkos::View<T**, Kokkos::LayoutRight, Kokkos::Cuda> C("C", m, n);
    Kokkos::deep_copy(C, nv24_test::from_double<T>(std::numeric_limits<double>::quiet_NaN()));
    const auto& s = W.decompose();
    kc::Nv24Args args{kc::Nv24Type::F16, m, n, k, W.k_padded(), Apad.data(), 520, s.vals.data(), s.meta.data(),
                      C.data(), n};
    kc::nv24_spmm(args, Kokkos::Cuda().cuda_stream(), tile, splits);
    Kokkos::fence();
    auto hC = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), C);
    std::vector<double> got;
    for (std::int64_t i = 0; i < m; ++i)
      for (std::int64_t j = 0; j < n; ++j) got.push_back(nv24_test::to_double(hC(i, j)));
    EXPECT_LE(tessera_test::relative_error(got, ref), nv24_test::tolerance<T>())
        << kc::to_string(tile) << ", " << splits << " K splits";
  }
}
