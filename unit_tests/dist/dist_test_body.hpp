#pragma once
// Shared body of the distributed tests (run under mpiexec with 1 to 4 ranks); a
// per-backend file defines TestSpaces. Every distributed result is gathered on rank
// 0 and compared with the single-process kernel on the same data there; the
// partitions include ranks owning no rows and matrices with fewer rows than ranks.
// Outputs are poisoned with NaN before every beta == 0 run.
#include <mpi.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <limits>
#include <set>
#include <string>
#include <tuple>
#include <unistd.h>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "tessera/core/io/text_file.hpp"
#include "tessera/dist.hpp"
#include "tessera/kernels/spgemm/reference/spgemm_reference.hpp"
#include "tessera/kernels/spmm/reference/spmm_reference.hpp"
#include "tessera/kernels/spmv/reference/spmv_reference.hpp"
#include "tessera/tessera.hpp"
#include "tessera_test/compare.hpp"
#include "tessera_test/data.hpp"
#include "tessera_test/random_coo.hpp"

namespace {

using tessera::CSR;
using tessera::HostCoo;
using tessera::dist::DistMultiVector;
using tessera::dist::DistOptions;
using tessera::dist::DistTensor;
using tessera::dist::DistVector;
using tessera::dist::RowPartition;
using Host = Kokkos::DefaultHostExecutionSpace;

MPI_Comm world() { return MPI_COMM_WORLD; }
int rank() { return tessera::dist::comm_rank(world()); }
int ranks() { return tessera::dist::comm_size(world()); }

// A representative set of the real matrices: symmetric, general, pattern, integer,
// rectangular both ways, dense-ish.
std::vector<std::string> some_real_matrices() {
  std::vector<std::string> paths;
  for (const char* name : {"west0497", "bcsstk13", "cage10", "uk", "lp_fit2p", "Franz6_id1959_aug", "mbeacxc", "176bit"})
    paths.push_back(tessera_test::real_matrix(name));
  return paths;
}

// Row blocks in which rank 1 (when there is one) owns nothing: the others share the rows.
std::vector<std::int64_t> offsets_with_empty_rank(std::int64_t n) {
  const int p = ranks();
  if (p == 1) return {0, n};
  std::vector<std::int64_t> offsets = RowPartition::uniform(n, p - 1).offsets();
  offsets.insert(offsets.begin() + 1, offsets[1]);
  return offsets;
}

// Summed duplicates, sorted by (row, column): the canonical form to compare matrices.
std::vector<std::tuple<std::int64_t, std::int64_t, double>> canonical(const HostCoo<double>& coo) {
  const HostCoo<double> c = tessera::to_coo(tessera::from_coo<double, CSR, Host>(coo));
  std::vector<std::tuple<std::int64_t, std::int64_t, double>> out;
  for (std::int64_t n = 0; n < c.nnz(); ++n) out.emplace_back(c.coords[2 * n], c.coords[2 * n + 1], c.values[n]);
  return out;
}

// Entry-wise comparison; an entry may differ by tol * (|want| + bound), where bound
// (same structure as want when given) is the magnitude of the terms summed into it.
void expect_same_matrix(const HostCoo<double>& got, const HostCoo<double>& want, double tol, const std::string& what,
                        const HostCoo<double>* bound = nullptr) {
  SCOPED_TRACE(what);
  EXPECT_EQ(got.shape, want.shape);
  const auto g = canonical(got), w = canonical(want);
  const auto b = bound ? canonical(*bound) : w;
  ASSERT_EQ(g.size(), w.size());
  ASSERT_EQ(b.size(), w.size());
  for (std::size_t n = 0; n < g.size(); ++n) {
    ASSERT_EQ(std::get<0>(g[n]), std::get<0>(w[n])) << "entry " << n;
    ASSERT_EQ(std::get<1>(g[n]), std::get<1>(w[n])) << "entry " << n;
    const double scale = std::fabs(std::get<2>(w[n])) + (bound ? std::get<2>(b[n]) : 1.0);
    EXPECT_NEAR(std::get<2>(g[n]), std::get<2>(w[n]), tol * scale) << "entry " << n;
  }
}

// Every rank must see the same HostCoo on root only: the test cases are
// generated identically everywhere, so each rank can hold them.
std::vector<tessera_test::MatrixCase> all_cases() {
  std::vector<tessera_test::MatrixCase> cases = tessera_test::edge_case_matrices(71);
  cases.push_back({"three_rows_3x9", tessera_test::random_coo({3, 9}, 12, 72)});  // fewer rows than 4 ranks
  return cases;
}

// A path every rank agrees on, in a folder rank 0 creates (and removes at the end).
class SharedTempDir {
 public:
  SharedTempDir() {
    long id = static_cast<long>(getpid());
    MPI_Bcast(&id, 1, MPI_LONG, 0, world());
    dir_ = std::filesystem::temp_directory_path() / ("tessera_dist_test_" + std::to_string(id));
    if (rank() == 0) std::filesystem::create_directories(dir_);
    MPI_Barrier(world());
  }
  ~SharedTempDir() {
    MPI_Barrier(world());
    if (rank() == 0) std::filesystem::remove_all(dir_);
  }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  // Rank 0 writes `text`; every rank returns after it is there.
  std::string write(const std::string& name, const std::string& text) const {
    if (rank() == 0) tessera::io::write_text_file(path(name), text);
    MPI_Barrier(world());
    return path(name);
  }

 private:
  std::filesystem::path dir_;
};

template <class Space>
class Dist : public ::testing::Test {};
TYPED_TEST_SUITE(Dist, TestSpaces);

// ------------------------------------------------------------------ partitions

// One rank per GPU of its node unless sharing is asked for; the tests' ranks share one node.
TEST(DistDevices, OneRankPerGpuUnlessShared) {
  using tessera::dist::device_of_rank;
  EXPECT_EQ(device_of_rank(0, 2, 2, false), 0);
  EXPECT_EQ(device_of_rank(1, 2, 4, false), 1);
  EXPECT_EQ(device_of_rank(3, 4, 2, true), 1);
  try {
    device_of_rank(0, 3, 2, false);
    ADD_FAILURE() << "three ranks on two GPUs were accepted";
  } catch (const tessera::Error& e) {
    EXPECT_NE(std::string(e.what()).find("3 ranks on this node and 2 GPUs"), std::string::npos) << e.what();
  }
  EXPECT_THROW(device_of_rank(0, 1, 0, true), tessera::CudaError);
  EXPECT_EQ(tessera::dist::node_local_size(world()), ranks());
  EXPECT_EQ(tessera::dist::node_local_rank(world()), rank());
  // The node's lowest rank names it, in the communicator's own numbering (here reversed).
  EXPECT_EQ(tessera::dist::node_leader(world()), 0);
  MPI_Comm reversed;
  MPI_Comm_split(world(), rank() % 2, -rank(), &reversed);
  EXPECT_EQ(tessera::dist::node_leader(reversed), 0);
  MPI_Comm_free(&reversed);
}

TEST(DistPartition, BalancedByNonzerosAndEdgeCases) {
  // Weights nnz+1: rows 0..3 weigh 1, 9, 1, 9 -> total 20, two halves of 10.
  const RowPartition p = RowPartition::balanced({0, 8, 0, 8}, 2);
  EXPECT_EQ(p.offsets(), (std::vector<std::int64_t>{0, 2, 4}));
  // Fewer rows than parts: every row gets a part, the rest are empty.
  const RowPartition q = RowPartition::balanced({5, 5}, 4);
  EXPECT_EQ(q.parts(), 4);
  EXPECT_EQ(q.size(), 2);
  for (int r = 0; r < 4; ++r) EXPECT_LE(q.count(r), 1);
  EXPECT_EQ(RowPartition::balanced({}, 3).offsets(), (std::vector<std::int64_t>{0, 0, 0, 0}));
  const RowPartition u({0, 3, 3, 7});
  EXPECT_EQ(u.owner(0), 0);
  EXPECT_EQ(u.owner(3), 2);
  EXPECT_EQ(u.owner(6), 2);
  EXPECT_EQ(RowPartition::uniform(10, 4).offsets(), (std::vector<std::int64_t>{0, 3, 6, 8, 10}));
  EXPECT_THROW(RowPartition({1, 2}), tessera::ShapeError);
  EXPECT_THROW(RowPartition({0, 5, 4}), tessera::ShapeError);
}

// The distributed balance (each rank counts an equal block of rows) gives the offsets of
// RowPartition::balanced on the global counts, here summed the direct way.
TEST(DistPartition, BalancedAcrossRanksMatchesTheGlobalRule) {
  struct Case {
    std::int64_t rows, nnz;
    bool heavy_row, root_only;
  };
  for (const Case c : {Case{0, 0, false, false}, Case{1, 5, false, false}, Case{3, 0, false, false},
                       Case{3, 40, false, true}, Case{17, 60, true, false}, Case{1000, 3000, false, false},
                       Case{1000, 5000, true, true}, Case{64, 64 * 64, false, false},
                       Case{100000, 40, false, false}, Case{100000, 30, true, true}}) {  // long empty stretches
    SCOPED_TRACE("rows " + std::to_string(c.rows) + ", nnz " + std::to_string(c.nnz));
    HostCoo<double> mine;
    if (!c.root_only || rank() == 0)
      mine = tessera_test::random_coo({c.rows, 4}, c.rows == 0 ? 0 : c.nnz, 977 + static_cast<unsigned>(rank()));
    mine.shape = {c.rows, 4};
    if (c.heavy_row && rank() == ranks() - 1) {  // one row with many entries
      for (std::int64_t n = 0; n < c.nnz / 2; ++n) {
        mine.coords.insert(mine.coords.end(), {c.rows / 2, n % 4});
        mine.values.push_back(1.0);
      }
    }
    std::vector<std::int64_t> counts(static_cast<std::size_t>(c.rows), 0), total(counts.size(), 0);
    for (std::int64_t n = 0; n < mine.nnz(); ++n) ++counts[mine.coord(n, 0)];
    MPI_Allreduce(counts.data(), total.data(), static_cast<int>(c.rows), MPI_INT64_T, MPI_SUM, world());
    EXPECT_EQ(tessera::dist::balanced_row_partition(world(), mine, c.rows).offsets(),
              RowPartition::balanced(total, ranks()).offsets());
  }
}

// ------------------------------------------------------------------ construction

TYPED_TEST(Dist, ScatterGatherRoundTripAndOwnership) {
  for (const auto& c : all_cases()) {
    for (bool empty_rank : {false, true}) {
      SCOPED_TRACE(c.name + (empty_rank ? " with an empty rank" : ""));
      DistOptions opts;
      if (empty_rank) opts.row_offsets = offsets_with_empty_rank(c.coo.shape[0]);
      // Only rank 0's matrix counts: the others pass nothing.
      const HostCoo<double> mine = rank() == 0 ? c.coo : HostCoo<double>{};
      const auto A = DistTensor<double, CSR, TypeParam>::scatter(world(), mine, 0, opts);
      EXPECT_EQ(A.extent(0), c.coo.shape[0]);
      EXPECT_EQ(A.extent(1), c.coo.shape[1]);
      EXPECT_EQ(A.nnz(), static_cast<std::int64_t>(canonical(c.coo).size()));
      if (empty_rank) EXPECT_EQ(A.rows().offsets(), opts.row_offsets);
      EXPECT_EQ(A.diagonal().extent(0), A.rows().count(rank()));
      EXPECT_EQ(A.diagonal().extent(1), A.cols().count(rank()));
      EXPECT_EQ(A.off_diagonal().extent(1), A.import_plan().ghosts());
      EXPECT_EQ(A.off_diagonal().extent(0), static_cast<std::int64_t>(A.boundary_rows().extent(0)));
      const HostCoo<double> all = A.gather(0);
      if (rank() == 0) expect_same_matrix(all, c.coo, 1e-14, "gathered");
    }
  }
}

// Rows held in the space with global columns (a kernel's result) are split into the same
// blocks, ghost columns and boundary rows as the triplets of those rows.
TYPED_TEST(Dist, OwnedBlockSplitsLikeTheOwnedTriplets) {
  using Matrix = DistTensor<double, CSR, TypeParam>;
  for (const auto& c : all_cases()) {
    for (bool empty_rank : {false, true}) {
      SCOPED_TRACE(c.name + (empty_rank ? " with an empty rank" : ""));
      DistOptions opts;
      if (empty_rank) opts.row_offsets = offsets_with_empty_rank(c.coo.shape[0]);
      const Matrix A = Matrix::scatter(world(), rank() == 0 ? c.coo : HostCoo<double>{}, 0, opts);
      HostCoo<double> rows = A.owned_coo();  // global coordinates
      rows.shape = {A.rows().count(rank()), A.extent(1)};
      for (std::int64_t n = 0; n < rows.nnz(); ++n) rows.coords[2 * n] -= A.rows().begin(rank());
      const Matrix B =
          Matrix::from_owned_block(world(), A.rows(), A.cols(), tessera::from_coo<double, CSR, TypeParam>(rows));
      EXPECT_EQ(B.nnz(), A.nnz());
      EXPECT_EQ(B.import_plan().ghost_cols, A.import_plan().ghost_cols);
      const auto host_rows = [](const auto& v) {
        const auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), v);
        return std::vector<std::int64_t>(h.data(), h.data() + h.extent(0));
      };
      EXPECT_EQ(host_rows(B.boundary_rows()), host_rows(A.boundary_rows()));
      expect_same_matrix(tessera::to_coo(B.diagonal()), tessera::to_coo(A.diagonal()), 0, "diagonal block");
      expect_same_matrix(tessera::to_coo(B.off_diagonal()), tessera::to_coo(A.off_diagonal()), 0, "off-diagonal block");
      // A block of the wrong shape on one rank is refused on every rank.
      HostCoo<double> wrong = rows;
      if (rank() == 0) wrong.shape[1] += 1;
      EXPECT_THROW(Matrix::from_owned_block(world(), A.rows(), A.cols(), tessera::from_coo<double, CSR, TypeParam>(wrong)),
                   tessera::ShapeError);
    }
  }
}

TYPED_TEST(Dist, TripletsFromAnyRankAreRedistributed) {
  for (const auto& c : all_cases()) {
    SCOPED_TRACE(c.name);
    // Rank r contributes entries n = r, r + ranks, ...: rows scattered over all ranks.
    HostCoo<double> mine;
    mine.shape = c.coo.shape;
    for (std::int64_t n = rank(); n < c.coo.nnz(); n += ranks()) {
      mine.coords.push_back(c.coo.coords[2 * n]);
      mine.coords.push_back(c.coo.coords[2 * n + 1]);
      mine.values.push_back(c.coo.values[n]);
    }
    const auto A = DistTensor<double, CSR, TypeParam>::from_coo(world(), mine);
    const HostCoo<double> all = A.gather(0);
    if (rank() == 0) expect_same_matrix(all, c.coo, 1e-14, "gathered");
  }
}

TYPED_TEST(Dist, ParallelReadMatchesSerialReader) {
  SharedTempDir tmp;
  for (const auto& path : some_real_matrices()) {
    SCOPED_TRACE(path);
    const HostCoo<double> serial = tessera::io::read_matrix_market(path);
    // gzip (every rank decompresses, parses its range) and plain (read by range).
    const std::string plain = tmp.write("plain.mtx", tessera::io::read_text_file(path));
    for (const std::string& file : {path, plain}) {
      tessera::io::MatrixMarketInfo info{};
      const HostCoo<double> part = tessera::dist::read_matrix_market_part(world(), file, &info);
      EXPECT_EQ(info.rows, serial.shape[0]);
      const HostCoo<double> all = tessera::dist::gather_coo(world(), part, 0);
      if (rank() == 0) {
        // Same entries in the same multiset (parts come back in rank order = file order).
        EXPECT_EQ(all.nnz(), serial.nnz());
        expect_same_matrix(all, serial, 1e-15, file);
      }
      const auto A = DistTensor<double, CSR, TypeParam>::read_matrix_market(world(), file);
      const HostCoo<double> gathered = A.gather(0);
      if (rank() == 0) expect_same_matrix(gathered, serial, 1e-14, file + " as DistTensor");
    }
  }
}

TYPED_TEST(Dist, ParallelReadOfTinyAndOddFiles) {
  SharedTempDir tmp;
  // Fewer entries than ranks, long comments, CRLF, no final newline.
  const std::string text =
      "%%MatrixMarket matrix coordinate real general\r\n% a comment\r\n%\r\n\r\n3 4 2\r\n1 4 2.5\r\n3 1 -1";
  const auto A = DistTensor<double, CSR, TypeParam>::read_matrix_market(world(), tmp.write("tiny.mtx", text));
  const HostCoo<double> all = A.gather(0);
  if (rank() == 0) {
    HostCoo<double> want;
    want.shape = {3, 4};
    want.coords = {0, 3, 2, 0};
    want.values = {2.5, -1.0};
    expect_same_matrix(all, want, 0, "tiny");
  }
  const auto E = DistTensor<double, CSR, TypeParam>::read_matrix_market(
      world(), tmp.write("empty.mtx", "%%MatrixMarket matrix coordinate real symmetric\n5 5 0\n"));
  EXPECT_EQ(E.nnz(), 0);
  EXPECT_EQ(E.extent(0), 5);
  // A header of 200,000 comment lines (read in growing pieces, not a piece per line), with
  // the size line and the entries past the first pieces.
  std::string long_header = "%%MatrixMarket matrix coordinate real general\n";
  for (int k = 0; k < 200000; ++k) long_header += "% comment " + std::to_string(k) + "\n";
  const auto L = DistTensor<double, CSR, TypeParam>::read_matrix_market(
      world(), tmp.write("long_header.mtx", long_header + "2 2 2\n1 1 1.5\n2 2 -3\n"));
  const HostCoo<double> long_all = L.gather(0);
  if (rank() == 0) {
    HostCoo<double> want;
    want.shape = {2, 2};
    want.coords = {0, 0, 1, 1};
    want.values = {1.5, -3.0};
    expect_same_matrix(long_all, want, 0, "long header");
  }
}

// ------------------------------------------------------------------ errors on one rank

TYPED_TEST(Dist, BadLineOnOneRankThrowsParseErrorEverywhere) {
  SharedTempDir tmp;
  // 40 entries, the 38th malformed: it lies in the last rank's byte range.
  std::string text = "%%MatrixMarket matrix coordinate real general\n40 40 40\n";
  for (int n = 1; n <= 40; ++n) text += std::to_string(n) + " " + std::to_string(n) + (n == 38 ? " x1\n" : " 1.0\n");
  const std::string file = tmp.write("bad.mtx", text);
  try {
    DistTensor<double, CSR, TypeParam>::read_matrix_market(world(), file);
    ADD_FAILURE() << "no exception on rank " << rank();
  } catch (const tessera::ParseError& e) {
    EXPECT_EQ(e.line(), 40) << e.what();  // banner, size line, then entry 38
    EXPECT_EQ(e.file(), file);
    EXPECT_NE(std::string(e.what()).find("invalid value 'x1'"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("rank " + std::to_string(ranks() - 1)), std::string::npos) << e.what();
  }
  // Fewer entries than declared: found by the collective count.
  const std::string short_file =
      tmp.write("short.mtx", "%%MatrixMarket matrix coordinate real general\n4 4 5\n1 1 1\n2 2 2\n");
  EXPECT_THROW(DistTensor<double>::read_matrix_market(world(), short_file), tessera::ParseError);
  // A file that does not exist (the same on every rank) and a bad banner.
  EXPECT_THROW(DistTensor<double>::read_matrix_market(world(), tmp.path("missing.mtx")), tessera::IoError);
  EXPECT_THROW(DistTensor<double>::read_matrix_market(world(), tmp.write("banner.mtx", "%%MatrixMarket tensor\n")),
               tessera::ParseError);
  // A device has no size to bound a read: refused before any byte is read.
  EXPECT_THROW(DistTensor<double>::read_matrix_market(world(), "/dev/zero"), tessera::IoError);
  // A directory: the system's reason, as the serial reader gives it.
  try {
    DistTensor<double>::read_matrix_market(world(), tmp.path(""));
    ADD_FAILURE() << "no exception for a directory on rank " << rank();
  } catch (const tessera::IoError& e) {
    EXPECT_NE(std::string(e.what()).find(std::strerror(EISDIR)), std::string::npos) << e.what();
  }
}

// Wrong entry counts: the parallel reader blames the line the serial one blames (the first
// entry beyond the declared count, before any bad line after it; the last line, counted
// without a final newline too) on every rank count.
TYPED_TEST(Dist, ParallelReadBlamesTheLinesOfTheSerialReader) {
  SharedTempDir tmp;
  const std::string banner = "%%MatrixMarket matrix coordinate real general\n";
  const std::vector<std::pair<std::string, std::string>> files = {
      {"fewer_unterminated.mtx", banner + "3 3 4\n1 1 1\n2 2 2"},
      {"fewer_blank_end.mtx", banner + "3 3 4\n1 1 1\n\n2 2 2\n\n"},
      {"more.mtx", banner + "3 3 2\n1 1 1\n% note\n2 2 2\n3 3 3\n1 2 4\n2 1 5\n"},
      {"more_then_bad.mtx", banner + "3 3 2\n1 1 1\n2 2 2\n3 3 3\n9 9 x\n"},
      {"more_upper.mtx", "%%MatrixMarket matrix coordinate real symmetric\n2 2 1\n2 1 1\n1 2 1\n"}};
  for (const auto& [name, text] : files) {
    const std::string file = tmp.write(name, text);
    std::int64_t serial_line = -1;
    try {
      tessera::io::read_matrix_market(file);
    } catch (const tessera::ParseError& e) {
      serial_line = e.line();
    }
    ASSERT_GT(serial_line, 0) << name;
    try {
      DistTensor<double, CSR, TypeParam>::read_matrix_market(world(), file);
      ADD_FAILURE() << name << ": no exception on rank " << rank();
    } catch (const tessera::ParseError& e) {
      EXPECT_EQ(e.line(), serial_line) << name << ": " << e.what();
    }
  }
}

TYPED_TEST(Dist, BadInputOnOneRankThrowsEverywhere) {
  using A_t = DistTensor<double, CSR, TypeParam>;
  // The last rank alone contributes an out-of-range coordinate.
  HostCoo<double> mine = tessera_test::random_coo({10, 10}, 5, 80 + rank());
  if (rank() == ranks() - 1) {
    mine.coords.push_back(3);
    mine.coords.push_back(10);
    mine.values.push_back(1.0);
  }
  try {
    A_t::from_coo(world(), mine);
    ADD_FAILURE() << "no exception on rank " << rank();
  } catch (const tessera::IndexError& e) {
    EXPECT_NE(std::string(e.what()).find("rank " + std::to_string(ranks() - 1) + ": "), std::string::npos) << e.what();
  }
  // Shapes that disagree between ranks (only possible with 2 or more ranks).
  if (ranks() > 1) {
    HostCoo<double> shaped = tessera_test::random_coo({10, 10 + (rank() == 1)}, 5, 90);
    EXPECT_THROW(A_t::from_coo(world(), shaped), tessera::ShapeError);
  }
  // Partitions that do not fit.
  DistOptions bad;
  bad.row_offsets = {0, 10};
  bad.row_offsets.insert(bad.row_offsets.end(), ranks() - 1, 10);
  bad.row_offsets.back() = 11;
  EXPECT_THROW(A_t::scatter(world(), tessera_test::random_coo({10, 10}, 5, 91), 0, bad), tessera::ShapeError);
  // Vectors distributed unlike the matrix.
  const auto A = A_t::scatter(world(), tessera_test::random_coo({10, 10}, 30, 92));
  DistVector<double, TypeParam> x(world(), A.cols()), wrong(world(), RowPartition::uniform(11, ranks()));
  EXPECT_THROW(tessera::dist::spmv(1.0, A, wrong, 0.0, x), tessera::ShapeError);
  EXPECT_THROW(tessera::dist::spmv(1.0, A, x, 0.0, wrong), tessera::ShapeError);
  // A vector of the wrong length given on rank 0 only.
  EXPECT_THROW((DistVector<double, TypeParam>::scatter(world(), A.cols(), std::vector<double>(rank() == 0 ? 9 : 0))),
               tessera::ShapeError);
  DistMultiVector<double, TypeParam> B(world(), A.cols(), 3), C2(world(), A.rows(), 2);
  EXPECT_THROW(tessera::dist::spmm(1.0, A, B, 0.0, C2), tessera::ShapeError);
}

// Row blocks beyond the local tensors' 32-bit indices are refused by the index check before
// anything of O(rows) is allocated (the partition weighed every row of its block in a vector
// first: 171 GB for these 2.1e10 rows on one rank, a bad_alloc at best).
TYPED_TEST(Dist, RowBlocksBeyondTheIndexTypeAreRefusedBeforeAllocating) {
  const std::int64_t rows = std::int64_t{10} << 31;  // over 2^31 rows per rank up to 9 ranks
  HostCoo<double> coo;
  coo.shape = {rows, rows};
  if (rank() == 0) {
    coo.coords = {0, 0, rows - 1, rows - 1};
    coo.values = {1.0, 2.0};
  }
  try {
    (void)DistTensor<double, CSR, TypeParam>::from_coo(world(), coo);
    ADD_FAILURE() << "no exception on rank " << rank();
  } catch (const tessera::OverflowError& e) {
    EXPECT_NE(std::string(e.what()).find("32-bit index type"), std::string::npos) << e.what();
  }
}

// An allocation that fails on one rank is an OutOfMemoryError on every rank, with the
// label and size the failing rank saw (it reached the others as a plain tessera::Error).
TYPED_TEST(Dist, OutOfMemoryOnOneRankIsOutOfMemoryEverywhere) {
  const std::size_t bytes = (std::size_t{1} << 50) + 8;
  try {
    tessera::dist::agree_on_errors(world(), [&] {
      if (rank() == ranks() - 1) throw tessera::OutOfMemoryError("tessera::pos1", bytes, "HostSpace");
    });
    ADD_FAILURE() << "no exception on rank " << rank();
  } catch (const tessera::OutOfMemoryError& e) {
    EXPECT_EQ(e.label(), "tessera::pos1");
    EXPECT_EQ(e.bytes(), bytes);
    EXPECT_NE(std::string(e.what()).find("rank " + std::to_string(ranks() - 1) + ": out of memory: cannot allocate " +
                                         std::to_string(bytes) + " bytes for 'tessera::pos1' in HostSpace"),
              std::string::npos)
        << e.what();
  }
}

// Mistakes that used to end the job (MPI_ERR_ROOT, a Kokkos abort, a segfault) or hang it
// are exceptions on every rank.
TYPED_TEST(Dist, MisusedCollectivesThrowEverywhere) {
  using A_t = DistTensor<double, CSR, TypeParam>;
  using V_t = DistVector<double, TypeParam>;
  const auto coo = tessera_test::random_coo({10, 10}, 30, 93);
  const auto A = A_t::scatter(world(), coo);
  // A root that is no rank: MPI would abort the job.
  EXPECT_THROW(A.gather(ranks()), tessera::IndexError);
  EXPECT_THROW(A_t::scatter(world(), coo, -1), tessera::IndexError);
  EXPECT_THROW(V_t::scatter(world(), A.rows(), std::vector<double>(10), ranks()), tessera::IndexError);
  EXPECT_THROW(V_t(world(), A.rows()).gather(ranks()), tessera::IndexError);
  // A partition with other than one block per rank, and a negative column count.
  EXPECT_THROW(V_t(world(), RowPartition::uniform(10, ranks() + 1)), tessera::ShapeError);
  EXPECT_THROW((DistMultiVector<double, TypeParam>(world(), A.rows(), -1)), tessera::ShapeError);
  // row_offsets given on rank 0 only (the others balance by nonzeros: different collectives).
  if (ranks() > 1) {
    DistOptions on_root;
    if (rank() == 0) on_root.row_offsets = RowPartition::uniform(10, ranks()).offsets();
    EXPECT_THROW(A_t::scatter(world(), coo, 0, on_root), tessera::ShapeError);
    DistOptions differing;
    differing.row_offsets = RowPartition::uniform(10, ranks()).offsets();
    differing.row_offsets[1] += rank() == 0 ? 1 : 0;
    try {
      A_t::scatter(world(), coo, 0, differing);
      ADD_FAILURE() << "row_offsets that differ between ranks accepted";
    } catch (const tessera::ShapeError& e) {
      EXPECT_NE(std::string(e.what()).find("row_offsets differs between ranks at entry 1"), std::string::npos)
          << e.what();
    }
  }
  // Roots, vector partitions and column counts that differ between ranks: each rank acted on
  // its own (a scatter summed the matrix twice, a halo message came truncated, ranks hung).
  if (ranks() > 1) {
    const int my_root = rank() == 1 ? 1 : 0;
    EXPECT_THROW(A_t::scatter(world(), coo, my_root), tessera::ShapeError);
    EXPECT_THROW(A.gather(my_root), tessera::ShapeError);
    EXPECT_THROW(V_t::scatter(world(), A.rows(), std::vector<double>(10), my_root), tessera::ShapeError);
    const RowPartition mine = RowPartition::uniform(rank() == 0 ? 10 : 12, ranks());
    EXPECT_THROW(V_t::scatter(world(), mine, std::vector<double>(rank() == 0 ? 10 : 12)), tessera::ShapeError);
    try {
      V_t(world(), mine);
      ADD_FAILURE() << "vector blocks that differ between ranks accepted";
    } catch (const tessera::ShapeError& e) {
      EXPECT_NE(std::string(e.what()).find("DistVector: row blocks differs between ranks"), std::string::npos)
          << e.what();
    }
    EXPECT_THROW((DistMultiVector<double, TypeParam>(world(), A.rows(), rank() == 0 ? 2 : 3)), tessera::ShapeError);
  }
  // Partition rules asked for no parts or negative rows.
  EXPECT_THROW(RowPartition::uniform(5, 0), tessera::ShapeError);
  EXPECT_THROW(RowPartition::balanced({1, 2, 3}, 0), tessera::ShapeError);
  try {
    RowPartition::uniform(-5, 2);
    ADD_FAILURE() << "negative rows accepted";
  } catch (const tessera::ShapeError& e) {
    EXPECT_STREQ(e.what(), "RowPartition::uniform: -5 rows into 2 parts (need parts >= 1, rows >= 0)");
  }
  // A grid whose n^3 rows overflow int64.
  EXPECT_THROW(tessera::dist::poisson_3d<A_t>(world(), std::int64_t{1} << 22), tessera::OverflowError);
}

// ------------------------------------------------------------------ kernels

// coo with its values rounded to T, as the distributed tensor of T holds them.
template <class T>
HostCoo<double> rounded_to(HostCoo<double> coo) {
  for (auto& v : coo.values) v = static_cast<double>(static_cast<T>(v));
  return coo;
}

// y = alpha A x + beta y distributed vs the double-precision oracle on rank 0, same data.
template <class T, class Space>
void check_dist_spmv_on(const DistTensor<T, CSR, Space>& A, const HostCoo<double>& coo, double alpha, double beta,
                        std::uint64_t seed, const std::string& what) {
  SCOPED_TRACE(what + " alpha=" + std::to_string(alpha) + " beta=" + std::to_string(beta));
  const std::int64_t m = coo.shape[0], n = coo.shape[1];
  std::vector<double> x = tessera_test::random_vector(n, seed), y = tessera_test::random_vector(m, seed + 1);
  for (auto& v : x) v = static_cast<double>(static_cast<T>(v));
  for (auto& v : y) v = beta == 0.0 ? std::numeric_limits<double>::quiet_NaN() : static_cast<double>(static_cast<T>(v));
  const auto xd = DistVector<T, Space>::scatter(world(), A.cols(), x);
  const auto yd = DistVector<T, Space>::scatter(world(), A.rows(), y);
  tessera::dist::spmv(static_cast<T>(alpha), A, xd, static_cast<T>(beta), yd);
  const std::vector<double> got = yd.gather(0);
  if (rank() != 0) return;
  // The double-precision oracle on the rounded inputs, each entry held to its sum of |terms|.
  const HostCoo<double> rounded = rounded_to<T>(coo);
  std::vector<double> want = y, scale = tessera_test::absolute_values(y);
  tessera::reference::spmv(alpha, rounded, x, beta, want);
  tessera::reference::spmv(std::fabs(alpha), tessera_test::absolute_values(rounded), tessera_test::absolute_values(x),
                           std::fabs(beta), scale);
  ASSERT_EQ(got.size(), want.size());
  EXPECT_TRUE(tessera_test::entrywise_close(got, want, scale,
                                            4 * tessera_test::tolerance<T>(tessera_test::longest_row(coo) + 1)));
}

template <class T, class Space>
void check_dist_spmv(const HostCoo<double>& coo, const DistOptions& opts, double alpha, double beta,
                     std::uint64_t seed, const std::string& what) {
  check_dist_spmv_on(DistTensor<T, CSR, Space>::scatter(world(), coo, 0, opts), coo, alpha, beta, seed, what);
}

template <class T, class Space>
void check_dist_spmm_on(const DistTensor<T, CSR, Space>& A, const HostCoo<double>& coo, std::int64_t k, double alpha,
                        double beta, std::uint64_t seed, const std::string& what,
                        tessera::dist::DistSpmmHandle* handle = nullptr) {
  SCOPED_TRACE(what + " k=" + std::to_string(k) + " beta=" + std::to_string(beta));
  const std::int64_t m = coo.shape[0], n = coo.shape[1];
  std::vector<double> B = tessera_test::random_vector(n * k, seed), C = tessera_test::random_vector(m * k, seed + 1);
  for (auto& v : B) v = static_cast<double>(static_cast<T>(v));
  for (auto& v : C) v = beta == 0.0 ? std::numeric_limits<double>::quiet_NaN() : static_cast<double>(static_cast<T>(v));
  const auto Bd = DistMultiVector<T, Space>::scatter(world(), A.cols(), k, B);
  const auto Cd = DistMultiVector<T, Space>::scatter(world(), A.rows(), k, C);
  if (handle) tessera::dist::spmm(static_cast<T>(alpha), A, Bd, static_cast<T>(beta), Cd, *handle);
  else tessera::dist::spmm(static_cast<T>(alpha), A, Bd, static_cast<T>(beta), Cd);
  const std::vector<double> got = Cd.gather(0);
  if (rank() != 0) return;
  const HostCoo<double> rounded = rounded_to<T>(coo);
  std::vector<double> want = C, scale = tessera_test::absolute_values(C);
  tessera::reference::spmm(alpha, rounded, B, k, beta, want);
  tessera::reference::spmm(std::fabs(alpha), tessera_test::absolute_values(rounded), tessera_test::absolute_values(B),
                           k, std::fabs(beta), scale);
  ASSERT_EQ(got.size(), want.size());
  EXPECT_TRUE(tessera_test::entrywise_close(got, want, scale,
                                            4 * tessera_test::tolerance<T>(tessera_test::longest_row(coo) + 1)));
}

template <class T, class Space>
void check_dist_spmm(const HostCoo<double>& coo, const DistOptions& opts, std::int64_t k, double alpha, double beta,
                     std::uint64_t seed, const std::string& what) {
  check_dist_spmm_on(DistTensor<T, CSR, Space>::scatter(world(), coo, 0, opts), coo, k, alpha, beta, seed, what);
}

// An output that is its input is refused on every rank, also where a rank owns no rows and
// its local Views could not tell (it returned while the others threw, and the next
// collective hung).
TYPED_TEST(Dist, OutputThatIsTheInputIsRefusedOnEveryRank) {
  const auto coo = tessera_test::random_coo({9, 9}, 30, 94);
  DistOptions opts;
  opts.row_offsets = offsets_with_empty_rank(9);
  const auto A = DistTensor<double, CSR, TypeParam>::scatter(world(), coo, 0, opts);
  DistVector<double, TypeParam> x(world(), A.cols());
  const DistVector<double, TypeParam> same = x;
  EXPECT_THROW(tessera::dist::spmv(1.0, A, x, 0.0, same), tessera::AliasError);
  DistMultiVector<double, TypeParam> B(world(), A.cols(), 3);
  EXPECT_THROW(tessera::dist::spmm(1.0, A, B, 0.0, B), tessera::AliasError);
  check_dist_spmv_on(A, coo, 1.0, 0.0, 95, "after the refusals");
}

// A DistSpmmHandle keeps the local blocks' handles: products through it stay right call after call
// (its refusal of another matrix is the local SpmmHandle's, tested in unit_tests/kernels).
TYPED_TEST(Dist, SpmmThroughAHandle) {
  const auto coo = tessera_test::random_coo({57, 43}, 400, 97);
  const auto A = DistTensor<double, CSR, TypeParam>::scatter(world(), coo, 0, {});
  tessera::dist::DistSpmmHandle handle;
  for (std::uint64_t seed : {98, 100, 102})
    check_dist_spmm_on(A, coo, 5, 1.5, seed == 100 ? 0.0 : -0.5, seed, "through a handle", &handle);
  EXPECT_TRUE(handle.diagonal().bound());
}

TYPED_TEST(Dist, SpmvMatchesSingleProcess) {
  std::uint64_t seed = 100;
  for (const auto& c : all_cases())
    for (bool empty_rank : {false, true}) {
      DistOptions opts;
      if (empty_rank) opts.row_offsets = offsets_with_empty_rank(c.coo.shape[0]);
      const std::string what = c.name + (empty_rank ? " with an empty rank" : "");
      check_dist_spmv<double, TypeParam>(c.coo, opts, 1.0, 0.0, seed++, what);
      check_dist_spmv<double, TypeParam>(c.coo, opts, -0.5, 2.0, seed++, what);
      check_dist_spmv<float, TypeParam>(c.coo, opts, 1.5, 0.0, seed++, what);
    }
  for (const auto& path : some_real_matrices()) {
    const HostCoo<double> coo = tessera::io::read_matrix_market(path);
    check_dist_spmv<double, TypeParam>(coo, {}, 1.0, 0.5, seed++, path);
    check_dist_spmv<float, TypeParam>(coo, {}, 1.0, 0.0, seed++, path);
  }
}

// poisson_3d builds each rank's blocks in place: the same matrix as the triplets, in equal row
// blocks, with every ghost exchanged right (rank blocks smaller than a grid plane and larger,
// planes split between ranks, a grid of one point, an empty grid).
TYPED_TEST(Dist, Poisson3dBuiltInPlaceMatchesTheTriplets) {
  std::uint64_t seed = 300;
  for (const std::int64_t n : {0, 1, 2, 3, 5, 9, 12}) {
    SCOPED_TRACE("n=" + std::to_string(n));
    const HostCoo<double> want = tessera::poisson_3d_triplets(n, 0, n * n * n);
    const auto A = tessera::dist::poisson_3d<DistTensor<double, CSR, TypeParam>>(world(), n);
    EXPECT_EQ(A.rows(), RowPartition::uniform(n * n * n, ranks()));
    EXPECT_EQ(A.nnz(), want.nnz());
    const HostCoo<double> got = A.gather(0);
    if (rank() == 0) expect_same_matrix(got, want, 0.0, "gathered");
    check_dist_spmv_on(A, want, 1.0, 0.0, seed++, "spmv");
    check_dist_spmv_on(tessera::dist::poisson_3d<DistTensor<float, CSR, TypeParam>>(world(), n), want, -0.5, 2.0,
                       seed++, "spmv, float");
    check_dist_spmm_on(A, want, 3, 1.0, 0.0, seed++, "spmm");
  }
}

TYPED_TEST(Dist, SpmmMatchesSingleProcess) {
  std::uint64_t seed = 200;
  for (const auto& c : all_cases())
    for (std::int64_t k : {1, 5, 16}) {
      DistOptions opts;
      if (k == 5) opts.row_offsets = offsets_with_empty_rank(c.coo.shape[0]);
      check_dist_spmm<double, TypeParam>(c.coo, opts, k, 1.0, 0.0, seed++, c.name);
      check_dist_spmm<double, TypeParam>(c.coo, opts, k, 0.75, 1.25, seed++, c.name);
      check_dist_spmm<float, TypeParam>(c.coo, opts, k, 2.0, 0.0, seed++, c.name);
    }
  for (const auto& path : some_real_matrices()) {
    const HostCoo<double> coo = tessera::io::read_matrix_market(path);
    check_dist_spmm<double, TypeParam>(coo, {}, 8, 1.0, 0.0, seed++, path);
  }
}

// One matrix, products of changing widths: the halo reshapes its buffers (grown to the
// widest k seen) instead of reallocating them; every product must still be right.
TYPED_TEST(Dist, AlternatingWidthsReuseTheHalo) {
  for (const auto& c : all_cases()) {
    const auto A = DistTensor<double, CSR, TypeParam>::scatter(world(), c.coo, 0, {});
    std::uint64_t seed = 300;
    check_dist_spmm_on(A, c.coo, 5, 1.0, 0.0, seed++, c.name);
    check_dist_spmv_on(A, c.coo, 1.0, 0.0, seed++, c.name);
    check_dist_spmm_on(A, c.coo, 16, 0.5, 1.0, seed++, c.name);
    check_dist_spmm_on(A, c.coo, 3, 1.0, 0.0, seed++, c.name);
    check_dist_spmv_on(A, c.coo, -1.0, 0.5, seed++, c.name);
  }
}

// The halo's transport is agreed by all ranks: host memory on host spaces; on a GPU the peer
// copies, since the tests' ranks share one node (and one GPU), unless TESSERA_HALO_PEER=0 asks
// for MPI (then staged, or device buffers where MPI is CUDA-aware).
TYPED_TEST(Dist, HaloTransportIsAgreedAndPeerWithinANode) {
  using tessera::dist::HaloTransport;
  const auto A = tessera::dist::poisson_3d<DistTensor<double, CSR, TypeParam>>(world(), 6);
  const int mine = static_cast<int>(A.halo().transport());
  int lowest = mine, highest = mine;
  MPI_Allreduce(&mine, &lowest, 1, MPI_INT, MPI_MIN, world());
  MPI_Allreduce(&mine, &highest, 1, MPI_INT, MPI_MAX, world());
  EXPECT_EQ(lowest, highest) << "ranks picked different transports";
  constexpr bool host = Kokkos::SpaceAccessibility<Kokkos::HostSpace, typename TypeParam::memory_space>::accessible;
  const char* env = std::getenv("TESSERA_HALO_PEER");
  const bool peer_refused = env && std::string(env) == "0";
  if (host) EXPECT_EQ(A.halo().transport(), HaloTransport::HostMemory);
  else if (peer_refused) EXPECT_NE(A.halo().transport(), HaloTransport::PeerCopies);
  else
    EXPECT_EQ(A.halo().transport(), HaloTransport::PeerCopies)
        << "CUDA IPC between the ranks of one node did not open; the halo fell back to "
        << tessera::dist::describe(A.halo().transport());
  EXPECT_EQ(A.halo().staged(), A.halo().transport() == HaloTransport::HostStaging);
}

// Products queued back to back, no host wait between them (x -> y -> x ...): a rank's next
// pack must not overwrite rows a neighbour has not copied yet, nor a copy overwrite ghosts the
// last product still reads. Widths alternate (1, 4, 1, ...) so the buffers are reshaped too.
TYPED_TEST(Dist, BackToBackProductsWithoutWaiting) {
  const auto coo = tessera_test::random_coo({301, 301}, 3000, 131);
  const auto A = DistTensor<double, CSR, TypeParam>::scatter(world(), coo, 0, {});
  constexpr int kSteps = 12;
  constexpr std::int64_t k = 4;
  const double alpha = 0.5;
  std::vector<double> x = tessera_test::random_vector(301, 132), X = tessera_test::random_vector(301 * k, 133);
  auto xd = DistVector<double, TypeParam>::scatter(world(), A.cols(), x);
  auto yd = DistVector<double, TypeParam>(world(), A.rows());
  auto Xd = DistMultiVector<double, TypeParam>::scatter(world(), A.cols(), k, X);
  auto Yd = DistMultiVector<double, TypeParam>(world(), A.rows(), k);
  for (int step = 0; step < kSteps; ++step) {
    tessera::dist::spmv(alpha, A, xd, 0.0, yd);
    tessera::dist::spmm(alpha, A, Xd, 0.0, Yd);
    std::swap(xd, yd);
    std::swap(Xd, Yd);
  }
  const std::vector<double> got = xd.gather(0), got_block = Xd.gather(0);
  if (rank() != 0) return;
  std::vector<double> y(301), Y(301 * k);
  for (int step = 0; step < kSteps; ++step) {
    tessera::reference::spmv(alpha, coo, x, 0.0, y);
    tessera::reference::spmm(alpha, coo, X, k, 0.0, Y);
    std::swap(x, y);
    std::swap(X, Y);
  }
  // Rounding grows with the steps; rows read before they were written are off by O(1).
  const auto largest = [](const std::vector<double>& v) {
    double m = 0;
    for (double e : v) m = std::max(m, std::fabs(e));
    return m;
  };
  ASSERT_GT(largest(x), 1e-6) << "the iterates vanished: the test would not see stale rows";
  for (std::size_t i = 0; i < x.size(); ++i) ASSERT_NEAR(got[i], x[i], 1e-11 * largest(x)) << "row " << i;
  for (std::size_t i = 0; i < X.size(); ++i) ASSERT_NEAR(got_block[i], X[i], 1e-11 * largest(X)) << "entry " << i;
}

// Depth of the profiling regions open now, as a Kokkos tool would track it.
int open_regions = 0;
void count_push(const char*) { ++open_regions; }
void count_pop() { --open_regions; }

// A local product that throws between the halo's start and finish (here: a CUDA algorithm
// asked of a host space) leaves no profiling region and no exchange open: the next product
// on the same matrix starts its exchange and is right.
TYPED_TEST(Dist, FailedLocalProductLeavesNothingOpen) {
  if constexpr (!Kokkos::SpaceAccessibility<Kokkos::HostSpace, typename TypeParam::memory_space>::accessible) {
    GTEST_SKIP() << "the CUDA space compiles the algorithm this test asks for";
  } else {
    const HostCoo<double> coo = tessera_test::random_coo({40, 40}, 300, 95);
    const auto A = DistTensor<double, CSR, TypeParam>::scatter(world(), coo, 0, {});
    DistMultiVector<double, TypeParam> B(world(), A.cols(), 4), C(world(), A.rows(), 4);
    DistVector<double, TypeParam> x(world(), A.cols()), y(world(), A.rows());
    tessera::SpmmOptions cuda_only;
    cuda_only.algorithm = tessera::SpmmAlgorithm::TensorCore;
    Kokkos::Tools::Experimental::set_push_region_callback(count_push);
    Kokkos::Tools::Experimental::set_pop_region_callback(count_pop);
    EXPECT_THROW(tessera::dist::spmm(1.0, A, B, 0.0, C, cuda_only), tessera::NotCompiled);
    const int left_open = open_regions;
    Kokkos::Tools::Experimental::set_push_region_callback(nullptr);
    Kokkos::Tools::Experimental::set_pop_region_callback(nullptr);
    EXPECT_EQ(left_open, 0);
    check_dist_spmm_on(A, coo, 4, 1.0, 0.0, 96, "after the failed product");
    check_dist_spmv_on(A, coo, 1.0, 0.0, 97, "after the failed product");
  }
}

// The ways dist::spgemm fetched rows (its profiling regions) while a test records them.
std::set<std::string> spgemm_fetches;
void record_spgemm_fetch(const char* name) {
  const std::string region(name);
  for (const char* way : {"padded rows", "rows by MPI_Alltoallv"})
    if (region.find(way) != std::string::npos) spgemm_fetches.insert(way);
}

// C = A * B distributed vs tessera::spgemm on rank 0; B's rows follow A's column blocks.
template <class Space>
void check_dist_spgemm(const HostCoo<double>& a, const HostCoo<double>& b, const DistOptions& a_opts,
                       const std::string& what) {
  SCOPED_TRACE(what);
  const auto A = DistTensor<double, CSR, Space>::scatter(world(), a, 0, a_opts);
  DistOptions b_opts;
  b_opts.row_offsets = A.cols().offsets();
  const auto B = DistTensor<double, CSR, Space>::scatter(world(), b, 0, b_opts);
  const auto C = tessera::dist::spgemm(A, B);
  EXPECT_EQ(C.rows(), A.rows());
  EXPECT_EQ(C.cols(), B.cols());
  // C's blocks hold exactly its entries: the same boundary rows and ghost columns as the
  // reference product's triplets scattered over the same blocks.
  const auto want = rank() == 0 ? tessera::reference::spgemm(a, b) : HostCoo<double>{};
  DistOptions c_opts;
  c_opts.row_offsets = A.rows().offsets();
  c_opts.col_offsets = B.cols().offsets();
  const auto C_want = DistTensor<double, CSR, Space>::scatter(world(), want, 0, c_opts);
  EXPECT_EQ(C.import_plan().ghost_cols, C_want.import_plan().ghost_cols);
  const auto host_rows = [](const auto& v) {
    const auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), v);
    return std::vector<std::int64_t>(h.data(), h.data() + h.extent(0));
  };
  EXPECT_EQ(host_rows(C.boundary_rows()), host_rows(C_want.boundary_rows()));
  const HostCoo<double> got = C.gather(0);
  // The product may have moved B's rows through A's halo: products of A with vectors, and the
  // next product, still find it right.
  check_dist_spmv_on(A, a, 1.0, 0.0, 98, "A's halo after the product");
  const HostCoo<double> again = tessera::dist::spgemm(A, B).gather(0);
  if (rank() != 0) return;
  // |A| |B|: the magnitude of the products each entry sums (cancellation makes |C| no guide).
  const auto bound = tessera::reference::spgemm(tessera_test::absolute_values(a), tessera_test::absolute_values(b));
  expect_same_matrix(got, want, 1e-13, "C", &bound);
  expect_same_matrix(again, want, 1e-13, "the product again", &bound);
}

TYPED_TEST(Dist, SpgemmMatchesSingleProcess) {
  spgemm_fetches.clear();
  Kokkos::Tools::Experimental::set_push_region_callback(record_spgemm_fetch);
  std::uint64_t seed = 300;
  for (const auto& c : all_cases()) {
    // A (m x k) times a random B (k x 37) with empty rows, and A times A^T-shaped B.
    const HostCoo<double> b = tessera_test::random_coo({c.coo.shape[1], 37}, c.coo.shape[1] * 2, seed++);
    check_dist_spgemm<TypeParam>(c.coo, b, {}, c.name + " x random");
    DistOptions opts;
    opts.row_offsets = offsets_with_empty_rank(c.coo.shape[0]);
    check_dist_spgemm<TypeParam>(c.coo, b, opts, c.name + " x random, empty rank");
  }
  for (const char* name : {"west0497", "bcsstk13", "cage10", "uk"}) {
    const HostCoo<double> coo = tessera::io::read_matrix_market(tessera_test::real_matrix(name));
    check_dist_spgemm<TypeParam>(coo, coo, {}, std::string(name) + " squared");
  }
  // float operands (dist::spgemm once assigned their blocks to double COO: no build).
  const auto coo = tessera::io::read_matrix_market(tessera_test::real_matrix("west0497"));
  const auto Af = DistTensor<float, CSR, TypeParam>::scatter(world(), coo);
  DistOptions b_opts;
  b_opts.row_offsets = Af.cols().offsets();
  const auto Bf = DistTensor<float, CSR, TypeParam>::scatter(world(), coo, 0, b_opts);
  const HostCoo<double> got = tessera::dist::spgemm(Af, Bf).gather(0);
  if (rank() == 0) {
    const HostCoo<double> rounded = rounded_to<float>(coo);
    const auto bound =
        tessera::reference::spgemm(tessera_test::absolute_values(rounded), tessera_test::absolute_values(rounded));
    expect_same_matrix(got, tessera::reference::spgemm(rounded, rounded), 1e-5, "float west0497 squared", &bound);
  }
  Kokkos::Tools::Experimental::set_push_region_callback(nullptr);
  // Both ways ran: rows of like lengths padded through the halo, uneven rows at their lengths.
  if (tessera::dist::comm_size(world()) > 1)
    EXPECT_EQ(spgemm_fetches, (std::set<std::string>{"padded rows", "rows by MPI_Alltoallv"}));
}

}  // namespace
