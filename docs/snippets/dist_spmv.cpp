// The distributed part (target Tessera::dist, MPI): a matrix split by rows across the ranks,
// distributed SpMV and SpMM, and the row-wise distributed SpGEMM on host spaces.
// Run with mpiexec -n P (any P, 1 included).
#include <mpi.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include <tessera/dist.hpp>
#include <tessera/tessera.hpp>

namespace {

// Row sums and sums of |values| per row of a gathered matrix.
void row_sums(const tessera::HostCoo<double>& coo, std::vector<double>& sum, std::vector<double>& size) {
  sum.assign(coo.shape[0], 0.0);
  size.assign(coo.shape[0], 0.0);
  for (std::int64_t e = 0; e < coo.nnz(); ++e) {
    sum[coo.coord(e, 0)] += coo.values[e];
    size[coo.coord(e, 0)] += std::abs(coo.values[e]);
  }
}

int run(const std::string& data) {
  // [read]
  using Space = Kokkos::DefaultExecutionSpace;
  using Matrix = tessera::dist::DistTensor<double, tessera::CSR, Space>;
  MPI_Comm comm = MPI_COMM_WORLD;
  const Matrix A = Matrix::read_matrix_market(comm, data + "/matrices/fv2.mtx.gz");  // every rank reads a part
  const Matrix P = tessera::dist::poisson_3d<Matrix>(comm, 16);  // or generated in parallel (16^3 rows)
  const int rank = tessera::dist::comm_rank(comm);
  std::printf("rank %d of %d: rows [%lld, %lld) of fv2\n", rank, tessera::dist::comm_size(comm),
              static_cast<long long>(A.rows().begin(rank)), static_cast<long long>(A.rows().end(rank)));
  // [read]

  // [spmv]
  tessera::dist::DistVector<double, Space> x(comm, A.cols()), y(comm, A.rows());  // collective
  Kokkos::deep_copy(x.local(), 1.0);         // this rank's block of x
  tessera::dist::spmv(1.0, A, x, 0.0, y);    // y = A x; the halo exchange overlaps the local product
  const std::vector<double> y_all = y.gather(0);  // the whole y on rank 0, empty elsewhere
  // [spmv]

  // [spmm]
  tessera::dist::DistMultiVector<double, Space> X(comm, P.cols(), 4), Y(comm, P.rows(), 4);
  Kokkos::deep_copy(X.local(), 1.0);
  tessera::dist::DistSpmmHandle handle;      // the local blocks' plans, kept across calls
  for (int step = 0; step < 3; ++step) tessera::dist::spmm(1.0, P, X, 0.0, Y, handle);
  const std::vector<double> Y_all = Y.gather(0);  // row-major, rows x 4
  // [spmm]

  // [spgemm]
  using HostMatrix = tessera::dist::DistTensor<double, tessera::CSR, Kokkos::DefaultHostExecutionSpace>;
  const HostMatrix W = HostMatrix::read_matrix_market(comm, data + "/matrices/west0497.mtx.gz");
  const HostMatrix W2 = tessera::dist::spgemm(W, W);  // fetches the rows of W that this rank's columns name
  const tessera::HostCoo<double> W2_all = W2.gather(0);  // the whole product on rank 0
  // [spgemm]

  const tessera::HostCoo<double> A_all = A.gather(0), P_all = P.gather(0), W_all = W.gather(0);  // collective
  if (rank != 0) return 0;
  int wrong = 0;
  std::vector<double> sum, size;
  row_sums(A_all, sum, size);
  for (std::size_t i = 0; i < y_all.size(); ++i) wrong += std::abs(y_all[i] - sum[i]) > 1e-12 * size[i];
  row_sums(P_all, sum, size);
  for (std::size_t q = 0; q < Y_all.size(); ++q) wrong += std::abs(Y_all[q] - sum[q / 4]) > 1e-12 * size[q / 4];
  // The sum of all entries of W W is sum over k of (column sum k of W) (row sum k of W).
  std::vector<double> col(W_all.shape[1], 0.0), col_size(W_all.shape[1], 0.0);
  for (std::int64_t e = 0; e < W_all.nnz(); ++e) {
    col[W_all.coord(e, 1)] += W_all.values[e];
    col_size[W_all.coord(e, 1)] += std::abs(W_all.values[e]);
  }
  row_sums(W_all, sum, size);
  double want = 0, scale = 0, got = 0;
  for (std::size_t k = 0; k < sum.size(); ++k) {
    want += col[k] * sum[k];
    scale += col_size[k] * size[k];
  }
  for (const double v : W2_all.values) got += v;
  wrong += std::abs(got - want) > 1e-10 * scale;
  std::printf("distributed kernels: %s\n", wrong == 0 ? "all checks passed" : "FAILED");
  return wrong == 0 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  int status = 0;
  // [guard]
  MPI_Init(&argc, &argv);
  {
    tessera::dist::ScopeGuard guard(MPI_COMM_WORLD, argc, argv);  // Kokkos on this rank's GPU (CUDA builds)
    // ... DistTensor, dist::spmv ...
    // [guard]
    const std::string data = argc > 1 ? argv[1] : "../shared/data";
    try {
      status = run(data);
    } catch (const tessera::Error& e) {  // raised on every rank alike: report once
      if (tessera::dist::comm_rank(MPI_COMM_WORLD) == 0) std::printf("error: %s\n", e.what());
      status = 2;
    }
  }
  MPI_Finalize();
  return status;
}
