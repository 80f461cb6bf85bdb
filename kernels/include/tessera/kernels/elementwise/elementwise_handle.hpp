#pragma once
/// \file
/// Options and handle of the element-wise operations (tessera::add, tessera::multiply_elementwise).
/// The first call through a handle computes C and keeps its pattern with, for each of C's entries,
/// its position in A and in B (two offsets per entry); a later call with operands of the same
/// patterns (new values) only gathers C's values, into that pattern.
#include "tessera/kernels/common/basic_handle.hpp"

namespace tessera {

/// Options of tessera::add and tessera::multiply_elementwise.
struct ElementwiseOptions {
  /// Leave out entries whose computed value is zero (a + (-a), a * 0). Off by default: C then
  /// has exactly the union (add) or intersection (multiply) of the patterns, as cuSPARSE's
  /// csrgeam2 and Eigen give. With a handle, drop_zeros recomputes the pattern on every call.
  bool drop_zeros = false;
};

/// Which operands it serves is checked on every call (kernels::PatternBinding over A and B).
/// Results of one handle share their pattern arrays. Not thread-safe.
class ElementwiseHandle : public kernels::BasicHandle<ElementwiseOptions> {
 public:
  using BasicHandle::BasicHandle;
};

}  // namespace tessera
