#pragma once
/// \file
/// State a handle keeps for one execution space and value type (a CUDA plan, tuned picks, a
/// stage plan), held without the handle's type naming it: handles are plain classes, while what
/// they keep depends on the space their first call ran on.
#include <memory>
#include <typeinfo>
#include <utility>

namespace tessera::kernels {

/// State a handle keeps, of a type its calls choose (see the file's comment).
class HandleState {
 public:
  /// The kept state of type S, or null when there is none or it is of another type (the handle
  /// then serves another space or value type: the caller builds anew).
  template <class S>
  S* get() const noexcept {
    return type_ && *type_ == typeid(S) ? static_cast<S*>(state_.get()) : nullptr;
  }
  /// Keeps `state`, dropping what was kept before; returns the kept copy.
  template <class S>
  S& emplace(S state) {
    auto kept = std::make_shared<S>(std::move(state));
    S& ref = *kept;
    state_ = std::move(kept);
    type_ = &typeid(S);
    return ref;
  }
  /// Drops the kept state.
  void reset() noexcept {
    state_.reset();
    type_ = nullptr;
  }

 private:
  std::shared_ptr<void> state_;
  const std::type_info* type_ = nullptr;
};

/// The kept state of type State for a tensor whose values array is `values`, or a fresh State{}
/// in its place where none is kept or it was made from another values array (the handles that
/// keep copies of a tensor's values: mttkrp, ttm). State has a `const void* source_values`.
template <class State>
State& state_for_values(HandleState& kept, const void* values) {
  State* state = kept.get<State>();
  if (state == nullptr || state->source_values != values) {
    state = &kept.emplace(State{});
    state->source_values = values;
  }
  return *state;
}

}  // namespace tessera::kernels
