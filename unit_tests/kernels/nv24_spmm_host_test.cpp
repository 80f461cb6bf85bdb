// nm_spmm (NV24) on the host execution spaces of this build: the portable kernel, also
// in float and double; the sparse-tensor-core algorithm is not compiled for them.
#include <Kokkos_Core.hpp>
#include <gtest/gtest.h>

#include "tessera_test/host_spaces.hpp"

using TestSpaces = tessera_test::HostSpaces;

#include "nv24_spmm_test_body.hpp"

TYPED_TEST(Nv24Spmm, FloatAndDoubleOnRandomAndOddShapes) {
  nv24_test::random_shapes<float, TypeParam>(201);
  nv24_test::random_shapes<double, TypeParam>(301);
}

TYPED_TEST(Nv24Spmm, SparseTensorCoreIsNotCompiledForHostSpaces) {
  using Space = TypeParam;
  using T = nv24_test::Half;
  const auto W = tessera::prune_nv24<T, Space>(Kokkos::View<T**, Kokkos::LayoutRight, Space>("B", 8, 8));
  Kokkos::View<T**, Kokkos::LayoutRight, Space> A("A", 4, 8), C("C", 4, 8);
  EXPECT_EQ(tessera::nm_spmm_default_algorithm<decltype(W)>(), tessera::NmSpmmAlgorithm::Native);
  EXPECT_THROW(tessera::nm_spmm(T(1.0f), A, W, T(0.0f), C, {tessera::NmSpmmAlgorithm::SparseTensorCore}),
               tessera::NotCompiled);
}
