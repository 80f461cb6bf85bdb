// Regression tests for inputs that once hung a reader, exhausted memory, invoked undefined
// behaviour or lost data: each reads correctly or raises a tessera::Error, and allocates
// no more than the file's own size suggests.
#include <sys/stat.h>

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "io_test_support.hpp"
#include "tessera/core/io/matrix_market.hpp"
#include "tessera/core/io/text_file.hpp"
#include "tessera/core/io/tns.hpp"

namespace {

using tessera::HostCoo;
using tessera_test::expect_identical;
using tessera_test::expect_parse_error;
using tessera_test::IoTest;

constexpr std::int64_t kInt64Max = std::numeric_limits<std::int64_t>::max();

class HostileInput : public IoTest {};

// An array file with no rows has no entries whatever its column count: the reader
// returned nothing for a column count near 2^62 (it walked every empty column).
TEST_F(HostileInput, ArrayWithoutRowsReturnsAtOnceForAnyColumnCount) {
  const std::string file =
      write_raw("no_rows.mtx", "%%MatrixMarket matrix array real general\n0 4611686018427387904\n");
  const HostCoo<double> coo = tessera::io::read_matrix_market(file);
  EXPECT_EQ(coo.shape, (std::vector<std::int64_t>{0, 4611686018427387904}));
  EXPECT_EQ(coo.nnz(), 0);
  const std::string extra = write_raw("no_rows_extra.mtx", "%%MatrixMarket matrix array real general\n0 9\n1.5\n");
  expect_parse_error([&] { tessera::io::read_matrix_market(extra); }, extra, 3, "too many entries: expected 0");
}

// n (n ± 1) / 2 for n = INT64_MAX: the count overflows, and must say so (it once wrapped
// to 0 through a signed overflow and blamed a missing entry instead).
TEST_F(HostileInput, TriangleOfTheLargestOrderIsAnOverflowError) {
  for (const char* symmetry : {"symmetric", "skew-symmetric"}) {
    SCOPED_TRACE(symmetry);
    const std::string n = std::to_string(kInt64Max);
    const std::string file = write_raw(std::string(symmetry) + ".mtx", std::string("%%MatrixMarket matrix array real ") +
                                                                         symmetry + "\n" + n + " " + n + "\n1\n");
    try {
      tessera::io::read_matrix_market(file);
      ADD_FAILURE() << "no OverflowError";
    } catch (const tessera::OverflowError& e) {
      EXPECT_NE(std::string(e.what()).find(file + ":2: array of " + n + " x " + n), std::string::npos) << e.what();
    }
  }
  // A small skew-symmetric order still counts its strict lower triangle (3 entries of 3 x 3).
  const std::string small = write_raw("three.mtx", "%%MatrixMarket matrix array real skew-symmetric\n3 3\n1\n2\n3\n");
  tessera::io::MatrixMarketInfo info{};
  EXPECT_EQ(tessera::io::read_matrix_market(small, &info, false).nnz(), 3);
  EXPECT_EQ(info.stored_entries, 3);
}

// The .tns reader sized its output as (lines) x (tokens of the first line): a first
// line of 20,000 tokens followed by 50,000 empty lines asked for 8 GB.
TEST_F(HostileInput, TnsReservationIsBoundedByTheFileSize) {
  std::string text;
  for (int k = 0; k < 20000; ++k) text += "1 ";
  text += "2.5\n";
  text += std::string(50000, '\n');
  const std::string file = write_raw("wide.tns", text);
  const HostCoo<double> coo = tessera::io::read_tns(file);
  EXPECT_EQ(coo.order(), 20000);
  EXPECT_EQ(coo.nnz(), 1);
  EXPECT_LE(coo.coords.capacity() * sizeof(std::int64_t), 8 * text.size());
}

// Lone-CR line ends (old Mac files) turned a .tns file into one long line: an order-11
// tensor, or, behind a first comment line, a file without entries.
TEST_F(HostileInput, TnsWithLoneCarriageReturnsIsAParseError) {
  const std::string entries = write_raw("mac.tns", "1 2 1.0\r2 1 2.0\r3 3 3.0\r");
  expect_parse_error([&] { tessera::io::read_tns(entries); }, entries, 1, "lone carriage return");
  const std::string commented = write_raw("mac_comment.tns", "1 1 1.0\n# comment\r2 2 2.0\r");
  expect_parse_error([&] { tessera::io::read_tns(commented, {3, 3}); }, commented, 2, "lone carriage return");
  // CRLF files, and a CR before trailing blanks, are fine.
  const std::string crlf = write_raw("crlf.tns", "# c\r\n1 2 1.0\r\n2 1 2.0 \r \n");
  EXPECT_EQ(tessera::io::read_tns(crlf).nnz(), 2);
}

// write_tns once kept the shape only in a comment read_tns ignored: a 5 x 6 x 7 tensor read
// back as 1 x 2 x 3, and an empty tensor could not be read back at all.
TEST_F(HostileInput, TnsRoundTripKeepsShapeAndEmptiness) {
  HostCoo<double> coo;
  coo.shape = {5, 6, 7};
  coo.coords = {0, 1, 2};
  coo.values = {-1.25};
  HostCoo<double> empty;
  empty.shape = {4, 0, 9, 2};
  for (const char* suffix : {".tns", ".tns.gz"}) {
    SCOPED_TRACE(suffix);
    tessera::io::write_tns(path(std::string("t") + suffix), coo);
    expect_identical(tessera::io::read_tns(path(std::string("t") + suffix)), coo);
    tessera::io::write_tns(path(std::string("e") + suffix), empty);
    expect_identical(tessera::io::read_tns(path(std::string("e") + suffix)), empty);
  }
  // A given shape still wins over the file's.
  EXPECT_EQ(tessera::io::read_tns(path("t.tns"), {9, 9, 9}).shape, (std::vector<std::int64_t>{9, 9, 9}));
}

TEST_F(HostileInput, TnsShapeCommentsAreCheckedLikeGivenShapes) {
  const std::string beyond = write_raw("beyond.tns", "# shape 2 2\n1 1 1.0\n3 1 1.0\n");
  expect_parse_error([&] { tessera::io::read_tns(beyond); }, beyond, 3, "index 3 of mode 1 out of range [1, 2]");
  const std::string order = write_raw("order.tns", "# shape 4 4\n\n1 1 1 1.0\n");
  expect_parse_error([&] { tessera::io::read_tns(order); }, order, 3,
                     "entry has 3 indices but the shape comment on line 1 declares 2 modes");
  const std::string twice = write_raw("twice.tns", "# shape 4 4\n# shape 5 5\n1 1 1.0\n");
  expect_parse_error([&] { tessera::io::read_tns(twice); }, twice, 2, "a second shape comment (the first is on line 1)");
  const std::string negative = write_raw("negative.tns", "#shape 4 -4\n1 1 1.0\n");
  expect_parse_error([&] { tessera::io::read_tns(negative); }, negative, 1, "negative extent -4 in the shape comment");
  // Words that are not extents make an ordinary comment; after the first entry, every comment is one.
  const std::string prose = write_raw("prose.tns", "# shape of things to come\n2 3 1.0\n# shape 9 9\n");
  EXPECT_EQ(tessera::io::read_tns(prose).shape, (std::vector<std::int64_t>{2, 3}));
}

// An integer file may hold INT64_MAX; it reads as the nearest double, 2^63, which the
// writer refused to write back in the integer field.
TEST_F(HostileInput, IntegerFieldRoundTripsItsLargestValue) {
  const std::string file = write_raw("max.mtx", "%%MatrixMarket matrix coordinate integer general\n2 2 2\n1 1 " +
                                                    std::to_string(kInt64Max) + "\n2 2 " +
                                                    std::to_string(std::numeric_limits<std::int64_t>::min()) + "\n");
  const HostCoo<double> coo = tessera::io::read_matrix_market(file);
  tessera::io::write_matrix_market(path("again.mtx"), coo, tessera::io::MatrixMarketInfo::Field::Integer);
  expect_identical(tessera::io::read_matrix_market(path("again.mtx")), coo);
  EXPECT_NE(read_raw(path("again.mtx")).find("1 1 " + std::to_string(kInt64Max) + "\n"), std::string::npos);
}

// Devices and FIFOs have no size to bound a read: /dev/zero ran until memory was gone.
TEST_F(HostileInput, NonRegularFilesAreIoErrors) {
  const std::string fifo = path("fifo");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  const std::vector<std::pair<std::string, std::string>> cases = {{"/dev/zero", "a device, not a regular file"},
                                                                   {fifo, "a FIFO, not a regular file"}};
  for (const auto& [file, fragment] : cases) {
    SCOPED_TRACE(file);
    for (int reader = 0; reader < 2; ++reader) {
      try {
        if (reader == 0) tessera::io::read_matrix_market(file);
        if (reader == 1) tessera::io::read_tns(file);
        ADD_FAILURE() << "no IoError";
      } catch (const tessera::IoError& e) {
        EXPECT_NE(std::string(e.what()).find("'" + file + "': it is " + fragment), std::string::npos) << e.what();
      }
    }
  }
}

}  // namespace
