// spmv and spmm tests on CUDA.
#include <Kokkos_Core.hpp>
#include <gtest/gtest.h>

using TestSpaces = ::testing::Types<Kokkos::Cuda>;

#include "kernels_test_body.hpp"
