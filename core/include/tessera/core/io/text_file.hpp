#pragma once
/// \file
/// Whole-file text I/O with transparent gzip, plus a line cursor for parsers.
/// Readers parse from one in-memory buffer (fast, no per-token stream calls);
/// the cursor keeps the 1-based line number every ParseError must carry.
#include <cstdint>
#include <string>
#include <string_view>

namespace tessera::io {

/// True when `path` ends in ".gz": writers compress exactly these files.
bool has_gz_suffix(const std::string& path);

/// Throws IoError naming the path unless it names a regular file (or a link to one): a
/// device, FIFO or socket has no size to bound a read (/dev/zero never ends, a FIFO
/// blocks), and reading a directory fails with the system's reason.
void require_regular_file(const std::string& path);

/// Reads the whole file. Gzip data (recognised by its magic bytes, whatever the
/// name) is decompressed, several concatenated gzip members as one text; plain
/// files are returned as they are.
/// Throws IoError naming the path when the file cannot be opened or read or is not a
/// regular file (require_regular_file),
/// including a truncated or corrupt gzip stream and bytes after the last gzip
/// member that are not zero padding.
std::string read_text_file(const std::string& path);

/// Writes `text` to `path`, replacing it; gzip-compressed when the path ends in
/// ".gz". Throws IoError naming the path on any open, write or close failure.
void write_text_file(const std::string& path, std::string_view text);

/// Walks a buffer line by line. Lines end at '\\n'; a trailing '\\r' is kept in
/// the line (parsers treat it as whitespace), so "\r\n" files need no special case.
class LineCursor {
 public:
  /// `lines_before`: lines of the file that precede `text`, when it is a piece of
  /// a larger file (the distributed reader parses byte ranges), so numbers stay the file's.
  explicit LineCursor(std::string_view text, std::int64_t lines_before = 0)
      : text_(text), line_number_(lines_before) {}

  /// Stores the next line (without its '\\n') and returns true, or returns false
  /// at the end of the buffer. A final line without '\\n' is still a line.
  bool next(std::string_view& line);

  /// 1-based number of the line last returned by next(); 0 before the first.
  /// After next() returned false it is the number of the file's last line.
  std::int64_t line_number() const { return line_number_; }

  /// Line number to blame for "unexpected end of file": the last line, or 1 for
  /// an empty file (so messages never say "file:0:").
  std::int64_t end_line_number() const { return line_number_ > 0 ? line_number_ : 1; }

  /// Bytes not yet consumed; lets readers size their output before parsing.
  std::string_view rest() const { return text_.substr(pos_); }

 private:
  std::string_view text_;
  std::size_t pos_ = 0;
  std::int64_t line_number_;
};

}  // namespace tessera::io
