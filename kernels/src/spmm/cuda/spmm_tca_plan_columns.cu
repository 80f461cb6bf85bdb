// Shared columns of a TCA-SpMM plan: how often the rows of a window reuse its columns, and,
// for plans that share them, each window's distinct columns as its K slots (spmm_tca.hpp).
#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

#include "spmm_tca_internal.cuh"

namespace tessera::kernels::cuda::tca_detail {

// nnz / (sum over windows of their distinct columns); 0 where a row holds a column twice (a
// slot's row mask cannot say so). Decides whether a plan shares columns before the slots are
// built: building them sorts each window's nonzeros and searches each one's row, which costs
// many times the rest of a plan, and most plans do not share. Here each column keeps a mark
// of the last window that held it and of that window's rows holding it: one pass. Where the
// column ids span far more than the nonzeros (the marks would outweigh the matrix), each
// window's (column, row) keys are sorted instead.
double window_column_reuse(const int* pos_host, const int* crd_host, std::int64_t rows) {
  const std::int64_t nnz = pos_host[rows];
  const int max_col = *std::max_element(crd_host, crd_host + nnz);
  std::int64_t distinct = 0;
  if (max_col < 4 * nnz + (1 << 20)) {
    std::vector<std::int64_t> mark(static_cast<std::size_t>(max_col) + 1, 0);  // (window + 1) << 8 | row bits
    for (std::int64_t r0 = 0, w = 1; r0 < rows; r0 += kWindowRows, ++w)
      for (std::int64_t r = r0; r < std::min<std::int64_t>(r0 + kWindowRows, rows); ++r) {
        const std::int64_t bit = std::int64_t{1} << (r - r0);
        for (int p = pos_host[r]; p < pos_host[r + 1]; ++p) {
          std::int64_t& m = mark[crd_host[p]];
          if (m >> 8 != w) m = w << 8 | bit, ++distinct;
          else if (m & bit) return 0.0;
          else m |= bit;
        }
      }
  } else {
    std::vector<std::int64_t> keys;  // column x kWindowRows + row in the window
    for (std::int64_t r0 = 0; r0 < rows; r0 += kWindowRows) {
      keys.clear();
      for (std::int64_t r = r0; r < std::min<std::int64_t>(r0 + kWindowRows, rows); ++r)
        for (int p = pos_host[r]; p < pos_host[r + 1]; ++p)
          keys.push_back(static_cast<std::int64_t>(crd_host[p]) * kWindowRows + (r - r0));
      std::sort(keys.begin(), keys.end());
      for (std::size_t i = 0; i < keys.size(); ++i) {
        if (i > 0 && keys[i] == keys[i - 1]) return 0.0;
        distinct += i == 0 || keys[i] / kWindowRows != keys[i - 1] / kWindowRows;
      }
    }
  }
  return distinct > 0 ? static_cast<double>(nnz) / static_cast<double>(distinct) : 0.0;
}

WindowSlots window_slots(const int* pos_host, const int* crd_host, std::int64_t rows) {
  WindowSlots s;
  std::vector<std::pair<int, int>> window;  // (column, nonzero index): row order within a column
  for (std::int64_t r0 = 0; r0 < rows; r0 += kWindowRows) {
    const std::int64_t r1 = std::min<std::int64_t>(r0 + kWindowRows, rows);
    s.window_first_slot.push_back(static_cast<int>(s.cols.size()));
    window.clear();
    for (std::int64_t r = r0; r < r1; ++r)
      for (int p = pos_host[r]; p < pos_host[r + 1]; ++p) window.emplace_back(crd_host[p], p);
    std::sort(window.begin(), window.end());
    for (std::size_t i = 0; i < window.size(); ++i) {
      const auto in_row = std::upper_bound(pos_host + r0, pos_host + r1 + 1, window[i].second) - (pos_host + r0) - 1;
      const unsigned char row_bit = static_cast<unsigned char>(1u << in_row);
      if (i == 0 || window[i].first != window[i - 1].first) {
        s.cols.push_back(window[i].first);
        s.rows.push_back(0);
        s.value_begin.push_back(static_cast<int>(s.value_perm.size()));
      }
      s.rows.back() |= row_bit;  // no row holds a column twice (window_column_reuse > 0)
      s.value_perm.push_back(window[i].second);
    }
  }
  s.window_first_slot.push_back(static_cast<int>(s.cols.size()));
  s.value_begin.push_back(static_cast<int>(s.value_perm.size()));
  return s;
}

}  // namespace tessera::kernels::cuda::tca_detail
