// Matrix Market reader. The file is read into memory once and parsed
// with from_chars; every error names the file and the 1-based line.
#include "tessera/core/io/matrix_market.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <limits>
#include <string_view>

#include "tessera/core/error.hpp"
#include "tessera/core/io/text_file.hpp"
#include "tokens.hpp"

namespace tessera::io {
namespace {

using Info = MatrixMarketInfo;
using detail::NumberStatus;

constexpr std::int64_t kInt64Max = std::numeric_limits<std::int64_t>::max();

bool equals_ignore_case(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t k = 0; k < a.size(); ++k) {
    if (std::tolower(static_cast<unsigned char>(a[k])) != std::tolower(static_cast<unsigned char>(b[k]))) return false;
  }
  return true;
}

// rows*cols or a triangle of an n x n matrix, or -1 when it does not fit int64.
std::int64_t checked_product(std::int64_t a, std::int64_t b) {
  if (a != 0 && b > kInt64Max / a) return -1;
  return a * b;
}
// n*(n±1)/2, halving the even factor first; n + 1 is not formed when n is odd (it
// overflows for n = INT64_MAX): (n + 1) / 2 is n / 2 + 1 there, (n - 1) / 2 is n / 2.
std::int64_t triangle_size(std::int64_t n, bool with_diagonal) {
  if (n <= 0) return 0;
  if (n % 2 == 0) return checked_product(n / 2, with_diagonal ? n + 1 : n - 1);
  return checked_product(n, with_diagonal ? n / 2 + 1 : n / 2);
}

// Parsing state of one file: every message needs the path and the current line.
class Reader {
 public:
  Reader(const std::string& path, std::string_view text, std::int64_t lines_before = 0)
      : path_(path), cursor_(text, lines_before) {}

  Info read_banner_and_size();
  void read_coordinate_entries(const Info& info, HostCoo<double>& coo, bool reserve_mirror);
  // Every remaining line is an entry line (no count check); returns the entries read.
  std::int64_t read_coordinate_lines(const Info& info, HostCoo<double>& coo);
  const LineCursor& cursor() const { return cursor_; }
  void read_array_entries(const Info& info, HostCoo<double>& coo, bool reserve_mirror);

 private:
  [[noreturn]] void fail(const std::string& what) const { throw ParseError(path_, cursor_.line_number(), what); }
  [[noreturn]] void fail_at_end(const std::string& what) const {
    throw ParseError(path_, cursor_.end_line_number(), what);
  }

  // Next line that is neither a '%' comment nor blank; false at end of file.
  bool next_content_line(std::string_view& line) {
    while (cursor_.next(line)) {
      if (!detail::is_blank(line) && !detail::is_comment(line, '%')) return true;
    }
    return false;
  }

  void parse_banner(Info& info);
  void parse_size_line(Info& info);
  std::int64_t parse_size(std::string_view token, const char* what, const char* layout);
  std::int64_t parse_index(std::string_view token, const char* what, std::int64_t extent, const char* layout);
  double parse_value(std::string_view token, Info::Field field, const char* layout);
  void expect_line_end(std::string_view rest, const char* layout);
  void check_triangle(const Info& info, std::int64_t row, std::int64_t col);
  void parse_coordinate_line(const Info& info, std::string_view line, HostCoo<double>& coo);

  const std::string& path_;
  LineCursor cursor_;
};

Info Reader::read_banner_and_size() {
  Info info{};
  parse_banner(info);
  parse_size_line(info);
  return info;
}

void Reader::parse_banner(Info& info) {
  constexpr const char* kExpected = "expected '%%MatrixMarket matrix <format> <field> <symmetry>'";
  std::string_view line;
  if (!cursor_.next(line)) fail_at_end("empty file: missing %%MatrixMarket banner");
  // Old Mac files end lines with '\r' alone: the whole file reads as one line.
  const std::size_t cr = line.find('\r');
  if (cr != std::string_view::npos && !detail::is_blank(line.substr(cr)))
    fail("lines end in a lone carriage return (CR); Matrix Market files need LF or CRLF line ends");
  constexpr std::string_view kByteOrderMark = "\xEF\xBB\xBF";  // written by some Windows editors
  if (line.substr(0, kByteOrderMark.size()) == kByteOrderMark) line.remove_prefix(kByteOrderMark.size());
  std::string_view rest = line;
  if (!equals_ignore_case(detail::next_token(rest), "%%MatrixMarket")) {
    fail(std::string("missing %%MatrixMarket banner on the first line (") + kExpected + ")");
  }
  const std::string_view object = detail::next_token(rest);
  const std::string_view format = detail::next_token(rest);
  const std::string_view field = detail::next_token(rest);
  const std::string_view symmetry = detail::next_token(rest);
  if (symmetry.empty()) fail(std::string("ill-formed banner: ") + kExpected);
  const std::string_view extra = detail::next_token(rest);
  if (!extra.empty())
    fail("ill-formed banner: unexpected extra token " + detail::quoted(extra) + " (" + kExpected + ")");

  if (!equals_ignore_case(object, "matrix")) {
    fail("unsupported object " + detail::quoted(object) + " (only 'matrix' is supported)");
  }

  if (equals_ignore_case(format, "coordinate")) {
    info.format = Info::Format::Coordinate;
  } else if (equals_ignore_case(format, "array")) {
    info.format = Info::Format::Array;
  } else {
    fail("unknown format " + detail::quoted(format) + " (expected coordinate or array)");
  }

  if (equals_ignore_case(field, "real")) {
    info.field = Info::Field::Real;
  } else if (equals_ignore_case(field, "integer")) {
    info.field = Info::Field::Integer;
  } else if (equals_ignore_case(field, "pattern")) {
    info.field = Info::Field::Pattern;
  } else if (equals_ignore_case(field, "complex")) {
    fail("unsupported field complex");
  } else {
    fail("unknown field " + detail::quoted(field) + " (expected real, integer or pattern)");
  }

  if (equals_ignore_case(symmetry, "general")) {
    info.symmetry = Info::Symmetry::General;
  } else if (equals_ignore_case(symmetry, "symmetric")) {
    info.symmetry = Info::Symmetry::Symmetric;
  } else if (equals_ignore_case(symmetry, "skew-symmetric")) {
    info.symmetry = Info::Symmetry::SkewSymmetric;
  } else if (equals_ignore_case(symmetry, "hermitian")) {
    fail("unsupported symmetry hermitian");
  } else {
    fail("unknown symmetry " + detail::quoted(symmetry) + " (expected general, symmetric or skew-symmetric)");
  }

  // Combinations the format defines no meaning for.
  if (info.format == Info::Format::Array && info.field == Info::Field::Pattern) {
    fail("array format cannot have a pattern field");
  }
  if (info.field == Info::Field::Pattern && info.symmetry == Info::Symmetry::SkewSymmetric) {
    fail("a pattern matrix cannot be skew-symmetric");
  }
}

std::int64_t Reader::parse_size(std::string_view token, const char* what, const char* layout) {
  if (token.empty()) fail(std::string("bad size line: missing ") + what + " (expected '" + layout + "')");
  std::int64_t value = 0;
  switch (detail::parse_int64(token, value)) {
    case NumberStatus::Invalid:
      fail(std::string("bad size line: ") + what + " " + detail::quoted(token) + " is not an integer");
    case NumberStatus::OutOfRange:
      if (token[0] == '-') fail(std::string("bad size line: negative ") + what + " " + detail::shown(token));
      throw OverflowError(path_ + ":" + std::to_string(cursor_.line_number()) + ": " + what + " " +
                          detail::shown(token) + " does not fit in a 64-bit integer");
    case NumberStatus::Ok:
      break;
  }
  if (value < 0) fail(std::string("bad size line: negative ") + what + " " + std::to_string(value));
  return value;
}

void Reader::parse_size_line(Info& info) {
  const bool coordinate = info.format == Info::Format::Coordinate;
  const char* layout = coordinate ? "rows columns entries" : "rows columns";
  std::string_view line;
  if (!next_content_line(line)) fail_at_end(std::string("missing size line ('") + layout + "')");
  std::string_view rest = line;
  info.rows = parse_size(detail::next_token(rest), "row count", layout);
  info.cols = parse_size(detail::next_token(rest), "column count", layout);
  if (coordinate) info.stored_entries = parse_size(detail::next_token(rest), "entry count", layout);
  const std::string_view extra = detail::next_token(rest);
  if (!extra.empty())
    fail("bad size line: unexpected extra token " + detail::quoted(extra) + " (expected '" + layout + "')");

  if (info.symmetry != Info::Symmetry::General && info.rows != info.cols) {
    fail("a symmetric or skew-symmetric matrix must be square, got " + std::to_string(info.rows) + " x " +
         std::to_string(info.cols));
  }
  if (!coordinate) {
    switch (info.symmetry) {
      case Info::Symmetry::General:
        info.stored_entries = checked_product(info.rows, info.cols);
        break;
      case Info::Symmetry::Symmetric:
        info.stored_entries = triangle_size(info.rows, true);
        break;
      case Info::Symmetry::SkewSymmetric:
        info.stored_entries = triangle_size(info.rows, false);
        break;
    }
    if (info.stored_entries < 0) {
      throw OverflowError(path_ + ":" + std::to_string(cursor_.line_number()) + ": array of " +
                          std::to_string(info.rows) + " x " + std::to_string(info.cols) +
                          " entries does not fit in a 64-bit count");
    }
  }
}

std::int64_t Reader::parse_index(std::string_view token, const char* what, std::int64_t extent, const char* layout) {
  if (token.empty()) fail(std::string("missing ") + what + " index (expected '" + layout + "')");
  std::int64_t index = 0;
  const NumberStatus status = detail::parse_int64(token, index);
  if (status == NumberStatus::Invalid)
    fail(std::string("invalid ") + what + " index " + detail::quoted(token) + " (expected an integer)");
  if (status == NumberStatus::OutOfRange || index < 1 || index > extent) {
    fail(std::string(what) + " index " + detail::shown(token) + " out of range [1, " + std::to_string(extent) + "]");
  }
  return index - 1;
}

double Reader::parse_value(std::string_view token, Info::Field field, const char* layout) {
  if (token.empty()) fail(std::string("missing value (expected '") + layout + "')");
  if (field == Info::Field::Integer) {
    std::int64_t value = 0;
    switch (detail::parse_int64(token, value)) {
      case NumberStatus::Invalid:
        fail("invalid integer value " + detail::quoted(token));
      case NumberStatus::OutOfRange:
        fail("integer value " + detail::shown(token) + " out of the 64-bit range");
      case NumberStatus::Ok:
        break;
    }
    return static_cast<double>(value);
  }
  double value = 0;
  switch (detail::parse_double(token, value)) {
    case NumberStatus::Invalid:
      fail("invalid value " + detail::quoted(token) + " (expected a number)");
    case NumberStatus::OutOfRange:
      fail("value " + detail::shown(token) + " out of the range of double");
    case NumberStatus::Ok:
      break;
  }
  return value;
}

void Reader::expect_line_end(std::string_view rest, const char* layout) {
  const std::string_view extra = detail::next_token(rest);
  if (!extra.empty()) fail("unexpected extra token " + detail::quoted(extra) + " (expected '" + layout + "')");
}

// Symmetric files store the lower triangle only; an upper entry would be
// silently doubled by expansion, so it is an error rather than a guess.
void Reader::check_triangle(const Info& info, std::int64_t row, std::int64_t col) {
  if (info.symmetry == Info::Symmetry::General || row > col) return;
  const std::string entry = "(" + std::to_string(row + 1) + "," + std::to_string(col + 1) + ")";
  if (info.symmetry == Info::Symmetry::SkewSymmetric && row == col) {
    fail("diagonal entry " + entry + " in a skew-symmetric file");
  }
  if (row < col) {
    const char* kind = info.symmetry == Info::Symmetry::Symmetric ? "symmetric" : "skew-symmetric";
    fail("entry " + entry + " above the diagonal in a " + kind + " file");
  }
}

// Reserving the declared count up front avoids regrowth, but the count comes
// from the file: cap it by what the remaining bytes could possibly hold.
void reserve_entries(HostCoo<double>& coo, std::int64_t declared, std::size_t bytes_left, std::size_t min_line_bytes,
                     bool reserve_mirror) {
  std::size_t count = std::min<std::size_t>(static_cast<std::size_t>(declared), bytes_left / min_line_bytes + 1);
  if (reserve_mirror) count *= 2;
  coo.coords.reserve(2 * count);
  coo.values.reserve(count);
}

void Reader::parse_coordinate_line(const Info& info, std::string_view line, HostCoo<double>& coo) {
  const bool pattern = info.field == Info::Field::Pattern;
  const char* layout = pattern ? "row column" : "row column value";
  std::string_view rest = line;
  const std::int64_t row = parse_index(detail::next_token(rest), "row", info.rows, layout);
  const std::int64_t col = parse_index(detail::next_token(rest), "column", info.cols, layout);
  const double value = pattern ? 1.0 : parse_value(detail::next_token(rest), info.field, layout);
  expect_line_end(rest, layout);
  check_triangle(info, row, col);
  coo.coords.push_back(row);
  coo.coords.push_back(col);
  coo.values.push_back(value);
}

void Reader::read_coordinate_entries(const Info& info, HostCoo<double>& coo, bool reserve_mirror) {
  const bool pattern = info.field == Info::Field::Pattern;
  reserve_entries(coo, info.stored_entries, cursor_.rest().size(), pattern ? 4 : 6, reserve_mirror);

  std::int64_t found = 0;
  std::string_view line;
  while (next_content_line(line)) {
    if (found == info.stored_entries) {
      fail("too many entries: the size line declares " + std::to_string(info.stored_entries));
    }
    parse_coordinate_line(info, line, coo);
    ++found;
  }
  if (found < info.stored_entries) {
    fail_at_end("expected " + std::to_string(info.stored_entries) + " entries, found " + std::to_string(found));
  }
}

std::int64_t Reader::read_coordinate_lines(const Info& info, HostCoo<double>& coo) {
  std::int64_t found = 0;
  std::string_view line;
  while (next_content_line(line)) {
    parse_coordinate_line(info, line, coo);
    ++found;
  }
  return found;
}

// Array files list values column by column; symmetric ones only the lower
// triangle of each column (strictly lower for skew).
void Reader::read_array_entries(const Info& info, HostCoo<double>& coo, bool reserve_mirror) {
  reserve_entries(coo, info.stored_entries, cursor_.rest().size(), 2, reserve_mirror);
  const std::int64_t first_row_offset =
      info.symmetry == Info::Symmetry::General ? -1 : (info.symmetry == Info::Symmetry::Symmetric ? 0 : 1);
  std::int64_t found = 0;
  std::string_view line;
  // Without rows no column holds an entry, however many columns the size line claims.
  const std::int64_t cols = info.rows == 0 ? 0 : info.cols;
  for (std::int64_t col = 0; col < cols; ++col) {
    const std::int64_t first_row = first_row_offset < 0 ? 0 : col + first_row_offset;
    for (std::int64_t row = first_row; row < info.rows; ++row) {
      if (!next_content_line(line)) {
        fail_at_end("expected " + std::to_string(info.stored_entries) + " entries, found " + std::to_string(found));
      }
      std::string_view rest = line;
      const double value = parse_value(detail::next_token(rest), info.field, "value");
      expect_line_end(rest, "value");
      coo.coords.push_back(row);
      coo.coords.push_back(col);
      coo.values.push_back(value);
      ++found;
    }
  }
  if (next_content_line(line)) {
    fail("too many entries: expected " + std::to_string(info.stored_entries));
  }
}

// Appends the upper-triangle mirror of every stored off-diagonal entry from entry `first` on.
void append_mirror(HostCoo<double>& coo, bool negate, std::int64_t first = 0) {
  const std::int64_t stored = coo.nnz();
  std::int64_t off_diagonal = 0;
  for (std::int64_t n = first; n < stored; ++n) off_diagonal += coo.coords[2 * n] != coo.coords[2 * n + 1];
  coo.coords.reserve(coo.coords.size() + 2 * static_cast<std::size_t>(off_diagonal));
  coo.values.reserve(coo.values.size() + static_cast<std::size_t>(off_diagonal));
  for (std::int64_t n = first; n < stored; ++n) {
    const std::int64_t row = coo.coords[2 * n];
    const std::int64_t col = coo.coords[2 * n + 1];
    if (row == col) continue;
    const double value = coo.values[n];
    coo.coords.push_back(col);
    coo.coords.push_back(row);
    coo.values.push_back(negate ? -value : value);
  }
}

}  // namespace

HostCoo<double> read_matrix_market(const std::string& path, MatrixMarketInfo* info, bool expand_symmetry) {
  const std::string text = read_text_file(path);
  Reader reader(path, text);
  const Info header = reader.read_banner_and_size();
  const bool mirror = expand_symmetry && header.symmetry != Info::Symmetry::General;

  HostCoo<double> coo;
  coo.shape = {header.rows, header.cols};
  if (header.format == Info::Format::Coordinate) {
    reader.read_coordinate_entries(header, coo, mirror);
  } else {
    reader.read_array_entries(header, coo, mirror);
  }
  if (mirror) append_mirror(coo, header.symmetry == Info::Symmetry::SkewSymmetric);
  if (info != nullptr) *info = header;
  return coo;
}

MatrixMarketHeader parse_matrix_market_header(const std::string& path, std::string_view text) {
  Reader reader(path, text);
  MatrixMarketHeader header;
  header.info = reader.read_banner_and_size();
  header.entries_offset = text.size() - reader.cursor().rest().size();
  header.lines_before_entries = reader.cursor().line_number();
  return header;
}

std::int64_t parse_matrix_market_entries(const std::string& path, const MatrixMarketInfo& info, std::string_view lines,
                                         std::int64_t lines_before, bool expand_symmetry, HostCoo<double>& coo) {
  if (info.format != Info::Format::Coordinate)
    throw ParseError(path, lines_before + 1, "parse_matrix_market_entries reads coordinate files only");
  const std::int64_t first = coo.nnz();
  const std::int64_t found = Reader(path, lines, lines_before).read_coordinate_lines(info, coo);
  if (expand_symmetry && info.symmetry != Info::Symmetry::General)
    append_mirror(coo, info.symmetry == Info::Symmetry::SkewSymmetric, first);
  return found;
}

}  // namespace tessera::io
