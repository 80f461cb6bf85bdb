#pragma once
/// \file
/// Where a kernel's result tensor gets its arrays: on Kokkos::Cuda from the device scratch pool
/// (cuda/pooled_arrays.hpp; the tensor owns them through owner()), elsewhere Kokkos allocations.
///
///   ResultArrays<Space> arrays(space);
///   storage.vals = arrays.take<typename Result::vals_view>("my kernel vals", n);
///   return Result(shape, std::move(storage), arrays.owner());
#include <cstdint>
#include <memory>
#include <string>
#include <type_traits>

#include <Kokkos_Core.hpp>

#include "tessera/core/allocation.hpp"

#if defined(KOKKOS_ENABLE_CUDA) && defined(TESSERA_HAVE_FORMATS_CUDA)
#include "tessera/formats/cuda/pooled_arrays.hpp"
#endif

namespace tessera::detail {

template <class Space>
class ResultArrays {
 public:
  explicit ResultArrays(const Space& space) {
#if defined(KOKKOS_ENABLE_CUDA) && defined(TESSERA_HAVE_FORMATS_CUDA)
    if constexpr (std::is_same_v<Space, Kokkos::Cuda>)
      pool_ = std::make_shared<formats::cuda::PooledArrays>(space.cuda_stream());
#else
    (void)space;
#endif
  }

  /// A new array of n entries, not initialized.
  template <class View>
  View take(const std::string& label, std::int64_t n) {
#if defined(KOKKOS_ENABLE_CUDA) && defined(TESSERA_HAVE_FORMATS_CUDA)
    if (pool_) return pool_->template take<View>(label, static_cast<std::size_t>(n));
#endif
    return uninitialized_view<View>(label, n);
  }

  /// Keeps `tensor` (whose arrays the result shares) alive as long as the result.
  template <class Tensor>
  void share_arrays_of(const Tensor& tensor) {
#if defined(KOKKOS_ENABLE_CUDA) && defined(TESSERA_HAVE_FORMATS_CUDA)
    if (pool_) pool_->keep(std::make_shared<const Tensor>(tensor));
#else
    (void)tensor;
#endif
  }

  /// The result tensor's owner pointer (null where its arrays are Kokkos allocations).
  std::shared_ptr<const void> owner() const {
#if defined(KOKKOS_ENABLE_CUDA) && defined(TESSERA_HAVE_FORMATS_CUDA)
    return pool_;
#else
    return nullptr;
#endif
  }

 private:
#if defined(KOKKOS_ENABLE_CUDA) && defined(TESSERA_HAVE_FORMATS_CUDA)
  std::shared_ptr<formats::cuda::PooledArrays> pool_;
#endif
};

}  // namespace tessera::detail
