#pragma once
/// \file
/// Matrix Market (.mtx, optionally .mtx.gz) reader and writer.
/// Supported: "matrix" objects in coordinate or array format with real, integer
/// or pattern fields and general, symmetric or skew-symmetric symmetry.
/// Every malformed input raises ParseError ("file:line: what"); sizes that do not
/// fit in int64 raise OverflowError; unreadable files raise IoError.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "tessera/core/coo.hpp"

namespace tessera::io {

/// What a Matrix Market file's banner and size line say.
struct MatrixMarketInfo {
  /// Sparse (coordinate) or dense (array) storage.
  enum class Format { Coordinate, Array };
  /// Type of the values (pattern: none).
  enum class Field { Real, Integer, Pattern };
  /// Which triangle the file stores.
  enum class Symmetry { General, Symmetric, SkewSymmetric };
  Format format;      ///< Storage of the file.
  Field field;        ///< Value type of the file.
  Symmetry symmetry;  ///< Symmetry of the file.
  /// Number of rows.
  std::int64_t rows, cols;  ///< Number of columns.
  /// Entries the file stores: the size line's count for coordinate files;
  /// rows*cols, or the stored triangle, for array files.
  std::int64_t stored_entries;
};

/// Reads a Matrix Market file (gzip-compressed or plain) into a 2-mode HostCoo
/// with 0-based coordinates, entries in file order. Pattern entries get value 1.
/// Array files yield every stored value (zeros included), column-major.
/// Symmetric and skew-symmetric files must store only the lower triangle (strict
/// lower for skew); with expand_symmetry the mirrored upper entries (negated for
/// skew) are appended after the stored ones, otherwise only stored entries are
/// returned. Integer-field values are stored as double (exact up to 2^53).
/// Fills *info when given (only on success).
HostCoo<double> read_matrix_market(const std::string& path, MatrixMarketInfo* info = nullptr,
                                   bool expand_symmetry = true);

/// Writes `coo` (2 modes) in coordinate format, gzip-compressed for a ".gz" path.
/// Symmetric/skew-symmetric: `coo` must hold the full matrix, which is checked;
/// only its lower (strict lower for skew) triangle is written. Values are written
/// with 17 significant digits so they read back exactly. Integer fields require
/// integral values; pattern fields write no values.
/// Throws ShapeError/IndexError for an invalid `coo`, FormatError when the values
/// or the structure do not fit the requested field or symmetry, IoError on I/O failure.
void write_matrix_market(const std::string& path, const HostCoo<double>& coo,
                         MatrixMarketInfo::Field field = MatrixMarketInfo::Field::Real,
                         MatrixMarketInfo::Symmetry symmetry = MatrixMarketInfo::Symmetry::General);

/// Writes a dense rows x cols matrix, given column-major, in "array real general"
/// format. Throws ShapeError when col_major.size() != rows*cols.
void write_matrix_market_array(const std::string& path, std::int64_t rows, std::int64_t cols,
                               const std::vector<double>& col_major);

// ---- Pieces for readers that split one file between processes (the
// distributed reader parses a byte range of the entry section on every rank).

/// Banner and size line of a file, and where its entries begin.
struct MatrixMarketHeader {
  MatrixMarketInfo info;              ///< What the banner and size line say.
  std::size_t entries_offset;         ///< byte offset of the first line after the size line
  std::int64_t lines_before_entries;  ///< lines up to and including the size line
};

/// Parses the banner and the size line at the start of `text` (whole lines from the
/// file's beginning; `path` names the file in errors). Throws ParseError as
/// read_matrix_market does, e.g. when `text` ends before the size line.
MatrixMarketHeader parse_matrix_market_header(const std::string& path, std::string_view text);

/// Parses `lines` (whole lines of the entry section of a coordinate file described
/// by `info`; `lines_before` file lines precede them, for "file:line" messages) and
/// appends the entries, 0-based, to `coo`, then their mirrors for symmetric files
/// when `expand_symmetry`. Returns how many stored entries were parsed; the caller
/// checks the total against info.stored_entries. Throws ParseError.
std::int64_t parse_matrix_market_entries(const std::string& path, const MatrixMarketInfo& info, std::string_view lines,
                                         std::int64_t lines_before, bool expand_symmetry, HostCoo<double>& coo);

}  // namespace tessera::io
