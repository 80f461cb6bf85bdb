// Fuzz target of the Matrix Market reader: every input reads or raises a tessera::Error (any
// other exception, a crash, a hang or a sanitizer report is a finding), and what reads is
// written back in its own field and reads back identical.
#include <cstddef>
#include <cstdint>

#include "fuzz_support.hpp"
#include "tessera/core/error.hpp"
#include "tessera/core/io/matrix_market.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using tessera::io::MatrixMarketInfo;
  const std::string path = tessera_fuzz::write_input("in.mtx", data, size);
  MatrixMarketInfo info{};
  tessera::HostCoo<double> coo;
  try {
    coo = tessera::io::read_matrix_market(path, &info);
  } catch (const tessera::Error&) {
    return 0;
  }
  // Symmetric files come back expanded, so they are written as general.
  const std::string again = tessera_fuzz::scratch_path("again.mtx");
  tessera::io::write_matrix_market(again, coo, info.field, MatrixMarketInfo::Symmetry::General);
  tessera_fuzz::require_identical(coo, tessera::io::read_matrix_market(again), "Matrix Market write/read round trip");
  return 0;
}
