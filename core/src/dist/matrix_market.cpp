// Parallel Matrix Market read by byte ranges. Rank r owns the lines that start in
// [begin_r, end_r) of the entry section: its text runs from just after the first
// '\n' at or after begin_r - 1 to just after the first '\n' at or after end_r - 1,
// so the ranks' texts tile the entry section exactly. Line numbers for errors come
// from an exclusive scan of the ranks' newline counts.
#include "tessera/core/dist/matrix_market.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "../io/tokens.hpp"
#include "tessera/core/dist/collective_error.hpp"
#include "tessera/core/dist/mpi_datatype.hpp"
#include "tessera/core/error.hpp"
#include "tessera/core/io/text_file.hpp"

namespace tessera::dist {
namespace {

using Info = io::MatrixMarketInfo;

// One file, read either by byte range (plain) or from its decompressed text (gzip).
class EntrySource {
 public:
  explicit EntrySource(const std::string& path) : path_(path) {
    io::require_regular_file(path);
    file_.reset(std::fopen(path.c_str(), "rb"));
    if (!file_) fail("open", std::strerror(errno));
    unsigned char magic[2] = {0, 0};
    const std::size_t got = std::fread(magic, 1, 2, file_.get());
    if (std::ferror(file_.get())) fail("read", std::strerror(errno));
    if (got == 2 && magic[0] == 0x1f && magic[1] == 0x8b) {
      text_ = io::read_text_file(path);
      gzip_ = true;
      size_ = static_cast<std::int64_t>(text_.size());
    } else {
      if (std::fseek(file_.get(), 0, SEEK_END) != 0) fail("seek in", std::strerror(errno));
      size_ = static_cast<std::int64_t>(std::ftell(file_.get()));
    }
  }

  std::int64_t size() const { return size_; }

  // Bytes [from, to) of the (decompressed) file, clipped to its end.
  std::string bytes(std::int64_t from, std::int64_t to) const {
    to = std::min(to, size_);
    if (from >= to) return {};
    if (gzip_) return text_.substr(static_cast<std::size_t>(from), static_cast<std::size_t>(to - from));
    std::string out(static_cast<std::size_t>(to - from), '\0');
    if (std::fseek(file_.get(), static_cast<long>(from), SEEK_SET) != 0) fail("seek in", std::strerror(errno));
    if (std::fread(out.data(), 1, out.size(), file_.get()) != out.size())
      fail("read",
           std::ferror(file_.get()) ? std::strerror(errno) : "it ended early (did it change while being read?)");
    return out;
  }

  // Position just after the first '\n' at or after `from`, or size() when there is none.
  std::int64_t after_newline(std::int64_t from) const {
    constexpr std::int64_t kChunk = 1 << 16;
    for (std::int64_t p = from; p < size_; p += kChunk) {
      const std::string chunk = bytes(p, p + kChunk);
      const std::size_t nl = chunk.find('\n');
      if (nl != std::string::npos) return p + static_cast<std::int64_t>(nl) + 1;
    }
    return size_;
  }

 private:
  struct Closer {
    void operator()(std::FILE* f) const { std::fclose(f); }
  };
  [[noreturn]] void fail(const char* action, const std::string& why) const {
    throw IoError(std::string("cannot ") + action + " '" + path_ + "': " + why);
  }

  std::string path_;
  std::unique_ptr<std::FILE, Closer> file_;
  bool gzip_ = false;
  std::string text_;
  std::int64_t size_ = 0;
};

// The header is the banner line, then comment or blank lines, then the size line.
// Returns the bytes up to and including the size line's '\n' (the whole file when
// it ends first): the header parser then reports exactly what is missing. The file is
// read in growing pieces, not a piece per line: headers can hold many comment lines.
std::string header_text(const EntrySource& source) {
  std::string text;
  std::size_t line_start = 0;
  bool banner = true;
  std::int64_t piece = 1 << 16;
  for (;;) {
    const std::size_t nl = text.find('\n', line_start);
    if (nl == std::string::npos) {
      const auto have = static_cast<std::int64_t>(text.size());
      if (have >= source.size()) return text;
      text += source.bytes(have, have + piece);
      piece = std::min<std::int64_t>(2 * piece, 1 << 24);
      continue;
    }
    const std::string_view line(text.data() + line_start, nl - line_start);
    line_start = nl + 1;
    if (banner) {
      banner = false;
      continue;
    }
    if (!io::detail::is_blank(line) && !io::detail::is_comment(line, '%')) {
      text.resize(line_start);
      return text;
    }
  }
}

// Calls visit(offset, index) with the byte offset and line index (0-based) of each entry
// line of `text`, a line neither blank nor a '%' comment, until visit returns false.
template <class Visit>
void for_each_entry_line(std::string_view text, Visit visit) {
  std::int64_t index = 0;
  for (std::size_t p = 0; p < text.size(); ++index) {
    const std::size_t end = std::min(text.find('\n', p), text.size());
    const std::string_view line = text.substr(p, end - p);
    if (!io::detail::is_blank(line) && !io::detail::is_comment(line, '%') && !visit(p, index)) return;
    p = end + 1;
  }
}

void broadcast_header(MPI_Comm comm, io::MatrixMarketHeader& h) {
  std::int64_t fields[8] = {static_cast<std::int64_t>(h.info.format), static_cast<std::int64_t>(h.info.field),
                            static_cast<std::int64_t>(h.info.symmetry), h.info.rows, h.info.cols,
                            h.info.stored_entries, static_cast<std::int64_t>(h.entries_offset),
                            h.lines_before_entries};
  MPI_Bcast(fields, 8, MPI_INT64_T, 0, comm);
  h.info.format = static_cast<Info::Format>(fields[0]);
  h.info.field = static_cast<Info::Field>(fields[1]);
  h.info.symmetry = static_cast<Info::Symmetry>(fields[2]);
  h.info.rows = fields[3];
  h.info.cols = fields[4];
  h.info.stored_entries = fields[5];
  h.entries_offset = static_cast<std::size_t>(fields[6]);
  h.lines_before_entries = fields[7];
}

}  // namespace

HostCoo<double> read_matrix_market_part(MPI_Comm comm, const std::string& path, io::MatrixMarketInfo* info,
                                        bool expand_symmetry) {
  const int rank = comm_rank(comm);
  const int ranks = comm_size(comm);
  std::unique_ptr<EntrySource> source;
  io::MatrixMarketHeader header{};
  agree_on_errors(comm, [&] {
    source = std::make_unique<EntrySource>(path);
    if (rank == 0) header = io::parse_matrix_market_header(path, header_text(*source));
  });
  broadcast_header(comm, header);

  HostCoo<double> part;
  part.shape = {header.info.rows, header.info.cols};
  if (header.info.format == Info::Format::Array) {
    agree_on_errors(comm, [&] {
      if (rank == 0) part = io::read_matrix_market(path, nullptr, expand_symmetry);
    });
    if (info != nullptr) *info = header.info;
    return part;
  }

  // This rank's text: the lines starting in its byte range of the entry section.
  const std::int64_t first = static_cast<std::int64_t>(header.entries_offset);
  const std::int64_t section = source->size() - first;
  const std::int64_t begin = first + section / ranks * rank + std::min<std::int64_t>(rank, section % ranks);
  const std::int64_t end = first + section / ranks * (rank + 1) + std::min<std::int64_t>(rank + 1, section % ranks);
  std::string text;
  bool unterminated_end = false;  // the file's last line has no '\n' (the serial reader counts it)
  agree_on_errors(comm, [&] {
    const std::int64_t start = begin == first ? first : source->after_newline(begin - 1);
    if (start < end) text = source->bytes(start, source->after_newline(end - 1));
    unterminated_end = section > 0 && source->bytes(source->size() - 1, source->size()) != "\n";
  });
  std::int64_t counts[2] = {static_cast<std::int64_t>(std::count(text.begin(), text.end(), '\n')), 0};
  for_each_entry_line(text, [&](std::size_t, std::int64_t) {
    ++counts[1];
    return true;
  });
  std::int64_t before[2] = {0, 0}, totals[2] = {0, 0};  // newlines, entry lines
  MPI_Exscan(counts, before, 2, MPI_INT64_T, MPI_SUM, comm);
  if (rank == 0) before[0] = before[1] = 0;  // MPI_Exscan leaves rank 0's result undefined
  MPI_Allreduce(counts, totals, 2, MPI_INT64_T, MPI_SUM, comm);

  // As the serial reader does, parse the declared number of entry lines and blame the first
  // one beyond them, so that both report the same line (and errors in later lines stay unread).
  const std::int64_t declared = header.info.stored_entries;
  const std::int64_t keep = std::clamp<std::int64_t>(declared - before[1], 0, counts[1]);
  std::size_t parsed_bytes = text.size();
  std::int64_t first_extra_line = -1;  // this rank's line index of the first line beyond them
  if (keep < counts[1]) {
    std::int64_t seen = 0;
    for_each_entry_line(text, [&](std::size_t offset, std::int64_t index) {
      if (seen++ < keep) return true;
      parsed_bytes = offset;
      first_extra_line = index;
      return false;
    });
  }
  agree_on_errors(comm, [&] {
    const std::int64_t lines_before = header.lines_before_entries + before[0];
    io::parse_matrix_market_entries(path, header.info, std::string_view(text).substr(0, parsed_bytes), lines_before,
                                    expand_symmetry, part);
    if (first_extra_line >= 0 && before[1] <= declared)
      throw ParseError(path, lines_before + first_extra_line + 1,
                       "too many entries: the size line declares " + std::to_string(declared));
  });
  if (totals[1] < declared) {
    const std::int64_t last_line = header.lines_before_entries + totals[0] + (unterminated_end ? 1 : 0);
    throw ParseError(path, std::max<std::int64_t>(last_line, 1),
                     "expected " + std::to_string(declared) + " entries, found " + std::to_string(totals[1]));
  }
  if (info != nullptr) *info = header.info;
  return part;
}

}  // namespace tessera::dist
