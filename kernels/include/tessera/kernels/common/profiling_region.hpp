#pragma once
/// \file
/// A Kokkos profiling region that closes on every way out of its scope. Kokkos 3.4 has no
/// scoped region, and a bare push/pop pair leaves a profiling tool's region stack one deeper
/// each time the kernel between them throws (a caught shape, budget or CUDA error), so every
/// later region that tool reports would nest under the failed call.
#include <string>
#include <type_traits>

#include <Kokkos_Core.hpp>

namespace tessera::kernels {

/// Kokkos profiling region named `name`, pushed on construction and popped on destruction.
class ProfilingRegion {
 public:
  /// Pushes the region `name`.
  explicit ProfilingRegion(const std::string& name) { Kokkos::Profiling::pushRegion(name); }
  /// Pops the region.
  ~ProfilingRegion() { Kokkos::Profiling::popRegion(); }
  /// Not copyable.
  ProfilingRegion(const ProfilingRegion&) = delete;
  ProfilingRegion& operator=(const ProfilingRegion&) = delete;
};

/// Region names follow one pattern: `tessera::<family>[<variant>,<value type>]`, e.g.
/// "tessera::spmm[TensorCore,float]".
template <class T>
const char* value_type_name() {
  if constexpr (std::is_same_v<T, float>) return "float";
  else if constexpr (std::is_same_v<T, double>) return "double";
  else if constexpr (std::is_same_v<T, Kokkos::Experimental::half_t>) return "half";
  else if constexpr (std::is_integral_v<T> && std::is_signed_v<T>) return sizeof(T) == 8 ? "int64" : "int32";
  else if constexpr (sizeof(T) == 2) return "bf16";  // tessera::bf16_t, the only other 2-byte value type
  else return "value";
}

/// The region name of `family` and `variant` for value type T.
template <class T>
std::string region_name(const char* family, const std::string& variant) {
  return std::string("tessera::") + family + "[" + variant + "," + value_type_name<T>() + "]";
}

}  // namespace tessera::kernels
