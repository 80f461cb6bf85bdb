#pragma once
/// \file
/// The handle of the dense-factor tessera::mttkrp (mttkrp(space, X, mode, factors, out, handle)):
/// the tensor rearranged for each mode it was asked for, built on that mode's first call in the
/// tensor's own space and reused by later calls (CP-ALS asks for every mode every iteration).
#include "tessera/kernels/common/basic_handle.hpp"
#include "tessera/workspace/policies.hpp"

namespace tessera {

/// Keeps, per mode, a copy of the tensor as a CSF whose root is that mode (its pattern and its
/// values: at most one copy per mode, none for a mode the tensor is already rooted at). Which
/// tensor it serves is checked on every call (kernels::PatternBinding); a tensor of the same
/// pattern in other arrays, or new values, rebuilds the copies. After rewriting the bound
/// tensor's values in place, reset() it. Not thread-safe.
class MttkrpHandle : public kernels::BasicHandle<workspace::Options> {
 public:
  using BasicHandle::BasicHandle;
};

}  // namespace tessera
