#pragma once
// What every example does around its own work: walk its command line, find the real data,
// and end with a message and an exit code instead of an abort. Not part of the library.
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <limits>
#include <string>
#include <utility>

#include <Kokkos_Core.hpp>

#include "tessera/core/error.hpp"

namespace tessera_example {

// $TESSERA_DATA_DIR/<relative>; the variable defaults to ../shared/data, the data folder
// next to the repository.
inline std::string data_file(const std::string& relative) {
  const char* dir = std::getenv("TESSERA_DATA_DIR");
  return std::string(dir && *dir ? dir : "../shared/data") + "/" + relative;
}

// Thrown once --help has printed the usage: the example then ends with status 0 through its
// normal exit path (Kokkos, MPI finalized), not std::exit from inside the parser.
struct HelpShown {};

// Walks argv left to right:
//   for (tessera_example::CommandLine cl(argc, argv, usage); cl.next();)
//     if (cl.is("--n")) n = cl.int_value();
//     else if (cl.is_option()) cl.reject();
//     else path = cl.arg();
// Option values must be numbers of their type, whole: "--n 4x", "--n abc" or "--n 1e99" is
// an error that names the option (std::stoi would read "4x" as 4, or end the program on
// std::invalid_argument). -h and --help print `usage` and throw HelpShown.
class CommandLine {
 public:
  CommandLine(int argc, char** argv, std::string usage) : argc_(argc), argv_(argv), usage_(std::move(usage)) {}

  bool next() {
    if (++at_ >= argc_) return false;
    arg_ = argv_[at_];
    if (arg_ == "-h" || arg_ == "--help") {
      std::printf("%s", usage_.c_str());
      throw HelpShown{};
    }
    return true;
  }
  const std::string& arg() const { return arg_; }
  bool is(const char* option) const { return arg_ == option; }
  bool is_option() const { return arg_.size() > 1 && arg_[0] == '-'; }
  [[noreturn]] void reject() const { throw tessera::Error("unknown option " + arg_ + " (--help lists them)"); }

  std::string text() {
    if (at_ + 1 >= argc_) throw tessera::Error(arg_ + " needs a value");
    return argv_[++at_];
  }
  long long integer(long long lo, long long hi) {
    const std::string v = text();
    char* end = nullptr;
    errno = 0;
    const long long x = std::strtoll(v.c_str(), &end, 10);
    if (v.empty() || *end != '\0') throw tessera::Error(arg_ + " wants an integer, got '" + v + "'");
    if (errno == ERANGE || x < lo || x > hi)
      throw tessera::Error(arg_ + " wants an integer in [" + std::to_string(lo) + ", " + std::to_string(hi) +
                           "], got " + v);
    return x;
  }
  int int_value() {
    return static_cast<int>(integer(std::numeric_limits<int>::min(), std::numeric_limits<int>::max()));
  }
  std::int64_t int64_value() {
    return integer(std::numeric_limits<long long>::min(), std::numeric_limits<long long>::max());
  }
  double double_value() {
    const std::string v = text();
    char* end = nullptr;
    errno = 0;
    const double x = std::strtod(v.c_str(), &end);
    if (v.empty() || *end != '\0' || errno == ERANGE) throw tessera::Error(arg_ + " wants a number, got '" + v + "'");
    return x;
  }

 private:
  int argc_;
  char** argv_;
  std::string usage_;
  int at_ = 0;
  std::string arg_;
};

// main() of a single-process example: Kokkos set up around parse and run; an error (bad
// input, an unreadable file, a failed allocation) ends it with "error: ..." and status 2,
// --help with 0.
template <class Parse, class Run>
int run_example(int argc, char** argv, Parse parse, Run run) {
  Kokkos::ScopeGuard kokkos(argc, argv);
  try {
    return run(parse(argc, argv));
  } catch (const HelpShown&) {
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 2;
  }
}

}  // namespace tessera_example
