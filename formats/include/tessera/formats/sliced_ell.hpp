#pragma once
/// \file
/// SlicedEll<T>: a host copy of a CSR-like matrix in sliced ELLPACK form (SELL-C-sigma
/// with C = 8 rows per slice and sigma = 128 rows per sorting window), the layout of
/// the host SpMV for a matrix multiplied many times (dist::spmv's diagonal block).
///
///   * rows are ordered by length, longest first (ties in row order), inside windows of
///     kSortWindow consecutive rows; row_of(8 s + l) is the row that lane l of slice s
///     holds (-1 past the last row);
///   * slice s stores its 8 rows' entries column-major: entry k of lane l sits at
///     start(s) + 8 k + l, for k below the slice's longest row; shorter rows are padded
///     with value 0 and a column that marks padding;
///   * start has slices + 1 offsets into the entry arrays;
///   * columns, narrow layout (when every slice's columns span fewer than 65535): column
///     of entry q = base(s) + offset(q), base(s) the slice's smallest column, offset
///     16-bit, kPadOffset in padding; wide layout otherwise: crd(q), -1 in padding.
///
/// Why this layout: each of the eight lanes is an independent dot product, so a kernel
/// runs eight chains with one loop exit per slice instead of one per row and, with
/// AVX-512, one gather of x per eight entries. Sorting inside small windows keeps the padding
/// low while every row's output stays near its neighbours'. The narrow layout moves 10 instead
/// of 12 bytes per double entry, for ranks that share one socket's memory bandwidth.
///
/// The copy is taken when it is built: later changes to the CSR values are not seen.
#include <algorithm>
#include <cstdint>
#include <limits>
#include <numeric>
#include <string>
#include <type_traits>
#include <vector>

#include <Kokkos_Core.hpp>

#include "tessera/core/tensor.hpp"
#include "tessera/formats/encoding.hpp"

namespace tessera {

/// Column storage of a SlicedEll: Auto picks narrow where every slice fits.
enum class SlicedEllColumns { Auto, Wide };

/// Host copy of a CSR-like matrix in sliced ELLPACK form (see the file's comment).
template <class T>
struct SlicedEll {
  static constexpr std::int64_t kSliceRows = 8;                         ///< rows per slice (C)
  static constexpr std::int64_t kSortWindow = 128;                      ///< a multiple of kSliceRows
  static constexpr std::uint16_t kPadOffset = 0xFFFF;                   ///< offset that marks padding, narrow layout
  using value_type = T;                                                 ///< Value type of the entries.
  using offset_view = Kokkos::View<std::int64_t*, Kokkos::HostSpace>;   ///< Offsets into the entry arrays.
  using index_view = Kokkos::View<int*, Kokkos::HostSpace>;             ///< Rows, bases or columns.
  using narrow_view = Kokkos::View<std::uint16_t*, Kokkos::HostSpace>;  ///< 16-bit column offsets.
  using value_view = Kokkos::View<T*, Kokkos::HostSpace>;               ///< Values.

  /// \var cols
  /// Number of columns.

  /// Number of rows.
  std::int64_t rows = 0, cols = 0, nnz = 0;  ///< stored nonzeros (padding excluded)
  offset_view start;                         ///< slices + 1
  value_view vals;                           ///< start(slices) entries, 0 in padding
  index_view row_of;                         ///< slices * kSliceRows
  bool narrow = false;                       ///< columns are base + offset
  index_view base;                           ///< narrow: slices
  narrow_view offset;                        ///< narrow: start(slices) entries, kPadOffset in padding
  index_view crd;                            ///< wide: start(slices) entries, -1 in padding

  /// Number of slices.
  std::int64_t slices() const { return start.extent(0) == 0 ? 0 : static_cast<std::int64_t>(start.extent(0)) - 1; }
  /// Stored entries (padding included) per nonzero; 1 for a matrix without nonzeros.
  double padding_ratio() const {
    return nnz == 0 ? 1.0 : static_cast<double>(start(slices())) / static_cast<double>(nnz);
  }
};

/// Builds the sliced copy of a CSR-like tensor whose arrays the host can read.
template <class T, class Enc, class Space>
SlicedEll<T> make_sliced_ell(const Tensor<T, Enc, Space>& A, SlicedEllColumns columns = SlicedEllColumns::Auto) {
  static_assert(is_csr_like_v<Enc>, "make_sliced_ell needs a CSR-like tensor (levels {Dense, Compressed}, row order)");
  static_assert(Kokkos::SpaceAccessibility<Kokkos::HostSpace, typename Space::memory_space>::accessible,
                "make_sliced_ell reads the tensor's arrays on the host");
  static_assert(std::is_same_v<typename Enc::ordinal_type, int>, "SlicedEll stores int column indices");
  constexpr std::int64_t C = SlicedEll<T>::kSliceRows, W = SlicedEll<T>::kSortWindow;
  const auto& s = A.decompose();
  const auto pos = s.levels[1].pos;
  const auto crd = s.levels[1].crd;
  const auto vals = s.vals;
  SlicedEll<T> out;
  out.rows = A.extent(0);
  out.cols = A.extent(1);
  out.nnz = out.rows == 0 ? 0 : static_cast<std::int64_t>(pos(out.rows));
  const auto length = [&](std::int64_t r) { return static_cast<std::int64_t>(pos(r + 1) - pos(r)); };

  std::vector<std::int64_t> order(out.rows);
  std::iota(order.begin(), order.end(), std::int64_t{0});
  for (std::int64_t w = 0; w < out.rows; w += W)
    std::stable_sort(order.begin() + w, order.begin() + std::min(out.rows, w + W),
                     [&](std::int64_t a, std::int64_t b) { return length(a) > length(b); });

  const std::int64_t slices = (out.rows + C - 1) / C;
  out.start = typename SlicedEll<T>::offset_view("tessera::SlicedEll::start", slices + 1);
  for (std::int64_t sl = 0; sl < slices; ++sl)  // lane 0 holds the slice's longest row
    out.start(sl + 1) = out.start(sl) + C * length(order[sl * C]);
  const std::int64_t stored = out.start(slices);
  // Smallest column of each slice, and whether every slice spans fewer than kPadOffset.
  std::vector<int> lowest(slices, 0);
  out.narrow = columns == SlicedEllColumns::Auto;
  for (std::int64_t sl = 0; sl < slices; ++sl) {
    int lo = std::numeric_limits<int>::max(), hi = -1;
    for (std::int64_t slot = sl * C; slot < std::min(out.rows, sl * C + C); ++slot)
      for (auto q = pos(order[slot]); q < pos(order[slot] + 1); ++q) {
        lo = std::min(lo, crd(q));
        hi = std::max(hi, crd(q));
      }
    lowest[sl] = hi < 0 ? 0 : lo;  // an empty slice keeps base 0
    if (hi >= 0 && static_cast<std::int64_t>(hi) - lo >= SlicedEll<T>::kPadOffset) out.narrow = false;
  }
  const auto uninitialised = [](const std::string& label) {
    return Kokkos::view_alloc(Kokkos::WithoutInitializing, label);
  };
  out.vals = typename SlicedEll<T>::value_view("tessera::SlicedEll::vals", stored);
  out.row_of = typename SlicedEll<T>::index_view(uninitialised("tessera::SlicedEll::row_of"), slices * C);
  if (out.narrow) {
    out.base = typename SlicedEll<T>::index_view(uninitialised("tessera::SlicedEll::base"), slices);
    out.offset = typename SlicedEll<T>::narrow_view(uninitialised("tessera::SlicedEll::offset"), stored);
    Kokkos::deep_copy(out.offset, SlicedEll<T>::kPadOffset);
    for (std::int64_t sl = 0; sl < slices; ++sl) out.base(sl) = lowest[sl];
  } else {
    out.crd = typename SlicedEll<T>::index_view(uninitialised("tessera::SlicedEll::crd"), stored);
    Kokkos::deep_copy(out.crd, -1);
  }
  for (std::int64_t sl = 0; sl < slices; ++sl)
    for (std::int64_t l = 0; l < C; ++l) {
      const std::int64_t slot = sl * C + l;
      if (slot >= out.rows) {
        out.row_of(slot) = -1;
        continue;
      }
      const std::int64_t r = order[slot];
      out.row_of(slot) = static_cast<int>(r);
      for (std::int64_t k = 0; k < length(r); ++k) {
        const std::int64_t q = out.start(sl) + C * k + l;
        const int col = crd(pos(r) + k);
        if (out.narrow)
          out.offset(q) = static_cast<std::uint16_t>(col - lowest[sl]);
        else
          out.crd(q) = col;
        out.vals(q) = vals(pos(r) + k);
      }
    }
  return out;
}

}  // namespace tessera
