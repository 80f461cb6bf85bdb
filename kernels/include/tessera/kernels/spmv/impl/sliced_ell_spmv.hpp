#pragma once
// Host SpMV on a SlicedEll (formats/sliced_ell.hpp): y = alpha * A * x + beta * y.
// Each slice's eight rows are eight independent dot products over the slice's columns
// of entries. Two versions of the slice loop:
//   portable  plain C++ over eight accumulators (any host compiler and CPU);
//   AVX-512   double only, on x86-64 CPUs that have it (checked at run time) when the
//             header is compiled by GCC or Clang for the host (not under nvcc): one
//             masked gather of x and one FMA per eight entries.
// Each comes for both column layouts (narrow 16-bit offsets from a base per slice, or
// wide 32-bit columns).
// Padding entries are never multiplied, so an Inf or NaN in x reaches only
// the rows that hold its column, as with CSR. With beta == 0, y is written without
// being read.
#include <cstdint>
#include <type_traits>

#include "tessera/formats/sliced_ell.hpp"
#include "tessera/kernels/common/host_avx512.hpp"
#include "tessera/kernels/common/prefetch.hpp"

namespace tessera::kernels::impl {

// The slices' arrays as raw pointers, captured by value in parallel loops. Narrow
// layout: base and offset used; wide layout: crd.
template <class T>
struct SlicedEllArrays {
  bool narrow;
  const std::int64_t* start;
  const T* vals;
  const int* row_of;
  const int* base;
  const std::uint16_t* offset;
  const int* crd;

  explicit SlicedEllArrays(const SlicedEll<T>& A)
      : narrow(A.narrow), start(A.start.data()), vals(A.vals.data()), row_of(A.row_of.data()), base(A.base.data()),
        offset(A.offset.data()), crd(A.crd.data()) {}
};

// The loop reads each slice's arrays once; one request per slice, 1 KiB ahead of its
// first entry, as the CSR loop does per row.
template <class T>
inline void prefetch_slice(const SlicedEllArrays<T>& a, std::int64_t q, std::int64_t end) {
  prefetch_for_read(a.vals, q + 1024 / static_cast<std::int64_t>(sizeof(T)), end);
  if (a.narrow) prefetch_for_read(a.offset, q + 1024 / static_cast<std::int64_t>(sizeof(std::uint16_t)), end);
  else prefetch_for_read(a.crd, q + 1024 / static_cast<std::int64_t>(sizeof(int)), end);
}

// y(row) = alpha * sum + beta * y(row) for the rows of one slice (lanes past the last
// row hold -1 and come last).
template <class T>
inline void store_slice(const int* row_of, const T* sum, T alpha, T beta, T* y) {
  for (std::int64_t l = 0; l < SlicedEll<T>::kSliceRows && row_of[l] >= 0; ++l) {
    const int r = row_of[l];
    y[r] = beta == T(0) ? alpha * sum[l] : alpha * sum[l] + beta * y[r];
  }
}

template <class T>
void sliced_ell_slices_portable(const SlicedEllArrays<T>& a, std::int64_t first, std::int64_t last, const T* x,
                                T alpha, T beta, T* y) {
  constexpr std::int64_t C = SlicedEll<T>::kSliceRows;
  const std::int64_t end = a.start[last];
  for (std::int64_t s = first; s < last; ++s) {
    prefetch_slice(a, a.start[s], end);
    T sum[C] = {};
    if (a.narrow) {  // padding reads the slice's first column, never adds it
      const T* const xs = x + a.base[s];
      for (std::int64_t q = a.start[s]; q < a.start[s + 1]; q += C)
        for (std::int64_t l = 0; l < C; ++l) {
          const std::uint16_t o = a.offset[q + l];
          const bool live = o != SlicedEll<T>::kPadOffset;
          const T product = a.vals[q + l] * xs[live ? o : 0];
          sum[l] += live ? product : T(0);
        }
    } else {  // padding reads x(0), never adds it
      for (std::int64_t q = a.start[s]; q < a.start[s + 1]; q += C)
        for (std::int64_t l = 0; l < C; ++l) {
          const int c = a.crd[q + l];
          const T product = a.vals[q + l] * x[c < 0 ? 0 : c];
          sum[l] += c < 0 ? T(0) : product;
        }
    }
    store_slice(a.row_of + s * C, sum, alpha, beta, y);
  }
}

#ifdef TESSERA_HOST_AVX512
// sum += vals[q..q+8) * x[crd[q..q+8)], padding lanes (column -1) masked out of the gather.
struct WideStepAvx512 {
  __attribute__((target("avx512f"))) __m512d operator()(const SlicedEllArrays<double>& a, std::int64_t q,
                                                        const double* x, __m512d sum) const {
    const __m256i cols = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(a.crd + q));
    const __mmask8 live =
        static_cast<__mmask8>(_mm512_cmpge_epi32_mask(_mm512_castsi256_si512(cols), _mm512_setzero_si512()));
    const __m512d xs = _mm512_mask_i32gather_pd(_mm512_setzero_pd(), live, cols, x, sizeof(double));
    return _mm512_fmadd_pd(_mm512_loadu_pd(a.vals + q), xs, sum);
  }
};

// The same with 16-bit offsets from the slice's base column (x points at it).
struct NarrowStepAvx512 {
  __attribute__((target("avx512f"))) __m512d operator()(const SlicedEllArrays<double>& a, std::int64_t q,
                                                        const double* x, __m512d sum) const {
    const __m256i cols = _mm256_cvtepu16_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(a.offset + q)));
    const __mmask8 live = static_cast<__mmask8>(
        _mm512_cmpneq_epi32_mask(_mm512_castsi256_si512(cols), _mm512_set1_epi32(SlicedEll<double>::kPadOffset)));
    const __m512d xs = _mm512_mask_i32gather_pd(_mm512_setzero_pd(), live, cols, x, sizeof(double));
    return _mm512_fmadd_pd(_mm512_loadu_pd(a.vals + q), xs, sum);
  }
};

// Two accumulators, so that consecutive gathers do not wait on one FMA chain.
template <class Step>
__attribute__((target("avx512f"))) void sliced_ell_slices_avx512(const SlicedEllArrays<double>& a, std::int64_t first,
                                                                 std::int64_t last, const double* x, double alpha,
                                                                 double beta, double* y) {
  constexpr std::int64_t C = SlicedEll<double>::kSliceRows;
  const Step step;
  const std::int64_t end = a.start[last];
  for (std::int64_t s = first; s < last; ++s) {
    std::int64_t q = a.start[s];
    const std::int64_t slice_end = a.start[s + 1];
    const double* const xs = a.narrow ? x + a.base[s] : x;
    prefetch_slice(a, q, end);
    __m512d even = _mm512_setzero_pd(), odd = _mm512_setzero_pd();
    for (; q + 2 * C <= slice_end; q += 2 * C) {
      even = step(a, q, xs, even);
      odd = step(a, q + C, xs, odd);
    }
    if (q < slice_end) even = step(a, q, xs, even);
    alignas(64) double sum[C];
    _mm512_store_pd(sum, _mm512_add_pd(even, odd));
    store_slice(a.row_of + s * C, sum, alpha, beta, y);
  }
}
#endif

// True when sliced_ell_slices runs the AVX-512 loop for value type T on this CPU.
template <class T>
bool sliced_ell_vectorised() {
  return std::is_same_v<T, double> && cpu_has_avx512f();
}

template <class T>
void sliced_ell_slices(bool vectorised, const SlicedEllArrays<T>& a, std::int64_t first, std::int64_t last,
                       const T* x, T alpha, T beta, T* y) {
#ifdef TESSERA_HOST_AVX512
  if constexpr (std::is_same_v<T, double>) {
    if (vectorised && a.narrow) return sliced_ell_slices_avx512<NarrowStepAvx512>(a, first, last, x, alpha, beta, y);
    if (vectorised) return sliced_ell_slices_avx512<WideStepAvx512>(a, first, last, x, alpha, beta, y);
  }
#endif
  (void)vectorised;
  sliced_ell_slices_portable(a, first, last, x, alpha, beta, y);
}

}  // namespace tessera::kernels::impl
