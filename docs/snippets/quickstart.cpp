// Read a sparse matrix, multiply it by a dense block on the default Kokkos space, check the result.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include <tessera/tessera.hpp>

int main(int argc, char** argv) {
  Kokkos::ScopeGuard guard(argc, argv);
  using Space = Kokkos::DefaultExecutionSpace;  // Serial, OpenMP or Cuda: what Kokkos was built with
  const std::string data = argc > 1 ? argv[1] : "../shared/data";
  const auto coo = tessera::io::read_matrix_market(data + "/matrices/west0497.mtx.gz");
  const auto A = tessera::from_coo<double, tessera::CSR, Space>(coo);  // sorted, duplicates summed

  const std::int64_t n = 16;  // C = A B with B all ones: every column of C holds A's row sums
  Kokkos::View<double**, Kokkos::LayoutRight, Space> B("B", A.extent(1), n), C("C", A.extent(0), n);
  Kokkos::deep_copy(B, 1.0);
  tessera::SpmmHandle handle;  // what repeated products with A reuse (on CUDA: A's plan)
  tessera::spmm(1.0, A, B, 0.0, C, handle);

  std::vector<double> sum(A.extent(0)), size(A.extent(0));
  for (std::int64_t e = 0; e < coo.nnz(); ++e) {
    sum[coo.coord(e, 0)] += coo.values[e];
    size[coo.coord(e, 0)] += std::abs(coo.values[e]);
  }
  const auto Ch = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), C);
  int wrong = 0;
  for (std::int64_t i = 0; i < A.extent(0); ++i)
    for (std::int64_t j = 0; j < n; ++j) wrong += std::abs(Ch(i, j) - sum[i]) > 1e-12 * size[i];
  std::printf("%lld x %lld, %lld nonzeros: %d wrong entries in C\n", static_cast<long long>(A.extent(0)),
              static_cast<long long>(A.extent(1)), static_cast<long long>(A.nnz()), wrong);
  return wrong == 0 ? 0 : 1;
}
