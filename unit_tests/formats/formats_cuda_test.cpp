// Formats tests with tensors in CUDA memory.
#include <Kokkos_Core.hpp>
#include <gtest/gtest.h>

using TestSpaces = ::testing::Types<Kokkos::Cuda>;

#include "formats_test_body.hpp"
#include "assembly_test_body.hpp"

#include <cstddef>
#include <cstdint>
#include <vector>

#include "tessera/core/error.hpp"
#include "tessera/formats/cuda/device_scratch.hpp"

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

}  // namespace
