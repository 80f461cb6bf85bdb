// The errors Tessera raises: each one derives from tessera::Error, and the library never aborts.
#include <cstdint>
#include <cstdio>
#include <exception>
#include <string>

#include <tessera/tessera.hpp>

namespace {
int failures = 0;

// Runs f and checks that it throws E.
template <class E, class F>
void expect_throw(const char* what, F&& f) {
  try {
    f();
  } catch (const E& e) {
    std::printf("%-14s %s\n", what, e.what());
    return;
  } catch (const std::exception& e) {
    std::printf("FAILED: %s: another error: %s\n", what, e.what());
    ++failures;
    return;
  }
  std::printf("FAILED: %s: nothing thrown\n", what);
  ++failures;
}
}  // namespace

int main(int argc, char** argv) {
  Kokkos::ScopeGuard guard(argc, argv);
  using Space = Kokkos::DefaultExecutionSpace;
  const std::string data = argc > 1 ? argv[1] : "../shared/data";

  // [catch]
  try {
    const auto coo = tessera::io::read_matrix_market(data + "/matrices/no_such_matrix.mtx.gz");
    std::printf("%lld entries\n", static_cast<long long>(coo.nnz()));
  } catch (const tessera::ParseError& e) {  // a malformed file: e.file() and e.line() say where
    std::printf("%s, line %lld: %s\n", e.file().c_str(), static_cast<long long>(e.line()), e.what());
  } catch (const tessera::Error& e) {  // everything else the library raises (here an IoError)
    std::printf("error: %s\n", e.what());
  }
  // [catch]

  // The 3 x 3 matrix [[1 0 0] [0 2 0] [4 0 3]].
  tessera::HostCoo<double> coo;
  coo.shape = {3, 3};
  coo.coords = {0, 0,  1, 1,  2, 2,  2, 0};
  coo.values = {1.0, 2.0, 3.0, 4.0};
  const auto A = tessera::from_coo<double, tessera::CSR, Space>(coo);
  Kokkos::View<double*, Space> x("x", 3), y("y", 3), x_short("x_short", 2);
  tessera::HostCoo<double> outside = coo;
  outside.coords[0] = 3;  // row 3 of a 3 x 3 matrix
  tessera::HostCoo<double> huge;
  huge.shape = {std::int64_t{1} << 32, 1};  // more rows than the int coordinates of CSR can count
  Kokkos::View<float**, Kokkos::LayoutRight, Space> full("full", 4, 2);
  Kokkos::deep_copy(full, 1.0f);  // four nonzeros in a group of four rows: not 2:4
  const auto A_host = A.to<Kokkos::DefaultHostExecutionSpace>();
  Kokkos::View<double**, Kokkos::HostSpace> B("B", 3, 2), C("C", 3, 2);

  // [raised]
  expect_throw<tessera::IoError>("IoError", [&] { tessera::io::read_matrix_market(data + "/no/such/file.mtx"); });
  expect_throw<tessera::ShapeError>("ShapeError", [&] { tessera::spmv(1.0, A, x_short, 0.0, y); });
  expect_throw<tessera::AliasError>("AliasError", [&] { tessera::spmv(1.0, A, x, 0.0, x); });
  expect_throw<tessera::IndexError>("IndexError", [&] { tessera::from_coo<double, tessera::CSR, Space>(outside); });
  expect_throw<tessera::OverflowError>("OverflowError", [&] { tessera::from_coo<double, tessera::CSR, Space>(huge); });
  expect_throw<tessera::FormatError>("FormatError", [&] { tessera::nv24_from_dense(full); });
  expect_throw<tessera::NotCompiled>("NotCompiled", [&] {  // the tensor cores are not on the host
    tessera::spmm(1.0, A_host, B, 0.0, C, tessera::SpmmOptions{tessera::SpmmAlgorithm::TensorCore});
  });
  // [raised]

  std::printf("errors: %s\n", failures == 0 ? "all checks passed" : "FAILED");
  return failures == 0 ? 0 : 1;
}
