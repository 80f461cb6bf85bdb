#pragma once
/// \file
/// The operation applied to the sparse operand of spmv and spmm (Kokkos Kernels' mode,
/// cuSPARSE's opA, Eigen's .transpose()).
namespace tessera {

/// op(A) in y = alpha * op(A) * x + beta * y and C = alpha * op(A) * B + beta * C.
enum class Op { NoTranspose, Transpose };

/// "N" or "T", as in BLAS.
inline const char* to_string(Op op) { return op == Op::Transpose ? "T" : "N"; }

}  // namespace tessera
