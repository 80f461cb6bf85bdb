// Formats tests with tensors in CUDA memory.
#include <Kokkos_Core.hpp>
#include <gtest/gtest.h>

using TestSpaces = ::testing::Types<Kokkos::Cuda>;

#include "formats_test_body.hpp"
#include "assembly_test_body.hpp"
