#pragma once
// Median wall time of whole library calls, each fenced before and after (so device work and
// allocations count), for the benchmark programs that time Kokkos-based calls.
#include <algorithm>
#include <chrono>
#include <type_traits>
#include <vector>

#include <Kokkos_Core.hpp>

// Median wall time in milliseconds of `reps` fenced calls of `call`; a result it returns is dropped
// after the clock stops.
template <class Call>
double median_fenced_ms(int reps, Call&& call) {
  std::vector<double> ms;
  const auto elapsed = [](std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  };
  for (int r = 0; r < reps; ++r) {
    Kokkos::fence();
    const auto t0 = std::chrono::steady_clock::now();
    if constexpr (std::is_void_v<std::invoke_result_t<Call&>>) {
      call();
      Kokkos::fence();
      ms.push_back(elapsed(t0));
    } else {
      auto result = call();
      Kokkos::fence();
      ms.push_back(elapsed(t0));
    }
  }
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2];
}
