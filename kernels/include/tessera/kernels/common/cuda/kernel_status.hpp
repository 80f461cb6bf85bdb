#pragma once
/// \file
/// Whether a raw CUDA kernel entry can run given arguments, as CUTLASS's can_implement answers
/// it: the entry's *_can_implement returns one of these before any work, and its run function
/// throws the same reason as a typed tessera error, so the two cannot disagree.
#include <string>
#include <utility>

namespace tessera::kernels::cuda {

/// Whether a raw CUDA kernel entry can run given arguments, and why not.
struct KernelStatus {
  bool ok = true;  ///< the entry can run
  /// Why not, when !ok: the build or the device has no kernel for the call (the run throws
  /// tessera::NotCompiled), or the arguments are bad (tessera::ShapeError).
  bool not_compiled = false;
  std::string reason;  ///< why not, when !ok

  /// Bad arguments: the run throws ShapeError with `why`.
  static KernelStatus refused(std::string why) { return {false, false, std::move(why)}; }
  /// No kernel for the call in this build or on this device: the run throws NotCompiled with `why`.
  static KernelStatus not_runnable(std::string why) { return {false, true, std::move(why)}; }
};

}  // namespace tessera::kernels::cuda
