#pragma once
/// \file
/// Zero-copy interop with KokkosSparse::CrsMatrix (available when Tessera was
/// built with Kokkos Kernels). Both directions share the arrays.
#include <memory>

#include <KokkosSparse_CrsMatrix.hpp>

#include "tessera/core/tensor.hpp"
#include "tessera/formats/convert.hpp"
#include "tessera/formats/encoding.hpp"

namespace tessera {

/// A KokkosSparse::CrsMatrix sharing the arrays of a CSR-like tensor.
template <class T, class Enc, class Space>
auto to_crs_matrix(const Tensor<T, Enc, Space>& tensor) {
  static_assert(is_csr_like_v<Enc>, "only CSR-like tensors ({Dense, Compressed}, row order) are CrsMatrix");
  using Tens = Tensor<T, Enc, Space>;
  using Matrix = KokkosSparse::CrsMatrix<T, typename Tens::ordinal_type, typename Tens::device_type, void,
                                         typename Tens::offset_type>;
  const auto& s = tensor.decompose();
  return Matrix("tessera", static_cast<typename Tens::ordinal_type>(tensor.extent(0)),
                static_cast<typename Tens::ordinal_type>(tensor.extent(1)),
                static_cast<typename Tens::offset_type>(tensor.nnz()), s.vals, s.levels[1].pos, s.levels[1].crd);
}

/// The tensor keeps the matrix alive; its arrays are the matrix's arrays.
template <class Matrix>
auto from_crs_matrix(const Matrix& matrix) {
  using T = typename Matrix::non_const_value_type;
  using Ordinal = typename Matrix::non_const_ordinal_type;
  using Offset = typename Matrix::non_const_size_type;
  using Space = typename Matrix::execution_space;
  using Enc = WithIndexTypes<CSR, Ordinal, Offset>;
  using Tens = Tensor<T, Enc, Space>;
  typename Tens::Storage storage;
  // CrsMatrix exposes its row map as const; the tensor never writes through it.
  storage.levels[1].pos = typename Tens::pos_view(const_cast<Offset*>(matrix.graph.row_map.data()),
                                                  matrix.graph.row_map.extent(0));
  storage.levels[1].crd = matrix.graph.entries;
  storage.vals = matrix.values;
  auto owner = std::make_shared<const Matrix>(matrix);
  return from_arrays<T, Enc, Space>({matrix.numRows(), matrix.numCols()}, std::move(storage), std::move(owner));
}

}  // namespace tessera
