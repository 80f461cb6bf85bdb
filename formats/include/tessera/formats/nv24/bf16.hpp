#pragma once
/// \file
/// tessera::bf16_t: a 16-bit bfloat16 storage type for NV24 tensors. Kokkos 3.4.1 has
/// Kokkos::Experimental::half_t (fp16) but no bf16, so this is the bf16 value type of
/// Nv24Tensor: the bits of __nv_bfloat16, converted with round-to-nearest-even, usable on
/// the host and in device code. Arithmetic is done by converting to float.
#include <cstdint>
#include <cstring>

#include <Kokkos_Macros.hpp>

namespace tessera {

/// bfloat16 storage type: the bits of __nv_bfloat16, converted with round-to-nearest-even.
struct bf16_t {
  std::uint16_t bits = 0;  ///< sign, 8 exponent bits, 7 mantissa bits

  /// Zero.
  bf16_t() = default;
  /// `x` rounded to the nearest bf16 (ties to even).
  KOKKOS_INLINE_FUNCTION explicit bf16_t(float x) : bits(round(x)) {}
  /// `x` rounded to float, then to the nearest bf16 (ties to even).
  KOKKOS_INLINE_FUNCTION explicit bf16_t(double x) : bits(round(static_cast<float>(x))) {}
  /// The exact float value.
  KOKKOS_INLINE_FUNCTION explicit operator float() const {
    const std::uint32_t u = static_cast<std::uint32_t>(bits) << 16;
    float f;
    memcpy(&f, &u, 4);
    return f;
  }
  /// The exact value, as double.
  KOKKOS_INLINE_FUNCTION explicit operator double() const { return static_cast<float>(*this); }
  /// Same bits.
  KOKKOS_INLINE_FUNCTION friend bool operator==(bf16_t a, bf16_t b) { return a.bits == b.bits; }

 private:
  KOKKOS_INLINE_FUNCTION static std::uint16_t round(float x) {
    std::uint32_t u;
    memcpy(&u, &x, 4);
    if ((u & 0x7F800000u) == 0x7F800000u && (u & 0x007FFFFFu) != 0) return 0x7FC0;  // NaN stays NaN
    u += 0x7FFFu + ((u >> 16) & 1u);  // round to nearest, ties to even
    return static_cast<std::uint16_t>(u >> 16);
  }
};
static_assert(sizeof(bf16_t) == 2, "bf16_t is 16 bits");

}  // namespace tessera
