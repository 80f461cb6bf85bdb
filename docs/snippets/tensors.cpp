// Tensors and encodings: build from triplets, convert, read the arrays, dense Views, other
// spaces, 64-bit indices, your own encoding, order-3 tensors, adopting your own arrays.
#include <cstdint>
#include <cstdio>
#include <type_traits>

#include <tessera/tessera.hpp>

int main(int argc, char** argv) {
  Kokkos::ScopeGuard guard(argc, argv);
  using Space = Kokkos::DefaultExecutionSpace;
  int failures = 0;
  const auto expect = [&failures](bool ok, const char* what) {
    if (!ok) {
      std::printf("FAILED: %s\n", what);
      ++failures;
    }
  };

  // [from_coo]
  // The 3 x 4 matrix [[4 0 2 0] [0 0 0 0] [0 1.5 0 5]] from triplets in any order;
  // (2, 1) is given twice, and its two values are summed.
  tessera::HostCoo<double> coo;
  coo.shape = {3, 4};
  coo.coords = {2, 1,  0, 0,  2, 3,  0, 2,  2, 1};  // (row, column) of each entry
  coo.values = {1.0, 4.0, 5.0, 2.0, 0.5};
  const auto A = tessera::from_coo<double, tessera::CSR, Space>(coo);
  // [from_coo]
  expect(A.nnz() == 4 && A.extent(0) == 3 && A.extent(1) == 4, "from_coo: 4 stored entries");

  // [convert]
  const auto At = tessera::convert<tessera::CSC>(A);   // stored column by column
  const auto Ad = tessera::convert<tessera::DCSR>(A);  // only the non-empty rows are stored
  const auto Ac = tessera::convert<tessera::COO>(A);   // a coordinate list
  const tessera::HostCoo<double> back = tessera::to_coo(At);  // entries in At's storage order
  // [convert]
  expect(At.nnz() == 4 && Ac.nnz() == 4 && back.nnz() == 4, "convert keeps the entries");
  expect(Ad.level(0).crd.extent(0) == 2, "DCSR stores rows 0 and 2 only");
  expect(back.coord(0, 1) == 0 && back.coord(1, 1) == 1, "CSC's storage order is by column");

  // [transpose]
  const auto T = tessera::transpose(A);  // 4 x 3, CSR of A^T: the arrays of A's CSC under A^T's shape
  // [transpose]
  expect(T.extent(0) == 4 && T.extent(1) == 3 && T.nnz() == 4, "transpose");

  // [device_coo]
  // Triplets that already live in the tensor's space (copied there once here) are built from in
  // place; to_device_coo lists a tensor's stored entries in its space, in storage order.
  const tessera::DeviceCoo<double, Space> triplets = tessera::to_device<Space>(coo);
  const auto A3 = tessera::from_coo<double, tessera::CSR, Space>(triplets);
  const tessera::DeviceCoo<double, Space> entries = tessera::to_device_coo(A3);  // duplicates summed
  // [device_coo]
  expect(A3.nnz() == 4 && entries.nnz() == 4 && entries.order() == 2, "DeviceCoo");

  // [inside]
  // CSR is {Dense, Compressed}: level 0 stores nothing; level 1 holds pos (rows + 1 offsets)
  // and crd (the column of each entry); vals follows crd. Copy them to the host to read them.
  const auto& s = A.decompose();
  const auto pos = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), s.levels[1].pos);
  const auto crd = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), s.levels[1].crd);
  const auto val = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), s.vals);
  for (std::int64_t i = 0; i < A.extent(0); ++i)
    for (int p = pos(i); p < pos(i + 1); ++p) std::printf("A(%lld, %d) = %g\n", static_cast<long long>(i), crd(p), val(p));
  // [inside]
  expect(pos(3) == 4 && crd(2) == 1 && val(2) == 1.5, "A's arrays");

  // [dense]
  const auto D = tessera::to_dense(A);                   // 3 x 4, LayoutRight, in A's space
  const auto A2 = tessera::from_dense<tessera::CSR>(D);  // zeros are not stored
  // [dense]
  const auto Dh = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), D);
  expect(Dh(2, 1) == 1.5 && Dh(1, 1) == 0.0 && A2.nnz() == 4, "to_dense, from_dense");

  // [mirror]
  // The same tensor in another space: the arrays are shared where the memory is the same, copied otherwise.
  const auto H = A.to<Kokkos::DefaultHostExecutionSpace>();
  // [mirror]
  expect(H.nnz() == A.nnz(), "to<Space>()");

  // [index_types]
  using CSR64 = tessera::WithIndexTypes<tessera::CSR, std::int64_t, std::int64_t>;  // 64-bit crd and pos
  const auto A64 = tessera::from_coo<double, CSR64, Space>(coo);
  // [index_types]
  expect(A64.nnz() == 4, "64-bit indices");

  // [encoding]
  // An encoding names its index types, the mode each storage level holds and the level formats:
  // CSC stores mode 1 (the columns) densely on level 0 and mode 0 (the rows) compressed on level 1.
  using MyCSC = tessera::Encoding<int, int, tessera::ModeOrder<1, 0>, tessera::levels::Dense,
                                  tessera::levels::Compressed>;
  static_assert(std::is_same_v<MyCSC, tessera::CSC>, "the CSC preset is this encoding");
  // [encoding]

  // [csf]
  // A 2 x 3 x 4 tensor with three entries, as compressed sparse fibers and as a coordinate list.
  tessera::HostCoo<double> t;
  t.shape = {2, 3, 4};
  t.coords = {0, 1, 2,  1, 0, 3,  1, 2, 0};
  t.values = {1.0, 2.0, 3.0};
  const auto X = tessera::from_coo<double, tessera::CSF<3>, Space>(t);
  const auto Xc = tessera::convert<tessera::COOTensor<3>>(X);
  // [csf]
  expect(X.nnz() == 3 && Xc.nnz() == 3 && X.level(0).crd.extent(0) == 2, "CSF<3>");

  // [from_arrays]
  // Adopt arrays built elsewhere: the 2 x 3 CSR matrix [[1 0 2] [0 3 0]].
  using Csr = tessera::Tensor<double, tessera::CSR, Space>;
  Csr::Storage storage;
  storage.levels[1].pos = Csr::pos_view("pos", 3);
  storage.levels[1].crd = Csr::crd_view("crd", 3);
  storage.vals = Csr::vals_view("vals", 3);
  auto pos_h = Kokkos::create_mirror_view(storage.levels[1].pos);
  auto crd_h = Kokkos::create_mirror_view(storage.levels[1].crd);
  auto vals_h = Kokkos::create_mirror_view(storage.vals);
  pos_h(0) = 0, pos_h(1) = 2, pos_h(2) = 3;
  crd_h(0) = 0, crd_h(1) = 2, crd_h(2) = 1;
  vals_h(0) = 1.0, vals_h(1) = 2.0, vals_h(2) = 3.0;
  Kokkos::deep_copy(storage.levels[1].pos, pos_h);
  Kokkos::deep_copy(storage.levels[1].crd, crd_h);
  Kokkos::deep_copy(storage.vals, vals_h);
  const auto M = tessera::from_arrays<double, tessera::CSR, Space>({2, 3}, storage);  // checked first
  // [from_arrays]
  expect(M.nnz() == 3 && M.extent(1) == 3, "from_arrays");

  bool refused = false;
  // [validate]
  pos_h(2) = 4;  // pos now ends at 4, but crd holds 3 entries
  Kokkos::deep_copy(storage.levels[1].pos, pos_h);
  try {
    tessera::from_arrays<double, tessera::CSR, Space>({2, 3}, storage);
  } catch (const tessera::FormatError& e) {
    std::printf("refused: %s\n", e.what());  // level 1: pos ends at 4 but crd has 3 entries
    refused = true;
  }
  // [validate]
  expect(refused, "from_arrays refuses a broken pos");

  std::printf("tensors: %s\n", failures == 0 ? "all checks passed" : "FAILED");
  return failures == 0 ? 0 : 1;
}
