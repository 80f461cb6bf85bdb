#pragma once
/// \file
/// What every kernel handle holds: the options of its calls, which tensor it serves
/// (PatternBinding) and the state its calls reuse (HandleState). SpmmHandle, NmSpmmHandle and
/// SpgemmHandle are this with their family's options. Not thread-safe: one handle per thread;
/// copies share the kept state.
#include "tessera/kernels/common/handle_state.hpp"
#include "tessera/kernels/common/pattern_binding.hpp"

namespace tessera::kernels {

/// Options of a kernel family's calls, the tensor they serve and the state they reuse.
template <class Options>
class BasicHandle {
 public:
  /// A handle with default options.
  BasicHandle() = default;
  /// A handle whose calls use `options`.
  explicit BasicHandle(const Options& options) : options_(options) {}
  /// Options of the calls; changing them later applies to later calls.
  Options& options() noexcept { return options_; }
  /// Options of the calls.
  const Options& options() const noexcept { return options_; }
  /// Forgets the tensor and everything kept for it: after rewriting its pattern in place.
  void reset() noexcept {
    binding_.reset();
    state_.reset();
  }
  /// True once a call has bound the handle to a tensor.
  bool bound() const noexcept { return binding_.bound(); }

  /// Used by the kernels.
  PatternBinding& binding() noexcept { return binding_; }
  /// Used by the kernels.
  HandleState& state() noexcept { return state_; }

 private:
  Options options_;
  PatternBinding binding_;
  HandleState state_;
};

}  // namespace tessera::kernels
