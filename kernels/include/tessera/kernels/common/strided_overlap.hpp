#pragma once
/// \file
/// Whether two strided Views share an element, decided in closed form for the alias check
/// of the kernel front ends (common/checks.hpp): Views whose address ranges interleave, such
/// as two columns or two column windows of one matrix, share an element exactly when a
/// bounded two-variable linear equation has an integer solution.
#include <algorithm>
#include <cstdint>
#include <utility>

namespace tessera::kernels::detail {

using wide_int = __int128;  // products of two int64 values, exact

inline wide_int floor_div(wide_int a, wide_int b) {  // b > 0
  const wide_int q = a / b;
  return (a % b != 0 && a < 0) ? q - 1 : q;
}
inline wide_int ceil_div(wide_int a, wide_int b) { return -floor_div(-a, b); }

// Some integers u in [u_lo, u_hi], v in [v_lo, v_hi] satisfy a u + b v = d (a, b >= 0).
inline bool has_solution_in_box(std::int64_t a, std::int64_t b, std::int64_t d, std::int64_t u_lo,
                                std::int64_t u_hi, std::int64_t v_lo, std::int64_t v_hi) {
  if (u_lo > u_hi || v_lo > v_hi) return false;
  if (a == 0 && b == 0) return d == 0;
  if (a == 0 || b == 0) {  // one term decides; the other variable is free in its range
    const std::int64_t c = a == 0 ? b : a, lo = a == 0 ? v_lo : u_lo, hi = a == 0 ? v_hi : u_hi;
    return d % c == 0 && d / c >= lo && d / c <= hi;
  }
  // a x + b y = g by the extended Euclidean algorithm.
  wide_int r0 = a, r1 = b, x0 = 1, x1 = 0, y0 = 0, y1 = 1;
  while (r1 != 0) {
    const wide_int q = r0 / r1;
    const wide_int r2 = r0 - q * r1, x2 = x0 - q * x1, y2 = y0 - q * y1;
    r0 = r1, r1 = r2, x0 = x1, x1 = x2, y0 = y1, y1 = y2;
  }
  const wide_int g = r0;
  if (d % g != 0) return false;
  // Every solution: u = u0 + t b / g, v = v0 - t a / g; |x0| <= b / g, so u0 and v0 fit.
  const wide_int u0 = x0 * (d / g), v0 = y0 * (d / g), step_u = b / g, step_v = a / g;
  const wide_int t_lo = std::max(ceil_div(u_lo - u0, step_u), ceil_div(v0 - v_hi, step_v));
  const wide_int t_hi = std::min(floor_div(u_hi - u0, step_u), floor_div(v0 - v_lo, step_v));
  return t_lo <= t_hi;
}

// A View's elements as base + sum of index_k x stride_k (0 <= index_k < extent_k), strides in
// elements, the dimensions of extent 1 left out, sorted by stride.
struct StridedSet {
  int dims = 0;
  std::int64_t stride[2] = {0, 0}, extent[2] = {1, 1};
};

template <class View>
StridedSet strided_set(const View& view) {
  static_assert(View::rank <= 2, "the alias check knows Views of rank 1 and 2");
  StridedSet s;
  for (int r = 0; r < static_cast<int>(View::rank); ++r)
    if (view.extent(r) > 1) {
      s.stride[s.dims] = static_cast<std::int64_t>(view.stride(r));
      s.extent[s.dims] = static_cast<std::int64_t>(view.extent(r));
      ++s.dims;
    }
  if (s.dims == 2 && s.stride[0] > s.stride[1]) {
    std::swap(s.stride[0], s.stride[1]);
    std::swap(s.extent[0], s.extent[1]);
  }
  return s;
}

// The sets of `out` (base 0) and `in` (base d elements after out's) share no element; false
// also where the shapes fall outside what this decides (a 1-D against a 2-D set, or 2-D sets
// of different strides), which the caller treats as shared.
inline bool provably_disjoint(const StridedSet& out, const StridedSet& in, std::int64_t d) {
  if (out.dims <= 1 && in.dims <= 1)  // out[i] = in[j]: i a - j b = d
    return !has_solution_in_box(out.stride[0], in.stride[0], d, 0, out.extent[0] - 1, -(in.extent[0] - 1), 0);
  if (out.dims == 2 && in.dims == 2 && out.stride[0] == in.stride[0] && out.stride[1] == in.stride[1])
    // out[i][j] = in[i'][j']: (i - i') s0 + (j - j') s1 = d
    return !has_solution_in_box(out.stride[0], out.stride[1], d, -(in.extent[0] - 1), out.extent[0] - 1,
                                -(in.extent[1] - 1), out.extent[1] - 1);
  return false;
}

}  // namespace tessera::kernels::detail
