// Correctness sweep of the VNM CUDA kernel against a double-precision host reference:
// every N:M with M <= 32 for every L, random odd shapes (m, k, n not multiples of any tile),
// plain and packed layouts, both row tiles and split-K, plus edge cases (k < M, one row,
// n < L, k = 0, rows of A and C further apart than k and n, column-major A and C). B is
// pruned from random dense data with the library's host pruning; C is poisoned with NaN
// before every run. Prints one line per failure and a TOTAL line.
// Usage: vnm_check [--quick]
#include <algorithm>
#include <cmath>
#include <random>
#include <utility>
#include <vector>

#include "tessera/core/command_line.hpp"
#include "vnm_harness.hpp"

namespace kc = tessera::kernels::cuda;
using namespace vnm_harness;

namespace {

int cases = 0, failures = 0;

// C = A * decode(B) in double, from the dense pruned matrix.
std::vector<double> reference(const std::vector<float>& A, const std::vector<float>& B, std::int64_t m, std::int64_t k,
                              std::int64_t n) {
  std::vector<double> C(m * n, 0.0);
  for (std::int64_t i = 0; i < m; ++i)
    for (std::int64_t p = 0; p < k; ++p) {
      const double a = A[i * k + p];
      if (a == 0.0) continue;
      for (std::int64_t j = 0; j < n; ++j) C[i * n + j] += a * B[p * n + j];
    }
  return C;
}

// How A and C are stored: row-major unless *_col_major; lda_pad > 0: A's rows (columns) are
// k + lda_pad (m + lda_pad) apart, the padding NaN (must not be read); ldc_pad likewise for C,
// whose padding is poisoned like C and must stay so.
struct Storage {
  bool a_col_major = false, c_col_major = false;
  std::int64_t lda_pad = 0, ldc_pad = 0;
};

void run_case(std::int64_t m, std::int64_t k, std::int64_t n, tessera::VnmPattern p, bool packed,
              const kc::VnmLaunch* launch, std::mt19937_64& rng, const Storage& st = {}) {
  ++cases;
  std::uniform_real_distribution<float> u(-1.f, 1.f);
  std::vector<float> A(m * k), dense(k * n);
  for (auto& x : A) x = u(rng);
  for (auto& x : dense) x = u(rng);
  const auto e = tessera::vnm_extents(k, n, p);
  std::vector<float> vals(e.stored_rows * e.padded_cols);
  std::vector<std::uint8_t> meta(e.stored_rows * e.groups);
  tessera::prune_vnm_host(dense.data(), n, e, p, vals.data(), meta.data());
  std::vector<float> pruned(k * n);
  tessera::decode_vnm_host(vals.data(), meta.data(), e, p, pruned.data(), n);
  DeviceVnm B(p, e, meta, packed);
  B.vals.upload(vals);
  // A line is a row (row-major) or a column (column-major); element (i, j) of X at line_of * ld + index_in.
  const std::int64_t a_lines = st.a_col_major ? k : m, a_len = st.a_col_major ? m : k, lda = a_len + st.lda_pad;
  const std::int64_t c_lines = st.c_col_major ? n : m, c_len = st.c_col_major ? m : n, ldc = c_len + st.ldc_pad;
  std::vector<float> strided(std::max<std::int64_t>(1, a_lines * lda), NAN);
  for (std::int64_t i = 0; i < m; ++i)
    for (std::int64_t j = 0; j < k; ++j) strided[st.a_col_major ? j * lda + i : i * lda + j] = A[i * k + j];
  DeviceBuffer<float> dA(strided.size()), dC(c_lines * ldc);
  dA.upload(strided);
  HARNESS_CHECK(cudaMemset(dC.ptr, 0xff, c_lines * ldc * sizeof(float)));  // NaN poison
  std::string what;
  try {
    auto args = B.args(dA.ptr, m, dC.ptr);
    args.lda = lda;
    args.ldc = ldc;
    args.a_col_major = st.a_col_major;
    args.c_col_major = st.c_col_major;
    kc::vnm_spmm(args, nullptr, launch);
    HARNESS_CHECK(cudaDeviceSynchronize());
  } catch (const std::exception& ex) {
    what = ex.what();
  }
  double err = INFINITY;
  if (what.empty()) {
    const auto C_strided = dC.download();
    std::vector<float> C(m * n);
    bool padding_kept = true;
    for (std::int64_t line = 0; line < c_lines; ++line) {
      for (std::int64_t x = 0; x < c_len; ++x)
        C[st.c_col_major ? x * n + line : line * n + x] = C_strided[line * ldc + x];
      for (std::int64_t x = c_len; x < ldc; ++x) padding_kept = padding_kept && std::isnan(C_strided[line * ldc + x]);
    }
    const auto ref = reference(A, pruned, m, k, n);
    double diff = 0, norm = 0;
    bool nan = false;
    for (std::size_t i = 0; i < ref.size(); ++i) {
      nan = nan || std::isnan(C[i]);
      diff += (C[i] - ref[i]) * (C[i] - ref[i]);
      norm += ref[i] * ref[i];
    }
    err = nan ? INFINITY : std::sqrt(diff) / std::max(std::sqrt(norm), 1e-300);
    if (!padding_kept) {
      err = INFINITY;
      what = "wrote into the padding of C's rows";
    }
  }
  const double tol = 1e-5 * std::sqrt(std::max<double>(1.0, k / 64.0)) + 1e-6;
  if (!(err <= tol) || (m * n == 0 && !what.empty())) {
    ++failures;
    std::printf("FAIL m=%lld k=%lld n=%lld A %s lda=%lld C %s ldc=%lld %d:%d L=%d packed=%d launch=%s err=%.3g %s\n",
                (long long)m, (long long)k, (long long)n, st.a_col_major ? "col" : "row", (long long)lda,
                st.c_col_major ? "col" : "row", (long long)ldc, p.n, p.m, p.l, packed,
                launch ? launch->describe().c_str() : "auto", err, what.c_str());
  }
}

}  // namespace

int main(int argc, char** argv) {
  bool quick = false;
  const auto status = tessera::walk_command_line("vnm_check", [&] {
    for (tessera::CommandLine cl(argc, argv, "usage: vnm_check [--quick]\n"); cl.next();) {
      if (cl.is("--quick")) quick = true;
      else cl.reject();
    }
  });
  if (status) return *status;
  std::mt19937_64 rng(20261122);
  try {
    // Every N:M and L, odd shapes, automatic launch, plain and packed.
    for (int M = 2; M <= 32; ++M)
      for (int N = 1; N < M; ++N)
        for (int L : {4, 8, 16, 32, 64}) {
          if (quick && ((M != 4 && M != 8 && M != 32) || (L != 4 && L != 32) || N % 2 == 0)) continue;
          std::uniform_int_distribution<std::int64_t> dm(1, 150), dw(1, 9), dn(1, 300);
          const std::int64_t m = dm(rng), k = M * dw(rng) + (rng() % 2 ? rng() % M : 0), n = dn(rng);
          run_case(m, k, n, {N, M, L}, (N + M + L) % 2 == 0, nullptr, rng);
        }
    // Every launch variant on shapes that cross tile edges, with either copier (the producer
    // warpgroup only where the device runs the sm_90a build) and with the copier left to the
    // device (Auto), A staged from panels and from row boxes (m = 300 with M = 32 and N % 4 == 0
    // takes them; the other cases fall back to panels).
    int major = 0, minor = 0, dev = 0;
    HARNESS_CHECK(cudaGetDevice(&dev));
    HARNESS_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev));
    HARNESS_CHECK(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, dev));
    std::vector<kc::VnmLaunch> launches;
    for (const auto copier : {kc::VnmCopier::ProducerWarpgroup, kc::VnmCopier::ComputingWarp, kc::VnmCopier::Auto}) {
      if (copier == kc::VnmCopier::ProducerWarpgroup && !(major == 9 && minor == 0)) continue;
      for (const auto& [rows, split] : {std::pair{kc::VnmRowTile::Rows128, 1}, {kc::VnmRowTile::Rows64, 1},
                                        {kc::VnmRowTile::Rows128, 3}, {kc::VnmRowTile::Rows64, 5}})
        for (const auto staging : {kc::VnmAStaging::Panels, kc::VnmAStaging::RowBoxes})
          launches.push_back({rows, split, copier, staging});
    }
    for (const auto& l : launches)
      for (tessera::VnmPattern p : {tessera::VnmPattern{16, 32, 32}, {4, 32, 32}, {2, 4, 4}, {3, 8, 64}, {5, 7, 8}})
        for (bool packed : {false, true}) {
          run_case(300, 37 * p.m + 3, 390, p, packed, &l, rng);
          run_case(129, 1000, 129, p, packed, &l, rng);
        }
    // Edge cases: k < M, a single row, n < L, n not a multiple of 4, empty operands.
    for (bool packed : {false, true}) {
      run_case(1, 5, 3, {1, 8, 32}, packed, nullptr, rng);
      run_case(64, 3, 130, {2, 4, 64}, packed, nullptr, rng);
      run_case(200, 96, 1, {1, 2, 4}, packed, nullptr, rng);
      run_case(7, 64, 4097, {3, 16, 8}, packed, nullptr, rng);
      run_case(33, 0, 17, {1, 4, 4}, packed, nullptr, rng);
      run_case(0, 32, 17, {1, 4, 4}, packed, nullptr, rng);
      run_case(17, 32, 0, {1, 4, 4}, packed, nullptr, rng);
      // Rows of A and C further apart than k and n: 16-byte aligned (k = 64, lda = 68; n = 300,
      // ldc = 304) and not; the last with split-K (its atomic sums along C's rows).
      const kc::VnmLaunch split{kc::VnmRowTile::Rows128, 3, kc::VnmCopier::Auto};
      run_case(300, 64, 300, {2, 8, 32}, packed, nullptr, rng, {false, false, 4, 4});
      run_case(300, 64, 300, {2, 8, 32}, packed, nullptr, rng, {false, false, 3, 1});
      run_case(140, 37 * 8 + 3, 260, {3, 8, 8}, packed, nullptr, rng, {false, false, 5, 7});
      run_case(130, 2050, 260, {4, 32, 32}, packed, &split, rng, {false, false, 6, 2});
      // Row boxes of A with rows further apart than k (16-byte aligned, lda = k + 4; not, lda =
      // k + 1, which falls back to panels), k not a multiple of 32, and split-K.
      const kc::VnmLaunch row_boxes{kc::VnmRowTile::Rows128, 1, kc::VnmCopier::Auto, kc::VnmAStaging::RowBoxes};
      const kc::VnmLaunch row_boxes_split{kc::VnmRowTile::Rows64, 4, kc::VnmCopier::Auto, kc::VnmAStaging::RowBoxes};
      run_case(300, 37 * 32 + 3, 390, {8, 32, 32}, packed, &row_boxes, rng, {false, false, 4, 0});
      run_case(300, 37 * 32 + 3, 390, {8, 32, 32}, packed, &row_boxes, rng, {false, false, 1, 0});
      run_case(260, 2050, 300, {12, 32, 16}, packed, &row_boxes_split, rng, {false, false, 8, 3});
      // Column-major A (plain plans read it directly when its columns are 16-byte aligned, else
      // through the pass) and column-major C, alone and together, odd extents, padded, split-K.
      for (const Storage st : {Storage{true, false, 0, 0}, Storage{false, true, 0, 0}, Storage{true, true, 0, 0},
                               Storage{true, true, 4, 4}, Storage{true, true, 1, 3}}) {
        run_case(300, 37 * 32 + 3, 390, {4, 32, 32}, packed, nullptr, rng, st);
        run_case(129, 1000, 129, {5, 7, 8}, packed, nullptr, rng, st);
        run_case(131, 2050, 260, {16, 32, 32}, packed, &split, rng, st);
        run_case(7, 64, 4097, {3, 16, 8}, packed, nullptr, rng, st);
        run_case(1, 5, 3, {1, 8, 32}, packed, nullptr, rng, st);
      }
      run_case(33, 0, 17, {1, 4, 4}, packed, nullptr, rng, {true, true, 0, 0});
      run_case(0, 32, 17, {1, 4, 4}, packed, nullptr, rng, {true, true, 0, 0});
    }
    // A larger case through every automatic choice.
    if (!quick) run_case(1024, 4096, 1024, {8, 32, 32}, true, nullptr, rng);
  } catch (const std::exception& ex) {
    return harness_error(ex.what());
  }
  std::printf("TOTAL %d cases, %d failures\n", cases, failures);
  return failures ? 1 : 0;
}
