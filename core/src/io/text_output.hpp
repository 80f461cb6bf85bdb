#pragma once
// Private helpers shared by the text writers: append numbers to an in-memory
// text with std::to_chars (locale-free, exact, much faster than printf per value).
#include <charconv>
#include <cstdint>
#include <string>

namespace tessera::io::detail {

inline void append_int(std::string& out, std::int64_t value) {
  char buffer[24];
  const auto result = std::to_chars(buffer, buffer + sizeof buffer, value);
  out.append(buffer, result.ptr);
}

// 17 significant digits, like printf("%.17g"): enough for every double to read
// back bit-identical.
inline void append_double(std::string& out, double value) {
  char buffer[40];
  const auto result = std::to_chars(buffer, buffer + sizeof buffer, value, std::chars_format::general, 17);
  out.append(buffer, result.ptr);
}

}  // namespace tessera::io::detail
