#pragma once
// What every example does around its own work: find the real data, and end with a one-line
// message and an exit code instead of an abort (the command line is walked by tessera::CommandLine).
// Not part of the library.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <new>
#include <optional>
#include <string>

#include <Kokkos_Core.hpp>

#include "tessera/core/command_line.hpp"

namespace tessera_example {

// $TESSERA_DATA_DIR/<relative>; the variable defaults to the data folder the build was
// configured with (CMake's TESSERA_DATA_DIR: ../shared/data next to the repository).
inline std::string data_file(const std::string& relative) {
  const char* dir = std::getenv("TESSERA_DATA_DIR");
  return std::string(dir && *dir ? dir : TESSERA_EXAMPLES_DATA_DIR) + "/" + relative;
}

// What a caught exception says, on one line: Kokkos' allocation failures run over several
// lines ("... failed with the following error: ...\n\nTraceback functionality not
// available"), whose first says all there is; std::bad_alloc's what() names only its type.
inline std::string error_text(const std::exception& e) {
  if (dynamic_cast<const std::bad_alloc*>(&e)) return "out of memory (std::bad_alloc)";
  std::string text = e.what();
  text.erase(std::min(text.find('\n'), text.size()));
  text.erase(text.find_last_not_of(" \t\r") + 1);
  return text.empty() ? "unknown error" : text;
}

// "error: <what>" on stderr, after what the example printed so far (stdout is buffered when
// redirected, and the error line would otherwise come before the progress lines).
inline void report_error(const std::string& what) {
  std::fflush(stdout);
  std::fprintf(stderr, "error: %s\n", what.c_str());
}

// Kokkos prints its options for --kokkos-help when it starts, and the program then runs on.
inline bool asks_for_kokkos_help(int argc, char** argv) {
  for (int i = 1; i < argc; ++i)
    if (std::string(argv[i]) == "--kokkos-help") return true;
  return false;
}

// main() of a single-process example: the command line is walked before Kokkos starts (so
// --help prints the example's usage alone, and a bad option ends before any thread
// starts), then Kokkos is set up around run. An error (bad input, an unreadable file, a
// failed allocation) ends it with "error: ..." and status 2; --help and --kokkos-help end
// it with 0 once the usage is printed.
template <class Parse, class Run>
int run_example(int argc, char** argv, Parse parse, Run run) {
  std::optional<decltype(parse(argc, argv))> args;
  try {
    args.emplace(parse(argc, argv));
  } catch (const tessera::HelpShown&) {
    return 0;
  } catch (const std::exception& e) {
    report_error(error_text(e));
    return 2;
  }
  const bool kokkos_help = asks_for_kokkos_help(argc, argv);
  std::optional<Kokkos::ScopeGuard> kokkos;
  try {
    kokkos.emplace(argc, argv);
  } catch (const std::exception& e) {
    report_error("Kokkos did not start: " + error_text(e));
    return 2;
  }
  if (kokkos_help) return 0;
  try {
    return run(*args);
  } catch (const std::exception& e) {
    report_error(error_text(e));
    return 2;
  }
}

}  // namespace tessera_example
