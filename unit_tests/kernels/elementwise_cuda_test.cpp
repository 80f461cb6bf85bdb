// Element-wise operations (add, multiply_elementwise, scaling, diagonal) on Kokkos::Cuda.
#include <Kokkos_Core.hpp>
#include <gtest/gtest.h>

using TestSpaces = ::testing::Types<Kokkos::Cuda>;

#include "elementwise_test_body.hpp"
