// Dense-factor MTTKRP tests on the host execution spaces of this build.
#include <Kokkos_Core.hpp>
#include <gtest/gtest.h>

#include "tessera_test/host_spaces.hpp"

using TestSpaces = tessera_test::HostSpaces;

#include "mttkrp_dense_test_body.hpp"
