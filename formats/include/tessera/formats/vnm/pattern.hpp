#pragma once
/// \file
/// Vector-wise N:M (VNM) structured sparsity of a k x n matrix B, on plain host arrays.
/// This header needs no Kokkos: the Kokkos-facing API (formats/vnm.hpp) and the
/// stand-alone CUDA harnesses (perf_tests/vnm) share these routines.
///
/// Layout (fixed): rows of B are cut into windows of M consecutive rows (k padded with zero
/// rows to a multiple of M), columns into groups of L consecutive columns (n padded with zero
/// columns to a multiple of L). A "vector" is the L values of one row inside one column group.
/// In every (window, column group) exactly N of the M vectors are stored:
/// \code{.unparsed}
///   vals (w x n_pad, row-major, w = k_pad * N / M): row r is slot r % N of window r / N;
///   meta (w x n_pad / L, uint8): position 0..M-1 of that vector inside its window, strictly
///                                ascending over the N slots of a window and column group;
///   B[(r / N) * M + meta[r][j / L]][j] = vals[r][j].
/// \endcode
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numeric>
#include <string>
#include <vector>

#include "tessera/core/checked_count.hpp"
#include "tessera/core/error.hpp"
#include "tessera/formats/magnitude_order.hpp"

namespace tessera {

/// Keep n of every m vectors of length l.
struct VnmPattern {
  /// \var m
  /// Window length: vectors per window.

  /// Vectors kept per window.
  int n = 0, m = 0, l = 0;  ///< vector length
  /// Fraction of the vectors kept: n / m.
  double density() const { return static_cast<double>(n) / m; }
};

/// Largest window length M.
inline constexpr int kVnmMaxWindow = 32;

/// True when L is one of 4, 8, 16, 32, 64.
inline bool vnm_vector_length_supported(int l) { return l == 4 || l == 8 || l == 16 || l == 32 || l == 64; }

/// Throws FormatError unless 0 < N < M <= 32 and L is one of 4, 8, 16, 32, 64.
inline void check_vnm_pattern(const VnmPattern& p) {
  if (!(p.n > 0 && p.n < p.m && p.m <= kVnmMaxWindow))
    throw FormatError("VNM pattern " + std::to_string(p.n) + ":" + std::to_string(p.m) + " needs 0 < N < M <= " +
                      std::to_string(kVnmMaxWindow));
  if (!vnm_vector_length_supported(p.l))
    throw FormatError("VNM vector length L = " + std::to_string(p.l) + " is not one of 4, 8, 16, 32, 64");
}

/// Sizes of the stored arrays of a k x n matrix.
struct VnmExtents {
  /// original k
  std::int64_t rows = 0, cols = 0;          ///< original k, n
  std::int64_t padded_rows = 0;             ///< k_pad: multiple of M
  std::int64_t padded_cols = 0;             ///< n_pad: multiple of L
  std::int64_t windows = 0;                 ///< k_pad / M
  std::int64_t groups = 0;                  ///< n_pad / L
  std::int64_t stored_rows = 0;             ///< w = windows * N
};

/// Sizes of the stored arrays of a rows x cols matrix; FormatError or ShapeError when invalid.
inline VnmExtents vnm_extents(std::int64_t rows, std::int64_t cols, const VnmPattern& p) {
  check_vnm_pattern(p);
  if (rows < 0 || cols < 0)
    throw ShapeError("VNM matrix shape " + std::to_string(rows) + " x " + std::to_string(cols) + " is negative");
  // Padded to whole windows and groups, the extents and the padded matrix's element count
  // must fit int64: wrapped, they would size the arrays (or the extents adopted arrays are
  // checked against) from negative numbers.
  const std::int64_t largest = std::numeric_limits<std::int64_t>::max();
  if (rows > largest - (p.m - 1) || cols > largest - (p.l - 1))
    throw OverflowError("VNM matrix shape " + std::to_string(rows) + " x " + std::to_string(cols) +
                        " cannot be padded to whole windows and column groups in int64");
  VnmExtents e;
  e.rows = rows;
  e.cols = cols;
  e.windows = (rows + p.m - 1) / p.m;
  e.groups = (cols + p.l - 1) / p.l;
  e.padded_rows = e.windows * p.m;
  e.padded_cols = e.groups * p.l;
  e.stored_rows = e.windows * p.n;
  detail::checked_count_product(e.padded_rows, e.padded_cols, "VNM matrix padded to " + std::to_string(e.padded_rows) +
                                                                  " x " + std::to_string(e.padded_cols));
  return e;
}

namespace detail {

// Rows and columns named as the matrix has them: the last window and group stop at its edge.
inline std::string vnm_window_name(std::int64_t window, std::int64_t group, const VnmPattern& p,
                                   const VnmExtents& e) {
  const std::int64_t last_row = std::min(window * p.m + p.m, e.rows) - 1;
  const std::int64_t last_col = std::min(group * p.l + p.l, e.cols) - 1;
  return "window " + std::to_string(window) + " (rows " + std::to_string(window * p.m) + ".." +
         std::to_string(last_row) + "), column group " + std::to_string(group) + " (columns " +
         std::to_string(group * p.l) + ".." + std::to_string(last_col) + ")";
}

// The L2 norm of a vector as sqrt(scaled) x 2^exponent, exponent that of the vector's largest
// magnitude: finite and nonzero for every finite nonzero vector (a plain sum of squares is
// inf above 1.3e154 and 0 below 1e-162, where a larger vector then tied with a smaller one
// and the lower position won). Within the plain sum's range both rank vectors alike: scaling by a power of two
// commutes with every rounding. Zero has exponent INT_MIN, infinity INT_MAX, NaN a NaN scaled.
struct VectorNorm {
  int exponent = std::numeric_limits<int>::min();
  double scaled = 0;
};

template <class T>
VectorNorm vector_norm(const T* v, std::int64_t length) {
  double largest = 0;
  for (std::int64_t j = 0; j < length; ++j) {
    const double a = std::fabs(static_cast<double>(v[j]));
    if (std::isnan(a)) return {0, a};
    largest = std::max(largest, a);
  }
  if (largest == 0) return {};
  if (std::isinf(largest)) return {std::numeric_limits<int>::max(), largest};
  const int exponent = std::ilogb(largest);
  double scaled = 0;
  for (std::int64_t j = 0; j < length; ++j) {
    const double x = std::ldexp(static_cast<double>(v[j]), -exponent);
    scaled += x * x;
  }
  return {exponent, scaled};
}

// a ranks before b: the larger norm, a NaN above every number (larger_magnitude's rule).
inline bool larger_norm(const VectorNorm& a, const VectorNorm& b) {
  if (std::isnan(a.scaled) || std::isnan(b.scaled)) return larger_magnitude(a.scaled, b.scaled);
  const std::int64_t apart = static_cast<std::int64_t>(a.exponent) - b.exponent;
  if (apart == 0) return a.scaled > b.scaled;
  // Nonzero finite vectors have scaled in [1, 4 x length), below 2^8 (length <= 64): five
  // exponents apart decide alone; closer, one side is rescaled (exactly, a power of two).
  if (apart > 5 || apart < -5) return apart > 0;
  return std::ldexp(a.scaled, static_cast<int>(2 * apart)) > b.scaled;
}

// Calls f(window, group, positions) with the sorted positions to keep in every window and
// column group. `choose(window, group, norms, nonzero)` receives the M vectors' L2 norms and
// nonzero flags (rows/columns past the matrix count as zero).
template <class T, class Choose, class F>
void for_each_vnm_window(const T* dense, std::int64_t ld, const VnmExtents& e, const VnmPattern& p,
                         Choose&& choose, F&& f) {
  std::vector<VectorNorm> norm(p.m);
  std::vector<char> nonzero(p.m);
  std::vector<int> keep;
  for (std::int64_t w = 0; w < e.windows; ++w)
    for (std::int64_t g = 0; g < e.groups; ++g) {
      for (int d = 0; d < p.m; ++d) {
        const std::int64_t i = w * p.m + d, first = g * p.l;
        const std::int64_t length = i < e.rows ? std::min<std::int64_t>(e.cols, first + p.l) - first : 0;
        norm[d] = {};
        nonzero[d] = false;
        if (length <= 0) continue;
        const T* const v = dense + i * ld + first;
        norm[d] = vector_norm(v, length);
        nonzero[d] = std::any_of(v, v + length, [](const T& x) { return static_cast<double>(x) != 0.0; });
      }
      keep = choose(w, g, norm, nonzero);
      std::sort(keep.begin(), keep.end());
      f(w, g, keep);
    }
}

template <class T>
void fill_vnm_window(const T* dense, std::int64_t ld, const VnmExtents& e, const VnmPattern& p, std::int64_t w,
                     std::int64_t g, const std::vector<int>& keep, T* vals, std::uint8_t* meta) {
  for (int s = 0; s < p.n; ++s) {
    const std::int64_t r = w * p.n + s, i = w * p.m + keep[s];
    meta[r * e.groups + g] = static_cast<std::uint8_t>(keep[s]);
    for (std::int64_t j = g * p.l; j < (g + 1) * p.l; ++j)
      vals[r * e.padded_cols + j] = (i < e.rows && j < e.cols) ? dense[i * ld + j] : T(0);
  }
}

}  // namespace detail

/// Prunes a dense row-major k x n matrix (leading dimension ld) to VNM: in every window and
/// column group the N vectors of largest L2 norm are kept (ties: the lower position; a norm
/// of NaN counts as the largest, so a NaN weight is kept).
/// vals must hold e.stored_rows * e.padded_cols values, meta e.stored_rows * e.groups.
template <class T>
void prune_vnm_host(const T* dense, std::int64_t ld, const VnmExtents& e, const VnmPattern& p, T* vals,
                    std::uint8_t* meta) {
  detail::for_each_vnm_window(
      dense, ld, e, p,
      [&](std::int64_t, std::int64_t, const std::vector<detail::VectorNorm>& norm, const std::vector<char>&) {
        std::vector<int> order(p.m);
        std::iota(order.begin(), order.end(), 0);
        std::stable_sort(order.begin(), order.end(),
                         [&](int a, int b) { return detail::larger_norm(norm[a], norm[b]); });
        order.resize(p.n);
        return order;
      },
      [&](std::int64_t w, std::int64_t g, const std::vector<int>& keep) {
        detail::fill_vnm_window(dense, ld, e, p, w, g, keep, vals, meta);
      });
}

/// Encodes a dense matrix that already follows the pattern (at most N nonzero vectors in
/// every window and column group; zero vectors fill the remaining slots, lowest positions
/// first). Throws FormatError naming the first offending window and column group.
template <class T>
void encode_vnm_host(const T* dense, std::int64_t ld, const VnmExtents& e, const VnmPattern& p, T* vals,
                     std::uint8_t* meta) {
  detail::for_each_vnm_window(
      dense, ld, e, p,
      [&](std::int64_t w, std::int64_t g, const std::vector<detail::VectorNorm>&, const std::vector<char>& nonzero) {
        std::vector<int> keep;
        for (int d = 0; d < p.m; ++d)
          if (nonzero[d]) keep.push_back(d);
        if (static_cast<int>(keep.size()) > p.n)
          throw FormatError("matrix is not " + std::to_string(p.n) + ":" + std::to_string(p.m) + " (L = " +
                            std::to_string(p.l) + "): " + detail::vnm_window_name(w, g, p, e) + " has " +
                            std::to_string(keep.size()) + " nonzero vectors");
        for (int d = 0; d < p.m && static_cast<int>(keep.size()) < p.n; ++d)
          if (!nonzero[d]) keep.push_back(d);
        return keep;
      },
      [&](std::int64_t w, std::int64_t g, const std::vector<int>& keep) {
        detail::fill_vnm_window(dense, ld, e, p, w, g, keep, vals, meta);
      });
}

/// Checks stored meta: every position below M, strictly ascending over the N slots of a
/// window and column group. Throws FormatError naming the first offending window and group.
inline void check_vnm_meta(const std::uint8_t* meta, const VnmExtents& e, const VnmPattern& p) {
  for (std::int64_t w = 0; w < e.windows; ++w)
    for (std::int64_t g = 0; g < e.groups; ++g)
      for (int s = 0; s < p.n; ++s) {
        const int d = meta[(w * p.n + s) * e.groups + g];
        const int before = s == 0 ? -1 : meta[(w * p.n + s - 1) * e.groups + g];
        if (d >= p.m || d <= before)
          throw FormatError("VNM meta: " + detail::vnm_window_name(w, g, p, e) + ", slot " + std::to_string(s) +
                            " holds position " + std::to_string(d) +
                            (d >= p.m ? " (not below M = " + std::to_string(p.m) + ")"
                                      : " (positions must rise strictly, previous slot holds " +
                                            std::to_string(before) + ")"));
      }
}

/// Scatters VNM arrays back into a dense row-major k x n matrix (every element written).
template <class T>
void decode_vnm_host(const T* vals, const std::uint8_t* meta, const VnmExtents& e, const VnmPattern& p, T* dense,
                     std::int64_t ld) {
  for (std::int64_t i = 0; i < e.rows; ++i) std::fill(dense + i * ld, dense + i * ld + e.cols, T(0));
  for (std::int64_t r = 0; r < e.stored_rows; ++r)
    for (std::int64_t g = 0; g < e.groups; ++g) {
      const std::int64_t i = (r / p.n) * p.m + meta[r * e.groups + g];
      if (i >= e.rows) continue;
      for (std::int64_t j = g * p.l; j < std::min<std::int64_t>(e.cols, (g + 1) * p.l); ++j)
        dense[i * ld + j] = vals[r * e.padded_cols + j];
    }
}

}  // namespace tessera
