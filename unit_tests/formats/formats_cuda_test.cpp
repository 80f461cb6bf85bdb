// Formats tests with tensors in CUDA memory.
#include <Kokkos_Core.hpp>
#include <gtest/gtest.h>

using TestSpaces = ::testing::Types<Kokkos::Cuda>;

#include "formats_test_body.hpp"

#include <cstddef>
#include <cstdint>
#include <vector>

#include "tessera/core/error.hpp"
#include "tessera/formats/cuda/device_scratch.hpp"
#include "tessera/formats/cuda/prefix_sum.hpp"

namespace {

// Scratch from the pool holds what is written to it, comes back for the next call, and an
// impossible request is an OutOfMemoryError naming the array, not a crash.
TEST(DeviceScratch, HoldsDataIsReusedAndReportsExhaustion) {
  const cudaStream_t stream = Kokkos::Cuda().cuda_stream();
  std::vector<std::uint32_t> host(1 << 20);
  for (std::size_t i = 0; i < host.size(); ++i) host[i] = static_cast<std::uint32_t>(i * 2654435761u);
  const std::size_t bytes = host.size() * sizeof(std::uint32_t);
  const auto reserved = [] {
    std::uint64_t bytes_reserved = 0;
    EXPECT_EQ(cudaMemPoolGetAttribute(tessera::formats::cuda::device_scratch_pool(),
                                      cudaMemPoolAttrReservedMemCurrent, &bytes_reserved),
              cudaSuccess);
    return bytes_reserved;
  };
  std::uint64_t after_first = 0;
  for (int call = 0; call < 2; ++call) {
    const tessera::formats::cuda::DeviceScratch scratch("test scratch", bytes, stream);
    ASSERT_NE(scratch.data(), nullptr);
    EXPECT_EQ(scratch.size(), bytes);
    if (call == 0) after_first = reserved();
    if (call == 1) EXPECT_EQ(reserved(), after_first) << "the freed scratch serves the next request";
    std::vector<std::uint32_t> back(host.size());
    ASSERT_EQ(cudaMemcpyAsync(scratch.data(), host.data(), bytes, cudaMemcpyHostToDevice, stream), cudaSuccess);
    ASSERT_EQ(cudaMemcpyAsync(back.data(), scratch.data(), bytes, cudaMemcpyDeviceToHost, stream), cudaSuccess);
    ASSERT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
    EXPECT_EQ(back, host);
  }
  EXPECT_EQ(tessera::formats::cuda::DeviceScratch("empty", 0, stream).data(), nullptr);
  try {
    tessera::formats::cuda::DeviceScratch("huge scratch", std::size_t{1} << 60, stream);
    ADD_FAILURE() << "an exabyte of scratch was granted";
  } catch (const tessera::OutOfMemoryError& e) {
    EXPECT_EQ(e.label(), "huge scratch");
  }
  tessera::formats::cuda::trim_device_scratch();
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);
}

// Results and temporaries come from pools of their own: a temporary taken after a result is freed
// does not split that result's block, which the next result of its size takes whole (with one
// pool the temporary would sit at its start and the second result would need new memory).
TEST(DeviceScratch, ResultsAndTemporariesArePooledApart) {
  using tessera::formats::cuda::DeviceScratch;
  using tessera::formats::cuda::ScratchUse;
  using tessera::formats::cuda::device_scratch_pool;
  const cudaStream_t stream = Kokkos::Cuda().cuda_stream();
  EXPECT_NE(device_scratch_pool(ScratchUse::Result), device_scratch_pool(ScratchUse::Temporary));
  const std::size_t bytes = std::size_t{64} << 20;
  const void* first = nullptr;
  {
    const DeviceScratch result("first result", bytes, stream, ScratchUse::Result);
    first = result.data();
    ASSERT_NE(first, nullptr);
  }
  const DeviceScratch temporary("temporary", bytes / 2, stream);
  const DeviceScratch second("second result", bytes, stream, ScratchUse::Result);
  EXPECT_EQ(second.data(), first);
  const auto* t = static_cast<const char*>(temporary.data());
  const auto* r = static_cast<const char*>(second.data());
  EXPECT_TRUE(t + bytes / 2 <= r || r + bytes <= t) << "the temporary overlaps the result";
  ASSERT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
}

// The scan of offsets against a host sum at lengths around the switch from one block to CUB's
// scan and around its tiles, with counts whose sum needs 64 bits for int64 offsets.
template <class Offset>
void check_exclusive_sums(Offset big) {
  const cudaStream_t stream = Kokkos::Cuda().cuda_stream();
  for (const std::int64_t n : {1, 2, 1023, 4096, 4097, 12289, 16383, 16384, 16385, 100003}) {
    std::vector<Offset> counts(static_cast<std::size_t>(n));
    for (std::int64_t i = 0; i < n; ++i) counts[i] = static_cast<Offset>(i % 7 == 3 ? big : (i * 37) % 11);
    const std::size_t bytes = counts.size() * sizeof(Offset);
    Offset* data = nullptr;
    ASSERT_EQ(cudaMalloc(&data, bytes), cudaSuccess);
    ASSERT_EQ(cudaMemcpy(data, counts.data(), bytes, cudaMemcpyHostToDevice), cudaSuccess);
    tessera::formats::cuda::exclusive_sum_in_place(data, n, stream);
    std::vector<Offset> sums(counts.size());
    ASSERT_EQ(cudaMemcpyAsync(sums.data(), data, bytes, cudaMemcpyDeviceToHost, stream), cudaSuccess);
    ASSERT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
    ASSERT_EQ(cudaFree(data), cudaSuccess);
    Offset expected = 0;
    for (std::int64_t i = 0; i < n; ++i) {
      ASSERT_EQ(sums[i], expected) << "n = " << n << ", i = " << i;
      expected += counts[i];
    }
  }
}

TEST(ExclusiveSumInPlace, MatchesTheHostSumAtEveryLength) {
  check_exclusive_sums<int>(1000);
  check_exclusive_sums<std::int64_t>(std::int64_t{1} << 33);
}

}  // namespace
