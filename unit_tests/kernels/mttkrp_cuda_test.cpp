// SpMTTKRP tests (sparse result) on CUDA: the shared body on Kokkos::Cuda.
#include <Kokkos_Core.hpp>
#include <gtest/gtest.h>

using TestSpaces = ::testing::Types<Kokkos::Cuda>;

#include "mttkrp_test_body.hpp"
