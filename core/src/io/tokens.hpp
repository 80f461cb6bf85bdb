#pragma once
// Private helpers shared by the text readers: whitespace tokenising and strict
// number parsing with std::from_chars (locale-free, no allocation, no streams).
#include <algorithm>
#include <charconv>
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>
#include <system_error>

namespace tessera::io::detail {

// '\r' counts as whitespace so that CRLF files parse like LF files.
inline bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }

// Removes and returns the next whitespace-separated token of `rest`; returns an
// empty view when none is left.
inline std::string_view next_token(std::string_view& rest) {
  std::size_t begin = 0;
  while (begin < rest.size() && is_space(rest[begin])) ++begin;
  std::size_t end = begin;
  while (end < rest.size() && !is_space(rest[end])) ++end;
  const std::string_view token = rest.substr(begin, end - begin);
  rest.remove_prefix(end);
  return token;
}

// A line that holds only whitespace.
inline bool is_blank(std::string_view line) {
  for (char c : line) {
    if (!is_space(c)) return false;
  }
  return true;
}

// A line whose first non-blank character is `marker` ('%' or '#').
inline bool is_comment(std::string_view line, char marker) {
  for (char c : line) {
    if (!is_space(c)) return c == marker;
  }
  return false;
}

// A token as an error message shows it: bytes that are not printable ASCII as \xNN (a NUL
// would end the message's C string), and the first 40 characters of a longer one with its
// length (a 5000-digit value made a 5000-character message).
inline std::string shown(std::string_view token) {
  constexpr std::size_t kShown = 40;
  std::string out;
  for (std::size_t i = 0; i < token.size() && i < kShown; ++i) {
    const unsigned char c = static_cast<unsigned char>(token[i]);
    if (c >= 0x20 && c < 0x7f) {
      out += static_cast<char>(c);
    } else {
      char hex[5];
      std::snprintf(hex, sizeof hex, "\\x%02X", c);
      out += hex;
    }
  }
  if (token.size() > kShown) out += "... (" + std::to_string(token.size()) + " characters)";
  return out;
}
inline std::string quoted(std::string_view token) { return "'" + shown(token) + "'"; }

enum class NumberStatus { Ok, Invalid, OutOfRange };

// from_chars rejects a leading '+', which some writers emit ("+1.5e+00"); strip
// exactly one so that "+-1" stays invalid.
inline std::string_view strip_plus(std::string_view token) {
  if (token.size() > 1 && token[0] == '+' && token[1] != '-' && token[1] != '+') token.remove_prefix(1);
  return token;
}

// The whole token must be an integer: "1.5", "2x" and "" are Invalid.
inline NumberStatus parse_int64(std::string_view token, std::int64_t& out) {
  token = strip_plus(token);
  if (token.empty()) return NumberStatus::Invalid;
  const char* end = token.data() + token.size();
  const auto [ptr, ec] = std::from_chars(token.data(), end, out);
  if (ptr != end) return NumberStatus::Invalid;
  if (ec == std::errc::result_out_of_range) return NumberStatus::OutOfRange;
  return ec == std::errc() ? NumberStatus::Ok : NumberStatus::Invalid;
}

// Which way a decimal token that from_chars found out of range failed: it overflows when
// its decimal exponent (that of its first nonzero digit plus the written one) is positive,
// it underflows when negative (out of range means beyond 1e308 or below 1e-307 there).
// strtod would tell, but it reads the decimal point of the program's locale: under a
// decimal comma it read "1.5e400" as 1.
inline bool overflows_double(std::string_view token) {
  const auto digit = [&](std::size_t i) { return i < token.size() && token[i] >= '0' && token[i] <= '9'; };
  std::size_t i = !token.empty() && token[0] == '-' ? 1 : 0;
  long long place = 0;
  bool nonzero = false;
  for (; digit(i); ++i) {
    if (nonzero) ++place;
    else nonzero = token[i] != '0';
  }
  if (i < token.size() && token[i] == '.')
    for (++i; digit(i); ++i)
      if (!nonzero) {
        --place;
        nonzero = token[i] != '0';
      }
  long long written = 0;
  if (i < token.size() && (token[i] == 'e' || token[i] == 'E')) {
    const bool negative = i + 1 < token.size() && token[i + 1] == '-';
    if (i + 1 < token.size() && (token[i + 1] == '-' || token[i + 1] == '+')) ++i;
    for (++i; digit(i); ++i) written = std::min(written * 10 + (token[i] - '0'), 1LL << 40);  // saturates
    if (negative) written = -written;
  }
  return place + written > 0;
}

// The whole token must be a floating-point number ("inf" and "nan" included).
// Values too small for a double become 0 with their sign (such entries exist in real
// files); values too large are OutOfRange.
inline NumberStatus parse_double(std::string_view token, double& out) {
  token = strip_plus(token);
  if (token.empty()) return NumberStatus::Invalid;
  const char* end = token.data() + token.size();
  const auto [ptr, ec] = std::from_chars(token.data(), end, out);
  if (ptr != end) return NumberStatus::Invalid;
  if (ec == std::errc::result_out_of_range) {  // from_chars leaves `out` untouched here
    if (overflows_double(token)) return NumberStatus::OutOfRange;
    out = token[0] == '-' ? -0.0 : 0.0;
    return NumberStatus::Ok;
  }
  return ec == std::errc() ? NumberStatus::Ok : NumberStatus::Invalid;
}

}  // namespace tessera::io::detail
