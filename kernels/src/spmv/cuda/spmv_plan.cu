// SpmvPlan::build: row blocks and long-row chunks, cut greedily on the host from a copy of the
// row offsets (a pass over them, once per pattern).
#include <algorithm>
#include <cstdint>
#include <vector>

#include "../../common/cuda_support.hpp"
#include "../../common/device_info.hpp"
#include "tessera/kernels/spmv/cuda/spmv_csr.hpp"

namespace tessera::kernels::cuda {

namespace {

template <class Offset>
std::vector<std::int64_t> download_offsets(const void* pos, std::int64_t rows, cudaStream_t stream) {
  std::vector<Offset> host(static_cast<std::size_t>(rows + 1));
  TESSERA_CUDA_CHECK(cudaMemcpyAsync(host.data(), pos, host.size() * sizeof(Offset), cudaMemcpyDeviceToHost, stream));
  TESSERA_CUDA_CHECK(cudaStreamSynchronize(stream));
  return std::vector<std::int64_t>(host.begin(), host.end());
}

template <class T>
T* upload(const std::vector<T>& host, cudaStream_t stream) {
  if (host.empty()) return nullptr;
  T* device = nullptr;
  TESSERA_CUDA_CHECK(cudaMalloc(&device, host.size() * sizeof(T)));
  TESSERA_CUDA_CHECK(cudaMemcpyAsync(device, host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice, stream));
  return device;
}

}  // namespace

SpmvPlan::~SpmvPlan() {
  if (starts_) cudaFree(starts_);
  if (table_) cudaFree(table_);
  if (firsts_) cudaFree(firsts_);
  if (arrivals_) cudaFree(arrivals_);
}

std::shared_ptr<const SpmvPlan> SpmvPlan::build(const void* pos, SpmvOffset offset, std::int64_t rows,
                                                cudaStream_t stream, int block_rows, std::int64_t block_nnz) {
  std::shared_ptr<SpmvPlan> plan(new SpmvPlan());
  plan->rows_ = rows;
  plan->block_rows_ = block_rows;
  if (rows == 0) return plan;
  const std::vector<std::int64_t> p = offset == SpmvOffset::I64 ? download_offsets<std::int64_t>(pos, rows, stream)
                                                                : download_offsets<int>(pos, rows, stream);
  // Blocks (and chunks) of block_nnz nonzeros, smaller where that would leave fewer than two
  // blocks per multiprocessor: a small matrix runs in one wave of short blocks.
  std::int64_t capacity = block_nnz;
  while (capacity > std::max<std::int64_t>(block_rows, 64) && p[rows] < 2 * device_info().sms * capacity) capacity /= 2;
  std::vector<int> starts;
  std::vector<std::int64_t> table, firsts;
  for (std::int64_t r = 0; r < rows;) {
    starts.push_back(static_cast<int>(r));
    if (p[r + 1] - p[r] > capacity) {  // a long row: a block of its own, cut into chunks
      firsts.push_back(static_cast<std::int64_t>(table.size() / 4));
      for (std::int64_t b = p[r]; b < p[r + 1]; b += capacity) {
        table.push_back(r);
        table.push_back(b);
        table.push_back(std::min(p[r + 1], b + capacity));
        table.push_back(static_cast<std::int64_t>(firsts.size()) - 1);
      }
      ++r;
      continue;
    }
    const std::int64_t first = r;
    while (r < rows && r - first < block_rows && p[r + 1] - p[first] <= capacity) ++r;
  }
  starts.push_back(static_cast<int>(rows));
  firsts.push_back(static_cast<std::int64_t>(table.size() / 4));
  plan->row_blocks_ = static_cast<std::int64_t>(starts.size()) - 1;
  plan->block_nnz_ = capacity;
  plan->block_rows_ = block_rows;
  // Blocks of kSpmvBlockRows rows each, as the kernel without a plan cuts them: it runs, sparing
  // the read of the block starts.
  plan->fixed_blocks_ = block_rows == kSpmvBlockRows;
  for (std::size_t b = 0; b + 1 < starts.size(); ++b)
    plan->fixed_blocks_ = plan->fixed_blocks_ && starts[b] == static_cast<int>(b) * kSpmvBlockRows;
  plan->long_rows_ = static_cast<std::int64_t>(firsts.size()) - 1;
  plan->chunks_ = firsts.back();
  plan->starts_ = upload(starts, stream);
  plan->table_ = upload(table, stream);
  plan->firsts_ = plan->long_rows_ > 0 ? upload(firsts, stream) : nullptr;
  plan->arrivals_ = plan->long_rows_ > 0 ? upload(std::vector<unsigned>(plan->long_rows_, 0u), stream) : nullptr;
  TESSERA_CUDA_CHECK(cudaStreamSynchronize(stream));  // the host vectors go out of scope
  return plan;
}

}  // namespace tessera::kernels::cuda
