#pragma once
// FROSTT .tns tensor files (optionally .tns.gz): one entry per line,
// "i1 i2 ... iN value" with 1-based indices; '#' comments and blank lines allowed.
// The order is taken from the first entry line; every entry line must match it.
#include <cstdint>
#include <string>
#include <vector>

#include "tessera/core/coo.hpp"

namespace tessera::io {

// Reads a .tns file into a HostCoo with 0-based coordinates, entries in file order.
// With an empty `shape`, each extent is the largest index seen in that mode, and
// a file without entries is a ParseError (its order and shape are unknown).
// With a `shape`, its length must equal the order, indices beyond it are a
// ParseError, and a file without entries yields an empty tensor of that shape.
// Throws ShapeError for a negative extent, ParseError for malformed content,
// IoError when the file cannot be read.
HostCoo<double> read_tns(const std::string& path, const std::vector<std::int64_t>& shape = {});

// Writes `coo` as .tns (1-based, 17 significant digits), gzip-compressed for a
// ".gz" path. The shape goes into a leading comment only: the format has no
// header, so read it back with an explicit shape to keep trailing empty slices.
// Throws ShapeError/IndexError for an invalid `coo`, IoError on I/O failure.
void write_tns(const std::string& path, const HostCoo<double>& coo);

}  // namespace tessera::io
