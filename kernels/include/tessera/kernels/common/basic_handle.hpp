#pragma once
// What every kernel handle holds: the options of its calls, which tensor it serves
// (PatternBinding) and the state its calls reuse (HandleState). SpmmHandle, NmSpmmHandle and
// SpgemmHandle are this with their family's options. Not thread-safe: one handle per thread;
// copies share the kept state.
#include "tessera/kernels/common/handle_state.hpp"
#include "tessera/kernels/common/pattern_binding.hpp"

namespace tessera::kernels {

template <class Options>
class BasicHandle {
 public:
  BasicHandle() = default;
  explicit BasicHandle(const Options& options) : options_(options) {}
  Options& options() noexcept { return options_; }
  const Options& options() const noexcept { return options_; }
  // Forgets the tensor and everything kept for it: after rewriting its pattern in place.
  void reset() noexcept {
    binding_.reset();
    state_.reset();
  }
  bool bound() const noexcept { return binding_.bound(); }

  // Used by the kernels.
  PatternBinding& binding() noexcept { return binding_; }
  HandleState& state() noexcept { return state_; }

 private:
  Options options_;
  PatternBinding binding_;
  HandleState state_;
};

}  // namespace tessera::kernels
