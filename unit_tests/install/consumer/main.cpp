// Consumer smoke test: include the umbrella header of an installed Tessera, build a
// 3x3 CSR matrix from COO triplets and check y = A x. Returns non-zero on failure.
#include <tessera/tessera.hpp>

#include <Kokkos_Core.hpp>
#include <cmath>
#include <cstdio>

int main(int argc, char* argv[]) {
  Kokkos::ScopeGuard guard(argc, argv);
  using Space = Kokkos::DefaultHostExecutionSpace;

  // A = [1 0 0; 0 2 0; 3 0 0]
  tessera::HostCoo<double> coo{{3, 3}, {0, 0, 1, 1, 2, 0}, {1.0, 2.0, 3.0}};
  auto A = tessera::from_coo<double, tessera::CSR, Space>(coo);

  Kokkos::View<double*, Kokkos::HostSpace> x("x", 3), y("y", 3);
  for (int i = 0; i < 3; ++i) x(i) = i + 1.0;  // x = [1 2 3]
  tessera::spmv(1.0, A, x, 0.0, y);
  Kokkos::fence();

  const double expect[3] = {1.0, 4.0, 3.0};
  int bad = 0;
  for (int i = 0; i < 3; ++i) {
    if (std::abs(y(i) - expect[i]) > 1e-12) {
      std::fprintf(stderr, "y(%d) = %g, expected %g\n", i, y(i), expect[i]);
      ++bad;
    }
  }
  std::printf("tessera consumer: %s\n", bad ? "FAILED" : "OK");
  return bad ? 1 : 0;
}
