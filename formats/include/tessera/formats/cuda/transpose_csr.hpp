#pragma once
/// \file
/// Transpose of compressed-row arrays on a CUDA stream (CSR of A -> CSR of A^T, the arrays of A's
/// CSC): entries counted per column, the counts scanned into the new offsets, each entry scattered
/// as its input position to a free slot of its column (rows found per tile of positions, slots
/// by atomics), then every column's positions sorted, which sorts it by row (short columns by a
/// thread each, long ones by a block each), rows and values fetched by position: the canonical
/// result whatever order the atomics gave. Raw device pointers, no Kokkos; compiled into
/// tessera_formats_cuda for int or int64 offsets, int column ids and values moved as 2-, 4- or
/// 8-byte words. Failures raise tessera::CudaError.
#include <cstddef>
#include <cstdint>

#include <cuda_runtime_api.h>

namespace tessera::formats::cuda {

/// Input arrays: `rows` + 1 offsets, `nnz` column ids in [0, cols) sorted and unique per row, values.
template <class Offset, class Word>
struct CsrArrays {
  const Offset* pos;  ///< rows + 1 row offsets
  const int* crd;     ///< nnz column ids
  const Word* vals;   ///< nnz values, as words
  std::int64_t rows;  ///< rows of the matrix
  std::int64_t cols;  ///< columns of the matrix: the transpose's rows
  std::int64_t nnz;   ///< entries
};

/// Output arrays: `cols` + 1 offsets, `nnz` row ids and values.
template <class Offset, class Word>
struct TransposedArrays {
  Offset* pos;  ///< cols + 1 column offsets
  int* crd;     ///< nnz row ids, sorted within each column
  Word* vals;   ///< nnz values, in the order of crd
};

/// Bytes of workspace transpose_csr needs for `in`'s sizes.
template <class Offset, class Word>
std::size_t transpose_csr_workspace_bytes(const CsrArrays<Offset, Word>& in);

/// Writes the transpose of `in` into `out` and returns true; returns false, with `out` unfinished,
/// where a column is too long for the per-column sort or `in` has 2^32 entries or more (a global
/// sort does better there).
/// `workspace` holds at least transpose_csr_workspace_bytes(in) bytes. Waits for the column
/// counts on `stream` (one host synchronization), then runs asynchronously on it.
template <class Offset, class Word>
bool transpose_csr(const CsrArrays<Offset, Word>& in, const TransposedArrays<Offset, Word>& out, void* workspace,
                  std::size_t workspace_bytes, cudaStream_t stream);

}  // namespace tessera::formats::cuda
