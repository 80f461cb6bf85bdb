// Dense-factor MTTKRP tests on CUDA: the shared body on Kokkos::Cuda.
#include <Kokkos_Core.hpp>
#include <gtest/gtest.h>

using TestSpaces = ::testing::Types<Kokkos::Cuda>;

#include "mttkrp_dense_test_body.hpp"
