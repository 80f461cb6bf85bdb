// Whole-file read/write. Writers compress through zlib's gzFile; the reader
// inflates with zlib's inflate directly, so that it decides what may follow a
// gzip stream (gzread would skip anything).
#include "tessera/core/io/text_file.hpp"

#include <sys/stat.h>
#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string_view>

#include "tessera/core/error.hpp"

namespace tessera::io {
namespace {

// zlib reports system errors as Z_ERRNO; anything else has its own message.
std::string gz_error_text(gzFile file) {
  int code = Z_OK;
  const char* message = gzerror(file, &code);
  if (code == Z_ERRNO) return std::strerror(errno);
  return message != nullptr && *message != '\0' ? message : "unknown zlib error";
}

std::string errno_text(int saved_errno) { return saved_errno != 0 ? std::strerror(saved_errno) : "unknown error"; }

[[noreturn]] void fail(const char* action, const std::string& path, const std::string& why) {
  throw IoError(std::string("cannot ") + action + " '" + path + "': " + why);
}

void write_gzip(const std::string& path, std::string_view text) {
  errno = 0;
  gzFile file = gzopen(path.c_str(), "wb6");
  if (file == nullptr) fail("open", path, errno_text(errno));
  // gzwrite takes an unsigned length, so huge texts go in bounded chunks.
  constexpr std::size_t kChunk = std::size_t{1} << 30;
  std::size_t written = 0;
  while (written < text.size()) {
    const std::size_t chunk = std::min(kChunk, text.size() - written);
    const int n = gzwrite(file, text.data() + written, static_cast<unsigned>(chunk));
    if (n <= 0) {
      const std::string why = gz_error_text(file);
      gzclose(file);
      fail("write", path, why);
    }
    written += static_cast<std::size_t>(n);
  }
  // gzclose flushes the final deflate block, so its failure is a write failure.
  const int rc = gzclose(file);
  if (rc != Z_OK) fail("write", path, rc == Z_ERRNO ? errno_text(errno) : "zlib error " + std::to_string(rc));
}

void write_plain(const std::string& path, std::string_view text) {
  errno = 0;
  std::FILE* file = std::fopen(path.c_str(), "wb");
  if (file == nullptr) fail("open", path, errno_text(errno));
  if (!text.empty() && std::fwrite(text.data(), 1, text.size(), file) != text.size()) {
    const int saved = errno;
    std::fclose(file);
    fail("write", path, errno_text(saved));
  }
  if (std::fclose(file) != 0) fail("write", path, errno_text(errno));
}

// The file's bytes as they are.
std::string read_raw_file(const std::string& path) {
  require_regular_file(path);
  errno = 0;
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> file(std::fopen(path.c_str(), "rb"), &std::fclose);
  if (file == nullptr) fail("open", path, errno_text(errno));
  std::string raw;
  constexpr std::size_t kChunk = std::size_t{1} << 20;
  for (;;) {
    const std::size_t old_size = raw.size();
    raw.resize(old_size + kChunk);
    errno = 0;
    const std::size_t n = std::fread(raw.data() + old_size, 1, kChunk, file.get());
    raw.resize(old_size + n);
    if (n < kChunk) {
      if (std::ferror(file.get())) fail("read", path, errno_text(errno));  // a directory: EISDIR
      return raw;
    }
  }
}

bool starts_gzip_member(std::string_view raw, std::size_t at) {
  return raw.size() >= at + 2 && static_cast<unsigned char>(raw[at]) == 0x1f &&
         static_cast<unsigned char>(raw[at + 1]) == 0x8b;
}

// Inflates every gzip member of `raw` (gzip allows several, one after the other, as
// `cat a.gz b.gz` makes). zlib's gzread would also skip whatever follows the last member
// when it is not one; that would drop data without a word (a damaged header of a .tns
// file's second member loses its entries, which no count in the file checks), so bytes
// after a member must be another member or zero padding (which some tools append).
std::string inflate_gzip(std::string_view raw, const std::string& path) {
  struct Inflater {
    z_stream stream{};
    bool started = false;
    ~Inflater() {
      if (started) inflateEnd(&stream);
    }
  } inflater;
  z_stream& zs = inflater.stream;
  if (inflateInit2(&zs, 16 + MAX_WBITS) != Z_OK) fail("read", path, "zlib cannot start inflating");
  inflater.started = true;

  // zlib counts bytes in 32-bit unsigned ints, so input and output go in bounded pieces.
  constexpr std::size_t kPiece = std::size_t{1} << 30;
  std::size_t fed = 0;  // bytes of raw handed to zlib so far
  std::string text(std::max<std::size_t>(raw.size() * 4, 1u << 16), '\0');
  std::size_t produced = 0;
  for (;;) {
    if (zs.avail_in == 0 && fed < raw.size()) {
      const std::size_t piece = std::min(kPiece, raw.size() - fed);
      zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(raw.data() + fed));
      zs.avail_in = static_cast<uInt>(piece);
      fed += piece;
    }
    if (produced == text.size()) text.resize(text.size() * 2);
    const std::size_t room = std::min(kPiece, text.size() - produced);
    zs.next_out = reinterpret_cast<Bytef*>(text.data() + produced);
    zs.avail_out = static_cast<uInt>(room);
    const int rc = inflate(&zs, Z_NO_FLUSH);
    produced += room - zs.avail_out;
    const std::size_t consumed = fed - zs.avail_in;  // bytes of raw zlib has used
    if (rc == Z_STREAM_END) {
      if (starts_gzip_member(raw, consumed)) {
        if (inflateReset(&zs) != Z_OK) fail("read", path, "zlib cannot restart inflating");
        continue;
      }
      const std::string_view rest = raw.substr(consumed);
      if (std::any_of(rest.begin(), rest.end(), [](char c) { return c != '\0'; }))
        fail("read", path,
             "data after the end of the gzip stream at byte " + std::to_string(consumed) +
                 " is neither another gzip member nor zero padding (a damaged or partly overwritten file?)");
      text.resize(produced);
      return text;
    }
    if (rc == Z_OK || rc == Z_BUF_ERROR) {
      // Room left to write and no input left: the stream stops before its end.
      if (zs.avail_out != 0 && zs.avail_in == 0 && fed == raw.size())
        fail("read", path, "unexpected end of file: the gzip stream is truncated");
      continue;
    }
    fail("read", path, std::string("corrupt gzip data: ") + (zs.msg != nullptr ? zs.msg : "zlib error " + std::to_string(rc)));
  }
}

}  // namespace

void require_regular_file(const std::string& path) {
  struct stat info {};
  if (::stat(path.c_str(), &info) != 0) fail("open", path, errno_text(errno));
  if (S_ISREG(info.st_mode)) return;
  if (S_ISDIR(info.st_mode)) fail("read", path, errno_text(EISDIR));
  const char* kind = S_ISFIFO(info.st_mode) ? "a FIFO" : S_ISCHR(info.st_mode) || S_ISBLK(info.st_mode) ? "a device"
                     : S_ISSOCK(info.st_mode)                                                             ? "a socket"
                                                                                                          : "a special file";
  fail("read", path, std::string("it is ") + kind + ", not a regular file (copy the data to a file first)");
}

bool has_gz_suffix(const std::string& path) { return path.size() >= 3 && path.compare(path.size() - 3, 3, ".gz") == 0; }

std::string read_text_file(const std::string& path) {
  const std::string raw = read_raw_file(path);
  if (!starts_gzip_member(raw, 0)) return raw;
  return inflate_gzip(raw, path);
}

void write_text_file(const std::string& path, std::string_view text) {
  if (has_gz_suffix(path)) {
    write_gzip(path, text);
  } else {
    write_plain(path, text);
  }
}

bool LineCursor::next(std::string_view& line) {
  if (pos_ >= text_.size()) return false;
  const std::size_t end = text_.find('\n', pos_);
  if (end == std::string_view::npos) {
    line = text_.substr(pos_);
    pos_ = text_.size();
  } else {
    line = text_.substr(pos_, end - pos_);
    pos_ = end + 1;
  }
  ++line_number_;
  return true;
}

}  // namespace tessera::io
