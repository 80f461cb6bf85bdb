// SpGEMM on a host space: the Auto workspace, explicit policies and output encodings, the outer
// product, workspace options, and a handle that reuses the symbolic phase.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>

#include <tessera/tessera.hpp>

namespace {
// Largest |a - factor b| over the largest |a|, on dense copies (small matrices only).
template <class TA, class TB>
double difference(const TA& a, const TB& b, double factor = 1.0) {
  const auto da = tessera::to_dense(a);
  const auto db = tessera::to_dense(b);
  double diff = 0, size = 0;
  for (std::size_t i = 0; i < da.extent(0); ++i)
    for (std::size_t j = 0; j < da.extent(1); ++j) {
      diff = std::max(diff, std::abs(da(i, j) - factor * db(i, j)));
      size = std::max(size, std::abs(da(i, j)));
    }
  return size > 0 ? diff / size : diff;
}
}  // namespace

int main(int argc, char** argv) {
  Kokkos::ScopeGuard guard(argc, argv);
  using Space = Kokkos::DefaultHostExecutionSpace;  // host spaces take every policy; Kokkos::Cuda: Auto, Hash, Dense
  const std::string data = argc > 1 ? argv[1] : "../shared/data";
  const auto coo = tessera::io::read_matrix_market(data + "/matrices/west0497.mtx.gz");
  const auto A = tessera::from_coo<double, tessera::CSR, Space>(coo);
  int failures = 0;

  // [rowwise]
  tessera::workspace::Options options;  // the defaults
  tessera::workspace::Report report;    // filled by the call: the policy that ran, peak workspace bytes
  const auto C = tessera::spgemm(A, A, options, &report);  // CSR x CSR -> CSR, row by row, Auto workspace
  std::printf("C = A A: %lld nonzeros; workspace %s, peak %lld bytes\n", static_cast<long long>(C.nnz()),
              report.policy, static_cast<long long>(report.peak_bytes));
  // [rowwise]

  // [policies]
  namespace ws = tessera::workspace;
  const auto C_hash = tessera::spgemm<ws::Hash>(A, A);                // a hash-table accumulator per row
  const auto C_csc = tessera::spgemm<ws::Dense, tessera::CSC>(A, A);  // the result stored by column
  const auto A_csc = tessera::convert<tessera::CSC>(A);
  const auto C_outer = tessera::spgemm<ws::Auto, tessera::DCSR>(A_csc, A);  // outer product: A in CSC
  // [policies]
  failures += difference(C, C_hash) > 1e-9 || difference(C, C_csc) > 1e-9 || difference(C, C_outer) > 1e-9;

  // [options]
  ws::Options tuned;
  tuned.memory_budget_bytes = std::int64_t{256} << 20;  // Auto takes Dense only within this (all threads)
  tuned.row_output = ws::RowOutput::Symbolic;           // row-wise Dense: count each row, then fill C in place
  tuned.ism.pipelining = true;                          // sparse policies: sort and merge on a helper thread
  const auto C_tuned = tessera::spgemm(A, A, tuned);
  // [options]
  failures += difference(C, C_tuned) > 1e-9;

  // [handle]
  tessera::SpgemmHandle handle;                   // holds workspace::Options, like the calls above
  const auto C1 = tessera::spgemm(A, A, handle);  // symbolic and numeric phases; keeps C1's pattern
  tessera::HostCoo<double> doubled = coo;
  for (double& v : doubled.values) v *= 2;
  const auto A2 = tessera::from_coo<double, tessera::CSR, Space>(doubled);  // A's pattern, new values
  const auto C2 = tessera::spgemm(A2, A2, handle);  // numeric phase only, into C1's pattern
  // [handle]
  failures += C2.nnz() != C1.nnz() || difference(C2, C1, 4.0) > 1e-9;

  std::printf("spgemm: %s\n", failures == 0 ? "all checks passed" : "FAILED");
  return failures == 0 ? 0 : 1;
}
