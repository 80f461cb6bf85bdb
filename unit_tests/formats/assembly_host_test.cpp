// Assembly tests (from_coo, convert, transpose) on the host execution spaces of this build.
#include <Kokkos_Core.hpp>
#include <gtest/gtest.h>

#include "tessera_test/host_spaces.hpp"

using TestSpaces = tessera_test::HostSpaces;

#include "assembly_test_body.hpp"
