#pragma once
/// \file
/// The handle of tessera::ttm with a mode argument (ttm(space, B, mode, C, handle)): B rearranged
/// for each mode it was asked for, built on that mode's first call in B's space and reused by
/// later calls (a Tucker / HOOI loop contracts every mode every iteration).
#include "tessera/kernels/common/basic_handle.hpp"
#include "tessera/workspace/policies.hpp"

namespace tessera {

/// Keeps, per mode, a copy of B as the CSF the space's kernel reads for that mode (its pattern and
/// its values; none where B already is that CSF), and on Kokkos::Cuda the last level of the
/// result's pattern (a row of L coordinates per fiber), which the results of later calls with the
/// same L share. Its options are those of the host kernels' workspaces. Which tensor it serves is
/// checked on every call (kernels::PatternBinding); a tensor of the same pattern in other arrays,
/// or new values, rebuilds the copies. After rewriting B's values in place, reset() it. Not
/// thread-safe.
class TtmHandle : public kernels::BasicHandle<workspace::Options> {
 public:
  using BasicHandle::BasicHandle;
};

}  // namespace tessera
