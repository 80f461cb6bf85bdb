#pragma once
/// \file
/// Strict command-line walking for programs built on Tessera (the examples, the perf
/// programs, a user's own pipeline): an option's value must be a whole number of its type,
/// so "--n 4x" or "--n abc" is an error that names the option instead of the 4 that atoi or
/// std::stoi would read (or the std::invalid_argument that ends a program in std::terminate).
/// Header-only, no Kokkos.
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "tessera/core/error.hpp"

namespace tessera {

/// `text` as an integer in [lo, hi], the whole of it; `what` names the value in the error
/// ("--n wants an integer, got '4x'").
inline long long parse_integer(const std::string& text, const std::string& what,
                               long long lo = std::numeric_limits<long long>::min(),
                               long long hi = std::numeric_limits<long long>::max()) {
  char* end = nullptr;
  errno = 0;
  const long long x = std::strtoll(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0') throw Error(what + " wants an integer, got '" + text + "'");
  if (errno == ERANGE || x < lo || x > hi)
    throw Error(what + " wants an integer in [" + std::to_string(lo) + ", " + std::to_string(hi) + "], got " + text);
  return x;
}

/// `text` as a finite or infinite double, the whole of it.
inline double parse_real(const std::string& text, const std::string& what) {
  char* end = nullptr;
  errno = 0;
  const double x = std::strtod(text.c_str(), &end);
  if (text.empty() || *end != '\0') throw Error(what + " wants a number, got '" + text + "'");
  if (errno == ERANGE) throw Error(what + " is out of the range of double: " + text);
  return x;
}

/// Kokkos 3.4 reads the number of --kokkos-threads=N (and of --kokkos-numa, --kokkos-device-id)
/// with std::stoi before it checks the form, so "--kokkos-threads=abc" ends the program in
/// std::terminate and "--kokkos-threads 4" reads past the argument; and it starts its OpenMP
/// back end with a pool of no threads for N = 0, whose dynamically scheduled loops then divide
/// by zero. Kokkos 4 (--kokkos-num-threads, --kokkos-device-id) reads "4x" as 4 and ends a bad
/// value in Kokkos::abort. Checked here first, as the program's own options are, under the names
/// of both (each ignores the other's), so that this header needs no Kokkos.
inline void check_kokkos_argument(const std::string& arg) {
  static constexpr struct {
    const char* name;
    long long lo;
  } kIntegers[] = {{"--kokkos-threads", 1},     {"--kokkos-numa", 1},      {"--kokkos-device", 0},  // 3.4
                   {"--kokkos-num-threads", 1},                                                  // 4.x
                   {"--kokkos-device-id", 0}};                                                   // both
  const std::string name = arg.substr(0, arg.find('='));
  for (const auto& option : kIntegers) {
    if (name != option.name) continue;
    if (name.size() == arg.size()) throw Error(name + " takes its value after '=' (" + name + "=4)");
    parse_integer(arg.substr(name.size() + 1), name, option.lo, std::numeric_limits<int>::max());
  }
}

/// Thrown once -h or --help has printed the usage, so that the program ends with status 0
/// through its normal exit path (Kokkos and MPI finalized) rather than std::exit from
/// inside the parser.
struct HelpShown {};

/// Walks argv left to right:
/// \code{.unparsed}
///   for (tessera::CommandLine cl(argc, argv, usage); cl.next();)
///     if (cl.is("--n")) n = cl.int_value();
///     else if (cl.is("--sizes")) sizes = cl.int64_list();
///     else if (cl.is_option()) cl.reject();
///     else path = cl.single_argument();
/// \endcode
/// -h and --help print `usage` (nothing if it is empty, e.g. on all but one MPI rank) and
/// throw HelpShown. Arguments that start with --kokkos- are Kokkos' own (Kokkos::initialize
/// reads them), so the walk passes over them, checking the integer ones: a program can walk
/// its command line before it initializes Kokkos, and print only its own usage on --help.
/// Errors are tessera::Error.
class CommandLine {
 public:
  /// Walks `argv` (argc entries, argv[0] skipped); `usage` is what --help prints.
  CommandLine(int argc, char** argv, std::string usage) : argc_(argc), argv_(argv), usage_(std::move(usage)) {}

  /// Moves to the next argument that is not Kokkos' own; false at the end.
  bool next() {
    for (;;) {
      if (++at_ >= argc_) return false;
      arg_ = argv_[at_];
      if (arg_.rfind("--kokkos-", 0) != 0) break;
      check_kokkos_argument(arg_);
    }
    if (arg_ == "-h" || arg_ == "--help") {
      std::printf("%s", usage_.c_str());
      throw HelpShown{};
    }
    return true;
  }
  /// The current argument.
  const std::string& arg() const { return arg_; }
  /// The current argument as the program's one positional argument: a second one is an
  /// error, not a silent replacement of the first.
  const std::string& single_argument() {
    if (++positional_ > 1) throw Error("unexpected second argument " + arg_ + " (the program takes one)");
    return arg_;
  }
  /// The current argument is `option`.
  bool is(const char* option) const { return arg_ == option; }
  /// The current argument starts with '-' (and is not just "-").
  bool is_option() const { return arg_.size() > 1 && arg_[0] == '-'; }
  /// The current argument is not one the program takes.
  [[noreturn]] void reject() const {
    throw Error((is_option() ? "unknown option " : "unexpected argument ") + arg_ + " (--help lists them)");
  }

  /// The option's value: the next argument.
  std::string text() {
    if (at_ + 1 >= argc_) throw Error(arg_ + " needs a value");
    return argv_[++at_];
  }
  /// The option's value as an integer in [lo, hi].
  long long integer(long long lo, long long hi) { return parse_integer(text(), arg_, lo, hi); }
  /// The option's value as an int.
  int int_value() { return static_cast<int>(integer(std::numeric_limits<int>::min(), std::numeric_limits<int>::max())); }
  /// The option's value as a std::int64_t.
  std::int64_t int64_value() {
    return integer(std::numeric_limits<long long>::min(), std::numeric_limits<long long>::max());
  }
  /// The option's value as a double.
  double double_value() { return parse_real(text(), arg_); }
  /// A list of integers split by `separator` ("32,64,128", "8:32:32"); an empty item is an error.
  std::vector<std::int64_t> int64_list(char separator = ',') {
    return list_of<std::int64_t>(separator, [&](const std::string& item) { return parse_integer(item, arg_); });
  }
  /// A list of reals split by `separator` ("0.25,1"); an empty item is an error.
  std::vector<double> double_list(char separator = ',') {
    return list_of<double>(separator, [&](const std::string& item) { return parse_real(item, arg_); });
  }
  /// A list of words split by `separator` ("lastfm,fibers"); an empty item is an error.
  std::vector<std::string> text_list(char separator = ',') {
    return list_of<std::string>(separator, [&](const std::string& item) {
      if (item.empty()) throw Error(arg_ + " wants a list of names, got an empty one");
      return item;
    });
  }

 private:
  template <class V, class Parse>
  std::vector<V> list_of(char separator, Parse&& parse) {
    const std::string v = text();
    std::vector<V> out;
    for (std::size_t from = 0;;) {
      const std::size_t end = v.find(separator, from);
      out.push_back(parse(v.substr(from, end - from)));
      if (end == std::string::npos) return out;
      from = end + 1;
    }
  }

  int argc_;
  char** argv_;
  std::string usage_;
  int at_ = 0;
  int positional_ = 0;
  std::string arg_;
};

/// Runs `walk`, a program's loop over a CommandLine: the exit status to end with when the
/// program should end (0 after --help, 2 after an error, which goes to stderr as
/// "<program>: error: <what>" unless `report` is false, as on all but one MPI rank),
/// std::nullopt to go on:
/// \code
///   if (const auto status = tessera::walk_command_line("prog", [&] { for (...) ...; })) return *status;
/// \endcode
template <class Walk>
std::optional<int> walk_command_line(const char* program, Walk walk, bool report = true) {
  try {
    walk();
  } catch (const HelpShown&) {
    return 0;
  } catch (const Error& e) {
    if (report) std::fprintf(stderr, "%s: error: %s\n", program, e.what());
    return 2;
  }
  return std::nullopt;
}

}  // namespace tessera
