#pragma once
// Shared pieces of the stand-alone TCA-SpMM programs (spmm_tca_check, spmm_tca_bench):
// host CSR matrices from the project's Matrix Market reader or from generators, a
// double-precision reference, and CUDA error checks. No Kokkos, so the programs build
// with plain nvcc on the GPU machine.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <random>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "tessera/core/io/matrix_market.hpp"
#include "../common/harness_check.hpp"

namespace tca_harness {

// Element conversions of the four value types the kernels take.
template <class T>
T from_double(double x) {
  if constexpr (std::is_same_v<T, __half>) return __double2half(x);
  else if constexpr (std::is_same_v<T, __nv_bfloat16>) return __float2bfloat16(static_cast<float>(x));
  else return static_cast<T>(x);
}
template <class T>
double to_double(T x) {
  if constexpr (std::is_same_v<T, __half>) return __half2float(x);
  else if constexpr (std::is_same_v<T, __nv_bfloat16>) return __bfloat162float(x);
  else return static_cast<double>(x);
}

struct Csr {
  std::string name;
  std::int64_t rows = 0, cols = 0;
  std::vector<int> pos{0}, crd;
  std::vector<double> val;
  std::int64_t nnz() const { return static_cast<std::int64_t>(crd.size()); }
};

// Triplets -> CSR, sorted by (row, col), duplicates summed.
inline Csr from_triplets(std::string name, std::int64_t rows, std::int64_t cols, std::vector<std::int64_t> r,
                         std::vector<std::int64_t> c, std::vector<double> v) {
  std::vector<std::size_t> idx(r.size());
  for (std::size_t i = 0; i < idx.size(); ++i) idx[i] = i;
  std::sort(idx.begin(), idx.end(), [&](std::size_t a, std::size_t b) { return r[a] != r[b] ? r[a] < r[b] : c[a] < c[b]; });
  Csr m;
  m.name = std::move(name);
  m.rows = rows;
  m.cols = cols;
  m.pos.assign(rows + 1, 0);
  std::int64_t last_r = -1, last_c = -1;
  for (std::size_t i : idx) {
    if (r[i] == last_r && c[i] == last_c) {
      m.val.back() += v[i];
      continue;
    }
    m.crd.push_back(static_cast<int>(c[i]));
    m.val.push_back(v[i]);
    m.pos[r[i] + 1]++;
    last_r = r[i];
    last_c = c[i];
  }
  for (std::int64_t i = 0; i < rows; ++i) m.pos[i + 1] += m.pos[i];
  return m;
}

inline Csr read_mtx(const std::string& path) {
  const auto coo = tessera::io::read_matrix_market(path);
  std::vector<std::int64_t> r(coo.nnz()), c(coo.nnz());
  for (std::int64_t n = 0; n < coo.nnz(); ++n) {
    r[n] = coo.coord(n, 0);
    c[n] = coo.coord(n, 1);
  }
  auto slash = path.find_last_of('/');
  std::string name = path.substr(slash == std::string::npos ? 0 : slash + 1);
  name = name.substr(0, name.find(".mtx"));
  return from_triplets(name, coo.shape[0], coo.shape[1], std::move(r), std::move(c), coo.values);
}

// Values made exactly representable in fp16, bf16, tf32 and fp32 (scaled to max 1,
// rounded to 8 significant bits, magnitudes under 2^-14 flushed), so one double
// reference serves every precision and errors measure the kernel alone.
inline double representable(double x) {
  if (x == 0 || std::fabs(x) < std::ldexp(1.0, -14)) return 0.0;
  int e;
  const double m = std::frexp(x, &e);  // x = m * 2^e, 0.5 <= |m| < 1
  return std::ldexp(std::nearbyint(m * 256.0) / 256.0, e);
}
inline void make_representable(Csr& m) {
  double mx = 0;
  for (double v : m.val) mx = std::max(mx, std::fabs(v));
  for (double& v : m.val) v = representable(mx > 0 ? v / mx : v);
}

// Generators. Values are random multiples of 1/64 in [-1, 1] (exact everywhere).
inline double rand_val(std::mt19937_64& rng) {
  return static_cast<double>(std::uniform_int_distribution<int>(-64, 64)(rng)) / 64.0;
}
inline Csr generate_rows(const std::string& name, std::int64_t rows, std::int64_t cols,
                         const std::vector<std::int64_t>& lengths, std::uint64_t seed, std::int64_t band = -1) {
  std::mt19937_64 rng(seed);
  std::vector<std::int64_t> r, c;
  std::vector<double> v;
  for (std::int64_t i = 0; i < rows; ++i) {
    const std::int64_t len = std::min(lengths[i], cols);
    for (std::int64_t q = 0; q < len; ++q) {
      std::int64_t j;
      if (band >= 0) j = std::clamp<std::int64_t>(i - band / 2 + q, 0, cols - 1);
      else if (len * 2 > cols) j = (q * cols) / len;  // dense-ish row: spread, no duplicates
      else j = std::uniform_int_distribution<std::int64_t>(0, cols - 1)(rng);
      r.push_back(i);
      c.push_back(j);
      v.push_back(rand_val(rng));
    }
  }
  return from_triplets(name, rows, cols, std::move(r), std::move(c), std::move(v));
}
inline Csr uniform(const std::string& name, std::int64_t rows, std::int64_t cols, double mean, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::poisson_distribution<std::int64_t> len(mean);
  std::vector<std::int64_t> lengths(rows);
  for (auto& l : lengths) l = len(rng);
  return generate_rows(name, rows, cols, lengths, seed + 1);
}
inline Csr power_law(const std::string& name, std::int64_t rows, std::int64_t cols, double alpha,
                     std::int64_t max_len, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  std::vector<std::int64_t> lengths(rows);
  for (auto& l : lengths)  // Pareto-distributed lengths, at least 1
    l = std::min<std::int64_t>(max_len, static_cast<std::int64_t>(std::pow(1.0 - u(rng), -1.0 / alpha)));
  return generate_rows(name, rows, cols, lengths, seed + 1);
}
inline Csr banded(const std::string& name, std::int64_t rows, std::int64_t width, std::uint64_t seed) {
  return generate_rows(name, rows, rows, std::vector<std::int64_t>(rows, width), seed, width);
}
inline Csr with_dense_row(const std::string& name, std::int64_t rows, std::int64_t cols, double mean,
                          std::int64_t dense_row, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::poisson_distribution<std::int64_t> len(mean);
  std::vector<std::int64_t> lengths(rows);
  for (auto& l : lengths) l = len(rng);
  lengths[dense_row] = cols;
  return generate_rows(name, rows, cols, lengths, seed + 1);
}
inline Csr empty_rows(const std::string& name, std::int64_t rows, std::int64_t cols, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<std::int64_t> lengths(rows, 0);
  for (std::int64_t i = 0; i < rows; i += 37) lengths[i] = 1 + static_cast<std::int64_t>(rng() % 40);
  return generate_rows(name, rows, cols, lengths, seed + 1);
}

// C = alpha * A * B + beta * C, all row-major, double.
inline void reference(const Csr& A, const std::vector<double>& B, std::int64_t n, double alpha, double beta,
                      std::vector<double>& C) {
#pragma omp parallel for schedule(dynamic, 64)
  for (std::int64_t i = 0; i < A.rows; ++i) {
    std::vector<double> acc(n, 0.0);
    for (int p = A.pos[i]; p < A.pos[i + 1]; ++p) {
      const double a = A.val[p];
      const double* b = B.data() + static_cast<std::int64_t>(A.crd[p]) * n;
      for (std::int64_t j = 0; j < n; ++j) acc[j] += a * b[j];
    }
    for (std::int64_t j = 0; j < n; ++j)
      C[i * n + j] = alpha * acc[j] + (beta == 0 ? 0.0 : beta * C[i * n + j]);
  }
}

inline std::vector<std::string> list_matrices(const std::string& dir) {
  std::vector<std::string> out;
  std::string cmd = "ls " + dir + "/*.mtx* 2>/dev/null";
  if (FILE* f = popen(cmd.c_str(), "r")) {
    char buf[4096];
    while (std::fgets(buf, sizeof buf, f)) {
      std::string s(buf);
      while (!s.empty() && (s.back() == '\n' || s.back() == '\r')) s.pop_back();
      out.push_back(s);
    }
    pclose(f);
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace tca_harness
