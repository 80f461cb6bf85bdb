#pragma once
// The handle of tessera::spgemm: the symbolic/numeric split. The first product through a handle
// computes C and keeps its pattern; a later product of operands with the same patterns (new
// values) runs only the numeric phase, into that pattern, on the operands' own space.
#include "tessera/kernels/common/handle_state.hpp"
#include "tessera/kernels/common/pattern_binding.hpp"
#include "tessera/workspace/policies.hpp"

namespace tessera {

// Which operands it serves is checked on every call (kernels::PatternBinding over both A and B).
// The numeric phase runs for A and B CSR and C CSR; other encodings recompute the whole product
// on every call. Results of one handle share their pattern arrays. Not thread-safe.
class SpgemmHandle {
 public:
  SpgemmHandle() = default;
  explicit SpgemmHandle(const workspace::Options& options) : options_(options) {}
  workspace::Options& options() noexcept { return options_; }
  const workspace::Options& options() const noexcept { return options_; }
  // Forgets the operands and C's pattern: after rewriting A's or B's pattern in place.
  void reset() noexcept {
    binding_.reset();
    state_.reset();
  }
  bool bound() const noexcept { return binding_.bound(); }

  // Used by the kernels.
  kernels::PatternBinding& binding() noexcept { return binding_; }
  kernels::HandleState& state() noexcept { return state_; }

 private:
  workspace::Options options_;
  kernels::PatternBinding binding_;
  kernels::HandleState state_;
};

}  // namespace tessera
