// Distributed tests on CUDA (the halo through peer copies, or MPI with TESSERA_HALO_PEER=0).
#include <Kokkos_Core.hpp>
#include <gtest/gtest.h>

using TestSpaces = ::testing::Types<Kokkos::Cuda>;

#include "dist_test_body.hpp"
