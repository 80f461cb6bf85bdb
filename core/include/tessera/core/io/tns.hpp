#pragma once
/// \file
/// FROSTT .tns tensor files (optionally .tns.gz): one entry per line,
/// "i1 i2 ... iN value" with 1-based indices; '#' comments and blank lines allowed.
/// The order is taken from the first entry line; every entry line must match it.
#include <cstdint>
#include <string>
#include <vector>

#include "tessera/core/coo.hpp"

namespace tessera::io {

/// Reads a .tns file into a HostCoo with 0-based coordinates, entries in file order.
/// The shape is, in this order of precedence: `shape` when given; the extents of a
/// "# shape E1 E2 ... EN" comment before the first entry (write_tns writes one); else each
/// extent is the largest index seen in that mode. A given or declared shape must have the
/// entries' order, and indices beyond it are a ParseError; a file without entries yields an
/// empty tensor of that shape, and is a ParseError without one (its order is unknown).
/// Throws ShapeError for a negative given extent, ParseError for malformed content (lone-CR
/// line ends, a second shape comment or a negative extent in one included), IoError when the
/// file cannot be read.
HostCoo<double> read_tns(const std::string& path, const std::vector<std::int64_t>& shape = {});

/// Writes `coo` as .tns (1-based, 17 significant digits) after a "# shape ..." comment that
/// read_tns takes back, so trailing empty slices and empty tensors round-trip;
/// gzip-compressed for a ".gz" path.
/// Throws ShapeError/IndexError for an invalid `coo`, IoError on I/O failure.
void write_tns(const std::string& path, const HostCoo<double>& coo);

}  // namespace tessera::io
