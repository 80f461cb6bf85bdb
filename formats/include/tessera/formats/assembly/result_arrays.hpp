#pragma once
/// \file
/// Where a kernel's result tensor gets its arrays: on Kokkos::Cuda from the device pool of results
/// (cuda/pooled_arrays.hpp; the tensor owns them through owner()), elsewhere Kokkos allocations.
/// Tensors that a call builds for itself and drops before returning take the pool of temporaries
/// (`ResultArrays<Space> arrays(space, call_scoped)`).
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

/// Marks arrays that live only as long as the call that takes them (a kernel's operands and
/// temporaries): on Kokkos::Cuda they come from the temporaries' pool, apart from results.
struct CallScoped {};
inline constexpr CallScoped call_scoped{};

template <class Space>
class ResultArrays {
 public:
  /// Arrays of a result the caller keeps.
  explicit ResultArrays(const Space& space) : ResultArrays(space, false) {}
  /// Arrays freed before the call that takes them returns.
  ResultArrays(const Space& space, CallScoped) : ResultArrays(space, true) {}

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
  ResultArrays(const Space& space, bool call_scoped) {
#if defined(KOKKOS_ENABLE_CUDA) && defined(TESSERA_HAVE_FORMATS_CUDA)
    using formats::cuda::ScratchUse;
    if constexpr (std::is_same_v<Space, Kokkos::Cuda>)
      pool_ = std::make_shared<formats::cuda::PooledArrays>(space.cuda_stream(),
                                                            call_scoped ? ScratchUse::Temporary : ScratchUse::Result);
#else
    (void)space;
    (void)call_scoped;
#endif
  }

#if defined(KOKKOS_ENABLE_CUDA) && defined(TESSERA_HAVE_FORMATS_CUDA)
  std::shared_ptr<formats::cuda::PooledArrays> pool_;
#endif
};

}  // namespace tessera::detail
