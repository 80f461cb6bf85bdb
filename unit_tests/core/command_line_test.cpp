// Tests of tessera::CommandLine and the number parsers under it: whole numbers only,
// ranges, lists, missing values, unknown options and --help.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "tessera/core/command_line.hpp"
#include "tessera/core/error.hpp"

namespace {

// argv as a program receives it: argv[0] the program's name.
struct Argv {
  explicit Argv(std::vector<std::string> args) : strings(std::move(args)) {
    strings.insert(strings.begin(), "prog");
    for (auto& s : strings) pointers.push_back(s.data());
  }
  int argc() const { return static_cast<int>(pointers.size()); }
  char** argv() { return pointers.data(); }
  std::vector<std::string> strings;
  std::vector<char*> pointers;
};

// The message of the tessera::Error that `f` throws ("" when it throws none).
template <class F>
std::string error_of(F f) {
  try {
    f();
  } catch (const tessera::Error& e) {
    return e.what();
  }
  return "";
}

TEST(ParseInteger, AcceptsWholeNumbersOnly) {
  EXPECT_EQ(tessera::parse_integer("42", "--n"), 42);
  EXPECT_EQ(tessera::parse_integer("-7", "--n"), -7);
  EXPECT_EQ(tessera::parse_integer("9223372036854775807", "--n"), std::numeric_limits<long long>::max());
  EXPECT_EQ(error_of([] { tessera::parse_integer("4x", "--n"); }), "--n wants an integer, got '4x'");
  EXPECT_EQ(error_of([] { tessera::parse_integer("abc", "--n"); }), "--n wants an integer, got 'abc'");
  EXPECT_EQ(error_of([] { tessera::parse_integer("", "--n"); }), "--n wants an integer, got ''");
  EXPECT_EQ(error_of([] { tessera::parse_integer("1e3", "--n"); }), "--n wants an integer, got '1e3'");
  EXPECT_EQ(error_of([] { tessera::parse_integer("2.5", "--n"); }), "--n wants an integer, got '2.5'");
}

TEST(ParseInteger, RejectsValuesOutOfRange) {
  EXPECT_EQ(tessera::parse_integer("10", "--reps", 1, 10), 10);
  EXPECT_EQ(error_of([] { tessera::parse_integer("0", "--reps", 1, 10); }),
            "--reps wants an integer in [1, 10], got 0");
  EXPECT_NE(error_of([] { tessera::parse_integer("99999999999999999999", "--n"); }), "");
}

TEST(ParseReal, AcceptsWholeNumbersOnly) {
  EXPECT_DOUBLE_EQ(tessera::parse_real("1e-8", "--tol"), 1e-8);
  EXPECT_DOUBLE_EQ(tessera::parse_real("-0.25", "--tol"), -0.25);
  EXPECT_EQ(error_of([] { tessera::parse_real("1e-3x", "--tol"); }), "--tol wants a number, got '1e-3x'");
  EXPECT_EQ(error_of([] { tessera::parse_real("fast", "--tol"); }), "--tol wants a number, got 'fast'");
  EXPECT_EQ(error_of([] { tessera::parse_real("1e999", "--tol"); }), "--tol is out of the range of double: 1e999");
  EXPECT_EQ(error_of([] { tessera::parse_real("1e-999", "--tol"); }), "--tol is out of the range of double: 1e-999");
}

TEST(CommandLine, WalksOptionsValuesAndArguments) {
  Argv a({"--n", "16", "--tol", "0.5", "--sizes", "32,64,128", "file.mtx", "--flag"});
  int n = 0;
  double tol = 0;
  std::vector<std::int64_t> sizes;
  std::vector<std::string> plain;
  bool flag = false;
  for (tessera::CommandLine cl(a.argc(), a.argv(), "usage\n"); cl.next();) {
    if (cl.is("--n")) n = cl.int_value();
    else if (cl.is("--tol")) tol = cl.double_value();
    else if (cl.is("--sizes")) sizes = cl.int64_list();
    else if (cl.is("--flag")) flag = true;
    else if (cl.is_option()) cl.reject();
    else plain.push_back(cl.arg());
  }
  EXPECT_EQ(n, 16);
  EXPECT_DOUBLE_EQ(tol, 0.5);
  EXPECT_EQ(sizes, (std::vector<std::int64_t>{32, 64, 128}));
  EXPECT_EQ(plain, std::vector<std::string>{"file.mtx"});
  EXPECT_TRUE(flag);
}

// Runs `handle` on every argument of `args`; the message of the error it ends with.
template <class Handle>
std::string walk_error(std::vector<std::string> args, Handle handle) {
  Argv a(std::move(args));
  return error_of([&] {
    for (tessera::CommandLine cl(a.argc(), a.argv(), ""); cl.next();) handle(cl);
  });
}

TEST(CommandLine, NamesTheOptionOfEveryError) {
  auto int_option = [](tessera::CommandLine& cl) {
    if (cl.is("--n")) cl.int_value();
    else cl.reject();
  };
  EXPECT_EQ(walk_error({"--n", "4x"}, int_option), "--n wants an integer, got '4x'");
  EXPECT_EQ(walk_error({"--n"}, int_option), "--n needs a value");
  EXPECT_EQ(walk_error({"--n", "3000000000"}, int_option),
            "--n wants an integer in [-2147483648, 2147483647], got 3000000000");
  EXPECT_EQ(walk_error({"--bogus"}, int_option), "unknown option --bogus (--help lists them)");
  EXPECT_EQ(walk_error({"stray"}, int_option), "unexpected argument stray (--help lists them)");
  auto list_option = [](tessera::CommandLine& cl) { cl.int64_list(); };
  EXPECT_EQ(walk_error({"--sizes", "32,,64"}, list_option), "--sizes wants an integer, got ''");
  EXPECT_EQ(walk_error({"--sizes", "32,64,"}, list_option), "--sizes wants an integer, got ''");
  EXPECT_EQ(walk_error({"--sizes", "32,6x"}, list_option), "--sizes wants an integer, got '6x'");
  auto triple = [](tessera::CommandLine& cl) {
    if (cl.int64_list(':') != std::vector<std::int64_t>{8, 32, 64}) throw tessera::Error("wrong values");
  };
  EXPECT_EQ(walk_error({"--pattern", "8:32:64"}, triple), "");
  EXPECT_EQ(walk_error({"--pattern", "8:3x:64"}, triple), "--pattern wants an integer, got '3x'");
  auto reals = [](tessera::CommandLine& cl) {
    if (cl.double_list() != std::vector<double>{0.25, 1.0, 1e-3}) throw tessera::Error("wrong values");
  };
  EXPECT_EQ(walk_error({"--density", "0.25,1,1e-3"}, reals), "");
  EXPECT_EQ(walk_error({"--density", "0.25,,1"}, reals), "--density wants a number, got ''");
  EXPECT_EQ(walk_error({"--density", "0.25,x"}, reals), "--density wants a number, got 'x'");
  auto names = [](tessera::CommandLine& cl) {
    if (cl.text_list() != std::vector<std::string>{"lastfm", "fibers3-10M"}) throw tessera::Error("wrong values");
  };
  EXPECT_EQ(walk_error({"--only", "lastfm,fibers3-10M"}, names), "");
  EXPECT_EQ(walk_error({"--only", "lastfm,,fibers3-10M"}, names), "--only wants a list of names, got an empty one");
  EXPECT_EQ(walk_error({"--only", "lastfm,"}, names), "--only wants a list of names, got an empty one");
}

TEST(CommandLine, TakesOnePositionalArgument) {
  auto path_option = [](tessera::CommandLine& cl) { cl.single_argument(); };
  EXPECT_EQ(walk_error({"a.mtx"}, path_option), "");
  EXPECT_EQ(walk_error({"a.mtx", "b.mtx"}, path_option), "unexpected second argument b.mtx (the program takes one)");
}

// Kokkos' arguments stay in argv until Kokkos::initialize takes them out; a program that
// walks its command line first must neither reject them nor take them as its own.
TEST(CommandLine, PassesOverKokkosArguments) {
  auto path_or_n = [](tessera::CommandLine& cl) {
    if (cl.is("--n")) {
      if (cl.int_value() != 4) throw tessera::Error("wrong --n");
    } else if (cl.is_option()) cl.reject();
    else if (cl.single_argument() != "a.mtx") throw tessera::Error("wrong argument " + cl.arg());
  };
  EXPECT_EQ(walk_error({"--kokkos-threads=2", "a.mtx", "--kokkos-help", "--n", "4", "--kokkos-disable-warnings"},
                       path_or_n),
            "");
  EXPECT_EQ(walk_error({"--kokkos-threads=2"}, path_or_n), "");
  // Only the prefix is Kokkos': its unprefixed forms are the program's to refuse.
  EXPECT_EQ(walk_error({"--threads=2"}, path_or_n), "unknown option --threads=2 (--help lists them)");
  EXPECT_EQ(walk_error({"--kokkos"}, path_or_n), "unknown option --kokkos (--help lists them)");
  // Kokkos' integer arguments are checked before Kokkos reads them (3.4 would std::stoi
  // "abc" into std::terminate, and start a pool of no threads for 0; 4.x would read "4x" as 4),
  // under the names of both generations.
  EXPECT_EQ(walk_error({"--kokkos-threads=abc"}, path_or_n), "--kokkos-threads wants an integer, got 'abc'");
  EXPECT_EQ(walk_error({"--kokkos-threads=0"}, path_or_n),
            "--kokkos-threads wants an integer in [1, 2147483647], got 0");
  EXPECT_EQ(walk_error({"--kokkos-threads", "4"}, path_or_n),
            "--kokkos-threads takes its value after '=' (--kokkos-threads=4)");
  EXPECT_EQ(walk_error({"--kokkos-device-id=-1"}, path_or_n),
            "--kokkos-device-id wants an integer in [0, 2147483647], got -1");
  EXPECT_EQ(walk_error({"--kokkos-device-id=0", "--kokkos-numa=1"}, path_or_n), "");
  EXPECT_EQ(walk_error({"--kokkos-num-threads=2", "a.mtx"}, path_or_n), "");
  EXPECT_EQ(walk_error({"--kokkos-num-threads=4x"}, path_or_n), "--kokkos-num-threads wants an integer, got '4x'");
  EXPECT_EQ(walk_error({"--kokkos-num-threads=0"}, path_or_n),
            "--kokkos-num-threads wants an integer in [1, 2147483647], got 0");
}

TEST(CommandLine, HelpPrintsTheUsageAndThrowsHelpShown) {
  for (const char* help : {"-h", "--help"}) {
    Argv a({"--n", "4", help, "--n", "bad"});
    testing::internal::CaptureStdout();
    bool shown = false;
    try {
      for (tessera::CommandLine cl(a.argc(), a.argv(), "usage: prog [--n N]\n"); cl.next();)
        if (cl.is("--n")) cl.int_value();
    } catch (const tessera::HelpShown&) {
      shown = true;
    }
    EXPECT_TRUE(shown) << help;
    EXPECT_EQ(testing::internal::GetCapturedStdout(), "usage: prog [--n N]\n") << help;
  }
}

}  // namespace
