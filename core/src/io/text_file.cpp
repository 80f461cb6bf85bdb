// Whole-file read/write through zlib. gzopen/gzread also read plain files
// (zlib's "transparent" mode), so one code path handles both.
#include "tessera/core/io/text_file.hpp"

#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>

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

}  // namespace

bool has_gz_suffix(const std::string& path) { return path.size() >= 3 && path.compare(path.size() - 3, 3, ".gz") == 0; }

std::string read_text_file(const std::string& path) {
  errno = 0;
  gzFile file = gzopen(path.c_str(), "rb");
  if (file == nullptr) fail("open", path, errno_text(errno));
  // A larger internal buffer roughly halves the decompression time of big files.
  gzbuffer(file, 1u << 18);

  std::string text;
  constexpr unsigned kChunk = 1u << 20;
  for (;;) {
    const std::size_t old_size = text.size();
    text.resize(old_size + kChunk);
    const int n = gzread(file, text.data() + old_size, kChunk);
    if (n < 0) {
      const std::string why = gz_error_text(file);
      gzclose(file);
      fail("read", path, why);
    }
    text.resize(old_size + static_cast<std::size_t>(n));
    if (static_cast<unsigned>(n) < kChunk) break;
  }
  // A truncated gzip stream ends the loop without a negative return; zlib only
  // records it as an error state, so check that explicitly.
  int code = Z_OK;
  gzerror(file, &code);
  if (code != Z_OK && code != Z_STREAM_END) {
    const std::string why = gz_error_text(file);
    gzclose(file);
    fail("read", path, why);
  }
  gzclose(file);
  return text;
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
