#pragma once
/// \file
/// Collective error agreement: a failure on one rank (a bad file, a bad shape)
/// must become an exception on every rank, or the others hang in their next
/// collective call. Library code never calls MPI_Abort.
///
/// \code
///   dist::agree_on_errors(comm, [&] { ...work that may throw on some ranks... });
/// \endcode
///
/// runs the work, then (collectively) checks whether any rank threw. If so, every
/// rank throws the same tessera::Error subclass as the lowest failing rank, with its
/// message prefixed by "rank <r>: " (ParseError keeps its file and line).
#include <mpi.h>

#include <cstdint>
#include <exception>
#include <string>
#include <vector>

namespace tessera::dist {

/// Collective over `comm`. `error` is this rank's failure (null when it succeeded).
/// Returns when no rank failed; throws on every rank otherwise.
void raise_if_any_failed(MPI_Comm comm, std::exception_ptr error);

/// Collective: runs `work`, then throws on every rank if it threw on any (see the file's comment).
template <class F>
void agree_on_errors(MPI_Comm comm, F&& work) {
  std::exception_ptr error;
  try {
    work();
  } catch (...) {
    error = std::current_exception();
  }
  raise_if_any_failed(comm, error);
}

/// Collective: throws ShapeError on every rank unless `value` is the same on all ranks.
void require_same_on_all_ranks(MPI_Comm comm, std::int64_t value, const std::string& what);
/// The same for a whole array (its length first): e.g. partition offsets that must agree.
void require_same_on_all_ranks(MPI_Comm comm, const std::vector<std::int64_t>& values, const std::string& what);

}  // namespace tessera::dist
