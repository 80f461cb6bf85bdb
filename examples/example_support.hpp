#pragma once
// What every example does around its own work: find the real data, and end with a message
// and an exit code instead of an abort (the command line is walked by tessera::CommandLine).
// Not part of the library.
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>

#include <Kokkos_Core.hpp>

#include "tessera/core/command_line.hpp"

namespace tessera_example {

// $TESSERA_DATA_DIR/<relative>; the variable defaults to ../shared/data, the data folder
// next to the repository.
inline std::string data_file(const std::string& relative) {
  const char* dir = std::getenv("TESSERA_DATA_DIR");
  return std::string(dir && *dir ? dir : "../shared/data") + "/" + relative;
}

// main() of a single-process example: Kokkos set up around parse and run; an error (bad
// input, an unreadable file, a failed allocation) ends it with "error: ..." and status 2,
// --help with 0.
template <class Parse, class Run>
int run_example(int argc, char** argv, Parse parse, Run run) {
  Kokkos::ScopeGuard kokkos(argc, argv);
  try {
    return run(parse(argc, argv));
  } catch (const tessera::HelpShown&) {
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 2;
  }
}

}  // namespace tessera_example
