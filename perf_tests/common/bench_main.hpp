#pragma once
// main() of a plain benchmark program: its command line walked strictly (the options every
// program shares through opt.take, its own through option(cl), which rejects what it does not
// take), Kokkos initialized, then run(opt); an exception ends it with its message and status 1.
#include <cstdio>
#include <exception>

#include <Kokkos_Core.hpp>

#include "tessera/core/command_line.hpp"

namespace tessera_bench {

template <class Options, class Option, class Run>
int bench_main(int argc, char** argv, const char* program, const char* usage, Options& opt, Option option,
               Run run) {
  if (const auto status = tessera::walk_command_line(program, [&] {
        for (tessera::CommandLine cl(argc, argv, usage); cl.next();)
          if (!opt.take(cl)) option(cl);
      }))
    return *status;
  Kokkos::ScopeGuard kokkos(argc, argv);
  try {
    return run(opt);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s: %s\n", program, e.what());
    return 1;
  }
}

}  // namespace tessera_bench
