#pragma once
// Matrix Market (.mtx, optionally .mtx.gz) reader and writer.
// Supported: "matrix" objects in coordinate or array format with real, integer
// or pattern fields and general, symmetric or skew-symmetric symmetry.
// Every malformed input raises ParseError ("file:line: what"); sizes that do not
// fit in int64 raise OverflowError; unreadable files raise IoError.
#include <cstdint>
#include <string>
#include <vector>

#include "tessera/core/coo.hpp"

namespace tessera::io {

struct MatrixMarketInfo {
  enum class Format { Coordinate, Array };
  enum class Field { Real, Integer, Pattern };
  enum class Symmetry { General, Symmetric, SkewSymmetric };
  Format format;
  Field field;
  Symmetry symmetry;
  std::int64_t rows, cols;
  // Entries the file stores: the size line's count for coordinate files;
  // rows*cols, or the stored triangle, for array files.
  std::int64_t stored_entries;
};

// Reads a Matrix Market file (gzip-compressed or plain) into a 2-mode HostCoo
// with 0-based coordinates, entries in file order. Pattern entries get value 1.
// Array files yield every stored value (zeros included), column-major.
// Symmetric and skew-symmetric files must store only the lower triangle (strict
// lower for skew); with expand_symmetry the mirrored upper entries (negated for
// skew) are appended after the stored ones, otherwise only stored entries are
// returned. Integer-field values are stored as double (exact up to 2^53).
// Fills *info when given (only on success).
HostCoo<double> read_matrix_market(const std::string& path, MatrixMarketInfo* info = nullptr,
                                   bool expand_symmetry = true);

// Writes `coo` (2 modes) in coordinate format, gzip-compressed for a ".gz" path.
// Symmetric/skew-symmetric: `coo` must hold the full matrix, which is checked;
// only its lower (strict lower for skew) triangle is written. Values are written
// with 17 significant digits so they read back exactly. Integer fields require
// integral values; pattern fields write no values.
// Throws ShapeError/IndexError for an invalid `coo`, FormatError when the values
// or the structure do not fit the requested field or symmetry, IoError on I/O failure.
void write_matrix_market(const std::string& path, const HostCoo<double>& coo,
                         MatrixMarketInfo::Field field = MatrixMarketInfo::Field::Real,
                         MatrixMarketInfo::Symmetry symmetry = MatrixMarketInfo::Symmetry::General);

// Writes a dense rows x cols matrix, given column-major, in "array real general"
// format. Throws ShapeError when col_major.size() != rows*cols.
void write_matrix_market_array(const std::string& path, std::int64_t rows, std::int64_t cols,
                               const std::vector<double>& col_major);

}  // namespace tessera::io
