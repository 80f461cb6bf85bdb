// Tests of Tessera::core file I/O: Matrix Market and FROSTT .tns readers and
// writers, transparent gzip, error reporting (type, file and line of every
// malformed input), and reading every real data file of the project.
#include <gtest/gtest.h>

#include "io_test_support.hpp"
#include "tessera_test/data.hpp"

#include <algorithm>
#include <clocale>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <limits>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "tessera/core/coo.hpp"
#include "tessera/core/error.hpp"
#include "tessera/core/io/matrix_market.hpp"
#include "tessera/core/io/text_file.hpp"
#include "tessera/core/io/tns.hpp"

namespace {

namespace fs = std::filesystem;
using tessera::HostCoo;
using tessera::io::MatrixMarketInfo;
using Field = MatrixMarketInfo::Field;
using Symmetry = MatrixMarketInfo::Symmetry;
using tessera_test::expect_identical;
using tessera_test::expect_parse_error;
using tessera_test::IoTest;
using tessera_test::sorted_entries;

// ------------------------------------------------------------------ helpers

void add_entry(HostCoo<double>& coo, std::int64_t row, std::int64_t col, double value) {
  coo.coords.push_back(row);
  coo.coords.push_back(col);
  coo.values.push_back(value);
}

// Values that a lossy writer (too few digits, locale, float) would change.
std::vector<double> awkward_values() {
  return {0.1,
          1.0 / 3.0,
          -2.0 / 3.0,
          1e300,
          -1e-300,
          4.9406564584124654e-324,
          123456789.123456789,
          -0.0,
          1.0,
          std::nextafter(1.0, 2.0),
          6.02214076e23,
          -7.25};
}

HostCoo<double> general_matrix() {
  HostCoo<double> coo;
  coo.shape = {5, 7};
  const auto values = awkward_values();
  for (std::size_t k = 0; k < values.size(); ++k) {
    add_entry(coo, static_cast<std::int64_t>((k * 3) % 5), static_cast<std::int64_t>((k * 5) % 7), values[k]);
  }
  add_entry(coo, 4, 6, 2.5);  // last row and column
  add_entry(coo, 0, 0, 2.5);  // first row and column, duplicate position is allowed
  return coo;
}

// Full symmetric (or skew-symmetric, without diagonal) matrix from lower entries.
HostCoo<double> mirrored_matrix(bool skew) {
  HostCoo<double> coo;
  coo.shape = {6, 6};
  const auto values = awkward_values();
  int k = 0;
  for (std::int64_t col = 0; col < 6; ++col) {
    for (std::int64_t row = col + (skew ? 1 : 0); row < 6; row += 2) {
      const double value = values[k++ % values.size()];
      add_entry(coo, row, col, value);
      if (row != col) add_entry(coo, col, row, skew ? -value : value);
    }
  }
  return coo;
}

// ------------------------------------------------------- Matrix Market: round trips

class MatrixMarket : public IoTest {};

TEST_F(MatrixMarket, RealGeneralRoundTripPlainIsExact) {
  const auto coo = general_matrix();
  const std::string file = path("real.mtx");
  tessera::io::write_matrix_market(file, coo);
  MatrixMarketInfo info{};
  const auto back = tessera::io::read_matrix_market(file, &info);
  expect_identical(back, coo);
  EXPECT_EQ(info.format, MatrixMarketInfo::Format::Coordinate);
  EXPECT_EQ(info.field, Field::Real);
  EXPECT_EQ(info.symmetry, Symmetry::General);
  EXPECT_EQ(info.rows, 5);
  EXPECT_EQ(info.cols, 7);
  EXPECT_EQ(info.stored_entries, coo.nnz());
}

TEST_F(MatrixMarket, RealGeneralRoundTripGzipIsExactAndCompressed) {
  const auto coo = general_matrix();
  const std::string file = path("real.mtx.gz");
  tessera::io::write_matrix_market(file, coo);
  const std::string raw = read_raw(file);
  ASSERT_GE(raw.size(), 2u);
  EXPECT_EQ(static_cast<unsigned char>(raw[0]), 0x1f);  // gzip magic
  EXPECT_EQ(static_cast<unsigned char>(raw[1]), 0x8b);
  expect_identical(tessera::io::read_matrix_market(file), coo);
}

TEST_F(MatrixMarket, GzipIsDetectedByContentNotName) {
  const auto coo = general_matrix();
  tessera::io::write_matrix_market(path("real.mtx.gz"), coo);
  fs::rename(path("real.mtx.gz"), path("misnamed.mtx"));
  expect_identical(tessera::io::read_matrix_market(path("misnamed.mtx")), coo);
}

TEST_F(MatrixMarket, WriterUsesSeventeenDigitsAndMarksItself) {
  HostCoo<double> coo;
  coo.shape = {2, 2};
  add_entry(coo, 1, 0, 0.1);
  const std::string file = path("digits.mtx");
  tessera::io::write_matrix_market(file, coo);
  const std::string text = read_raw(file);
  EXPECT_EQ(text,
            "%%MatrixMarket matrix coordinate real general\n"
            "% written by Tessera\n"
            "2 2 1\n"
            "2 1 0.10000000000000001\n");
}

TEST_F(MatrixMarket, IntegerGeneralRoundTrip) {
  HostCoo<double> coo;
  coo.shape = {3, 4};
  add_entry(coo, 0, 3, -7);
  add_entry(coo, 2, 1, 9007199254740992.0);  // 2^53
  add_entry(coo, 1, 1, 0);
  const std::string file = path("int.mtx.gz");
  tessera::io::write_matrix_market(file, coo, Field::Integer);
  MatrixMarketInfo info{};
  expect_identical(tessera::io::read_matrix_market(file, &info), coo);
  EXPECT_EQ(info.field, Field::Integer);
}

TEST_F(MatrixMarket, PatternGeneralRoundTripReadsOnes) {
  auto coo = general_matrix();
  const std::string file = path("pattern.mtx");
  tessera::io::write_matrix_market(file, coo, Field::Pattern);
  EXPECT_NE(read_raw(file).find("\n5 7\n"), std::string::npos);  // "row col", no value
  std::fill(coo.values.begin(), coo.values.end(), 1.0);
  MatrixMarketInfo info{};
  expect_identical(tessera::io::read_matrix_market(file, &info), coo);
  EXPECT_EQ(info.field, Field::Pattern);
}

TEST_F(MatrixMarket, SymmetricRoundTripStoresLowerTriangleAndExpands) {
  const auto coo = mirrored_matrix(false);
  std::int64_t lower = 0, diagonal = 0;
  for (std::int64_t n = 0; n < coo.nnz(); ++n) {
    lower += coo.coord(n, 0) >= coo.coord(n, 1);
    diagonal += coo.coord(n, 0) == coo.coord(n, 1);
  }
  for (const char* name : {"sym.mtx", "sym.mtx.gz"}) {
    SCOPED_TRACE(name);
    const std::string file = path(name);
    tessera::io::write_matrix_market(file, coo, Field::Real, Symmetry::Symmetric);
    MatrixMarketInfo info{};
    const auto expanded = tessera::io::read_matrix_market(file, &info);
    EXPECT_EQ(info.symmetry, Symmetry::Symmetric);
    EXPECT_EQ(info.stored_entries, lower);
    EXPECT_EQ(expanded.nnz(), 2 * lower - diagonal);
    EXPECT_EQ(sorted_entries(expanded), sorted_entries(coo));
    const auto stored = tessera::io::read_matrix_market(file, nullptr, /*expand_symmetry=*/false);
    EXPECT_EQ(stored.nnz(), lower);
    for (std::int64_t n = 0; n < stored.nnz(); ++n) EXPECT_GE(stored.coord(n, 0), stored.coord(n, 1));
  }
}

TEST_F(MatrixMarket, SkewSymmetricRoundTripNegatesMirror) {
  const auto coo = mirrored_matrix(true);
  const std::string file = path("skew.mtx");
  tessera::io::write_matrix_market(file, coo, Field::Real, Symmetry::SkewSymmetric);
  MatrixMarketInfo info{};
  const auto expanded = tessera::io::read_matrix_market(file, &info);
  EXPECT_EQ(info.symmetry, Symmetry::SkewSymmetric);
  EXPECT_EQ(info.stored_entries * 2, coo.nnz());
  EXPECT_EQ(sorted_entries(expanded), sorted_entries(coo));
}

TEST_F(MatrixMarket, PatternAndIntegerSymmetricRoundTrip) {
  auto coo = mirrored_matrix(false);
  // Integral values that depend only on the unordered position keep it symmetric.
  for (std::int64_t n = 0; n < coo.nnz(); ++n) {
    const std::int64_t low = std::min(coo.coord(n, 0), coo.coord(n, 1));
    const std::int64_t high = std::max(coo.coord(n, 0), coo.coord(n, 1));
    coo.values[n] = static_cast<double>(high * 10 + low - 30);
  }
  tessera::io::write_matrix_market(path("int_sym.mtx"), coo, Field::Integer, Symmetry::Symmetric);
  EXPECT_EQ(sorted_entries(tessera::io::read_matrix_market(path("int_sym.mtx"))), sorted_entries(coo));

  tessera::io::write_matrix_market(path("pat_sym.mtx.gz"), coo, Field::Pattern, Symmetry::Symmetric);
  std::fill(coo.values.begin(), coo.values.end(), 1.0);
  EXPECT_EQ(sorted_entries(tessera::io::read_matrix_market(path("pat_sym.mtx.gz"))), sorted_entries(coo));
}

TEST_F(MatrixMarket, EmptyMatricesRoundTrip) {
  HostCoo<double> coo;
  coo.shape = {0, 0};
  tessera::io::write_matrix_market(path("empty.mtx"), coo);
  expect_identical(tessera::io::read_matrix_market(path("empty.mtx")), coo);
  coo.shape = {4, 3};
  tessera::io::write_matrix_market(path("zero.mtx.gz"), coo, Field::Real, Symmetry::General);
  expect_identical(tessera::io::read_matrix_market(path("zero.mtx.gz")), coo);
}

TEST_F(MatrixMarket, ArrayRoundTripIsColumnMajor) {
  const std::vector<double> col_major = {1.5, -0.0, 0.1, 4, 5, 1.0 / 3.0};  // 3 x 2
  for (const char* name : {"dense.mtx", "dense.mtx.gz"}) {
    SCOPED_TRACE(name);
    const std::string file = path(name);
    tessera::io::write_matrix_market_array(file, 3, 2, col_major);
    MatrixMarketInfo info{};
    const auto coo = tessera::io::read_matrix_market(file, &info);
    EXPECT_EQ(info.format, MatrixMarketInfo::Format::Array);
    EXPECT_EQ(info.stored_entries, 6);
    HostCoo<double> want;
    want.shape = {3, 2};
    for (std::int64_t col = 0; col < 2; ++col)
      for (std::int64_t row = 0; row < 3; ++row) add_entry(want, row, col, col_major[col * 3 + row]);
    expect_identical(coo, want);
  }
}

TEST_F(MatrixMarket, ArraySymmetricAndSkewStoreLowerTriangleByColumn) {
  const std::string sym = write_raw("sym_array.mtx",
                                    "%%MatrixMarket matrix array real symmetric\n"
                                    "3 3\n"
                                    "11\n21\n31\n22\n32\n33\n");
  MatrixMarketInfo info{};
  auto coo = tessera::io::read_matrix_market(sym, &info, false);
  EXPECT_EQ(info.stored_entries, 6);
  HostCoo<double> want;
  want.shape = {3, 3};
  add_entry(want, 0, 0, 11);
  add_entry(want, 1, 0, 21);
  add_entry(want, 2, 0, 31);
  add_entry(want, 1, 1, 22);
  add_entry(want, 2, 1, 32);
  add_entry(want, 2, 2, 33);
  expect_identical(coo, want);
  EXPECT_EQ(tessera::io::read_matrix_market(sym).nnz(), 9);

  const std::string skew = write_raw("skew_array.mtx",
                                     "%%MatrixMarket matrix array integer skew-symmetric\n"
                                     "3 3\n"
                                     "21\n31\n32\n");
  coo = tessera::io::read_matrix_market(skew, &info);
  EXPECT_EQ(info.stored_entries, 3);
  HostCoo<double> want_skew;
  want_skew.shape = {3, 3};
  add_entry(want_skew, 1, 0, 21);
  add_entry(want_skew, 2, 0, 31);
  add_entry(want_skew, 2, 1, 32);
  add_entry(want_skew, 0, 1, -21);
  add_entry(want_skew, 0, 2, -31);
  add_entry(want_skew, 1, 2, -32);
  expect_identical(coo, want_skew);
}

TEST_F(MatrixMarket, TolerantOfCaseCommentsBlankLinesCrlfAndPlusSigns) {
  const std::string file = write_raw("loose.mtx",
                                     "%%matrixmarket MATRIX Coordinate REAL General\r\n"
                                     "% a comment\r\n"
                                     "\r\n"
                                     "   3 3 3\r\n"
                                     "1 1 +1.5\r\n"
                                     "% comment between entries\n"
                                     "\n"
                                     "\t2\t3\t-2e-3   \n"
                                     "  %indented comment\n"
                                     "3 2 7");  // no final newline
  HostCoo<double> want;
  want.shape = {3, 3};
  add_entry(want, 0, 0, 1.5);
  add_entry(want, 1, 2, -2e-3);
  add_entry(want, 2, 1, 7);
  expect_identical(tessera::io::read_matrix_market(file), want);
}

TEST_F(MatrixMarket, ByteOrderMarkBeforeTheBannerIsSkipped) {
  const std::string file = write_raw("bom.mtx",
                                     "\xEF\xBB\xBF%%MatrixMarket matrix coordinate real general\n"
                                     "2 2 1\n"
                                     "2 1 3.5\n");
  HostCoo<double> want;
  want.shape = {2, 2};
  add_entry(want, 1, 0, 3.5);
  expect_identical(tessera::io::read_matrix_market(file), want);
}

TEST_F(MatrixMarket, TinyValuesUnderflowToZeroInsteadOfFailing) {
  const std::string file = write_raw("tiny.mtx",
                                     "%%MatrixMarket matrix coordinate real general\n"
                                     "1 1 1\n"
                                     "1 1 1e-400\n");
  const auto coo = tessera::io::read_matrix_market(file);
  ASSERT_EQ(coo.nnz(), 1);
  EXPECT_EQ(coo.values[0], 0.0);
}

// Out of range either way, however it is written: tiny values are zeros with their sign,
// huge ones errors. Where a decimal-comma locale is installed, the program's locale must
// not change that (strtod, which read "1.5e400" as 1 under it, is not used).
TEST_F(MatrixMarket, OutOfRangeValuesGoTheWayTheirExponentSays) {
  const std::string header = "%%MatrixMarket matrix coordinate real general\n1 6 6\n";
  const std::string tiny = write_raw("tiny6.mtx", header + "1 1 2.5e-400\n1 2 -2.5e-400\n1 3 0.0000001e-320\n"
                                                           "1 4 123456e-330\n1 5 -0.5E-324\n1 6 1e-99999999999999999999\n");
  const std::vector<std::string> huge = {"1.5e400", "-1.5e400", "123456e305", "0.01e311", "1E+400",
                                         "1e99999999999999999999"};
  const auto check = [&] {
    const auto coo = tessera::io::read_matrix_market(tiny);
    ASSERT_EQ(coo.nnz(), 6);
    for (std::int64_t e = 0; e < 6; ++e) {
      EXPECT_EQ(coo.values[e], 0.0) << e;
      EXPECT_EQ(std::signbit(coo.values[e]), e == 1 || e == 4) << e;
    }
    for (const auto& value : huge) {
      const std::string file = write_raw("huge.mtx", "%%MatrixMarket matrix coordinate real general\n1 1 1\n1 1 " + value + "\n");
      EXPECT_THROW(tessera::io::read_matrix_market(file), tessera::ParseError) << value;
    }
  };
  check();
  for (const char* name : {"de_DE.UTF-8", "de_DE.utf8", "fr_FR.UTF-8", "fr_FR.utf8"}) {
    const std::string previous = std::setlocale(LC_NUMERIC, nullptr);
    if (std::setlocale(LC_NUMERIC, name) == nullptr) continue;
    check();
    std::setlocale(LC_NUMERIC, previous.c_str());
    break;
  }
}

// ------------------------------------------------------- Matrix Market: writer errors

TEST_F(MatrixMarket, WriterRejectsMatricesThatAreNotWhatTheBannerClaims) {
  HostCoo<double> coo;
  coo.shape = {3, 3};
  add_entry(coo, 1, 0, 2.0);
  add_entry(coo, 0, 1, 2.5);  // mirror has a different value
  EXPECT_THROW(tessera::io::write_matrix_market(path("a.mtx"), coo, Field::Real, Symmetry::Symmetric),
               tessera::FormatError);
  // As a pattern the structure is symmetric, so that is fine.
  EXPECT_NO_THROW(tessera::io::write_matrix_market(path("b.mtx"), coo, Field::Pattern, Symmetry::Symmetric));
  // Only the lower triangle present: not a full symmetric matrix.
  HostCoo<double> lower;
  lower.shape = {3, 3};
  add_entry(lower, 2, 0, 1.0);
  EXPECT_THROW(tessera::io::write_matrix_market(path("c.mtx"), lower, Field::Real, Symmetry::Symmetric),
               tessera::FormatError);
  // Skew needs negated mirrors and no diagonal.
  auto skew = mirrored_matrix(true);
  EXPECT_THROW(tessera::io::write_matrix_market(path("d.mtx"), skew, Field::Real, Symmetry::Symmetric),
               tessera::FormatError);
  add_entry(skew, 2, 2, 0.0);
  EXPECT_THROW(tessera::io::write_matrix_market(path("e.mtx"), skew, Field::Real, Symmetry::SkewSymmetric),
               tessera::FormatError);
  // Not square.
  HostCoo<double> rect;
  rect.shape = {3, 4};
  EXPECT_THROW(tessera::io::write_matrix_market(path("f.mtx"), rect, Field::Real, Symmetry::Symmetric),
               tessera::FormatError);
  // NaN values must not break the check (and a NaN mirrors a NaN).
  HostCoo<double> nan;
  nan.shape = {2, 2};
  add_entry(nan, 1, 0, std::nan(""));
  add_entry(nan, 0, 1, std::nan(""));
  EXPECT_NO_THROW(tessera::io::write_matrix_market(path("g.mtx"), nan, Field::Real, Symmetry::Symmetric));
  const auto back = tessera::io::read_matrix_market(path("g.mtx"));
  ASSERT_EQ(back.nnz(), 2);
  EXPECT_TRUE(std::isnan(back.values[0]) && std::isnan(back.values[1]));
}

TEST_F(MatrixMarket, WriterRejectsNonIntegersInIntegerField) {
  HostCoo<double> coo;
  coo.shape = {2, 2};
  add_entry(coo, 0, 0, 1.5);
  EXPECT_THROW(tessera::io::write_matrix_market(path("a.mtx"), coo, Field::Integer), tessera::FormatError);
  coo.values[0] = 1e19;  // beyond int64
  EXPECT_THROW(tessera::io::write_matrix_market(path("b.mtx"), coo, Field::Integer), tessera::FormatError);
  coo.values[0] = std::numeric_limits<double>::infinity();
  EXPECT_THROW(tessera::io::write_matrix_market(path("c.mtx"), coo, Field::Integer), tessera::FormatError);
  coo.values[0] = 1e-7;  // named as written, not as std::to_string's "0.000000"
  try {
    tessera::io::write_matrix_market(path("d.mtx"), coo, Field::Integer);
    ADD_FAILURE() << "no FormatError for 1e-7";
  } catch (const tessera::FormatError& e) {
    EXPECT_NE(std::string(e.what()).find("value 9.9999999999999995e-08 of entry (1,1)"), std::string::npos) << e.what();
  }
}

TEST_F(MatrixMarket, WriterRejectsInvalidCoo) {
  HostCoo<double> coo;
  coo.shape = {2, 2, 2};
  EXPECT_THROW(tessera::io::write_matrix_market(path("a.mtx"), coo), tessera::ShapeError);
  coo.shape = {2, 2};
  add_entry(coo, 2, 0, 1.0);
  EXPECT_THROW(tessera::io::write_matrix_market(path("b.mtx"), coo), tessera::IndexError);
  coo.coords = {0, 0, 1};
  EXPECT_THROW(tessera::io::write_matrix_market(path("c.mtx"), coo), tessera::ShapeError);
  coo.shape = {-1, 2};
  coo.coords.clear();
  coo.values.clear();
  EXPECT_THROW(tessera::io::write_matrix_market(path("d.mtx"), coo), tessera::ShapeError);
  EXPECT_THROW(tessera::io::write_matrix_market_array(path("e.mtx"), 2, 2, {1.0, 2.0, 3.0}), tessera::ShapeError);
}

// ------------------------------------------------------- I/O errors

TEST_F(MatrixMarket, MissingFileIsIoErrorNamingThePath) {
  const std::string file = path("does_not_exist.mtx");
  try {
    tessera::io::read_matrix_market(file);
    FAIL() << "no IoError";
  } catch (const tessera::IoError& e) {
    EXPECT_NE(std::string(e.what()).find(file), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("No such file"), std::string::npos) << e.what();
  }
}

TEST_F(MatrixMarket, UnwritablePathIsIoError) {
  HostCoo<double> coo;
  coo.shape = {1, 1};
  const std::string file = path("no_such_dir/out.mtx");
  for (const std::string& target : {file, file + ".gz"}) {
    try {
      tessera::io::write_matrix_market(target, coo);
      FAIL() << "no IoError for " << target;
    } catch (const tessera::IoError& e) {
      EXPECT_NE(std::string(e.what()).find(target), std::string::npos) << e.what();
    }
  }
}

TEST_F(MatrixMarket, DirectoryAndTruncatedGzipAreIoErrors) {
  EXPECT_THROW(tessera::io::read_matrix_market(dir_.string()), tessera::IoError);
  tessera::io::write_matrix_market(path("whole.mtx.gz"), general_matrix());
  const std::string raw = read_raw(path("whole.mtx.gz"));
  const std::string cut = write_raw("cut.mtx.gz", raw.substr(0, raw.size() / 2));
  try {
    tessera::io::read_matrix_market(cut);
    FAIL() << "no IoError";
  } catch (const tessera::IoError& e) {
    EXPECT_NE(std::string(e.what()).find(cut), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("truncated"), std::string::npos) << e.what();
  }
}

TEST_F(MatrixMarket, ConcatenatedGzipMembersReadAsOneText) {
  tessera::io::write_text_file(path("a.txt.gz"), "first part\n");
  tessera::io::write_text_file(path("b.txt.gz"), "second part\n");
  const std::string both = write_raw("both.txt.gz", read_raw(path("a.txt.gz")) + read_raw(path("b.txt.gz")));
  EXPECT_EQ(tessera::io::read_text_file(both), "first part\nsecond part\n");
  const std::string padded = write_raw("padded.txt.gz", read_raw(path("a.txt.gz")) + std::string(512, '\0'));
  EXPECT_EQ(tessera::io::read_text_file(padded), "first part\n");
}

// zlib's gzread skips whatever follows the last member; a .tns file has no entry count, so a
// second member whose header got damaged would lose its entries without a word.
TEST_F(MatrixMarket, BytesAfterTheLastGzipMemberAreIoErrors) {
  tessera::io::write_text_file(path("a.tns.gz"), "1 1 1 1.5\n");
  tessera::io::write_text_file(path("b.tns.gz"), "2 2 2 2.5\n");
  const std::string first = read_raw(path("a.tns.gz"));
  std::string second = read_raw(path("b.tns.gz"));
  second[0] = 'x';  // no longer a gzip member
  const std::string damaged = write_raw("damaged.tns.gz", first + second);
  const std::string garbage = write_raw("garbage.tns.gz", first + std::string(3, '\0') + "tail");
  for (const std::string& file : {damaged, garbage}) {
    try {
      tessera::io::read_tns(file, {2, 2, 2});
      FAIL() << "no IoError for " << file;
    } catch (const tessera::IoError& e) {
      EXPECT_NE(std::string(e.what()).find(file), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("at byte " + std::to_string(first.size())), std::string::npos) << e.what();
    }
  }
}

TEST_F(MatrixMarket, CorruptGzipDataIsIoError) {
  tessera::io::write_matrix_market(path("whole.mtx.gz"), general_matrix());
  std::string raw = read_raw(path("whole.mtx.gz"));
  raw[raw.size() - 6] = static_cast<char>(raw[raw.size() - 6] ^ 0x5a);  // the CRC-32 of the trailer
  const std::string bad = write_raw("bad_crc.mtx.gz", raw);
  try {
    tessera::io::read_matrix_market(bad);
    FAIL() << "no IoError";
  } catch (const tessera::IoError& e) {
    EXPECT_NE(std::string(e.what()).find(bad), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("corrupt gzip data"), std::string::npos) << e.what();
  }
}

TEST_F(MatrixMarket, TextFileRoundTripPlainAndGzip) {
  std::string text = "line one\n";
  for (int k = 0; k < 300000; ++k) text += std::to_string(k) + " ";  // spans several read chunks
  for (const char* name : {"t.txt", "t.txt.gz"}) {
    tessera::io::write_text_file(path(name), text);
    EXPECT_EQ(tessera::io::read_text_file(path(name)), text) << name;
  }
  EXPECT_LT(read_raw(path("t.txt.gz")).size(), text.size());
  tessera::io::write_text_file(path("empty.txt"), "");
  EXPECT_EQ(tessera::io::read_text_file(path("empty.txt")), "");
}

TEST(LineCursor, CountsLinesFromOne) {
  tessera::io::LineCursor cursor("a\n\nb\r\nc");
  std::string_view line;
  EXPECT_EQ(cursor.end_line_number(), 1);
  ASSERT_TRUE(cursor.next(line));
  EXPECT_EQ(line, "a");
  EXPECT_EQ(cursor.line_number(), 1);
  ASSERT_TRUE(cursor.next(line));
  EXPECT_EQ(line, "");
  ASSERT_TRUE(cursor.next(line));
  EXPECT_EQ(line, "b\r");
  ASSERT_TRUE(cursor.next(line));
  EXPECT_EQ(line, "c");
  EXPECT_FALSE(cursor.next(line));
  EXPECT_EQ(cursor.line_number(), 4);
  EXPECT_EQ(cursor.end_line_number(), 4);
}

// ------------------------------------------------------- Matrix Market: malformed files

struct BadFile {
  std::string name;      // test name suffix
  std::string content;   // the whole file
  std::int64_t line;     // 1-based line the error must name
  std::string fragment;  // text the message must contain
};

const char* const kRealBanner = "%%MatrixMarket matrix coordinate real general\n";

std::vector<BadFile> bad_matrix_market_files() {
  const std::string real = kRealBanner;
  return {
      {"EmptyFile", "", 1, "missing %%MatrixMarket banner"},
      {"NoBanner", "3 3 1\n1 1 1\n", 1, "missing %%MatrixMarket banner"},
      {"BannerNotFirst", "% comment\n" + real + "1 1 1\n1 1 1\n", 1, "missing %%MatrixMarket banner"},
      {"BannerTooShort", "%%MatrixMarket matrix coordinate real\n1 1 1\n1 1 1\n", 1, "ill-formed banner"},
      {"BannerExtraToken", "%%MatrixMarket matrix coordinate real general extra\n1 1 0\n", 1,
       "unexpected extra token 'extra'"},
      {"VectorObject", "%%MatrixMarket vector coordinate real general\n1 1 0\n", 1, "unsupported object 'vector'"},
      {"UnknownFormat", "%%MatrixMarket matrix sparse real general\n1 1 0\n", 1, "unknown format 'sparse'"},
      {"ComplexField", "%%MatrixMarket matrix coordinate complex general\n1 1 0\n", 1, "unsupported field complex"},
      {"UnknownField", "%%MatrixMarket matrix coordinate double general\n1 1 0\n", 1, "unknown field 'double'"},
      {"HermitianSymmetry", "%%MatrixMarket matrix coordinate real hermitian\n1 1 0\n", 1,
       "unsupported symmetry hermitian"},
      {"UnknownSymmetry", "%%MatrixMarket matrix coordinate real lower\n1 1 0\n", 1, "unknown symmetry 'lower'"},
      {"ArrayPattern", "%%MatrixMarket matrix array pattern general\n1 1\n", 1, "array format cannot have a pattern"},
      {"PatternSkew", "%%MatrixMarket matrix coordinate pattern skew-symmetric\n2 2 0\n", 1,
       "pattern matrix cannot be skew-symmetric"},
      {"MissingSizeLine", real + "% only a comment\n\n", 3, "missing size line"},
      {"SizeLineTooShort", real + "% comment\n3 3\n", 3, "bad size line: missing entry count"},
      {"SizeLineNotInteger", real + "3 3.5 2\n", 2, "bad size line: column count '3.5' is not an integer"},
      {"SizeLineNegative", real + "-3 3 1\n", 2, "negative row count -3"},
      {"SizeLineExtraToken", real + "3 3 1 7\n1 1 1\n", 2, "unexpected extra token '7'"},
      {"SymmetricNotSquare", "%%MatrixMarket matrix coordinate real symmetric\n3 4 1\n1 1 1\n", 2, "must be square"},
      {"RowIndexFraction", real + "3 3 1\n1.5 1 1\n", 3, "invalid row index '1.5'"},
      {"ColumnIndexWord", real + "3 3 1\n1 abc 1\n", 3, "invalid column index 'abc'"},
      {"RowIndexTrailingGarbage", real + "3 3 1\n2x 1 1\n", 3, "invalid row index '2x'"},
      {"RowIndexZero", real + "3 3 1\n0 1 1\n", 3, "row index 0 out of range [1, 3]"},
      {"ColumnIndexTooLarge", real + "3 5 1\n1 6 1\n", 3, "column index 6 out of range [1, 5]"},
      {"RowIndexNegative", real + "3 3 1\n-2 1 1\n", 3, "row index -2 out of range [1, 3]"},
      {"RowIndexBeyondInt64", real + "3 3 1\n99999999999999999999 1 1\n", 3,
       "row index 99999999999999999999 out of range [1, 3]"},
      {"MissingValue", real + "3 3 1\n1 1\n", 3, "missing value"},
      {"MissingColumn", real + "3 3 1\n1\n", 3, "missing column index"},
      {"ExtraToken", real + "3 3 1\n1 1 1 1\n", 3, "unexpected extra token '1'"},
      {"PatternWithValue", "%%MatrixMarket matrix coordinate pattern general\n3 3 1\n1 1 2.0\n", 3,
       "unexpected extra token '2.0'"},
      {"ValueNotNumber", real + "3 3 1\n1 1 abc\n", 3, "invalid value 'abc'"},
      {"ValueTrailingGarbage", real + "3 3 1\n1 1 1.5.2\n", 3, "invalid value '1.5.2'"},
      {"ValueTooLarge", real + "3 3 1\n1 1 1e999\n", 3, "value 1e999 out of the range of double"},
      {"IntegerValueFraction", "%%MatrixMarket matrix coordinate integer general\n3 3 1\n1 1 1.5\n", 3,
       "invalid integer value '1.5'"},
      {"TooFewEntries", real + "3 3 3\n1 1 1\n% trailing comment\n2 2 2\n\n", 6, "expected 3 entries, found 2"},
      {"TooFewEntriesNoneAtAll", real + "3 3 2\n", 2, "expected 2 entries, found 0"},
      {"TooManyEntries", real + "3 3 1\n1 1 1\n% comment\n2 2 2\n", 5, "too many entries"},
      {"SymmetricUpperEntry", "%%MatrixMarket matrix coordinate real symmetric\n3 3 2\n2 1 1\n1 2 5\n", 4,
       "entry (1,2) above the diagonal in a symmetric file"},
      {"SkewDiagonalEntry", "%%MatrixMarket matrix coordinate real skew-symmetric\n3 3 2\n2 1 1\n2 2 5\n", 4,
       "diagonal entry (2,2) in a skew-symmetric file"},
      {"SkewUpperEntry", "%%MatrixMarket matrix coordinate real skew-symmetric\n3 3 1\n1 3 5\n", 3,
       "entry (1,3) above the diagonal in a skew-symmetric file"},
      {"ArrayTooFewValues", "%%MatrixMarket matrix array real general\n2 2\n1\n2\n3\n", 5,
       "expected 4 entries, found 3"},
      {"ArrayTooManyValues", "%%MatrixMarket matrix array real general\n1 2\n1\n2\n3\n", 5, "too many entries"},
      {"ArrayTwoValuesOnALine", "%%MatrixMarket matrix array real general\n1 2\n1 2\n", 3,
       "unexpected extra token '2'"},
      {"ArraySymmetricNotSquare", "%%MatrixMarket matrix array real symmetric\n2 3\n", 2, "must be square"},
      {"LineCountIncludesCommentsAndCrlf",
       "%%MatrixMarket matrix coordinate real general\r\n%c\r\n\r\n2 2 2\r\n"
       "1 1 1\r\n%c\r\n2 3 1\r\n",
       7, "column index 3 out of range [1, 2]"},
      {"NulByte", real + "2 2 1\n1 1 " + std::string(1, '\0') + "\n", 3, "invalid value"},
      // Tokens are shown safely: a NUL as \x00 (not the end of the message), a long one cut.
      {"NulByteInsideValue", real + "2 2 1\n1 1 1" + std::string(1, '\0') + "x\n", 3, "invalid value '1\\x00x'"},
      {"LoneCarriageReturnLineEnds", "%%MatrixMarket matrix coordinate real general\r2 2 1\r1 1 1\r", 1,
       "lines end in a lone carriage return (CR)"},
      {"HugeTokenShownCut", real + "2 2 1\n1 1 1" + std::string(5000, '0') + "\n", 3,
       "value 1" + std::string(39, '0') + "... (5001 characters) out of the range of double"},
  };
}

class BadMatrixMarketFile : public IoTest, public testing::WithParamInterface<BadFile> {};

TEST_P(BadMatrixMarketFile, IsParseErrorWithFileAndLine) {
  const BadFile& bad = GetParam();
  for (const char* suffix : {".mtx", ".mtx.gz"}) {
    SCOPED_TRACE(suffix);
    const std::string file = path(bad.name + suffix);
    tessera::io::write_text_file(file, bad.content);  // gzip for .gz: errors must not depend on it
    expect_parse_error([&] { tessera::io::read_matrix_market(file); }, file, bad.line, bad.fragment);
  }
}

INSTANTIATE_TEST_SUITE_P(MatrixMarket, BadMatrixMarketFile, testing::ValuesIn(bad_matrix_market_files()),
                         [](const testing::TestParamInfo<BadFile>& info) { return info.param.name; });

TEST_F(MatrixMarket, SizesBeyondInt64AreOverflowErrors) {
  const std::string rows = write_raw("rows.mtx", std::string(kRealBanner) + "99999999999999999999 3 1\n1 1 1\n");
  const std::string array = write_raw("array.mtx",
                                      "%%MatrixMarket matrix array real general\n"
                                      "% comment\n"
                                      "4294967296 4294967296\n1\n");
  const std::vector<std::pair<std::string, std::string>> cases = {{rows, ":2: "}, {array, ":3: "}};
  for (const auto& [file, line] : cases) {
    try {
      tessera::io::read_matrix_market(file);
      ADD_FAILURE() << "no OverflowError for " << file;
    } catch (const tessera::OverflowError& e) {
      EXPECT_NE(std::string(e.what()).find(file + line), std::string::npos) << e.what();
    }
  }
}

TEST_F(MatrixMarket, HugeDeclaredCountDoesNotPreallocate) {
  // A lying size line must give a ParseError, not bad_alloc.
  const std::string file = write_raw("liar.mtx", std::string(kRealBanner) + "3 3 9000000000000000000\n1 1 1\n");
  expect_parse_error([&] { tessera::io::read_matrix_market(file); }, file, 3,
                     "expected 9000000000000000000 entries, found 1");
}

// Random corruptions of valid files must either parse or throw a tessera::Error:
// never crash, hang or throw anything else (run under ASan/UBSan to see reads
// out of bounds).
TEST_F(MatrixMarket, CorruptedFilesParseOrThrowTesseraErrors) {
  const std::vector<std::string> originals = {
      std::string(kRealBanner) + "% c\n4 4 3\n1 1 1.5\n2 3 -2e-3\n4 4 7\n",
      "%%MatrixMarket matrix coordinate pattern symmetric\n3 3 2\n2 1\n3 3\n",
      "%%MatrixMarket matrix array real skew-symmetric\n3 3\n1\n2\n3\n",
      "1 2 3 1.5\n2 2 2 -1\n",  // a .tns file
  };
  const std::string alphabet = "0123456789 -+.eE%#\n\r\tx";
  std::mt19937 rng(12345);
  const std::string file = path("fuzz.txt");
  int parsed = 0, rejected = 0;
  for (int trial = 0; trial < 600; ++trial) {  // bounded by file-system speed, not parsing
    std::string text = originals[trial % originals.size()];
    const int edits = 1 + static_cast<int>(rng() % 3);
    for (int e = 0; e < edits && !text.empty(); ++e) {
      const std::size_t at = rng() % text.size();
      switch (rng() % 3) {
        case 0:
          text[at] = alphabet[rng() % alphabet.size()];
          break;
        case 1:
          text.erase(at, 1 + rng() % 4);
          break;
        case 2:
          text.insert(at, 1, alphabet[rng() % alphabet.size()]);
          break;
      }
    }
    tessera::io::write_text_file(file, text);
    try {
      if (trial % originals.size() == 3) {
        tessera::io::read_tns(file);
      } else {
        tessera::io::read_matrix_market(file);
      }
      ++parsed;
    } catch (const tessera::Error&) {
      ++rejected;
    } catch (const std::exception& e) {
      FAIL() << "non-Tessera exception for input:\n" << text << "\n" << e.what();
    }
  }
  EXPECT_GT(parsed, 0);
  EXPECT_GT(rejected, 0);
}

// ------------------------------------------------------- FROSTT .tns

class Tns : public IoTest {};

TEST_F(Tns, InfersOrderAndShape) {
  const std::string file = write_raw("t.tns",
                                     "# a comment\n"
                                     "\n"
                                     "1 2 3 1.5\n"
                                     "  # indented comment\n"
                                     "4 1 1 -2\r\n"
                                     "2 5 2 +3e2");
  const auto coo = tessera::io::read_tns(file);
  EXPECT_EQ(coo.shape, (std::vector<std::int64_t>{4, 5, 3}));
  EXPECT_EQ(coo.coords, (std::vector<std::int64_t>{0, 1, 2, 3, 0, 0, 1, 4, 1}));
  EXPECT_EQ(coo.values, (std::vector<double>{1.5, -2, 300}));
}

TEST_F(Tns, ExplicitShapeKeepsEmptyTrailingSlices) {
  const std::string file = write_raw("t.tns", "1 1 2\n");
  EXPECT_EQ(tessera::io::read_tns(file).shape, (std::vector<std::int64_t>{1, 1}));
  EXPECT_EQ(tessera::io::read_tns(file, {10, 20}).shape, (std::vector<std::int64_t>{10, 20}));
}

TEST_F(Tns, RoundTripIsExactPlainAndGzip) {
  HostCoo<double> coo;
  coo.shape = {3, 4, 5, 2};
  const auto values = awkward_values();
  for (std::size_t n = 0; n < values.size(); ++n) {
    for (int mode = 0; mode < 4; ++mode) {
      coo.coords.push_back(static_cast<std::int64_t>((n * (mode + 1)) % coo.shape[mode]));
    }
    coo.values.push_back(values[n]);
  }
  for (const char* name : {"r.tns", "r.tns.gz"}) {
    SCOPED_TRACE(name);
    tessera::io::write_tns(path(name), coo);
    expect_identical(tessera::io::read_tns(path(name), coo.shape), coo);
  }
  EXPECT_EQ(static_cast<unsigned char>(read_raw(path("r.tns.gz"))[0]), 0x1f);
}

TEST_F(Tns, EmptyFileNeedsShape) {
  const std::string file = write_raw("e.tns", "# nothing\n\n");
  const auto coo = tessera::io::read_tns(file, {3, 4});
  EXPECT_EQ(coo.shape, (std::vector<std::int64_t>{3, 4}));
  EXPECT_EQ(coo.nnz(), 0);
  expect_parse_error([&] { tessera::io::read_tns(file); }, file, 2, "empty tensor file needs an explicit shape");
  HostCoo<double> empty;
  empty.shape = {2, 2, 2};
  tessera::io::write_tns(path("w.tns.gz"), empty);
  expect_identical(tessera::io::read_tns(path("w.tns.gz"), empty.shape), empty);
}

TEST_F(Tns, WriterAndShapeValidation) {
  HostCoo<double> coo;
  coo.shape = {2, 2};
  coo.coords = {0, 2};
  coo.values = {1.0};
  EXPECT_THROW(tessera::io::write_tns(path("a.tns"), coo), tessera::IndexError);
  coo.coords = {0};
  EXPECT_THROW(tessera::io::write_tns(path("b.tns"), coo), tessera::ShapeError);
  const std::string file = write_raw("c.tns", "1 1 1\n");
  EXPECT_THROW(tessera::io::read_tns(file, {2, -1}), tessera::ShapeError);
  EXPECT_THROW(tessera::io::read_tns(path("missing.tns")), tessera::IoError);
}

struct BadTns {
  std::string name;
  std::string content;
  std::vector<std::int64_t> shape;
  std::int64_t line;
  std::string fragment;
};

std::vector<BadTns> bad_tns_files() {
  return {
      {"EmptyWithoutShape", "", {}, 1, "empty tensor file needs an explicit shape"},
      {"TooFewTokens", "1 2 3 1.0\n# c\n1 2 1.0\n", {}, 3, "expected 4 tokens (3 indices and a value)"},
      {"TooManyTokens", "1 2 1.0\n\n1 2 3 1.0\n", {}, 3, "expected 3 tokens (2 indices and a value)"},
      {"OnlyOneToken", "# c\n5\n", {}, 2, "needs at least one index and a value"},
      {"IndexZero", "1 1 1.0\n1 0 1.0\n", {}, 2, "index 0 of mode 2 is below 1"},
      {"IndexNegative", "-1 1 1.0\n", {}, 1, "index -1 of mode 1 is below 1"},
      {"IndexBeyondShape", "1 1 1.0\n3 1 1.0\n", {2, 2}, 2, "index 3 of mode 1 out of range [1, 2]"},
      {"IndexNotInteger", "1 1.5 1.0\n", {}, 1, "invalid index '1.5' in mode 2"},
      {"IndexWord", "1 1 1.0\nabc 1 1.0\n", {}, 2, "invalid index 'abc' in mode 1"},
      {"ValueNotNumber", "1 1 x1\n", {}, 1, "invalid value 'x1'"},
      {"ShapeOrderMismatch", "# c\n1 1 1 1.0\n", {4, 4}, 2, "entry has 3 indices but the given shape has 2 modes"},
      {"CommentAfterFirstEntry", "1 2 1.0 # c\n", {}, 1, "'#' after the entry (column 9): .tns comments take"},
      {"CommentAfterLaterEntry", "1 2 1.0\n2 1 2.0 #c\n", {}, 2, "'#' after the entry (column 9)"},
  };
}

class BadTnsFile : public IoTest, public testing::WithParamInterface<BadTns> {};

TEST_P(BadTnsFile, IsParseErrorWithFileAndLine) {
  const BadTns& bad = GetParam();
  for (const char* suffix : {".tns", ".tns.gz"}) {
    SCOPED_TRACE(suffix);
    const std::string file = path(bad.name + suffix);
    tessera::io::write_text_file(file, bad.content);
    expect_parse_error([&] { tessera::io::read_tns(file, bad.shape); }, file, bad.line, bad.fragment);
  }
}

INSTANTIATE_TEST_SUITE_P(Tns, BadTnsFile, testing::ValuesIn(bad_tns_files()),
                         [](const testing::TestParamInfo<BadTns>& info) { return info.param.name; });

// ------------------------------------------------------- real data

fs::path data_dir() { return tessera_test::data_dir(); }

struct ExpectedMatrix {
  std::int64_t rows, cols, stored;
  std::string field, symmetry;
};

// The table rows of SOURCES.md, an independent record of every file's header:
// "| name.mtx.gz | R x C | NNZ | field symmetry | ...".
std::map<std::string, ExpectedMatrix> expected_matrices(const fs::path& sources) {
  std::map<std::string, ExpectedMatrix> expected;
  std::ifstream in(sources);
  std::string line;
  while (std::getline(in, line)) {
    std::vector<std::string> cells;
    std::stringstream cells_in(line);
    std::string cell;
    while (std::getline(cells_in, cell, '|')) cells.push_back(cell);
    if (cells.size() < 5) continue;
    std::stringstream name_in(cells[1]);
    std::string name;
    name_in >> name;
    if (name.size() < 7 || name.compare(name.size() - 7, 7, ".mtx.gz") != 0) continue;
    ExpectedMatrix e{};
    std::string times;
    std::stringstream(cells[2]) >> e.rows >> times >> e.cols;
    std::stringstream(cells[3]) >> e.stored;
    std::stringstream(cells[4]) >> e.field >> e.symmetry;
    expected[name] = e;
  }
  return expected;
}

const char* field_name(Field field) {
  return field == Field::Real ? "real" : field == Field::Integer ? "integer" : "pattern";
}
const char* symmetry_name(Symmetry symmetry) {
  return symmetry == Symmetry::General ? "general" : symmetry == Symmetry::Symmetric ? "symmetric" : "skew-symmetric";
}

TEST(MatrixMarketRealData, EveryMatrixMatchesItsRecordedHeader) {
  const fs::path dir = data_dir() / "matrices";
  ASSERT_TRUE(fs::is_directory(dir)) << "real data not found at " << dir << "; set TESSERA_DATA_DIR";
  const auto expected = expected_matrices(data_dir() / "SOURCES.md");
  ASSERT_EQ(expected.size(), 66u) << "SOURCES.md should list the 66 real matrices";

  std::vector<std::string> files;
  for (const auto& entry : fs::directory_iterator(dir)) {
    const std::string name = entry.path().filename().string();
    if (name.size() > 7 && name.compare(name.size() - 7, 7, ".mtx.gz") == 0) files.push_back(name);
  }
  std::sort(files.begin(), files.end());
  EXPECT_EQ(files.size(), expected.size());

  for (const std::string& name : files) {
    SCOPED_TRACE(name);
    const auto it = expected.find(name);
    ASSERT_NE(it, expected.end()) << "not listed in SOURCES.md";
    const ExpectedMatrix& want = it->second;
    MatrixMarketInfo info{};
    const auto coo = tessera::io::read_matrix_market((dir / name).string(), &info);
    EXPECT_EQ(info.format, MatrixMarketInfo::Format::Coordinate);
    EXPECT_EQ(field_name(info.field), want.field);
    EXPECT_EQ(symmetry_name(info.symmetry), want.symmetry);
    EXPECT_EQ(info.rows, want.rows);
    EXPECT_EQ(info.cols, want.cols);
    EXPECT_EQ(info.stored_entries, want.stored);
    EXPECT_EQ(coo.shape, (std::vector<std::int64_t>{want.rows, want.cols}));

    // Stored entries come first, their mirrors after (the documented order),
    // so the diagonal count and the mirror can be checked from this one read.
    std::int64_t diagonal = 0;
    for (std::int64_t n = 0; n < info.stored_entries; ++n) diagonal += coo.coord(n, 0) == coo.coord(n, 1);
    const std::int64_t want_nnz = info.symmetry == Symmetry::General ? want.stored : 2 * want.stored - diagonal;
    ASSERT_EQ(coo.nnz(), want_nnz);
    std::int64_t mirror = info.stored_entries;
    for (std::int64_t n = 0; info.symmetry != Symmetry::General && n < info.stored_entries; ++n) {
      ASSERT_GE(coo.coord(n, 0), coo.coord(n, 1)) << "stored entry " << n << " above the diagonal";
      if (coo.coord(n, 0) == coo.coord(n, 1)) continue;
      ASSERT_EQ(coo.coord(mirror, 0), coo.coord(n, 1));
      ASSERT_EQ(coo.coord(mirror, 1), coo.coord(n, 0));
      ASSERT_EQ(coo.values[mirror], coo.values[n]);
      ++mirror;
    }
    for (std::size_t k = 0; k < coo.coords.size(); ++k) {
      ASSERT_GE(coo.coords[k], 0);
      ASSERT_LT(coo.coords[k], coo.shape[k % 2]);
    }
    if (info.field == Field::Pattern) {
      EXPECT_TRUE(std::all_of(coo.values.begin(), coo.values.end(), [](double v) { return v == 1.0; }));
    }
  }
}

TEST(MatrixMarketRealData, UnexpandedSymmetricReadKeepsStoredEntries) {
  const fs::path file = data_dir() / "matrices" / "bcsstk13.mtx.gz";
  ASSERT_TRUE(fs::exists(file)) << "real data not found: " << file << "; set TESSERA_DATA_DIR";
  MatrixMarketInfo info{};
  const auto stored = tessera::io::read_matrix_market(file.string(), &info, false);
  EXPECT_EQ(stored.nnz(), 42943);
  EXPECT_EQ(info.stored_entries, 42943);
  const auto expanded = tessera::io::read_matrix_market(file.string());
  ASSERT_GT(expanded.nnz(), stored.nnz());
  EXPECT_TRUE(std::equal(stored.coords.begin(), stored.coords.end(), expanded.coords.begin()));
}

TEST(TnsRealData, LastfmTensor) {
  const fs::path file = data_dir() / "tensors" / "lastfm_user_artist_tag.tns.gz";
  ASSERT_TRUE(fs::exists(file)) << "real data not found: " << file << "; set TESSERA_DATA_DIR";
  const auto coo = tessera::io::read_tns(file.string());
  EXPECT_EQ(coo.order(), 3);
  EXPECT_EQ(coo.shape, (std::vector<std::int64_t>{1892, 12523, 9749}));
  EXPECT_EQ(coo.nnz(), 186478);
  EXPECT_EQ(coo.coords.size(), 3u * 186478u);
  const auto with_shape = tessera::io::read_tns(file.string(), {1892, 12523, 9749});
  EXPECT_EQ(with_shape.coords, coo.coords);
  EXPECT_EQ(with_shape.values, coo.values);
  EXPECT_THROW(tessera::io::read_tns(file.string(), {1892, 12523, 9748}), tessera::ParseError);
}

}  // namespace
