#pragma once
/// \file
/// Tensor<T, VNM, Space>: a k x n matrix in vector-wise N:M encoding (layout in vnm/pattern.hpp),
/// the pruned weight B of C = A * B. N, M, L are run-time members; decompose() returns the
/// plain Views {vals (w x n_pad), meta (w x n_pad / L)}.
#include <cstdint>
#include <string>
#include <type_traits>

#include <Kokkos_Core.hpp>

#include "tessera/core/allocation.hpp"

#include "tessera/core/tensor.hpp"
#include "tessera/formats/vnm/pattern.hpp"

namespace tessera {

/// Encoding tag of vector-wise N:M matrices.
struct VNM {
  static constexpr int order = 2;  ///< A matrix.
};

/// Vector-wise N:M matrix B (k x n); layout in vnm/pattern.hpp.
template <class T, class Space>
class Tensor<T, VNM, Space> {
 public:
  using value_type = T;                                               ///< Value type of the entries.
  using encoding_type = VNM;                                          ///< The encoding tag.
  using execution_space = Space;                                      ///< Kokkos execution space the arrays belong to.
  using memory_space = typename Space::memory_space;                  ///< Kokkos memory space of the arrays.
  using device_type = Kokkos::Device<execution_space, memory_space>;  ///< Kokkos device of the arrays.
  static constexpr int order = 2;                                     ///< A matrix.

  using vals_view = Kokkos::View<T**, Kokkos::LayoutRight, device_type>;             ///< (w x n_pad) values
  using meta_view = Kokkos::View<std::uint8_t**, Kokkos::LayoutRight, device_type>;  ///< (w x n_pad / L) positions
  /// The plain Views behind the matrix.
  struct Storage {
    vals_view vals;  ///< (w x n_pad) kept vectors, row r = slot r % N of window r / N
    meta_view meta;  ///< (w x n_pad / L) position of each kept vector inside its window
  };

  /// Empty 0 x 0 matrix.
  Tensor() { shape_.fill(0); }

  /// Adopts arrays whose extents match (rows, cols) and the pattern; contents are checked by
  /// from_vnm_arrays (formats/vnm.hpp), not here.
  Tensor(const Shape<2>& shape, const VnmPattern& pattern, Storage storage)
      : shape_(shape), pattern_(pattern), extents_(vnm_extents(shape[0], shape[1], pattern)),
        storage_(std::move(storage)) {
    auto require = [](const char* what, std::int64_t got, std::int64_t want) {
      if (got != want)
        throw ShapeError(std::string("VNM ") + what + " extent is " + std::to_string(got) + ", expected " +
                         std::to_string(want));
    };
    require("vals rows", storage_.vals.extent(0), extents_.stored_rows);
    require("vals columns", storage_.vals.extent(1), extents_.padded_cols);
    require("meta rows", storage_.meta.extent(0), extents_.stored_rows);
    require("meta columns", storage_.meta.extent(1), extents_.groups);
  }

  /// Extents (k, n).
  const Shape<2>& shape() const noexcept { return shape_; }
  /// Extent of `mode` (0: k, 1: n); IndexError when there is no such mode.
  std::int64_t extent(int mode) const {
    if (mode < 0 || mode >= order)
      throw IndexError("mode " + std::to_string(mode) + " of a tensor of order " + std::to_string(order));
    return shape_[mode];
  }
  /// N, M and L.
  const VnmPattern& pattern() const noexcept { return pattern_; }
  /// Sizes of the stored arrays.
  const VnmExtents& extents() const noexcept { return extents_; }
  /// Stored values, padding included.
  std::int64_t nnz() const noexcept { return static_cast<std::int64_t>(storage_.vals.size()); }

  /// The plain Views (vals, meta).
  const Storage& decompose() const noexcept { return storage_; }
  /// Kept vectors (w x n_pad).
  const vals_view& values() const noexcept { return storage_.vals; }
  /// Positions of the kept vectors (w x n_pad / L).
  const meta_view& meta() const noexcept { return storage_.meta; }

  /// The same matrix with its arrays in OtherSpace's memory (shared when the memory space is the same).
  template <class OtherSpace>
  Tensor<T, VNM, OtherSpace> to() const {
    using Other = Tensor<T, VNM, OtherSpace>;
    typename Other::Storage out{mirror<typename Other::vals_view>(storage_.vals),
                                mirror<typename Other::meta_view>(storage_.meta)};
    return Other(shape_, pattern_, std::move(out));
  }

 private:
  template <class Dst, class Src>
  static Dst mirror(const Src& src) {
    if constexpr (std::is_same_v<typename Dst::memory_space, typename Src::memory_space>) {
      return Dst(src);
    } else {
      Dst dst = tessera::detail::uninitialized_view<Dst>(src.label(), src.extent(0), src.extent(1));
      Kokkos::deep_copy(dst, src);
      return dst;
    }
  }

  Shape<2> shape_;
  VnmPattern pattern_;
  VnmExtents extents_;
  Storage storage_;
};

}  // namespace tessera
