#pragma once
/// \file
/// The arrays of a result tensor taken from a device scratch pool (device_scratch.hpp; the pool of
/// results unless told otherwise) instead of cudaMalloc: no allocation maps memory or waits for the
/// device, and freeing them costs no cudaFree either, a fixed cost that dominates small calls. The
/// tensor owns them through its owner pointer (its Views are unmanaged views of the blocks); they
/// return to the pool in stream order when the last copy of the tensor goes.
#include <cstddef>
#include <deque>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <cuda_runtime_api.h>

#include "tessera/formats/cuda/device_scratch.hpp"

namespace tessera::formats::cuda {

/// Blocks of the device scratch pool for a result's arrays, released together with it.
class PooledArrays {
 public:
  /// Blocks of the pool of `use` taken and returned in order on `stream`.
  explicit PooledArrays(cudaStream_t stream, ScratchUse use = ScratchUse::Result) : stream_(stream), use_(use) {}

  /// A View of n entries in a new block (OutOfMemoryError naming `label` where none is left).
  template <class View>
  View take(const std::string& label, std::size_t n) {
    using Value = typename View::value_type;
    blocks_.emplace_back(label, n * sizeof(Value), stream_, use_);
    return View(static_cast<Value*>(blocks_.back().data()), n);
  }

  /// Keeps `other` alive as long as these blocks: the owner of arrays the result shares.
  void keep(std::shared_ptr<const void> other) { kept_.push_back(std::move(other)); }

 private:
  cudaStream_t stream_;
  ScratchUse use_;
  std::deque<DeviceScratch> blocks_;  // a deque: a DeviceScratch neither moves nor copies
  std::vector<std::shared_ptr<const void>> kept_;
};

}  // namespace tessera::formats::cuda
