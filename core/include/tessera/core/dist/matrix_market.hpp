#pragma once
/// \file
/// Parallel Matrix Market read: the entry section is split into byte ranges, one
/// per rank; each rank parses the whole lines that start in its range. Plain files
/// are read by range (every rank reads only its bytes); gzip streams cannot be
/// entered in the middle, so for .gz files every rank decompresses the stream and
/// parses only its range. Array files, which are not line-per-entry addressable by
/// coordinates, are read on rank 0 only.
#include <mpi.h>

#include <string>

#include "tessera/core/coo.hpp"
#include "tessera/core/io/matrix_market.hpp"

namespace tessera::dist {

/// Collective. Returns this rank's share of the file's entries (global 0-based
/// coordinates, any rows; symmetric files expanded when asked), the shape on every
/// rank, and fills *info (every rank) when given. Errors on any rank (missing file,
/// malformed line, wrong entry count) throw on every rank (see collective_error.hpp);
/// ParseError names the file and the line as the serial reader does.
HostCoo<double> read_matrix_market_part(MPI_Comm comm, const std::string& path, io::MatrixMarketInfo* info = nullptr,
                                        bool expand_symmetry = true);

}  // namespace tessera::dist
