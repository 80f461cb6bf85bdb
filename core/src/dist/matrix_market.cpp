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
    file_.reset(std::fopen(path.c_str(), "rb"));
    if (!file_) fail("open", std::strerror(errno));
    unsigned char magic[2] = {0, 0};
    const std::size_t got = std::fread(magic, 1, 2, file_.get());
    // fopen opens a directory; reading it fails with EISDIR (the serial reader's message).
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
      fail("read", std::ferror(file_.get()) ? std::strerror(errno) : "it ended early (did it change while being read?)");
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
// it ends first): the header parser then reports exactly what is missing.
std::string header_text(const EntrySource& source) {
  std::int64_t p = 0;
  bool banner = true;
  while (p < source.size()) {
    const std::int64_t next = source.after_newline(p);
    std::string line = source.bytes(p, next);
    if (!line.empty() && line.back() == '\n') line.pop_back();
    p = next;
    if (banner) {
      banner = false;
      continue;
    }
    if (!io::detail::is_blank(line) && !io::detail::is_comment(line, '%')) break;
  }
  return source.bytes(0, p);
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
  agree_on_errors(comm, [&] {
    const std::int64_t start = begin == first ? first : source->after_newline(begin - 1);
    if (start < end) text = source->bytes(start, source->after_newline(end - 1));
  });
  std::int64_t newlines = static_cast<std::int64_t>(std::count(text.begin(), text.end(), '\n'));
  std::int64_t newlines_before = 0;
  MPI_Exscan(&newlines, &newlines_before, 1, MPI_INT64_T, MPI_SUM, comm);
  if (rank == 0) newlines_before = 0;  // MPI_Exscan leaves rank 0's result undefined

  std::int64_t found = 0;
  agree_on_errors(comm, [&] {
    found = io::parse_matrix_market_entries(path, header.info, text, header.lines_before_entries + newlines_before,
                                            expand_symmetry, part);
  });
  std::int64_t totals[2] = {0, 0};
  const std::int64_t mine[2] = {found, newlines};
  MPI_Allreduce(mine, totals, 2, MPI_INT64_T, MPI_SUM, comm);
  if (totals[0] != header.info.stored_entries) {
    const std::int64_t last_line = std::max<std::int64_t>(header.lines_before_entries + totals[1], 1);
    throw ParseError(path, last_line,
                     (totals[0] > header.info.stored_entries ? "too many entries: " : "") + std::string("expected ") +
                         std::to_string(header.info.stored_entries) + " entries, found " + std::to_string(totals[0]));
  }
  if (info != nullptr) *info = header.info;
  return part;
}

}  // namespace tessera::dist
