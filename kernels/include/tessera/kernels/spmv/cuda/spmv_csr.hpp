#pragma once
/// \file
/// Tessera's CUDA SpMV on CSR arrays, y = alpha * op(A) * x + beta * y, fp32 and fp64, int or
/// int64 row offsets, int column ids. Raw-pointer interface (no Kokkos): tessera::spmv on
/// Kokkos::Cuda and the stand-alone benchmark call the same code.
///
/// Algorithm (kernels/src/spmv/cuda/spmv_csr*.cu):
///   * a thread block takes a row block: up to kSpmvBlockRows consecutive rows, one coalesced
///     load bringing their row offsets to shared memory;
///   * a row block of at most kSpmvStreamNnz nonzeros is streamed: every thread loads nonzeros
///     spread a block apart (coalesced, several loads in flight), multiplies by x and leaves the
///     product in shared memory; then each row is added up in order, by one thread where the
///     block has many rows, by a group of lanes where it has few. Short and irregular rows alike
///     read A at full width;
///   * the matrix arrays are read with streaming loads that evict first, so that x stays in L2;
///   * the plan (SpmvPlan, built once per pattern) cuts the rows into row blocks greedily, each
///     as many rows as fit kSpmvStreamNnz nonzeros (less for small matrices, so that every
///     multiprocessor gets two blocks), and every longer row into chunks of that size, one
///     thread block each in the same launch (8 loads per thread in flight); the block that
///     finishes a row's last chunk adds the chunks' sums in chunk order. Without a plan, blocks
///     take kSpmvBlockRows rows each, and a block whose span is longer runs lane groups of 8, 16
///     or 32 per row;
///   * results are the same bits from call to call, except for Transpose, which scatters:
///     y = beta * y first, then each nonzero adds alpha * a_ij * x_i to y_j with an atomic add
///     (the order of those adds, hence the last bits, varies between calls).
#include <cstdint>
#include <memory>

#include <cuda_runtime_api.h>

#include "tessera/kernels/common/cuda/kernel_status.hpp"

namespace tessera::kernels::cuda {

/// Value types of the SpMV kernels.
enum class SpmvType : int { F32 = 0, F64 = 1 };
/// Index type of the row offsets (column ids are int).
enum class SpmvOffset : int { I32 = 0, I64 = 1 };

/// Most rows of a row block.
inline constexpr int kSpmvBlockRows = 256;
/// Most nonzeros a row block streams through shared memory; longer rows are cut into chunks.
inline constexpr std::int64_t kSpmvStreamNnz = 2048;
/// y = alpha * op(A) * x + beta * y, A rows x cols in CSR arrays in device memory.
struct SpmvArgs {
  SpmvType type = SpmvType::F64;        ///< of vals, x and y
  SpmvOffset offset = SpmvOffset::I32;  ///< of pos
  bool transpose = false;               ///< y = alpha * A^T * x + beta * y
  std::int64_t rows = 0;                ///< A's rows
  std::int64_t cols = 0;                ///< A's columns
  const void* pos = nullptr;            ///< rows + 1 row offsets
  const int* crd = nullptr;             ///< column ids
  const void* vals = nullptr;           ///< values
  const void* x = nullptr;              ///< cols entries (rows when transposed), unit stride
  void* y = nullptr;                    ///< rows entries (cols when transposed), unit stride; not read when beta == 0
  double alpha = 1.0;                   ///< scales op(A) x, converted to the value type
  double beta = 0.0;                    ///< scales y, converted to the value type
};

/// A matrix's row blocks and the chunks of its long rows (see the file's comment). Built once
/// per pattern on the host from a copy of the row offsets (so it synchronizes the stream). The
/// calls of a plan whose matrix has rows longer than block_nnz() count the chunks done in
/// the plan's memory: such calls must not overlap (one stream, or streams ordered by events).
class SpmvPlan {
 public:
  /// The plan of the rows + 1 row offsets `pos` (device memory), row blocks of at most
  /// `block_rows` rows and `block_nnz` nonzeros (SpMM with several columns takes fewer of both).
  static std::shared_ptr<const SpmvPlan> build(const void* pos, SpmvOffset offset, std::int64_t rows,
                                               cudaStream_t stream, int block_rows = kSpmvBlockRows,
                                               std::int64_t block_nnz = kSpmvStreamNnz);
  ~SpmvPlan();
  SpmvPlan(const SpmvPlan&) = delete;
  SpmvPlan& operator=(const SpmvPlan&) = delete;

  std::int64_t rows() const { return rows_; }                ///< rows of the matrix it was built for
  std::int64_t row_blocks() const { return row_blocks_; }    ///< row blocks (long rows included, one each)
  const int* block_starts() const { return starts_; }        ///< device: first row of each block, then rows
  /// Most nonzeros of a row block and of a chunk: build()'s block_nnz, or less for a matrix too
  /// small to give every multiprocessor two such blocks.
  std::int64_t block_nnz() const { return block_nnz_; }
  /// Most rows of a row block (build()'s block_rows).
  int block_rows() const { return block_rows_; }
  /// Every block is kSpmvBlockRows rows (the last one fewer), as spmv_csr cuts them without a plan.
  bool fixed_blocks() const { return fixed_blocks_; }
  std::int64_t long_rows() const { return long_rows_; }      ///< rows cut into chunks
  std::int64_t chunks() const { return chunks_; }            ///< chunks of those rows
  const std::int64_t* chunk_table() const { return table_; }  ///< device: per chunk (row, begin, end, long row)
  const std::int64_t* row_firsts() const { return firsts_; }  ///< device: first chunk of each long row, then chunks()
  /// Device: per long row, the chunks of the running call done so far (zero between calls).
  unsigned* arrivals() const { return arrivals_; }

 private:
  SpmvPlan() = default;
  std::int64_t rows_ = 0, row_blocks_ = 0, long_rows_ = 0, chunks_ = 0, block_nnz_ = kSpmvStreamNnz;
  int block_rows_ = kSpmvBlockRows;
  bool fixed_blocks_ = false;
  int* starts_ = nullptr;           // row_blocks_ + 1
  std::int64_t* table_ = nullptr;   // 4 * chunks_
  std::int64_t* firsts_ = nullptr;  // long_rows_ + 1
  unsigned* arrivals_ = nullptr;    // long_rows_
};

/// Whether spmv_csr runs these arguments (and why not).
KernelStatus spmv_can_implement(const SpmvArgs& args);

/// Runs y = alpha * op(A) * x + beta * y on `stream`. `plan` (may be null: blocks of
/// kSpmvBlockRows rows then) was built for A's row offsets. Throws what spmv_can_implement
/// refuses (ShapeError / NotCompiled) and CudaError.
void spmv_csr(const SpmvPlan* plan, const SpmvArgs& args, cudaStream_t stream);

}  // namespace tessera::kernels::cuda
