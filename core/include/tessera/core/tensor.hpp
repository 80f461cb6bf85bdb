#pragma once
// Tensor<T, Encoding, Space>: a sparse (or dense) tensor whose type carries its
// encoding (formats/encoding.hpp) and the Kokkos execution space its arrays live in.
// The tensor is a container: shape + one (pos, crd) pair of Views per storage level
// + values. Building and converting tensors is done by the formats module
// (from_coo, convert, to_dense...); kernels read the arrays through decompose().
#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <type_traits>

#include <Kokkos_Core.hpp>

#include "tessera/core/allocation.hpp"
#include "tessera/core/error.hpp"

namespace tessera {

template <int N>
using Shape = std::array<std::int64_t, N>;

template <class T, class Enc, class Space = Kokkos::DefaultExecutionSpace>
class Tensor {
 public:
  using value_type = T;
  using encoding_type = Enc;
  using execution_space = Space;
  using memory_space = typename Space::memory_space;
  using device_type = Kokkos::Device<execution_space, memory_space>;
  using ordinal_type = typename Enc::ordinal_type;
  using offset_type = typename Enc::offset_type;
  static constexpr int order = Enc::order;

  using pos_view = Kokkos::View<offset_type*, device_type>;
  using crd_view = Kokkos::View<ordinal_type*, device_type>;
  using vals_view = Kokkos::View<T*, device_type>;

  // Arrays of one storage level; a level that does not use an array leaves it empty.
  struct LevelArrays {
    pos_view pos;  // (positions of the parent level + 1) for compressed levels
    crd_view crd;  // (positions of this level) for compressed and singleton levels
  };
  // The plain Views behind a tensor: the library's lowering of a sparse tensor.
  struct Storage {
    std::array<LevelArrays, order> levels;
    vals_view vals;  // (positions of the last level)
  };

  Tensor() { shape_.fill(0); }

  // Adopts already-built arrays. The formats module validates before calling this;
  // `owner` keeps foreign storage (e.g. a KokkosSparse::CrsMatrix) alive.
  Tensor(const Shape<order>& shape, Storage storage, std::shared_ptr<const void> owner = nullptr)
      : shape_(shape), storage_(std::move(storage)), owner_(std::move(owner)) {}

  const Shape<order>& shape() const noexcept { return shape_; }
  std::int64_t extent(int mode) const {
    if (mode < 0 || mode >= order)
      throw IndexError("mode " + std::to_string(mode) + " of a tensor of order " + std::to_string(order));
    return shape_[mode];
  }
  // Stored entries (explicit zeros included; every position of dense levels counts).
  std::int64_t nnz() const noexcept { return static_cast<std::int64_t>(storage_.vals.extent(0)); }

  const Storage& decompose() const noexcept { return storage_; }
  const LevelArrays& level(int l) const { return storage_.levels.at(l); }
  const vals_view& values() const noexcept { return storage_.vals; }

  // The same tensor with its arrays in OtherSpace's memory. Arrays are shared when
  // the memory space is the same, deep-copied otherwise.
  template <class OtherSpace>
  Tensor<T, Enc, OtherSpace> to() const {
    using Other = Tensor<T, Enc, OtherSpace>;
    typename Other::Storage out;
    for (int l = 0; l < order; ++l) {
      out.levels[l].pos = mirror<typename Other::pos_view>(storage_.levels[l].pos);
      out.levels[l].crd = mirror<typename Other::crd_view>(storage_.levels[l].crd);
    }
    out.vals = mirror<typename Other::vals_view>(storage_.vals);
    constexpr bool shared = std::is_same_v<typename OtherSpace::memory_space, memory_space>;
    return Other(shape_, std::move(out), shared ? owner_ : nullptr);
  }

 private:
  template <class Dst, class Src>
  static Dst mirror(const Src& src) {
    if constexpr (std::is_same_v<typename Dst::memory_space, typename Src::memory_space>) {
      return Dst(src);
    } else {
      Dst dst = detail::uninitialized_view<Dst>(src.label(), src.extent(0));
      Kokkos::deep_copy(dst, src);
      return dst;
    }
  }

  Shape<order> shape_;
  Storage storage_;
  std::shared_ptr<const void> owner_;
};

}  // namespace tessera
