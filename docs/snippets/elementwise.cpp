// Element-wise operations in the default execution space: the normalized adjacency of a graph
// neural network layer, Â = D^-1/2 (A + A^T + I) D^-1/2, built from sums, an identity and scaling.
#include <cmath>
#include <cstdio>
#include <string>

#include <tessera/tessera.hpp>

int main(int argc, char** argv) {
  Kokkos::ScopeGuard guard(argc, argv);
  const std::string data = argc > 1 ? argv[1] : "../shared/data";
  int failures = 0;
  {
    // [add]
    using Space = Kokkos::DefaultExecutionSpace;
    using Matrix = tessera::Tensor<double, tessera::CSR, Space>;
    const Space space;
    const Matrix A = tessera::from_coo<double, tessera::CSR, Space>(
        tessera::io::read_matrix_market(data + "/matrices/west0497.mtx.gz"));
    const std::int64_t n = A.extent(0);
    const Matrix S = tessera::add(space, 1.0, A, 1.0, tessera::transpose(A));      // union pattern
    const Matrix M = tessera::add(space, 1.0, S, 1.0, tessera::identity<double>(space, n));
    const Matrix H = tessera::multiply_elementwise(space, A, tessera::transpose(A));  // intersection
    // [add]

    // [scale]
    Kokkos::View<double*, Space::memory_space> d("d", n), ones("ones", n);
    Kokkos::deep_copy(ones, 1.0);
    tessera::spmv(space, 1.0, M, ones, 0.0, d);  // row sums
    Kokkos::parallel_for(
        "inverse sqrt", Kokkos::RangePolicy<Space>(space, 0, n),
        KOKKOS_LAMBDA(const std::int64_t i) { d(i) = 1.0 / ::sqrt(::fabs(d(i)) + 1.0); });
    tessera::scale_rows(space, d, M);     // M = diag(d) M, in place
    tessera::scale_columns(space, M, d);  // M = M diag(d)
    // [scale]

    std::printf("west0497: A %lld entries, A + A^T %lld, + I %lld, A .* A^T %lld\n", static_cast<long long>(A.nnz()),
                static_cast<long long>(S.nnz()), static_cast<long long>(M.nnz()), static_cast<long long>(H.nnz()));
    // The union holds at least each operand's entries; the intersection at most A's.
    if (S.nnz() < A.nnz() || M.nnz() < S.nnz() || H.nnz() > A.nnz()) ++failures;
  }
  return failures == 0 ? 0 : 1;
}
