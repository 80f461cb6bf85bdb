// SpGEMM tests on the host execution spaces of this build.
#include <tuple>

#include <Kokkos_Core.hpp>
#include <gtest/gtest.h>

#include "tessera/workspace/policies.hpp"
#include "tessera_test/host_spaces.hpp"

using TestSpaces = tessera_test::HostSpaces;
using SpgemmPolicies = std::tuple<tessera::workspace::Dense, tessera::workspace::Bucket, tessera::workspace::Hash,
                                  tessera::workspace::Coord, tessera::workspace::Map, tessera::workspace::SortOnce,
                                  tessera::workspace::Auto>;

#include "spgemm_test_body.hpp"
