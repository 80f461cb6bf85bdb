// FROSTT .tns reader/writer: parsed from one in-memory buffer with from_chars.
#include "tessera/core/io/tns.hpp"

#include <algorithm>
#include <string_view>

#include "tessera/core/error.hpp"
#include "tessera/core/io/text_file.hpp"
#include "text_output.hpp"
#include "tokens.hpp"

namespace tessera::io {
namespace {

using detail::NumberStatus;

std::size_t count_tokens(std::string_view line) {
  std::size_t count = 0;
  while (!detail::next_token(line).empty()) ++count;
  return count;
}

// Parsing state of one file: every message needs the path and the current line.
class TnsReader {
 public:
  TnsReader(const std::string& path, std::string_view text, const std::vector<std::int64_t>& shape)
      : path_(path), cursor_(text), given_shape_(shape) {}

  HostCoo<double> read();

 private:
  [[noreturn]] void fail(const std::string& what) const { throw ParseError(path_, cursor_.line_number(), what); }

  // Next line that is neither blank nor a comment; shape comments before the first entry are read.
  bool next_content_line(std::string_view& line) {
    while (cursor_.next(line)) {
      if (detail::is_blank(line)) continue;
      if (!detail::is_comment(line, '#')) return true;
      if (order_ == 0) read_shape_comment(line);
    }
    return false;
  }

  void check_line_ends(std::string_view text) const;
  void read_shape_comment(std::string_view line);
  // The shape entries are checked against: the caller's, else the file's shape comment.
  const std::vector<std::int64_t>& bound_shape() const {
    return given_shape_.empty() ? declared_shape_ : given_shape_;
  }
  void start(std::string_view first_line, HostCoo<double>& coo);
  void reject_inline_comment(std::string_view line) const;
  void parse_entry(std::string_view line, HostCoo<double>& coo);
  [[noreturn]] void fail_entry(std::string_view line, const std::string& what) const;

  const std::string& path_;
  LineCursor cursor_;
  const std::vector<std::int64_t>& given_shape_;
  std::vector<std::int64_t> declared_shape_;  // from a "# shape ..." comment
  std::int64_t declared_shape_line_ = 0;
  int order_ = 0;
  std::vector<std::int64_t> max_index_;  // per mode, 1-based; the inferred shape
  std::vector<std::int64_t> bound_;      // per mode, the largest index allowed; -1: none
};

// Old Mac files end lines with '\r' alone, and the whole file would read as one line: a long
// entry, or a comment hiding every entry. The first '\r' tells (CRLF files have one on every line).
void TnsReader::check_line_ends(std::string_view text) const {
  const std::size_t cr = text.find('\r');
  if (cr == std::string_view::npos) return;
  const std::size_t end = std::min(text.find('\n', cr), text.size());
  if (detail::is_blank(text.substr(cr, end - cr))) return;
  const std::int64_t line = 1 + std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(cr), '\n');
  throw ParseError(path_, line, "lines end in a lone carriage return (CR); .tns files need LF or CRLF line ends");
}

// "# shape 5 6 7" before the first entry gives the extents (write_tns writes it), so that
// trailing empty slices and empty tensors survive a round trip. A comment whose words after
// "shape" are not all integers is an ordinary comment.
void TnsReader::read_shape_comment(std::string_view line) {
  std::string_view rest = line.substr(line.find('#') + 1);
  if (detail::next_token(rest) != "shape") return;
  std::vector<std::int64_t> shape;
  for (std::string_view token = detail::next_token(rest); !token.empty(); token = detail::next_token(rest)) {
    std::int64_t extent = 0;
    if (detail::parse_int64(token, extent) != NumberStatus::Ok) return;
    shape.push_back(extent);
  }
  if (shape.empty()) return;
  if (!declared_shape_.empty())
    fail("a second shape comment (the first is on line " + std::to_string(declared_shape_line_) + ")");
  for (const std::int64_t extent : shape)
    if (extent < 0) fail("negative extent " + std::to_string(extent) + " in the shape comment");
  declared_shape_ = std::move(shape);
  declared_shape_line_ = cursor_.line_number();
}

// FROSTT comments take whole lines. A '#' after an entry would otherwise be blamed as an
// index of the wrong kind (on the first line, whose token count fixes the order) or as a
// token count, neither of which names the '#'.
void TnsReader::reject_inline_comment(std::string_view line) const {
  const std::size_t at = line.find('#');
  if (at != std::string_view::npos)
    fail("'#' after the entry (column " + std::to_string(at + 1) +
         "): .tns comments take a whole line, starting with '#'");
}

// The first entry line fixes the order; sizes the output from the line count.
void TnsReader::start(std::string_view first_line, HostCoo<double>& coo) {
  reject_inline_comment(first_line);
  const std::size_t tokens = count_tokens(first_line);
  if (tokens < 2)
    fail("an entry line needs at least one index and a value, found " + std::to_string(tokens) + " token");
  order_ = static_cast<int>(tokens - 1);
  const auto& shape = bound_shape();
  if (!shape.empty() && shape.size() != tokens - 1) {
    fail("entry has " + std::to_string(order_) + " indices but " +
         (given_shape_.empty() ? "the shape comment on line " + std::to_string(declared_shape_line_) + " declares "
                               : std::string("the given shape has ")) +
         std::to_string(shape.size()) + " modes");
  }
  max_index_.assign(order_, 0);
  // Lines left bound the entry count (a newline count is cheap next to parsing), and so do
  // the bytes left: an entry line takes at least two bytes per token.
  const std::string_view rest = cursor_.rest();
  const std::size_t lines = 1 + static_cast<std::size_t>(std::count(rest.begin(), rest.end(), '\n'));
  const std::size_t entries = std::min(lines, 1 + rest.size() / (2 * tokens));
  coo.coords.reserve(entries * order_);
  coo.values.reserve(entries);
}

// A line with the wrong number of tokens makes any other complaint about it
// misleading ("invalid index '1.0'" for a missing index), so that is checked first;
// only on the error path, to keep the hot loop a single pass.
void TnsReader::fail_entry(std::string_view line, const std::string& what) const {
  reject_inline_comment(line);
  const std::size_t tokens = count_tokens(line);
  if (tokens != static_cast<std::size_t>(order_) + 1) {
    fail("expected " + std::to_string(order_ + 1) + " tokens (" + std::to_string(order_) +
         " indices and a value) like the first entry, found " + std::to_string(tokens));
  }
  fail(what);
}

void TnsReader::parse_entry(std::string_view line, HostCoo<double>& coo) {
  std::string_view rest = line;
  for (int mode = 0; mode < order_; ++mode) {
    const std::string_view token = detail::next_token(rest);
    if (token.empty()) fail_entry(line, "missing index");
    std::int64_t index = 0;
    const NumberStatus status = detail::parse_int64(token, index);
    if (status == NumberStatus::Invalid) {
      fail_entry(line, "invalid index " + detail::quoted(token) + " in mode " + std::to_string(mode + 1) +
                           " (expected an integer)");
    }
    if (status == NumberStatus::Ok && index < 1) {
      fail_entry(line, "index " + detail::shown(token) + " of mode " + std::to_string(mode + 1) +
                           " is below 1 (.tns indices are 1-based)");
    }
    const std::int64_t extent = bound_[mode];
    if (status == NumberStatus::OutOfRange || (extent >= 0 && index > extent)) {
      fail_entry(line, "index " + detail::shown(token) + " of mode " + std::to_string(mode + 1) + " out of range [1, " +
                           (extent >= 0 ? std::to_string(extent) : std::string("2^63-1")) + "]");
    }
    max_index_[mode] = std::max(max_index_[mode], index);
    coo.coords.push_back(index - 1);
  }
  const std::string_view value_token = detail::next_token(rest);
  if (value_token.empty() || !detail::next_token(rest).empty()) fail_entry(line, "wrong token count");
  double value = 0;
  switch (detail::parse_double(value_token, value)) {
    case NumberStatus::Invalid:
      fail_entry(line, "invalid value " + detail::quoted(value_token) + " (expected a number)");
    case NumberStatus::OutOfRange:
      fail_entry(line, "value " + detail::shown(value_token) + " out of the range of double");
    case NumberStatus::Ok:
      break;
  }
  coo.values.push_back(value);
}

HostCoo<double> TnsReader::read() {
  check_line_ends(cursor_.rest());
  HostCoo<double> coo;
  std::string_view line;
  if (!next_content_line(line)) {
    if (bound_shape().empty()) {
      throw ParseError(path_, cursor_.end_line_number(),
                       "empty tensor file needs an explicit shape (an argument, or a '# shape ...' comment)");
    }
    coo.shape = bound_shape();
    return coo;
  }
  start(line, coo);
  bound_.assign(order_, -1);
  if (!bound_shape().empty()) bound_ = bound_shape();
  do {
    parse_entry(line, coo);
  } while (next_content_line(line));
  coo.shape = bound_shape().empty() ? max_index_ : bound_shape();
  return coo;
}

void validate_tensor(const HostCoo<double>& coo) {
  if (coo.order() < 1) throw ShapeError("write_tns: a tensor needs at least one mode");
  for (const std::int64_t extent : coo.shape) {
    if (extent < 0) throw ShapeError("write_tns: negative extent " + std::to_string(extent));
  }
  const std::size_t order = coo.shape.size();
  if (coo.coords.size() != order * coo.values.size()) {
    throw ShapeError("write_tns: " + std::to_string(coo.coords.size()) + " coordinates for " +
                     std::to_string(coo.values.size()) + " values of an order-" + std::to_string(order) + " tensor");
  }
  for (std::size_t k = 0; k < coo.coords.size(); ++k) {
    const std::int64_t index = coo.coords[k];
    const std::int64_t extent = coo.shape[k % order];
    if (index < 0 || index >= extent) {
      throw IndexError("write_tns: entry " + std::to_string(k / order) + " has 0-based index " + std::to_string(index) +
                       " in mode " + std::to_string(k % order) + " outside [0, " + std::to_string(extent) + ")");
    }
  }
}

}  // namespace

HostCoo<double> read_tns(const std::string& path, const std::vector<std::int64_t>& shape) {
  for (const std::int64_t extent : shape) {
    if (extent < 0) throw ShapeError("read_tns: negative extent " + std::to_string(extent) + " in the given shape");
  }
  const std::string text = read_text_file(path);
  return TnsReader(path, text, shape).read();
}

void write_tns(const std::string& path, const HostCoo<double>& coo) {
  validate_tensor(coo);
  const std::size_t order = coo.shape.size();
  std::string out;
  out.reserve(64 + coo.values.size() * (order * 8 + 25));
  out += "# written by Tessera\n# shape";
  for (const std::int64_t extent : coo.shape) {
    out += ' ';
    detail::append_int(out, extent);
  }
  out += '\n';
  for (std::size_t n = 0; n < coo.values.size(); ++n) {
    for (std::size_t mode = 0; mode < order; ++mode) {
      detail::append_int(out, coo.coords[n * order + mode] + 1);
      out += ' ';
    }
    detail::append_double(out, coo.values[n]);
    out += '\n';
  }
  write_text_file(path, out);
}

}  // namespace tessera::io
