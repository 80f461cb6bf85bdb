// Distributed tests on CUDA (host-staged halo unless MPI is CUDA-aware).
#include <Kokkos_Core.hpp>
#include <gtest/gtest.h>

using TestSpaces = ::testing::Types<Kokkos::Cuda>;

#include "dist_test_body.hpp"
