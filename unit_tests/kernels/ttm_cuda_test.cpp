// SpTTM and SpTTM-I on Kokkos::Cuda with dense factors (the device path of ttm_cuda.hpp) against
// the double-precision oracles: random tensors (duplicates, fibers of one nonzero, heavy fibers),
// an empty B, L = 1 and wide L, float and double, CSF and COO results, and the Last.fm tensor;
// ttm with a mode argument on every mode, through a TtmHandle and without.
#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>

#include <Kokkos_Core.hpp>
#include <gtest/gtest.h>

#include "factor_matrix.hpp"
#include "sparse_result_compare.hpp"
#include "tessera/core/io/tns.hpp"
#include "tessera/formats/convert.hpp"
#include "tessera/formats/validate.hpp"
#include "tessera/kernels/ttm/reference/ttm_reference.hpp"
#include "tessera/kernels/ttm/ttm.hpp"
#include "tessera_test/compare.hpp"
#include "tessera_test/data.hpp"
#include "tessera_test/random_coo.hpp"
#include "ttm_mode_test_body.hpp"

namespace {

using Cuda = Kokkos::Cuda;
using tessera::HostCoo;
using tessera_test::Factor;
using tessera_test::make_factor;
using ttm_mode_test::rounded;

// ttm (contract = 0) or ttm_i (contract = 1) of B with a dense C (rows x L) in T, both results.
template <class T>
void check(int contract, const HostCoo<double>& B_in, std::int64_t L, std::uint64_t seed, const std::string& what) {
  const std::int64_t rows = B_in.shape[contract];
  const HostCoo<double> B = rounded<T>(B_in);
  const Factor C = tessera_test::factor_of(rounded<T>(make_factor(rows, L, -1, seed).coo));
  const auto ref = contract == 0 ? tessera::reference::ttm(B, C.dense, C.stored, L)
                                 : tessera::reference::ttm_i(B, C.dense, C.stored, L);
  const Factor C_abs = tessera_test::factor_of(tessera_test::absolute_values(C.coo));
  const auto B_abs = tessera_test::absolute_values(B);
  const auto scale = contract == 0 ? tessera::reference::ttm(B_abs, C_abs.dense, C_abs.stored, L)
                                   : tessera::reference::ttm_i(B_abs, C_abs.dense, C_abs.stored, L);
  const auto b = tessera::from_coo<T, tessera::CSF<3>, Cuda>(B);
  const auto c = tessera::from_coo<T, tessera::Dense<2>, Cuda>(C.coo);
  const double tol = tessera_test::tolerance<T>(B.nnz());
  const std::string label = what + (contract == 0 ? " ttm" : " ttm_i") + " L=" + std::to_string(L);
  tessera::workspace::Report report;
  const auto A = contract == 0 ? tessera::ttm(b, c, {}, &report) : tessera::ttm_i(b, c, {}, &report);
  tessera::validate(A);
  EXPECT_STREQ(report.policy, "dense fibers") << label;
  tessera_test::expect_same_entries(tessera::to_coo(A), ref, scale, tol, label + " CSF");
  const auto A_coo = contract == 0 ? tessera::ttm<tessera::workspace::Auto, tessera::COOTensor<3>>(b, c)
                                   : tessera::ttm_i<tessera::workspace::Auto, tessera::COOTensor<3>>(b, c);
  tessera::validate(A_coo);
  tessera_test::expect_same_entries(tessera::to_coo(A_coo), ref, scale, tol, label + " COO");
}

template <class T>
void check_both(const HostCoo<double>& B, std::int64_t L, std::uint64_t seed, const std::string& what) {
  check<T>(0, B, L, seed, what);
  check<T>(1, B, L, seed + 1, what);
}

TEST(TtmCuda, RandomTensorsEveryWidth) {
  const auto B = tessera_test::random_coo({30, 20, 40}, 3000, 91);  // duplicates among them
  for (std::int64_t L : {1, 3, 16, 33, 130}) {
    check_both<double>(B, L, 92, "random");
    check_both<float>(B, L, 93, "random float");
  }
  check_both<double>(tessera_test::random_coo({300, 200, 400}, 4000, 94), 8, 95, "fibers of one nonzero");
  check_both<double>(tessera_test::random_coo({5000, 3, 3}, 20000, 96), 16, 97, "heavy fibers");
}

TEST(TtmCuda, EmptyTensorAndEmptyModes) {
  check_both<double>(tessera_test::random_coo({30, 20, 40}, 0, 98), 5, 99, "no nonzeros");
  check_both<double>(tessera_test::random_coo({30, 0, 40}, 0, 100), 5, 101, "empty mode");
}

TEST(TtmCuda, EveryModeWithAndWithoutHandle) {
  const auto B = tessera_test::random_coo({30, 20, 40}, 3000, 104);  // duplicates among them
  for (std::int64_t L : {1, 7, 16, 64}) {
    ttm_mode_test::check_every_mode<double, Cuda>(B, L, 105, "random");
    ttm_mode_test::check_every_mode<float, Cuda>(B, L, 106, "random float");
  }
  // Fibers of about one nonzero (most stored whole by a chunk) and fibers of thousands (cut by
  // many chunks, their rows zeroed first and added to).
  ttm_mode_test::check_every_mode<double, Cuda>(tessera_test::random_coo({300, 200, 400}, 4000, 107), 16, 108,
                                                "empty slices and fibers");
  ttm_mode_test::check_every_mode<double, Cuda>(tessera_test::random_coo({5000, 3, 3}, 20000, 109), 33, 110,
                                                "long fibers");
  ttm_mode_test::check_every_mode<double, Cuda>(tessera_test::random_coo({30, 20, 40}, 0, 111), 3, 112, "no nonzeros");
  ttm_mode_test::check_errors<double, Cuda>(B, tessera_test::random_coo({30, 20, 40}, 2999, 113));
}

TEST(TtmCuda, RealLastfmTensor) {
  const auto X = tessera::io::read_tns(tessera_test::data_dir() + "/tensors/lastfm_user_artist_tag.tns.gz");
  check_both<double>(X, 4, 102, "lastfm");
  check_both<float>(X, 16, 103, "lastfm float");
  ttm_mode_test::check_every_mode<float, Cuda>(X, 8, 114, "lastfm every mode");
}

}  // namespace
