#pragma once
// The host SpMM row loop in AVX-512 (float and double, row-major B and C): for each
// row of A and each tile of two vectors' worth of C's columns (16 doubles or 32
// floats), one broadcast of the nonzero and two FMAs with B's row per nonzero.
// Nonzeros alternate between two accumulator pairs so that consecutive FMAs do not
// wait on each other. The tile past C's last column is masked: no lane outside C or
// B is read or written.
// Streaming stores: with beta == 0 a full, 64-byte aligned tile of C can be written
// with non-temporal stores, which skip reading C's lines into the cache before
// overwriting them (half of C's memory traffic) and leave C out of the cache.
// perf_tests/results/spmv_spmm_host_*.md compare it with the portable loop.
#include <cstdint>

#include "tessera/kernels/common/host_avx512.hpp"

namespace tessera::kernels::impl {

// Raw arrays of one SpMM, C = alpha * A * B + beta * C, captured by value.
template <class T, class Offset, class Ordinal>
struct SpmmRowsArgs {
  const Offset* pos;
  const Ordinal* crd;
  const T* vals;
  const T* b;
  std::int64_t ldb;
  T* c;
  std::int64_t ldc;
  std::int64_t n;  // columns of B and C
  T alpha, beta;
  bool streaming;  // only with beta == 0 (spmm_streams_output decides)
};

#ifdef TESSERA_HOST_AVX512

template <class T>
struct Avx512Lanes;

template <>
struct Avx512Lanes<double> {
  using Vec = __m512d;
  using Mask = __mmask8;
  static constexpr std::int64_t kLanes = 8;
  __attribute__((target("avx512f"))) static Vec zero() { return _mm512_setzero_pd(); }
  __attribute__((target("avx512f"))) static Vec broadcast(double v) { return _mm512_set1_pd(v); }
  __attribute__((target("avx512f"))) static Vec load(Mask m, const double* p) { return _mm512_maskz_loadu_pd(m, p); }
  __attribute__((target("avx512f"))) static Vec fma(Vec a, Vec b, Vec c) { return _mm512_fmadd_pd(a, b, c); }
  __attribute__((target("avx512f"))) static Vec add(Vec a, Vec b) { return _mm512_add_pd(a, b); }
  __attribute__((target("avx512f"))) static Vec mul(Vec a, Vec b) { return _mm512_mul_pd(a, b); }
  __attribute__((target("avx512f"))) static void store(Mask m, double* p, Vec v) { _mm512_mask_storeu_pd(p, m, v); }
  __attribute__((target("avx512f"))) static void stream(double* p, Vec v) { _mm512_stream_pd(p, v); }
};

template <>
struct Avx512Lanes<float> {
  using Vec = __m512;
  using Mask = __mmask16;
  static constexpr std::int64_t kLanes = 16;
  __attribute__((target("avx512f"))) static Vec zero() { return _mm512_setzero_ps(); }
  __attribute__((target("avx512f"))) static Vec broadcast(float v) { return _mm512_set1_ps(v); }
  __attribute__((target("avx512f"))) static Vec load(Mask m, const float* p) { return _mm512_maskz_loadu_ps(m, p); }
  __attribute__((target("avx512f"))) static Vec fma(Vec a, Vec b, Vec c) { return _mm512_fmadd_ps(a, b, c); }
  __attribute__((target("avx512f"))) static Vec add(Vec a, Vec b) { return _mm512_add_ps(a, b); }
  __attribute__((target("avx512f"))) static Vec mul(Vec a, Vec b) { return _mm512_mul_ps(a, b); }
  __attribute__((target("avx512f"))) static void store(Mask m, float* p, Vec v) { _mm512_mask_storeu_ps(p, m, v); }
  __attribute__((target("avx512f"))) static void stream(float* p, Vec v) { _mm512_stream_ps(p, v); }
};

// The lanes of a vector that hold columns [first, first + kLanes) of a row of n.
template <class L>
inline typename L::Mask lanes_within(std::int64_t first, std::int64_t n) {
  const std::int64_t live = n - first;
  if (live >= L::kLanes) return static_cast<typename L::Mask>(~0u);
  if (live <= 0) return 0;
  return static_cast<typename L::Mask>((1u << live) - 1u);
}

// Rows [first, last) of C over all of its columns.
template <class T, class Offset, class Ordinal>
__attribute__((target("avx512f"))) void spmm_rows_avx512(const SpmmRowsArgs<T, Offset, Ordinal>& a,
                                                          std::int64_t first, std::int64_t last) {
  using L = Avx512Lanes<T>;
  using Vec = typename L::Vec;
  constexpr std::int64_t kTile = 2 * L::kLanes;
  const Vec alpha = L::broadcast(a.alpha), beta = L::broadcast(a.beta);
  for (std::int64_t i = first; i < last; ++i) {
    const std::int64_t begin = static_cast<std::int64_t>(a.pos[i]), end = static_cast<std::int64_t>(a.pos[i + 1]);
    T* const c_row = a.c + i * a.ldc;
    for (std::int64_t j0 = 0; j0 < a.n; j0 += kTile) {
      const auto low = lanes_within<L>(j0, a.n), high = lanes_within<L>(j0 + L::kLanes, a.n);
      const T* const b_tile = a.b + j0;
      Vec low0 = L::zero(), high0 = L::zero(), low1 = L::zero(), high1 = L::zero();
      std::int64_t q = begin;
      for (; q + 1 < end; q += 2) {
        const Vec v0 = L::broadcast(a.vals[q]), v1 = L::broadcast(a.vals[q + 1]);
        const T* const r0 = b_tile + static_cast<std::int64_t>(a.crd[q]) * a.ldb;
        const T* const r1 = b_tile + static_cast<std::int64_t>(a.crd[q + 1]) * a.ldb;
        low0 = L::fma(v0, L::load(low, r0), low0);
        high0 = L::fma(v0, L::load(high, r0 + L::kLanes), high0);
        low1 = L::fma(v1, L::load(low, r1), low1);
        high1 = L::fma(v1, L::load(high, r1 + L::kLanes), high1);
      }
      if (q < end) {
        const Vec v = L::broadcast(a.vals[q]);
        const T* const r = b_tile + static_cast<std::int64_t>(a.crd[q]) * a.ldb;
        low0 = L::fma(v, L::load(low, r), low0);
        high0 = L::fma(v, L::load(high, r + L::kLanes), high0);
      }
      Vec lo = L::mul(alpha, L::add(low0, low1)), hi = L::mul(alpha, L::add(high0, high1));
      T* const c_tile = c_row + j0;
      if (a.beta != T(0)) {
        lo = L::fma(beta, L::load(low, c_tile), lo);
        hi = L::fma(beta, L::load(high, c_tile + L::kLanes), hi);
      }
      if (a.streaming && j0 + kTile <= a.n && reinterpret_cast<std::uintptr_t>(c_tile) % 64 == 0) {
        L::stream(c_tile, lo);
        L::stream(c_tile + L::kLanes, hi);
      } else {
        L::store(low, c_tile, lo);
        L::store(high, c_tile + L::kLanes, hi);
      }
    }
  }
  // Streaming stores are weakly ordered: make them visible before another thread
  // (or the caller after the parallel loop's fence) reads C.
  if (a.streaming) _mm_sfence();
}

#endif

}  // namespace tessera::kernels::impl
