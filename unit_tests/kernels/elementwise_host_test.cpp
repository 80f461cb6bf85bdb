// Element-wise operations (add, multiply_elementwise, scaling, diagonal) on the host execution
// spaces of this build.
#include <Kokkos_Core.hpp>
#include <gtest/gtest.h>

#include "tessera_test/host_spaces.hpp"

using TestSpaces = tessera_test::HostSpaces;

#include "elementwise_test_body.hpp"
