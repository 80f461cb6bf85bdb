// Collective error agreement: the lowest failing rank broadcasts what it threw
// (kind, message, and file/line for ParseError); every rank rebuilds and throws it.
#include "tessera/core/dist/collective_error.hpp"

#include <climits>
#include <new>
#include <vector>

#include "tessera/core/dist/mpi_datatype.hpp"
#include "tessera/core/error.hpp"

namespace tessera::dist {
namespace {

enum class Kind : std::int64_t { Error, Io, Parse, Shape, Index, Overflow, Format, NotCompiled, Cuda, OutOfMemory };

struct Record {
  Kind kind = Kind::Error;
  std::string message;  // for ParseError: the part after "file:line: "
  std::string file;       // OutOfMemoryError: the label
  std::int64_t line = 0;  // OutOfMemoryError: the bytes (as the same 64 bits)
};

// The most derived classes first.
Record describe(std::exception_ptr error) {
  Record r;
  try {
    std::rethrow_exception(error);
  } catch (const ParseError& e) {
    r.kind = Kind::Parse;
    r.file = e.file();
    r.line = e.line();
    const std::string prefix = e.file() + ":" + std::to_string(e.line()) + ": ";
    const std::string what = e.what();
    r.message = what.compare(0, prefix.size(), prefix) == 0 ? what.substr(prefix.size()) : what;
  } catch (const IoError& e) {
    r = {Kind::Io, e.what()};
  } catch (const ShapeError& e) {
    r = {Kind::Shape, e.what()};
  } catch (const IndexError& e) {
    r = {Kind::Index, e.what()};
  } catch (const OverflowError& e) {
    r = {Kind::Overflow, e.what()};
  } catch (const FormatError& e) {
    r = {Kind::Format, e.what()};
  } catch (const NotCompiled& e) {
    r = {Kind::NotCompiled, e.what()};
  } catch (const CudaError& e) {
    r = {Kind::Cuda, e.what()};
  } catch (const OutOfMemoryError& e) {
    r = {Kind::OutOfMemory, e.what(), e.label(), static_cast<std::int64_t>(e.bytes())};
  } catch (const std::bad_alloc&) {
    r = {Kind::Error, "out of memory (std::bad_alloc)"};
  } catch (const std::exception& e) {
    r = {Kind::Error, e.what()};
  } catch (...) {
    r = {Kind::Error, "unknown exception"};
  }
  return r;
}

[[noreturn]] void raise(const Record& r, int rank) {
  const std::string m = "rank " + std::to_string(rank) + ": " + r.message;
  switch (r.kind) {
    case Kind::Parse: throw ParseError(r.file, r.line, m);
    case Kind::Io: throw IoError(m);
    case Kind::Shape: throw ShapeError(m);
    case Kind::Index: throw IndexError(m);
    case Kind::Overflow: throw OverflowError(m);
    case Kind::Format: throw FormatError(m);
    case Kind::NotCompiled: throw NotCompiled(m);
    case Kind::Cuda: throw CudaError(m);
    case Kind::OutOfMemory: throw OutOfMemoryError::with_message(m, r.file, static_cast<std::size_t>(r.line));
    case Kind::Error: break;
  }
  throw Error(m);
}

void broadcast_string(MPI_Comm comm, std::string& s, int root) {
  std::int64_t size = static_cast<std::int64_t>(s.size());
  MPI_Bcast(&size, 1, MPI_INT64_T, root, comm);
  s.resize(static_cast<std::size_t>(size));
  MPI_Bcast(s.data(), mpi_count(size, "error message"), MPI_CHAR, root, comm);
}

}  // namespace

void raise_if_any_failed(MPI_Comm comm, std::exception_ptr error) {
  const int rank = comm_rank(comm);
  int failed = error ? rank : INT_MAX;
  int first_failed = INT_MAX;
  MPI_Allreduce(&failed, &first_failed, 1, MPI_INT, MPI_MIN, comm);
  if (first_failed == INT_MAX) return;

  Record r;
  if (rank == first_failed) r = describe(error);
  std::int64_t header[2] = {static_cast<std::int64_t>(r.kind), r.line};
  MPI_Bcast(header, 2, MPI_INT64_T, first_failed, comm);
  r.kind = static_cast<Kind>(header[0]);
  r.line = header[1];
  broadcast_string(comm, r.message, first_failed);
  broadcast_string(comm, r.file, first_failed);
  raise(r, first_failed);
}

void require_same_on_all_ranks(MPI_Comm comm, std::int64_t value, const std::string& what) {
  std::int64_t lo = 0, hi = 0;
  MPI_Allreduce(&value, &lo, 1, MPI_INT64_T, MPI_MIN, comm);
  MPI_Allreduce(&value, &hi, 1, MPI_INT64_T, MPI_MAX, comm);
  if (lo != hi)
    throw ShapeError(what + " differs between ranks (from " + std::to_string(lo) + " to " + std::to_string(hi) + ")");
}

void require_same_on_all_ranks(MPI_Comm comm, const std::vector<std::int64_t>& values, const std::string& what) {
  require_same_on_all_ranks(comm, static_cast<std::int64_t>(values.size()), what + " (length)");
  const int n = mpi_count(static_cast<std::int64_t>(values.size()), "require_same_on_all_ranks");
  std::vector<std::int64_t> lo(values.size()), hi(values.size());
  MPI_Allreduce(values.data(), lo.data(), n, MPI_INT64_T, MPI_MIN, comm);
  MPI_Allreduce(values.data(), hi.data(), n, MPI_INT64_T, MPI_MAX, comm);
  for (std::size_t e = 0; e < values.size(); ++e)
    if (lo[e] != hi[e])
      throw ShapeError(what + " differs between ranks at entry " + std::to_string(e) + " (from " +
                       std::to_string(lo[e]) + " to " + std::to_string(hi[e]) + ")");
}

}  // namespace tessera::dist
