// Fuzz target of the FROSTT .tns reader: every input reads or raises a tessera::Error, and
// what reads is written back and reads back identical, shape included.
#include <cstddef>
#include <cstdint>

#include "fuzz_support.hpp"
#include "tessera/core/error.hpp"
#include "tessera/core/io/tns.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string path = tessera_fuzz::write_input("in.tns", data, size);
  tessera::HostCoo<double> coo;
  try {
    coo = tessera::io::read_tns(path);
  } catch (const tessera::Error&) {
    return 0;
  }
  const std::string again = tessera_fuzz::scratch_path("again.tns");
  tessera::io::write_tns(again, coo);
  tessera_fuzz::require_identical(coo, tessera::io::read_tns(again), ".tns write/read round trip");
  return 0;
}
