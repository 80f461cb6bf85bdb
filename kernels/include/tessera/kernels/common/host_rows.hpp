#pragma once
/// \file
/// HostRows: row access to a factor matrix that is either sparse row-major
/// ({Dense, Compressed}, e.g. CSR) or dense row-major (Dense<2>), for the tensor
/// kernels: for_each(k, f(j, v)) visits the stored entries of row k in column order.
#include <cstdint>

#include "tessera/core/tensor.hpp"
#include "tessera/formats/encoding.hpp"

namespace tessera::kernels {

/// Row access to a sparse or dense row-major factor matrix (see the file's comment).
template <class T, class Ordinal, class Offset>
struct HostRows {
  /// Number of rows.
  std::int64_t rows = 0, cols = 0;  ///< Number of columns.
  const Offset* pos = nullptr;      ///< null: dense rows
  const Ordinal* crd = nullptr;     ///< (nnz), sparse rows only
  const T* vals = nullptr;          ///< (nnz), or (rows x cols) row-major for dense rows

  /// Entries stored in row `k`.
  std::int64_t row_length(std::int64_t k) const { return pos ? pos[k + 1] - pos[k] : cols; }
  /// f(j, v) for every entry stored in row `k`, in column order.
  template <class F>
  void for_each(std::int64_t k, F&& f) const {
    if (pos) {
      for (std::int64_t q = pos[k]; q < pos[k + 1]; ++q) f(static_cast<std::int64_t>(crd[q]), vals[q]);
    } else {
      const T* row = vals + k * cols;
      for (std::int64_t j = 0; j < cols; ++j) f(j, row[j]);
    }
  }
  /// f(j, this(k, j), other(l, j)) for every j stored in both rows.
  template <class F>
  void for_each_shared(std::int64_t k, const HostRows& other, std::int64_t l, F&& f) const {
    if (!pos && !other.pos) {
      const T *x = vals + k * cols, *y = other.vals + l * cols;
      for (std::int64_t j = 0; j < cols; ++j) f(j, x[j], y[j]);
    } else if (!other.pos) {
      for_each(k, [&](std::int64_t j, T x) { f(j, x, other.vals[l * cols + j]); });
    } else if (!pos) {
      other.for_each(l, [&](std::int64_t j, T y) { f(j, vals[k * cols + j], y); });
    } else {
      std::int64_t p = pos[k], q = other.pos[l];
      while (p < pos[k + 1] && q < other.pos[l + 1]) {
        if (crd[p] < other.crd[q]) ++p;
        else if (other.crd[q] < crd[p]) ++q;
        else {
          f(static_cast<std::int64_t>(crd[p]), vals[p], other.vals[q]);
          ++p, ++q;
        }
      }
    }
  }
};

/// True for row-major factor encodings: {Dense, Compressed} (CSR-like) or Dense<2>.
template <class Enc>
inline constexpr bool is_row_factor_v =
    is_encoding_v<Enc> && Enc::order == 2 && Enc::mode_order[0] == 0 && Enc::level_kinds[0] == LevelKind::Dense &&
    (Enc::level_kinds[1] == LevelKind::Compressed || Enc::level_kinds[1] == LevelKind::Dense);

/// Row access to `M`, whose arrays the host must be able to read.
template <class T, class Enc, class Space>
auto host_rows(const Tensor<T, Enc, Space>& M) {
  static_assert(is_row_factor_v<Enc>, "a row-major matrix: CSR-like {Dense, Compressed} or Dense<2>");
  HostRows<T, typename Enc::ordinal_type, typename Enc::offset_type> h;
  h.rows = M.extent(0);
  h.cols = M.extent(1);
  if constexpr (Enc::level_kinds[1] == LevelKind::Compressed) {
    h.pos = M.decompose().levels[1].pos.data();
    h.crd = M.decompose().levels[1].crd.data();
  }
  h.vals = M.decompose().vals.data();
  return h;
}

}  // namespace tessera::kernels
