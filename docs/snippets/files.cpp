// Matrix Market and FROSTT files: read (plain or gzip), symmetric expansion, write and read back,
// dense "array" files, tensors with a declared shape, and the error a malformed file raises.
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>

#include <tessera/tessera.hpp>

namespace {
// The entries of a matrix in row order: a CSR tensor on the host keeps them sorted.
tessera::HostCoo<double> sorted(const tessera::HostCoo<double>& coo) {
  return tessera::to_coo(tessera::from_coo<double, tessera::CSR, Kokkos::DefaultHostExecutionSpace>(coo));
}
}  // namespace

int main(int argc, char** argv) {
  Kokkos::ScopeGuard guard(argc, argv);
  const std::string data = argc > 1 ? argv[1] : "../shared/data";
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / ("tessera_docs_files_" + std::to_string(std::random_device{}()));
  fs::create_directories(dir);
  int failures = 0;
  const auto expect = [&failures](bool ok, const char* what) {
    if (!ok) {
      std::printf("FAILED: %s\n", what);
      ++failures;
    }
  };

  // [read]
  using tessera::io::MatrixMarketInfo;
  MatrixMarketInfo info{};
  const tessera::HostCoo<double> A = tessera::io::read_matrix_market(data + "/matrices/fv2.mtx.gz", &info);
  // fv2 is "real symmetric": the file stores the lower triangle, and A holds both (mirrors appended).
  const auto lower = tessera::io::read_matrix_market(data + "/matrices/fv2.mtx.gz", nullptr, false);
  std::printf("%lld x %lld, %lld entries stored, %lld after expansion, symmetric: %s\n",
              static_cast<long long>(info.rows), static_cast<long long>(info.cols),
              static_cast<long long>(info.stored_entries), static_cast<long long>(A.nnz()),
              info.symmetry == MatrixMarketInfo::Symmetry::Symmetric ? "yes" : "no");
  // [read]
  std::int64_t diagonal = 0;
  for (std::int64_t e = 0; e < lower.nnz(); ++e) diagonal += lower.coord(e, 0) == lower.coord(e, 1);
  expect(A.nnz() == 2 * lower.nnz() - diagonal && lower.nnz() == info.stored_entries, "symmetric expansion");

  // [write]
  // Symmetric output: A must hold the whole matrix (checked); the lower triangle is written.
  // A path ending in ".gz" is compressed; values are written with 17 significant digits.
  const std::string copy = (dir / "fv2_copy.mtx.gz").string();
  tessera::io::write_matrix_market(copy, A, MatrixMarketInfo::Field::Real, MatrixMarketInfo::Symmetry::Symmetric);
  const auto A2 = tessera::io::read_matrix_market(copy);
  // [write]
  const auto s1 = sorted(A), s2 = sorted(A2);
  expect(s1.coords == s2.coords && s1.values == s2.values, "Matrix Market round trip");

  // [array]
  // A dense 2 x 3 matrix, given column-major, as "array real general": it reads back with
  // every value (zeros included), column-major.
  const std::string dense = (dir / "dense.mtx").string();
  tessera::io::write_matrix_market_array(dense, 2, 3, {1.0, 4.0, 2.0, 5.0, 3.0, 6.0});
  const auto D = tessera::io::read_matrix_market(dense);
  // [array]
  expect(D.nnz() == 6 && D.coord(1, 0) == 1 && D.coord(1, 1) == 0 && D.values[1] == 4.0, "array file");

  // [tns]
  // A 2 x 3 x 5 tensor whose last slice along mode 2 is empty: write_tns records the shape in a
  // "# shape 2 3 5" comment before the entries, and read_tns takes it back.
  tessera::HostCoo<double> T;
  T.shape = {2, 3, 5};
  T.coords = {0, 0, 0,  1, 2, 3};
  T.values = {1.5, -2.0};
  const std::string tns = (dir / "t.tns.gz").string();
  tessera::io::write_tns(tns, T);
  const auto T2 = tessera::io::read_tns(tns);             // shape {2, 3, 5}
  const auto T3 = tessera::io::read_tns(tns, {4, 4, 8});  // a shape given here wins
  // [tns]
  expect(T2.shape == T.shape && T2.coords == T.coords && T2.values == T.values, "tns round trip");
  expect(T3.shape[2] == 8 && T3.nnz() == 2, "tns with a given shape");

  bool caught = false;
  // [parse_error]
  const std::string bad = (dir / "bad.mtx").string();
  {
    std::ofstream out(bad);
    out << "%%MatrixMarket matrix coordinate real general\n3 3 2\n1 1 1.0\n4 1 2.0\n";
  }
  try {
    tessera::io::read_matrix_market(bad);
  } catch (const tessera::ParseError& e) {
    std::printf("%s\n", e.what());  // <dir>/bad.mtx:4: row index 4 out of range [1, 3]
    caught = e.line() == 4 && e.file() == bad;
  }
  // [parse_error]
  expect(caught, "ParseError names the file and the line");

  fs::remove_all(dir);
  std::printf("files: %s\n", failures == 0 ? "all checks passed" : "FAILED");
  return failures == 0 ? 0 : 1;
}
