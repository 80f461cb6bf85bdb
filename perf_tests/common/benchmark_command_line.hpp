#pragma once
// The command line of a Google Benchmark program: Google Benchmark's own flags, then the
// program's options, walked strictly by tessera::CommandLine.
#include <cstdio>
#include <cstring>
#include <optional>

#include <benchmark/benchmark.h>

#include "tessera/core/command_line.hpp"

namespace tessera_bench {

// --help prints `usage` and then Google Benchmark's flags (benchmark::Initialize answers
// --help itself and exits). benchmark::Initialize takes its --benchmark_* flags out of argv;
// `option(cl)` handles each argument left (calling cl.reject() for one it does not take).
// Returns the exit status when the program should end (as tessera::walk_command_line).
template <class Option>
std::optional<int> benchmark_command_line(int& argc, char** argv, const char* program, const char* usage,
                                          Option option) {
  for (int i = 1; i < argc; ++i)
    if (!std::strcmp(argv[i], "--help")) std::printf("%s\n", usage);
  benchmark::Initialize(&argc, argv);
  return tessera::walk_command_line(program, [&] {
    for (tessera::CommandLine cl(argc, argv, usage); cl.next();) option(cl);
  });
}

}  // namespace tessera_bench
