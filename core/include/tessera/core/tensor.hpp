#pragma once
/// \file
/// Tensor<T, Encoding, Space>: a sparse (or dense) tensor whose type carries its
/// encoding (formats/encoding.hpp) and the Kokkos execution space its arrays live in.
/// The tensor is a container: shape + one (pos, crd) pair of Views per storage level
/// + values. Building and converting tensors is done by the formats module
/// (from_coo, convert, to_dense...); kernels read the arrays through decompose().
#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <type_traits>

#include <Kokkos_Core.hpp>

#include "tessera/core/allocation.hpp"
#include "tessera/core/error.hpp"

namespace tessera {

/// Extents of a tensor of order N, one per mode.
template <int N>
using Shape = std::array<std::int64_t, N>;

/// Sparse (or dense) tensor of encoding Enc in Space's memory (see the file's comment).
template <class T, class Enc, class Space = Kokkos::DefaultExecutionSpace>
class Tensor {
 public:
  using value_type = T;                                               ///< Value type of the entries.
  using encoding_type = Enc;                                          ///< Encoding (formats/encoding.hpp).
  using execution_space = Space;                                      ///< Kokkos execution space the arrays belong to.
  using memory_space = typename Space::memory_space;                  ///< Kokkos memory space of the arrays.
  using device_type = Kokkos::Device<execution_space, memory_space>;  ///< Kokkos device of the arrays.
  using ordinal_type = typename Enc::ordinal_type;                    ///< Type of coordinates (crd arrays).
  using offset_type = typename Enc::offset_type;                      ///< Type of positions (pos arrays).
  static constexpr int order = Enc::order;                            ///< Number of modes.

  using pos_view = Kokkos::View<offset_type*, device_type>;   ///< Array of positions of a level.
  using crd_view = Kokkos::View<ordinal_type*, device_type>;  ///< Array of coordinates of a level.
  using vals_view = Kokkos::View<T*, device_type>;            ///< Array of values.

  /// Arrays of one storage level; a level that does not use an array leaves it empty.
  struct LevelArrays {
    pos_view pos;  ///< (positions of the parent level + 1) for compressed levels
    crd_view crd;  ///< (positions of this level) for compressed and singleton levels
  };
  /// The plain Views behind a tensor: the library's lowering of a sparse tensor.
  struct Storage {
    std::array<LevelArrays, order> levels;  ///< One entry per storage level.
    vals_view vals;                         ///< (positions of the last level)
  };

  /// Empty tensor: every extent 0, no arrays.
  Tensor() { shape_.fill(0); }

  /// Adopts already-built arrays. The formats module validates before calling this;
  /// `owner` keeps foreign storage (e.g. a KokkosSparse::CrsMatrix) alive.
  Tensor(const Shape<order>& shape, Storage storage, std::shared_ptr<const void> owner = nullptr)
      : shape_(shape), storage_(std::move(storage)), owner_(std::move(owner)) {}

  /// Extents, one per mode.
  const Shape<order>& shape() const noexcept { return shape_; }
  /// Extent of `mode`; IndexError when there is no such mode.
  std::int64_t extent(int mode) const {
    if (mode < 0 || mode >= order)
      throw IndexError("mode " + std::to_string(mode) + " of a tensor of order " + std::to_string(order));
    return shape_[mode];
  }
  /// Stored entries (explicit zeros included; every position of dense levels counts).
  std::int64_t nnz() const noexcept { return static_cast<std::int64_t>(storage_.vals.extent(0)); }

  /// All arrays, for kernels.
  const Storage& decompose() const noexcept { return storage_; }
  /// Arrays of storage level `l`.
  const LevelArrays& level(int l) const { return storage_.levels.at(l); }
  /// Array of values.
  const vals_view& values() const noexcept { return storage_.vals; }

  /// The same tensor with its arrays in OtherSpace's memory. Arrays are shared when
  /// the memory space is the same, deep-copied otherwise.
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
