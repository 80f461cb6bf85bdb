#pragma once
// The host execution spaces of this build, for typed tests.
#include <Kokkos_Core.hpp>
#include <gtest/gtest.h>

namespace tessera_test {

using HostSpaces = ::testing::Types<
#ifdef KOKKOS_ENABLE_OPENMP
    Kokkos::OpenMP,
#endif
    Kokkos::Serial>;

}  // namespace tessera_test
