// Assembly tests (from_coo, convert, transpose) with tensors in CUDA memory.
#include <Kokkos_Core.hpp>
#include <gtest/gtest.h>

using TestSpaces = ::testing::Types<Kokkos::Cuda>;

#include "assembly_test_body.hpp"
