#pragma once
/// \file
/// The handle of tessera::spgemm: the symbolic/numeric split. The first product through a handle
/// computes C and keeps its pattern; a later product of operands with the same patterns (new
/// values) runs only the numeric phase, into that pattern, on the operands' own space.
#include "tessera/kernels/common/basic_handle.hpp"
#include "tessera/workspace/policies.hpp"

namespace tessera {

/// Which operands it serves is checked on every call (kernels::PatternBinding over both A and B).
/// The numeric phase runs for A and B CSR and C CSR; other encodings recompute the whole product
/// on every call. Results of one handle share their pattern arrays. Not thread-safe.
class SpgemmHandle : public kernels::BasicHandle<workspace::Options> {
 public:
  using BasicHandle::BasicHandle;
};

}  // namespace tessera
