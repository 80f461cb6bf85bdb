#pragma once
// Shared body of the tests of tessera::ttm with a mode argument (host and CUDA): every mode of
// CSF and COO inputs against tessera::reference::ttm_mode, through a TtmHandle (a second call with
// a new factor reuses the arranged tensor; new values in other arrays rebuild it) and without
// one, and the handle's and the call's errors.
#include <cstdint>
#include <string>

#include <gtest/gtest.h>

#include "factor_matrix.hpp"
#include "sparse_result_compare.hpp"
#include "tessera/core/error.hpp"
#include "tessera/formats/convert.hpp"
#include "tessera/formats/validate.hpp"
#include "tessera/kernels/ttm/reference/ttm_reference.hpp"
#include "tessera/kernels/ttm/ttm.hpp"
#include "tessera_test/compare.hpp"

namespace ttm_mode_test {

using tessera::HostCoo;
using tessera_test::Factor;

// Values as T holds them, in double.
template <class T>
HostCoo<double> rounded(HostCoo<double> coo) {
  for (auto& v : coo.values) v = static_cast<T>(v);
  return coo;
}

template <class T>
HostCoo<double> scaled(HostCoo<double> coo, double s) {
  for (auto& v : coo.values) v = static_cast<T>(v * s);
  return coo;
}

// Checks A against the reference of contracting `mode` of B with C.
template <class T, class Result>
void expect_contraction(const Result& A, const HostCoo<double>& B, int mode, const Factor& C, const std::string& what) {
  const std::int64_t L = C.coo.shape[1];
  const auto ref = tessera::reference::ttm_mode(B, mode, C.dense, C.stored, L);
  const Factor C_abs = tessera_test::factor_of(tessera_test::absolute_values(C.coo));
  const auto scale = tessera::reference::ttm_mode(tessera_test::absolute_values(B), mode, C_abs.dense, C_abs.stored, L);
  tessera::validate(A);
  tessera_test::expect_same_entries(tessera::to_coo(A), ref, scale, tessera_test::tolerance<T>(B.nnz()), what);
}

// Every mode of B (as CSF<3> and as COOTensor<3>) with dense factors of L columns in T.
template <class T, class Space>
void check_every_mode(const HostCoo<double>& B_in, std::int64_t L, std::uint64_t seed, const std::string& what) {
  const HostCoo<double> B = rounded<T>(B_in);
  const HostCoo<double> B_twice = scaled<T>(B, 2);
  const auto csf = tessera::from_coo<T, tessera::CSF<3>, Space>(B);
  const auto coo = tessera::from_coo<T, tessera::COOTensor<3>, Space>(B);
  const auto csf_twice = tessera::from_coo<T, tessera::CSF<3>, Space>(B_twice);
  tessera::TtmHandle handle;
  for (int mode = 0; mode < 3; ++mode) {
    const std::string label = what + " mode " + std::to_string(mode) + " L=" + std::to_string(L);
    const Factor C = tessera_test::factor_of(rounded<T>(tessera_test::make_factor(B.shape[mode], L, -1, seed + mode).coo));
    const Factor D = tessera_test::factor_of(rounded<T>(tessera_test::make_factor(B.shape[mode], L, -1, seed + 9).coo));
    const auto c = tessera::from_coo<T, tessera::Dense<2>, Space>(C.coo);
    const auto d = tessera::from_coo<T, tessera::Dense<2>, Space>(D.coo);
    expect_contraction<T>(tessera::ttm(Space(), csf, mode, c, handle), B, mode, C, label + " handle, first call");
    expect_contraction<T>(tessera::ttm(Space(), csf, mode, d, handle), B, mode, D, label + " handle, new factor");
    expect_contraction<T>(tessera::ttm(coo, mode, d), B, mode, D, label + " COO input, no handle");
    expect_contraction<T>(tessera::ttm<tessera::workspace::Auto, tessera::COOTensor<3>>(csf, mode, c), B, mode, C,
                          label + " COO result");
  }
  // The same pattern in other arrays with other values: the kept copies are rebuilt.
  const Factor C = tessera_test::factor_of(rounded<T>(tessera_test::make_factor(B.shape[1], L, -1, seed + 5).coo));
  const auto c = tessera::from_coo<T, tessera::Dense<2>, Space>(C.coo);
  expect_contraction<T>(tessera::ttm(Space(), csf_twice, 1, c, handle), B_twice, 1, C, what + " new values");
}

// A mode out of range, a factor of other rows, a handle given another pattern.
template <class T, class Space>
void check_errors(const HostCoo<double>& B, const HostCoo<double>& other_pattern) {
  const auto b = tessera::from_coo<T, tessera::CSF<3>, Space>(rounded<T>(B));
  const auto other = tessera::from_coo<T, tessera::CSF<3>, Space>(rounded<T>(other_pattern));
  const Factor C = tessera_test::factor_of(rounded<T>(tessera_test::make_factor(B.shape[2], 3, -1, 7).coo));
  const auto c = tessera::from_coo<T, tessera::Dense<2>, Space>(C.coo);
  EXPECT_THROW(tessera::ttm(b, 3, c), tessera::IndexError);
  EXPECT_THROW(tessera::ttm(b, -1, c), tessera::IndexError);
  EXPECT_THROW(tessera::ttm(b, 0, c), tessera::ShapeError);  // C has B.shape[2] rows
  tessera::TtmHandle handle;
  (void)tessera::ttm(Space(), b, 2, c, handle);
  EXPECT_THROW(tessera::ttm(Space(), other, 2, c, handle), tessera::ShapeError);
  handle.reset();
  expect_contraction<T>(tessera::ttm(Space(), other, 2, c, handle), rounded<T>(other_pattern), 2, C, "after reset");
}

}  // namespace ttm_mode_test
