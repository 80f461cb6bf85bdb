#pragma once
// What every fuzz target does around its reader: hand the input over as a file (the readers
// take paths) and stop the run, by trapping, when a property fails.
#include <unistd.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>

#include "tessera/core/coo.hpp"

namespace tessera_fuzz {

// A folder of this process's own (fuzzing jobs run side by side) in the system's temporary
// folder, removed when the process exits (libFuzzer ends its runs with exit()). Held by a
// pointer that is never deleted: the exit handler runs after static destructors would have.
inline const std::filesystem::path& scratch_dir() {
  static const std::filesystem::path* dir = [] {
    auto* d = new std::filesystem::path(std::filesystem::temp_directory_path() /
                                        ("tessera_fuzz_" + std::to_string(::getpid())));
    std::filesystem::create_directories(*d);
    std::atexit([] {
      std::error_code ignored;
      std::filesystem::remove_all(scratch_dir(), ignored);
    });
    return d;
  }();
  return *dir;
}

inline std::string scratch_path(const std::string& name) { return (scratch_dir() / name).string(); }

inline std::string write_input(const std::string& name, const std::uint8_t* data, std::size_t size) {
  const std::string path = scratch_path(name);
  std::ofstream(path, std::ios::binary | std::ios::trunc).write(reinterpret_cast<const char*>(data),
                                                                 static_cast<std::streamsize>(size));
  return path;
}

[[noreturn]] inline void property_failed(const char* what) {
  std::fprintf(stderr, "property failed: %s\n", what);
  std::abort();
}

// Bit-identical entries and shape (NaN equals NaN, -0 differs from +0): the writers promise
// round trips that lose nothing.
inline void require_identical(const tessera::HostCoo<double>& a, const tessera::HostCoo<double>& b, const char* what) {
  if (a.shape != b.shape || a.coords != b.coords || a.values.size() != b.values.size()) property_failed(what);
  for (std::size_t n = 0; n < a.values.size(); ++n) {
    if (std::isnan(a.values[n]) && std::isnan(b.values[n])) continue;
    if (std::memcmp(&a.values[n], &b.values[n], sizeof(double)) != 0) property_failed(what);
  }
}

}  // namespace tessera_fuzz
