// Fuzz target of the distributed Matrix Market reader's own parts, its header scan and its
// range parsing: on one rank it must read what the serial reader reads, or fail as the serial
// reader fails (same exception type, same line for a ParseError); and the entry section
// parsed as two line-aligned ranges must give the entries parsed as one.
#include <mpi.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <string_view>
#include <typeinfo>

#include "fuzz_support.hpp"
#include "tessera/core/dist/matrix_market.hpp"
#include "tessera/core/error.hpp"
#include "tessera/core/io/matrix_market.hpp"
#include "tessera/core/io/text_file.hpp"

namespace {

using tessera::HostCoo;
using tessera::io::MatrixMarketInfo;

struct Outcome {
  HostCoo<double> coo;
  std::exception_ptr error;
};

template <class Read>
Outcome attempt(Read read) {
  Outcome out;
  try {
    out.coo = read();
  } catch (const tessera::Error&) {
    out.error = std::current_exception();
  }
  return out;
}

const std::type_info& type_of(const std::exception_ptr& error) {
  try {
    std::rethrow_exception(error);
  } catch (const std::exception& e) {
    return typeid(e);
  } catch (...) {
    return typeid(void);
  }
}

std::int64_t line_of(const std::exception_ptr& error) {
  try {
    std::rethrow_exception(error);
  } catch (const tessera::ParseError& e) {
    return e.line();
  } catch (...) {
    return 0;
  }
}

// The entry section of a coordinate file, once whole and once split at the first line
// that starts past its middle: the same entries in the same order (no mirrors).
void check_split_ranges(const std::string& path) {
  const std::string text = tessera::io::read_text_file(path);
  const tessera::io::MatrixMarketHeader header = tessera::io::parse_matrix_market_header(path, text);
  if (header.info.format != MatrixMarketInfo::Format::Coordinate) return;
  const std::string_view section = std::string_view(text).substr(header.entries_offset);
  const std::size_t newline = section.find('\n', section.size() / 2);
  const std::size_t split = newline == std::string_view::npos ? section.size() : newline + 1;
  const std::string_view first = section.substr(0, split), second = section.substr(split);
  const std::int64_t first_lines = static_cast<std::int64_t>(std::count(first.begin(), first.end(), '\n'));
  HostCoo<double> whole, pieces;
  tessera::io::parse_matrix_market_entries(path, header.info, section, header.lines_before_entries, false, whole);
  tessera::io::parse_matrix_market_entries(path, header.info, first, header.lines_before_entries, false, pieces);
  tessera::io::parse_matrix_market_entries(path, header.info, second, header.lines_before_entries + first_lines, false,
                                           pieces);
  tessera_fuzz::require_identical(whole, pieces, "entries parsed in two ranges");
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int* argc, char*** argv) {
  MPI_Init(argc, argv);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string path = tessera_fuzz::write_input("in.mtx", data, size);
  const Outcome serial = attempt([&] { return tessera::io::read_matrix_market(path); });
  const Outcome parallel = attempt([&] { return tessera::dist::read_matrix_market_part(MPI_COMM_SELF, path); });
  if (!serial.error != !parallel.error) tessera_fuzz::property_failed("one reader failed, the other did not");
  if (serial.error) {
    if (type_of(serial.error) != type_of(parallel.error)) tessera_fuzz::property_failed("different exception types");
    if (line_of(serial.error) != line_of(parallel.error)) tessera_fuzz::property_failed("errors blame different lines");
    return 0;
  }
  tessera_fuzz::require_identical(serial.coo, parallel.coo, "serial and one-rank parallel read");
  check_split_ranges(path);
  return 0;
}
