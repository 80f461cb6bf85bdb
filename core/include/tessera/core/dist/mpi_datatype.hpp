#pragma once
/// \file
/// MPI datatypes of the value and index types Tessera sends, and the int counts
/// MPI's classic interface takes.
#include <mpi.h>

#include <climits>
#include <cstdint>
#include <string>
#include <type_traits>

#include "tessera/core/dist/collective_error.hpp"
#include "tessera/core/error.hpp"

namespace tessera::dist {

/// MPI datatype of T (float, double, int32, int64 or char).
template <class T>
MPI_Datatype mpi_datatype() {
  if constexpr (std::is_same_v<T, double>) {
    return MPI_DOUBLE;
  } else if constexpr (std::is_same_v<T, float>) {
    return MPI_FLOAT;
  } else if constexpr (std::is_same_v<T, std::int64_t>) {
    return MPI_INT64_T;
  } else if constexpr (std::is_same_v<T, std::int32_t>) {
    return MPI_INT32_T;
  } else if constexpr (std::is_same_v<T, char>) {
    return MPI_CHAR;
  } else {
    static_assert(sizeof(T) == 0, "no MPI datatype for this type (float, double, int32, int64, char)");
  }
}

/// MPI counts and displacements are int: larger messages are refused, not truncated.
inline int mpi_count(std::int64_t n, const char* what) {
  if (n < 0 || n > INT_MAX)
    throw OverflowError(std::string(what) + ": " + std::to_string(n) + " elements do not fit an MPI count (int)");
  return static_cast<int>(n);
}

/// Rank of this process and size of `comm`.
inline int comm_rank(MPI_Comm comm) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  return rank;
}
/// Number of ranks in `comm`.
inline int comm_size(MPI_Comm comm) {
  int size = 0;
  MPI_Comm_size(comm, &size);
  return size;
}

/// Collective: `root` must be a rank of `comm`, MPI ends the whole job (MPI_ERR_ROOT) on any
/// other, and the same on every rank: ranks that took different roots each sent their data as
/// the root's (a scatter summed the matrix twice) or waited in different collectives.
/// Checked before the collective call, so all ranks throw together.
inline void require_root(MPI_Comm comm, int root, const char* what) {
  agree_on_errors(comm, [&] {
    const int size = comm_size(comm);
    if (root < 0 || root >= size)
      throw IndexError(std::string(what) + ": root " + std::to_string(root) + " is not a rank of the communicator (0.." +
                       std::to_string(size - 1) + ")");
  });
  require_same_on_all_ranks(comm, root, std::string(what) + ": root");
}

}  // namespace tessera::dist
