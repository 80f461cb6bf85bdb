#pragma once
/// \file
/// Software prefetch of an array streamed once per call, for host kernels whose single
/// thread does not keep enough loads in flight to reach memory bandwidth on its own.
#include <cstdint>

namespace tessera::kernels {

/// Requests data[q] into all cache levels when q < end (a no-op past the array and on
/// compilers without the builtin). The keep-in-all-levels hint, not the no-reuse one: with
/// the no-reuse hint the line may be gone before its row is reached.
template <class U>
inline void prefetch_for_read(const U* data, std::int64_t q, std::int64_t end) {
#if defined(__GNUC__)
  if (q < end) __builtin_prefetch(data + q, 0, 3);
#else
  (void)data, (void)q, (void)end;
#endif
}

}  // namespace tessera::kernels
