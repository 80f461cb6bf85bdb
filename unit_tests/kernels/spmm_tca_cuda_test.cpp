// tessera::spmm on Kokkos::Cuda through every CUDA algorithm: TCA-SpMM on tensor
// cores (fp16, and float through TF32 when allowed), the CUDA-core row split, and
// Auto, against the double-precision reference. Inputs are rounded to the tested
// precision before the reference sees them, so the bounds measure accumulation and
// output rounding: fp16 output rounds at 2^-11 relative; TF32 products carry the values
// rounded (2^-11) and B truncated (2^-10) by the tensor core.
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include <Kokkos_Core.hpp>
#include <gtest/gtest.h>

#include "spmv_spmm_checks.hpp"
#include "tessera_test/data.hpp"
#include "tessera_test/random_coo.hpp"

namespace {

using Half = Kokkos::Experimental::half_t;
using tessera::SpmmAlgorithm;
using tessera::SpmmOptions;
using tessera_test::check_spmm;

constexpr double kHalfTolerance = 4e-3;
constexpr double kTf32Tolerance = 5e-3;


// The TCA plan an SpmmHandle builds for A (the same one spmm runs): Auto at N = 32, past the
// row-block kernel's columns, builds it to choose.
template <class T>
std::shared_ptr<const tessera::kernels::cuda::TcaPlan> plan_of(const tessera::Tensor<T, tessera::CSR, Kokkos::Cuda>& A) {
  tessera::SpmmHandle handle;
  Kokkos::View<T**, Kokkos::LayoutRight, Kokkos::CudaSpace> B("B", A.extent(1), 32), C("C", A.extent(0), 32);
  tessera::spmm_choose_algorithm(A, B, C, handle);
  return handle.state().get<tessera::kernels::cuda::SpmmCudaState>()->plan;
}

TEST(SpmmTca, TensorCoreHalfOnEdgeCases) {
  const SpmmOptions tc{SpmmAlgorithm::TensorCore};
  for (const auto& c : tessera_test::edge_case_matrices(51))
    for (std::int64_t n : {1, 7, 32, 64, 128, 256, 512}) {
      check_spmm<Half, Kokkos::LayoutRight, Kokkos::Cuda>(c.coo, n, 1.0, 0.0, 1, c.name, tc, kHalfTolerance);
      check_spmm<Half, Kokkos::LayoutLeft, Kokkos::Cuda>(c.coo, n, 0.5, 1.5, 2, c.name, tc, kHalfTolerance);
    }
}

TEST(SpmmTca, TensorCoreTf32OnEdgeCases) {
  const SpmmOptions tf32{SpmmAlgorithm::TensorCore, /*allow_tf32=*/true};
  for (const auto& c : tessera_test::edge_case_matrices(61))
    for (std::int64_t n : {1, 7, 64, 256}) {
      check_spmm<float, Kokkos::LayoutRight, Kokkos::Cuda>(c.coo, n, 1.0, 0.0, 3, c.name, tf32, kTf32Tolerance);
      check_spmm<float, Kokkos::LayoutLeft, Kokkos::Cuda>(c.coo, n, 2.0, -1.0, 4, c.name, tf32, kTf32Tolerance);
    }
}

// Lane groups of 8, 16 and 32 across N = 32 and 128 and the three element sizes; row-major B
// with N a multiple of the 16-byte vector is read in place, N = 1, 33 and column-major B are
// packed row-major first (a partial last vector of columns, column-major C).
TEST(SpmmTca, CudaCoreRowSplitAllPrecisions) {
  const SpmmOptions rs{SpmmAlgorithm::CudaCoreRowSplit};
  for (const auto& c : tessera_test::edge_case_matrices(71))
    for (std::int64_t n : {1, 32, 33, 128}) {
      check_spmm<double, Kokkos::LayoutRight, Kokkos::Cuda>(c.coo, n, 1.0, 0.0, 5, c.name, rs);
      check_spmm<float, Kokkos::LayoutLeft, Kokkos::Cuda>(c.coo, n, 1.0, 0.5, 6, c.name, rs);
      check_spmm<float, Kokkos::LayoutRight, Kokkos::Cuda>(c.coo, n, 2.0, -1.0, 17, c.name, rs);
      check_spmm<Half, Kokkos::LayoutRight, Kokkos::Cuda>(c.coo, n, 1.0, 0.0, 7, c.name, rs, kHalfTolerance);
    }
}

// half_t with op = Transpose runs Native's scatter, one work item (no 16-bit atomic add).
TEST(SpmmTca, HalfTransposedRunsNative) {
  for (const auto& c : tessera_test::edge_case_matrices(73))
    for (std::int64_t n : {1, 9})
      check_spmm<Half, Kokkos::LayoutRight, Kokkos::Cuda>(c.coo, n, 1.0, 0.5, 8, c.name, {}, kHalfTolerance,
                                                          tessera::Op::Transpose);
}

// `per_row` nonzeros in each of `rows` rows, at distinct columns.
tessera::HostCoo<double> even_rows(std::int64_t rows, std::int64_t cols, std::int64_t per_row) {
  tessera::HostCoo<double> coo;
  coo.shape = {rows, cols};
  for (std::int64_t i = 0; i < rows; ++i)
    for (std::int64_t j = 0; j < per_row; ++j) {
      coo.coords.insert(coo.coords.end(), {i, (i * 7 + j * 13) % cols});
      coo.values.push_back(0.5 + 0.01 * static_cast<double>((i + j) % 50));
    }
  return coo;
}

// With TF32 allowed, Auto runs fp32 on the CUDA cores for a large matrix of even rows or of
// long rows (one of them far longer than the others: the row chunks balance it), for a few
// rows of 100 nonzeros, and on the tensor cores for short rows of which one holds far more
// than the mean, and for any of them at N <= 32 (tca_choose).
TEST(SpmmTca, AutoTf32PicksCudaCoresForEvenOrLongRows) {
  const SpmmOptions auto_tf32{SpmmAlgorithm::Auto, /*allow_tf32=*/true};
  auto pick = [&](const tessera::HostCoo<double>& coo, std::int64_t n = 128) {
    const auto A = tessera::from_coo<float, tessera::CSR, Kokkos::Cuda>(coo);
    Kokkos::View<float**, Kokkos::LayoutRight, Kokkos::CudaSpace> B("B", coo.shape[1], n), C("C", coo.shape[0], n);
    return tessera::spmm_choose_algorithm(A, B, C, auto_tf32);
  };
  auto with_long_row5 = [](tessera::HostCoo<double> coo) {  // row 5 gets 20000 more nonzeros
    for (std::int64_t j = 0; j < 20000; ++j) {
      coo.coords.insert(coo.coords.end(), {5, j});
      coo.values.push_back(0.25);
    }
    return coo;
  };
  const auto even = even_rows(40000, 30000, 16);
  const auto skewed_short = with_long_row5(even);
  const auto skewed_long = with_long_row5(even_rows(40000, 30000, 32));
  EXPECT_EQ(pick(even), SpmmAlgorithm::CudaCoreRowSplit);
  EXPECT_EQ(pick(skewed_short), SpmmAlgorithm::TensorCore);
  EXPECT_EQ(pick(skewed_long), SpmmAlgorithm::CudaCoreRowSplit);
  EXPECT_EQ(pick(even_rows(500, 5000, 100)), SpmmAlgorithm::CudaCoreRowSplit);
  for (const auto* coo : {&even, &skewed_long}) EXPECT_EQ(pick(*coo, 32), SpmmAlgorithm::TensorCore);
  check_spmm<float, Kokkos::LayoutRight, Kokkos::Cuda>(even, 128, 1.0, 0.0, 18, "even_rows", auto_tf32,
                                                       kTf32Tolerance);
  check_spmm<float, Kokkos::LayoutRight, Kokkos::Cuda>(skewed_short, 128, 1.0, 0.0, 19, "skewed_short_rows",
                                                       auto_tf32, kTf32Tolerance);
  check_spmm<float, Kokkos::LayoutRight, Kokkos::Cuda>(skewed_long, 128, 1.0, 0.5, 20, "skewed_long_rows", auto_tf32,
                                                       kTf32Tolerance);
}

// 3000 x 5000: rows 7, 507, ..., 2507 hold 4000 nonzeros or more, the others 0-2.
tessera::HostCoo<double> few_long_rows() {
  tessera::HostCoo<double> coo;
  coo.shape = {3000, 5000};
  for (std::int64_t i = 0; i < coo.shape[0]; ++i) {
    const std::int64_t len = i % 500 == 7 ? 4000 + i : i % 3;
    for (std::int64_t j = 0; j < len; ++j) {
      coo.coords.insert(coo.coords.end(), {i, (i * 31 + j * 7) % coo.shape[1]});
      coo.values.push_back(0.25 + 0.001 * static_cast<double>((i + 3 * j) % 700));
    }
  }
  return coo;
}

// With tune, Auto times both CUDA kernels on the first call for a shape and keeps the pick with
// the plan: right against the reference with beta != 0 (the timed calls write a scratch output,
// never C), one timing per shape (value type, N, layouts) and L2 state, none on later calls,
// and the same pick from spmm_choose_algorithm as the call ran.
TEST(SpmmTca, AutoTunedTimesEachShapeOnce) {
  SpmmOptions tuned{SpmmAlgorithm::Auto, /*allow_tf32=*/true};
  tuned.tune = true;
  const auto even = even_rows(40000, 30000, 16);
  for (std::int64_t n : {64, 256}) {
    check_spmm<float, Kokkos::LayoutRight, Kokkos::Cuda>(even, n, 1.0, 0.5, 24, "even_rows tuned", tuned,
                                                         kTf32Tolerance);
    check_spmm<Half, Kokkos::LayoutRight, Kokkos::Cuda>(even, n, -1.0, 2.0, 25, "even_rows tuned", tuned,
                                                        kHalfTolerance);
  }
  check_spmm<float, Kokkos::LayoutLeft, Kokkos::Cuda>(even, 64, 2.0, -1.0, 26, "even_rows tuned", tuned,
                                                      kTf32Tolerance);
  for (const auto& c : tessera_test::edge_case_matrices(91))
    check_spmm<float, Kokkos::LayoutRight, Kokkos::Cuda>(c.coo, 64, 1.0, 0.5, 27, c.name + " tuned", tuned,
                                                         kTf32Tolerance);
  SpmmOptions tuned_warm = tuned;
  tuned_warm.tune_cache = tessera::SpmmTuneCache::WarmL2;
  check_spmm<float, Kokkos::LayoutRight, Kokkos::Cuda>(even, 128, 1.0, 0.5, 28, "even_rows tuned warm", tuned_warm,
                                                       kTf32Tolerance);

  const auto A = tessera::from_coo<float, tessera::CSR, Kokkos::Cuda>(few_long_rows());
  Kokkos::View<float**, Kokkos::LayoutRight, Kokkos::CudaSpace> B("B", A.extent(1), 128), C("C", A.extent(0), 128);
  Kokkos::View<float**, Kokkos::LayoutRight, Kokkos::CudaSpace> B64("B64", A.extent(1), 64), C64("C64", A.extent(0), 64);
  tessera::SpmmHandle handle(tuned);
  const auto tuned_shapes = [](tessera::SpmmHandle& h) {
    const auto* st = h.state().get<tessera::kernels::cuda::SpmmCudaState>();
    return st ? st->tuned.size() : std::size_t(0);
  };
  const SpmmAlgorithm first = tessera::spmm_choose_algorithm(A, B, C, handle);
  EXPECT_EQ(tuned_shapes(handle), 1u);
  tessera::spmm(1.0f, A, B, 0.0f, C, handle);
  EXPECT_EQ(tessera::spmm_choose_algorithm(A, B, C, handle), first);
  EXPECT_EQ(tuned_shapes(handle), 1u) << "a tuned shape is not timed again";
  tessera::spmm(1.0f, A, B64, 0.0f, C64, handle);
  EXPECT_EQ(tuned_shapes(handle), 2u);
  handle.options().tune_cache = tessera::SpmmTuneCache::WarmL2;
  tessera::spmm(1.0f, A, B64, 0.0f, C64, handle);
  EXPECT_EQ(tuned_shapes(handle), 3u) << "each L2 state is timed apart";
  // Without tune, or with an explicit algorithm, nothing is timed.
  const auto R = tessera::from_coo<float, tessera::CSR, Kokkos::Cuda>(even);
  Kokkos::View<float**, Kokkos::LayoutRight, Kokkos::CudaSpace> RB("RB", R.extent(1), 64), RC("RC", R.extent(0), 64);
  tessera::SpmmHandle untuned(SpmmOptions{SpmmAlgorithm::Auto, /*allow_tf32=*/true});
  tessera::spmm(1.0f, R, RB, 0.0f, RC, untuned);
  EXPECT_EQ(tuned_shapes(untuned), 0u);
  SpmmOptions explicit_tuned{SpmmAlgorithm::TensorCore, /*allow_tf32=*/true};
  explicit_tuned.tune = true;
  tessera::SpmmHandle explicit_handle(explicit_tuned);
  tessera::spmm(1.0f, R, RB, 0.0f, RC, explicit_handle);
  EXPECT_EQ(tuned_shapes(explicit_handle), 0u);
}

// The row split cuts rows longer than the plan's row chunk into pieces run by separate warps
// and summed in a workspace: a power-law matrix (a few rows of thousands of nonzeros, many
// short ones), every element size, beta = 0 and not, and N across the lane-group widths.
TEST(SpmmTca, CudaCoreRowSplitChunksLongRows) {
  const SpmmOptions rs{SpmmAlgorithm::CudaCoreRowSplit};
  const auto coo = few_long_rows();
  // The automatic plan does cut this matrix's long rows (several chunks each).
  const auto A = tessera::from_coo<double, tessera::CSR, Kokkos::Cuda>(coo);
  const auto plan = plan_of(A);
  EXPECT_EQ(plan->stats().chunked_rows, 6);
  EXPECT_GT(plan->stats().row_chunks, 6 * 2);
  // Its work list: every chunk and every other row (the empty ones too: they write zeros).
  EXPECT_EQ(plan->stats().row_split_items, plan->stats().row_chunks + coo.shape[0] - 6);
  // Rows i % 3 == 0 are empty but for the long rows 507 and 2007.
  EXPECT_EQ(plan->stats().nonempty_rows, 2002);
  for (std::int64_t n : {8, 64, 256}) {
    check_spmm<double, Kokkos::LayoutRight, Kokkos::Cuda>(coo, n, 1.0, 0.0, 21, "power_law_rows", rs);
    check_spmm<float, Kokkos::LayoutRight, Kokkos::Cuda>(coo, n, -2.0, 0.5, 22, "power_law_rows", rs);
    check_spmm<Half, Kokkos::LayoutRight, Kokkos::Cuda>(coo, n, 1.0, 0.0, 23, "power_law_rows", rs, kHalfTolerance);
  }
}

// Long rows among many empty ones (two thirds of the rows): their mean over the non-empty rows
// sends the row split to its deep-gather launch (8 gathers per lane group in flight): fp32 and
// fp64 at both N, fp16 at N = 256, where its 4500 items (rows and chunks of 64) fill even an
// H100's 132 SMs with 32-lane groups, so one lane group spans the warp.
TEST(SpmmTca, CudaCoreRowSplitLongRowsAmongEmptyOnes) {
  const SpmmOptions rs{SpmmAlgorithm::CudaCoreRowSplit};
  tessera::HostCoo<double> coo;
  coo.shape = {9000, 900};
  for (std::int64_t i = 0; i < coo.shape[0]; i += 3)
    for (std::int64_t j = 0; j < 40 + i % 50; ++j) {
      coo.coords.insert(coo.coords.end(), {i, (i * 13 + j * 11) % coo.shape[1]});
      coo.values.push_back(0.5 - 0.002 * static_cast<double>((i + 5 * j) % 400));
    }
  const auto A = tessera::from_coo<double, tessera::CSR, Kokkos::Cuda>(coo);
  const auto plan = plan_of(A);
  EXPECT_EQ(plan->stats().nonempty_rows, 3000);
  EXPECT_LT(plan->stats().mean_row_nnz, 24.0);  // over all rows: below kDeepGatherMeanRowNnz
  for (std::int64_t n : {64, 256}) {
    check_spmm<double, Kokkos::LayoutRight, Kokkos::Cuda>(coo, n, 1.0, 0.0, 31, "long_rows_among_empty", rs);
    check_spmm<float, Kokkos::LayoutRight, Kokkos::Cuda>(coo, n, 1.5, -1.0, 32, "long_rows_among_empty", rs);
    check_spmm<Half, Kokkos::LayoutRight, Kokkos::Cuda>(coo, n, 1.0, 0.0, 33, "long_rows_among_empty", rs,
                                                          kHalfTolerance);
  }
}

// Four calls of tessera::spmm (fp32, n = 64) with `opts` on A give the same bits, and no NaN
// of the poisoned output survives.
void expect_reproducible(const tessera::HostCoo<double>& coo, const SpmmOptions& opts) {
  const auto A = tessera::from_coo<float, tessera::CSR, Kokkos::Cuda>(coo);
  const std::int64_t n = 64;
  Kokkos::View<float**, Kokkos::LayoutRight, Kokkos::CudaSpace> B("B", coo.shape[1], n), C("C", coo.shape[0], n);
  const auto b = tessera_test::random_vector(coo.shape[1] * n, 41);
  auto Bh = Kokkos::create_mirror_view(B);
  for (std::int64_t r = 0; r < coo.shape[1]; ++r)
    for (std::int64_t j = 0; j < n; ++j) Bh(r, j) = static_cast<float>(b[r * n + j]);
  Kokkos::deep_copy(B, Bh);
  std::vector<float> first;
  for (int run = 0; run < 4; ++run) {
    Kokkos::deep_copy(C, std::numeric_limits<float>::quiet_NaN());
    tessera::spmm(1.0f, A, B, 0.0f, C, opts);
    const auto Ch = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), C);
    const std::vector<float> got(Ch.data(), Ch.data() + Ch.size());
    if (run == 0) {
      first = got;
      EXPECT_TRUE(std::none_of(got.begin(), got.end(), [](float x) { return std::isnan(x); }));
    } else {
      EXPECT_EQ(0, std::memcmp(first.data(), got.data(), got.size() * sizeof(float)))
          << "run " << run << " of " << tessera::to_string(opts.algorithm);
    }
  }
}

// Windows split across blocks and chunked rows leave one partial sum per block or chunk in the
// workspace, which the finalize kernel adds in a fixed order: repeated calls give the same
// bits on the tensor cores and on the row split (atomics into one sum per window or row, as
// before, added the parts in whatever order the blocks finished).
TEST(SpmmTca, SplitWindowsAndChunkedRowsAreReproducible) {
  const auto coo = few_long_rows();
  const auto A = tessera::from_coo<float, tessera::CSR, Kokkos::Cuda>(coo);
  const auto plan = plan_of(A);
  EXPECT_GT(plan->stats().split_windows, 0) << plan->describe();
  EXPECT_GT(plan->stats().split_parts, plan->stats().split_windows);
  EXPECT_GT(plan->stats().row_chunks, plan->stats().chunked_rows);
  EXPECT_EQ(plan->cluster_layout(), nullptr) << "windows of 39 blocks fit no cluster";
  expect_reproducible(coo, SpmmOptions{SpmmAlgorithm::TensorCore, /*allow_tf32=*/true});
  expect_reproducible(coo, SpmmOptions{SpmmAlgorithm::CudaCoreRowSplit});
}

// Windows split across up to 16 blocks, on compute capability 9.0, also have a cluster layout,
// which small grids run (each block's sum read from the others' shared memory): right against
// the reference in fp16 and TF32, beta = 0 and not, and the same bits from call to call.
TEST(SpmmTca, SplitWindowsInClusters) {
  tessera::HostCoo<double> coo;
  coo.shape = {3000, 2000};
  for (std::int64_t i = 0; i < coo.shape[0]; ++i) {
    const std::int64_t len = i % 500 == 7 ? 1100 + i / 4 : i % 3;  // windows of 1100-1730: 9-14 blocks
    for (std::int64_t j = 0; j < len; ++j) {
      coo.coords.insert(coo.coords.end(), {i, (i * 13 + j * 7) % coo.shape[1]});
      coo.values.push_back(0.5 - 0.001 * static_cast<double>((i + 7 * j) % 900));
    }
  }
  const auto A = tessera::from_coo<double, tessera::CSR, Kokkos::Cuda>(coo);
  const auto plan = plan_of(A);
  int major = 0;
  ASSERT_EQ(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, 0), cudaSuccess);
  if (major == 9) {
    ASSERT_NE(plan->cluster_layout(), nullptr) << plan->describe();
    EXPECT_EQ(plan->cluster_layout()->stats().cluster_windows, 6);
    EXPECT_GT(plan->cluster_layout()->stats().cluster_blocks, 1);
  }
  const SpmmOptions tc{SpmmAlgorithm::TensorCore}, tf32{SpmmAlgorithm::TensorCore, /*allow_tf32=*/true};
  for (std::int64_t n : {7, 64}) {
    check_spmm<Half, Kokkos::LayoutRight, Kokkos::Cuda>(coo, n, 1.0, 0.0, 81, "cluster_windows", tc, kHalfTolerance);
    check_spmm<float, Kokkos::LayoutRight, Kokkos::Cuda>(coo, n, 0.5, -1.5, 82, "cluster_windows", tf32, kTf32Tolerance);
  }
  expect_reproducible(coo, tf32);
}

// Windows whose rows share most columns (a band 25 wide: about 6 nonzeros per distinct column
// of a window) run the tensor-core kernel with shared columns; rows 1000-1099 are empty and row
// 2500 holds 3000 nonzeros, so windows are empty, single, split over a block's warps and split
// across blocks. A matrix of random rows keeps the plain K slots.
TEST(SpmmTca, TensorCoreSharedColumnsOnABandedMatrix) {
  tessera::HostCoo<double> coo;
  coo.shape = {4000, 4100};
  for (std::int64_t i = 0; i < coo.shape[0]; ++i) {
    if (i >= 1000 && i < 1100) continue;
    const std::int64_t first = i == 2500 ? 0 : i, len = i == 2500 ? 3000 : 25;
    for (std::int64_t j = first; j < first + len; ++j) {
      coo.coords.insert(coo.coords.end(), {i, j});
      coo.values.push_back(0.5 - 0.001 * static_cast<double>((i * 7 + j) % 900));
    }
  }
  const auto A = tessera::from_coo<double, tessera::CSR, Kokkos::Cuda>(coo);
  const auto plan = plan_of(A);
  EXPECT_TRUE(plan->stats().shared_columns) << plan->describe();
  EXPECT_GT(plan->stats().window_column_reuse, 4.0);
  EXPECT_GT(plan->stats().split_windows, 0);
  const SpmmOptions tc{SpmmAlgorithm::TensorCore}, tf32{SpmmAlgorithm::TensorCore, /*allow_tf32=*/true};
  for (std::int64_t n : {7, 64, 256}) {
    check_spmm<Half, Kokkos::LayoutRight, Kokkos::Cuda>(coo, n, 1.0, 0.0, 31, "band_25", tc, kHalfTolerance);
    check_spmm<Half, Kokkos::LayoutLeft, Kokkos::Cuda>(coo, n, 0.5, 1.5, 32, "band_25", tc, kHalfTolerance);
    check_spmm<float, Kokkos::LayoutRight, Kokkos::Cuda>(coo, n, 1.0, 0.0, 33, "band_25", tf32, kTf32Tolerance);
    check_spmm<float, Kokkos::LayoutRight, Kokkos::Cuda>(coo, n, -2.0, 0.5, 34, "band_25", tf32, kTf32Tolerance);
  }
  const auto random_rows = tessera_test::random_coo({3000, 3000}, 20000, 35);
  const auto R = tessera::from_coo<double, tessera::CSR, Kokkos::Cuda>(random_rows);
  EXPECT_FALSE(plan_of(R)->stats().shared_columns);
}

TEST(SpmmTca, TensorCoreHalfOnEveryRealMatrix) {
  const SpmmOptions tc{SpmmAlgorithm::TensorCore};
  for (const auto& path : tessera_test::real_matrix_paths()) {
    auto coo = tessera::io::read_matrix_market(path);
    // Scale to [-1, 1] so every matrix stays inside fp16's range.
    double peak = 0;
    for (double v : coo.values) peak = std::max(peak, std::abs(v));
    for (double& v : coo.values) v = peak > 0 ? v / peak : v;
    check_spmm<Half, Kokkos::LayoutRight, Kokkos::Cuda>(coo, 64, 1.0, 0.0, 8, path, tc, kHalfTolerance);
  }
}

// 3 M nonzeros: the plan's automatic segments are long (kWideTileSegmentNnz) on any GPU of up
// to about 1400 multiprocessors, so fp16 at N = 128 and 256 runs the 128-column tiles and TF32
// at N > 32 the 64-column ones, which the small edge cases above never reach.
TEST(SpmmTca, TensorCoreWideTilesOnALargeMatrix) {
  const SpmmOptions tc{SpmmAlgorithm::TensorCore}, tf32{SpmmAlgorithm::TensorCore, /*allow_tf32=*/true};
  const auto coo = tessera_test::random_coo({200000, 120000}, 3000000, 12);
  for (std::int64_t n : {128, 256}) {
    check_spmm<Half, Kokkos::LayoutRight, Kokkos::Cuda>(coo, n, 1.0, 0.0, 13, "wide_half", tc, kHalfTolerance);
    check_spmm<Half, Kokkos::LayoutLeft, Kokkos::Cuda>(coo, n, 0.5, 1.5, 14, "wide_half", tc, kHalfTolerance);
  }
  for (std::int64_t n : {64, 256}) {
    check_spmm<float, Kokkos::LayoutRight, Kokkos::Cuda>(coo, n, 1.0, 0.0, 15, "wide_tf32", tf32, kTf32Tolerance);
    check_spmm<float, Kokkos::LayoutLeft, Kokkos::Cuda>(coo, n, 2.0, -1.0, 16, "wide_tf32", tf32, kTf32Tolerance);
  }
}

// N past 65535 tiles of 32 columns, the most one grid dimension counts: the product runs in
// column slices. A full row of 64 nonzeros among short and empty ones, both layouts
// (column-major B is repacked per slice), both kernels. (B alone holds 134 M elements.)
TEST(SpmmTca, ColumnsPastOneGridDimension) {
  tessera::HostCoo<double> coo;
  coo.shape = {6, 64};
  for (std::int64_t i : {0, 2, 3, 5})
    for (std::int64_t j = 0; j < (i == 3 ? 64 : 5); ++j) {
      coo.coords.insert(coo.coords.end(), {i, (j * 37 + i) % coo.shape[1]});
      coo.values.push_back(0.25 + 0.01 * static_cast<double>((i + 5 * j) % 50));
    }
  const std::int64_t n = 65535LL * 32 + 104;
  const SpmmOptions tf32{SpmmAlgorithm::TensorCore, /*allow_tf32=*/true}, rs{SpmmAlgorithm::CudaCoreRowSplit};
  check_spmm<float, Kokkos::LayoutRight, Kokkos::Cuda>(coo, n, 1.0, 0.5, 41, "wide_n", tf32, kTf32Tolerance);
  check_spmm<Half, Kokkos::LayoutLeft, Kokkos::Cuda>(coo, n, 1.0, 0.0, 42, "wide_n", SpmmOptions{SpmmAlgorithm::TensorCore},
                                                     kHalfTolerance);
  check_spmm<float, Kokkos::LayoutLeft, Kokkos::Cuda>(coo, n, 2.0, 0.0, 43, "wide_n", rs);
}

TEST(SpmmTca, AutoPicksAnAlgorithmAndIsRight) {
  const auto coo = tessera_test::random_coo({3000, 2000}, 30000, 9);
  const auto A = tessera::from_coo<Half, tessera::CSR, Kokkos::Cuda>(coo);
  Kokkos::View<Half**, Kokkos::LayoutRight, Kokkos::CudaSpace> B("B", 2000, 64), C("C", 3000, 64);
  const auto chosen = tessera::spmm_choose_algorithm(A, B, C);
  EXPECT_TRUE(chosen == SpmmAlgorithm::TensorCore || chosen == SpmmAlgorithm::CudaCoreRowSplit) << to_string(chosen);
  check_spmm<Half, Kokkos::LayoutRight, Kokkos::Cuda>(coo, 64, 1.0, 0.0, 10, "auto", {}, kHalfTolerance);
  // double has no tensor-core path: Auto picks a CUDA-core kernel, the row blocks for few columns.
  const auto D = tessera::from_coo<double, tessera::CSR, Kokkos::Cuda>(coo);
  Kokkos::View<double**, Kokkos::LayoutRight, Kokkos::CudaSpace> Bd("B", 2000, 8), Cd("C", 3000, 8);
  EXPECT_EQ(tessera::spmm_choose_algorithm(D, Bd, Cd), SpmmAlgorithm::CudaRowBlocks);
  Kokkos::View<double**, Kokkos::LayoutRight, Kokkos::CudaSpace> Bw("B", 2000, 64), Cw("C", 3000, 64);
  EXPECT_EQ(tessera::spmm_choose_algorithm(D, Bw, Cw), SpmmAlgorithm::CudaCoreRowSplit);
  Kokkos::View<double**, Kokkos::LayoutLeft, Kokkos::CudaSpace> Bl("B", 2000, 8), Cl("C", 3000, 8);
  EXPECT_EQ(tessera::spmm_choose_algorithm(D, Bl, Cl), SpmmAlgorithm::CudaCoreRowSplit) << "column-major";
}

TEST(SpmmTca, HostSpacesRejectCudaAlgorithms) {
  const auto A = tessera::from_coo<double, tessera::CSR, Kokkos::Serial>(tessera_test::random_coo({4, 4}, 6, 1));
  Kokkos::View<double**, Kokkos::HostSpace> B("B", 4, 2), C("C", 4, 2);
  EXPECT_THROW(tessera::spmm(1.0, A, B, 0.0, C, SpmmOptions{SpmmAlgorithm::TensorCore}), tessera::NotCompiled);
}

// Tensors with 64-bit row offsets or column ids have no CUDA kernel: Auto runs Native on the
// GPU for them, and asking for a CUDA kernel is NotCompiled (it used not to compile).
TEST(SpmmTca, WideIndexTypesRunNativeOnCuda) {
  using Csr64 = tessera::WithIndexTypes<tessera::CSR, std::int64_t, std::int64_t>;
  for (const auto& c : tessera_test::edge_case_matrices(81)) {
    check_spmm<float, Kokkos::LayoutRight, Kokkos::Cuda, Csr64>(c.coo, 33, 1.0, 0.5, 29, c.name + " int64");
    check_spmm<double, Kokkos::LayoutLeft, Kokkos::Cuda, Csr64>(c.coo, 8, 2.0, 0.0, 30, c.name + " int64",
                                                                SpmmOptions{SpmmAlgorithm::Native});
  }
  const auto A = tessera::from_coo<float, Csr64, Kokkos::Cuda>(tessera_test::random_coo({50, 40}, 300, 3));
  Kokkos::View<float**, Kokkos::LayoutRight, Kokkos::CudaSpace> B("B", 40, 64), C("C", 50, 64);
  EXPECT_EQ(tessera::spmm_choose_algorithm(A, B, C), SpmmAlgorithm::Native);
  EXPECT_THROW(tessera::spmm(1.0f, A, B, 0.0f, C, SpmmOptions{SpmmAlgorithm::TensorCore}), tessera::NotCompiled);
}

// With tune, spmm_choose_algorithm runs the CUDA kernels on B: it checks the operands as spmm does.
TEST(SpmmTca, ChooseAlgorithmChecksTheOperands) {
  const auto A = tessera::from_coo<Half, tessera::CSR, Kokkos::Cuda>(tessera_test::random_coo({300, 200}, 3000, 4));
  SpmmOptions tuned{SpmmAlgorithm::Auto};
  tuned.tune = true;
  Kokkos::View<Half**, Kokkos::LayoutRight, Kokkos::CudaSpace> B("B", 200, 64), short_B("B", 199, 64),
      C("C", 300, 64), narrow_C("C", 300, 32);
  EXPECT_THROW(tessera::spmm_choose_algorithm(A, short_B, C, tuned), tessera::ShapeError);
  EXPECT_THROW(tessera::spmm_choose_algorithm(A, B, narrow_C, tuned), tessera::ShapeError);
  EXPECT_NO_THROW(tessera::spmm_choose_algorithm(A, B, C, tuned));
}

// B (k x n, random, rounded to Half) and the double-precision C = A B of `coo` (values rounded
// to Half), with C poisoned.
struct HalfProduct {
  Kokkos::View<Half**, Kokkos::LayoutRight, Kokkos::CudaSpace> B, C;
  std::vector<double> want;
};
HalfProduct half_product(const tessera::HostCoo<double>& coo, std::int64_t n, std::uint64_t seed) {
  const std::int64_t rows = coo.shape[0], k = coo.shape[1];
  HalfProduct p;
  p.B = decltype(p.B)("B", k, n);
  p.C = decltype(p.C)("C", rows, n);
  p.want.assign(static_cast<std::size_t>(rows * n), 0.0);
  std::vector<double> b = tessera_test::random_vector(k * n, seed);
  auto Bh = Kokkos::create_mirror_view(p.B);
  for (std::int64_t r = 0; r < k; ++r)
    for (std::int64_t j = 0; j < n; ++j) {
      Bh(r, j) = static_cast<Half>(b[r * n + j]);
      b[r * n + j] = static_cast<double>(Bh(r, j));
    }
  Kokkos::deep_copy(p.B, Bh);
  Kokkos::deep_copy(p.C, static_cast<Half>(std::numeric_limits<float>::quiet_NaN()));
  tessera::HostCoo<double> rounded = coo;
  for (auto& v : rounded.values) v = static_cast<double>(static_cast<Half>(v));
  tessera::reference::spmm(1.0, rounded, b, n, 0.0, p.want);
  return p;
}
double relative_error_of(const HalfProduct& p) {
  auto Ch = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), p.C);
  std::vector<double> got(p.want.size());
  for (std::size_t i = 0; i < Ch.extent(0); ++i)
    for (std::size_t j = 0; j < Ch.extent(1); ++j) got[i * Ch.extent(1) + j] = static_cast<double>(Ch(i, j));
  return tessera_test::relative_error(got, p.want);
}

// Rows of ((i + shift) % 7) + 1 nonzeros at distinct columns: with rows a multiple of 7, every
// shift has the same nnz and other row offsets, so one pattern fits the other's arrays.
tessera::HostCoo<double> staggered_rows(std::int64_t rows, std::int64_t cols, std::int64_t shift) {
  tessera::HostCoo<double> coo;
  coo.shape = {rows, cols};
  for (std::int64_t i = 0; i < rows; ++i)
    for (std::int64_t j = 0; j <= (i + shift) % 7; ++j) {
      coo.coords.insert(coo.coords.end(), {i, (i * 37 + j * 101 + shift) % cols});
      coo.values.push_back(0.25 + 0.01 * static_cast<double>((i + 3 * j) % 60));
    }
  return coo;
}

// A handle keeps the plan of the pattern it first served: another pattern of the same shape
// and nonzero count in other arrays is refused; after A's pos, crd and values are rewritten in
// place, reset() makes the next call build the plan of the new pattern.
TEST(SpmmTca, HandleResetAfterAnInPlacePatternChange) {
  const auto first = staggered_rows(7000, 5000, 0), second = staggered_rows(7000, 5000, 3);
  for (SpmmAlgorithm algorithm : {SpmmAlgorithm::TensorCore, SpmmAlgorithm::CudaCoreRowSplit}) {
    SCOPED_TRACE(to_string(algorithm));
    const auto A = tessera::from_coo<Half, tessera::CSR, Kokkos::Cuda>(first);
    const auto replacement = tessera::from_coo<Half, tessera::CSR, Kokkos::Cuda>(second);
    ASSERT_EQ(A.nnz(), replacement.nnz());
    tessera::SpmmHandle handle(SpmmOptions{algorithm});
    const auto before = half_product(first, 64, 31);
    tessera::spmm(Half(1), A, before.B, Half(0), before.C, handle);
    EXPECT_LE(relative_error_of(before), kHalfTolerance);
    EXPECT_THROW(tessera::spmm(Half(1), replacement, before.B, Half(0), before.C, handle), tessera::ShapeError);
    const auto& s = A.decompose();
    const auto& r = replacement.decompose();
    Kokkos::deep_copy(s.levels[1].pos, r.levels[1].pos);
    Kokkos::deep_copy(s.levels[1].crd, r.levels[1].crd);
    Kokkos::deep_copy(s.vals, r.vals);
    handle.reset();
    const auto after = half_product(second, 64, 32);
    tessera::spmm(Half(1), A, after.B, Half(0), after.C, handle);
    EXPECT_LE(relative_error_of(after), kHalfTolerance);
  }
}

// Building a plan synchronizes the device. The first call with a handle inside a graph capture
// is a tessera::Error that leaves the capture valid; after one call outside, spmm with that handle records into
// a graph (on a non-blocking stream of the caller's) whose replay computes the product.
TEST(SpmmTca, GraphCaptureNeedsThePlanBuiltBefore) {
  cudaStream_t stream = nullptr;
  ASSERT_EQ(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), cudaSuccess);
  {
    const Kokkos::Cuda space(stream);
    const auto coo = tessera_test::random_coo({3000, 2000}, 30000, 12);
    const auto A = tessera::from_coo<Half, tessera::CSR, Kokkos::Cuda>(coo);
    const auto p = half_product(coo, 64, 33);
    tessera::SpmmHandle tc(SpmmOptions{SpmmAlgorithm::TensorCore});
    cudaGraph_t graph = nullptr;
    ASSERT_EQ(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal), cudaSuccess);
    try {
      tessera::spmm(space, Half(1), A, p.B, Half(0), p.C, tc);
      ADD_FAILURE() << "no error for a plan built during capture";
    } catch (const tessera::Error& e) {
      EXPECT_NE(std::string(e.what()).find("captured"), std::string::npos) << e.what();
    }
    ASSERT_EQ(cudaStreamEndCapture(stream, &graph), cudaSuccess) << "the refused call left the capture valid";
    ASSERT_EQ(cudaGraphDestroy(graph), cudaSuccess);
    tessera::spmm(space, Half(1), A, p.B, Half(0), p.C, tc);  // builds the plan
    space.fence();
    Kokkos::deep_copy(p.C, static_cast<Half>(std::numeric_limits<float>::quiet_NaN()));
    ASSERT_EQ(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal), cudaSuccess);
    tessera::spmm(space, Half(1), A, p.B, Half(0), p.C, tc);
    ASSERT_EQ(cudaStreamEndCapture(stream, &graph), cudaSuccess);
    cudaGraphExec_t exec = nullptr;
    ASSERT_EQ(cudaGraphInstantiate(&exec, graph, 0), cudaSuccess);
    ASSERT_EQ(cudaGraphLaunch(exec, stream), cudaSuccess);
    ASSERT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
    EXPECT_LE(relative_error_of(p), kHalfTolerance);
    EXPECT_EQ(cudaGraphExecDestroy(exec), cudaSuccess);
    EXPECT_EQ(cudaGraphDestroy(graph), cudaSuccess);
  }
  EXPECT_EQ(cudaStreamDestroy(stream), cudaSuccess);
}

}  // namespace
