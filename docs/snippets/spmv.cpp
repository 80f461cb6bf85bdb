// SpMV on the default space through an execution-space instance, transposed through a handle,
// and on a sliced ELLPACK copy on the host.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include <tessera/tessera.hpp>

int main(int argc, char** argv) {
  Kokkos::ScopeGuard guard(argc, argv);
  using Space = Kokkos::DefaultExecutionSpace;
  const std::string data = argc > 1 ? argv[1] : "../shared/data";
  const auto coo = tessera::io::read_matrix_market(data + "/matrices/fv2.mtx.gz");
  const auto A = tessera::from_coo<double, tessera::CSR, Space>(coo);
  std::vector<double> row_sum(A.extent(0), 0.0), row_size(A.extent(0), 0.0);
  std::vector<double> col_sum(A.extent(1), 0.0), col_size(A.extent(1), 0.0);
  for (std::int64_t e = 0; e < coo.nnz(); ++e) {
    row_sum[coo.coord(e, 0)] += coo.values[e];
    row_size[coo.coord(e, 0)] += std::abs(coo.values[e]);
    col_sum[coo.coord(e, 1)] += coo.values[e];
    col_size[coo.coord(e, 1)] += std::abs(coo.values[e]);
  }
  int wrong = 0;

  // [spmv]
  Kokkos::View<double*, Space> x("x", A.extent(1)), y("y", A.extent(0));
  Kokkos::deep_copy(x, 1.0);
  Kokkos::deep_copy(y, 2.0);
  const Space space;                        // an instance of the space (on CUDA: a stream)
  tessera::spmv(space, 1.0, A, x, 0.5, y);  // y = 1 A x + 0.5 y, queued on that instance
  space.fence();
  // [spmv]
  const auto yd = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), y);
  for (std::int64_t i = 0; i < A.extent(0); ++i) wrong += std::abs(yd(i) - (row_sum[i] + 1.0)) > 1e-12 * (row_size[i] + 1.0);

  // [transpose]
  tessera::SpmvHandle handle;  // keeps what calls on A reuse (on CUDA: where its longest rows are cut)
  Kokkos::View<double*, Space> ones("ones", A.extent(0)), z("z", A.extent(1));
  Kokkos::deep_copy(ones, 1.0);
  tessera::spmv(space, tessera::Op::Transpose, 1.0, A, ones, 0.0, z, handle);  // z = A^T ones: column sums
  space.fence();
  // [transpose]
  const auto zd = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), z);
  for (std::int64_t j = 0; j < A.extent(1); ++j) wrong += std::abs(zd(j) - col_sum[j]) > 1e-12 * col_size[j];

  // [sliced_ell]
  // Host spaces: a sliced ELLPACK copy for a matrix multiplied many times. The copy is taken
  // now: later changes to A's values do not reach it.
  using Host = Kokkos::DefaultHostExecutionSpace;
  const auto A_host = A.to<Host>();
  const tessera::SlicedEll<double> ell = tessera::make_sliced_ell(A_host);
  Kokkos::View<double*, Kokkos::HostSpace> xh("xh", ell.cols), yh("yh", ell.rows);
  Kokkos::deep_copy(xh, 1.0);
  tessera::spmv(Host(), 1.0, ell, xh, 0.0, yh);
  std::printf("sliced ELLPACK: %.3f stored entries per nonzero, %s column indices\n", ell.padding_ratio(),
              ell.narrow ? "16-bit" : "32-bit");
  // [sliced_ell]
  for (std::int64_t i = 0; i < A.extent(0); ++i) wrong += std::abs(yh(i) - row_sum[i]) > 1e-12 * row_size[i];

  std::printf("spmv: %d wrong entries\n", wrong);
  return wrong == 0 ? 0 : 1;
}
