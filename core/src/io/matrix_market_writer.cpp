// Matrix Market writer: coordinate files of any field and symmetry (checked against the
// entries) and dense array files, formatted in memory with to_chars, then written at once.
#include "tessera/core/io/matrix_market.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "tessera/core/checked_count.hpp"
#include "tessera/core/error.hpp"
#include "tessera/core/io/text_file.hpp"
#include "text_output.hpp"

namespace tessera::io {
namespace {

using Info = MatrixMarketInfo;

const char* field_name(Info::Field field) {
  switch (field) {
    case Info::Field::Real:
      return "real";
    case Info::Field::Integer:
      return "integer";
    case Info::Field::Pattern:
      return "pattern";
  }
  return "real";
}

const char* symmetry_name(Info::Symmetry symmetry) {
  switch (symmetry) {
    case Info::Symmetry::General:
      return "general";
    case Info::Symmetry::Symmetric:
      return "symmetric";
    case Info::Symmetry::SkewSymmetric:
      return "skew-symmetric";
  }
  return "general";
}

std::string entry_text(std::int64_t row, std::int64_t col) {
  return "(" + std::to_string(row + 1) + "," + std::to_string(col + 1) + ")";
}

void validate_matrix(const HostCoo<double>& coo) {
  if (coo.order() != 2) {
    throw ShapeError("write_matrix_market: expected a matrix (2 modes), got " + std::to_string(coo.order()) + " modes");
  }
  const std::int64_t rows = coo.shape[0];
  const std::int64_t cols = coo.shape[1];
  if (rows < 0 || cols < 0) {
    throw ShapeError("write_matrix_market: negative shape " + std::to_string(rows) + " x " + std::to_string(cols));
  }
  if (coo.coords.size() != 2 * coo.values.size()) {
    throw ShapeError("write_matrix_market: " + std::to_string(coo.coords.size()) + " coordinates for " +
                     std::to_string(coo.values.size()) + " values (expected 2 per value)");
  }
  for (std::int64_t n = 0; n < coo.nnz(); ++n) {
    const std::int64_t row = coo.coords[2 * n];
    const std::int64_t col = coo.coords[2 * n + 1];
    if (row < 0 || row >= rows || col < 0 || col >= cols) {
      throw IndexError("write_matrix_market: entry " + std::to_string(n) + " at 0-based (" + std::to_string(row) + "," +
                       std::to_string(col) + ") is outside the " + std::to_string(rows) + " x " + std::to_string(cols) +
                       " shape");
    }
  }
}

// Value identity for the symmetry check: a total order (plain < on doubles is
// not one with NaN, which std::sort must never see) in which 0 == -0.
std::uint64_t value_key(double value) {
  if (value == 0.0) return 0;
  if (std::isnan(value)) return 0x7ff8000000000000ull;
  std::uint64_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  return bits;
}

struct EntryKey {
  std::int64_t row, col;
  std::uint64_t value;
  bool operator<(const EntryKey& o) const {
    if (row != o.row) return row < o.row;
    if (col != o.col) return col < o.col;
    return value < o.value;
  }
  bool operator!=(const EntryKey& o) const { return row != o.row || col != o.col || value != o.value; }
};

// The matrix is (skew-)symmetric exactly when its multiset of entries equals
// the multiset of its transposed (and negated, for skew) entries.
void check_symmetry(const HostCoo<double>& coo, Info::Field field, Info::Symmetry symmetry) {
  if (coo.shape[0] != coo.shape[1]) {
    throw FormatError(std::string("write_matrix_market: a ") + symmetry_name(symmetry) +
                      " matrix must be square, got " + std::to_string(coo.shape[0]) + " x " +
                      std::to_string(coo.shape[1]));
  }
  const bool skew = symmetry == Info::Symmetry::SkewSymmetric;
  const bool pattern = field == Info::Field::Pattern;
  std::vector<EntryKey> entries, transposed;
  entries.reserve(coo.values.size());
  transposed.reserve(coo.values.size());
  for (std::int64_t n = 0; n < coo.nnz(); ++n) {
    const std::int64_t row = coo.coords[2 * n];
    const std::int64_t col = coo.coords[2 * n + 1];
    const double value = coo.values[n];
    if (skew && row == col) {
      throw FormatError("write_matrix_market: skew-symmetric matrix has a diagonal entry " + entry_text(row, col) +
                        ", which the format cannot store");
    }
    entries.push_back({row, col, pattern ? 0 : value_key(value)});
    transposed.push_back({col, row, pattern ? 0 : value_key(skew ? -value : value)});
  }
  std::sort(entries.begin(), entries.end());
  std::sort(transposed.begin(), transposed.end());
  for (std::size_t k = 0; k < entries.size(); ++k) {
    if (entries[k] != transposed[k]) {
      // The smaller key is the one missing from the other list: an entry
      // without a mirror, or the mirror of one (then name the entry itself).
      const bool entry_unmatched = entries[k] < transposed[k];
      const std::int64_t row = entry_unmatched ? entries[k].row : transposed[k].col;
      const std::int64_t col = entry_unmatched ? entries[k].col : transposed[k].row;
      throw FormatError(std::string("write_matrix_market: matrix is not ") + symmetry_name(symmetry) + ": entry " +
                        entry_text(row, col) + " has no matching transposed entry");
    }
  }
}

void append_header(std::string& out, const char* format, Info::Field field, Info::Symmetry symmetry) {
  out += "%%MatrixMarket matrix ";
  out += format;
  out += ' ';
  out += field_name(field);
  out += ' ';
  out += symmetry_name(symmetry);
  out += "\n% written by Tessera\n";
}

// Integers beyond 2^63 or with a fraction cannot be written as integer fields. 2^63 itself
// is what the reader makes of INT64_MAX (the nearest double), so it is written back as that.
constexpr double kTwoTo63 = 9223372036854775808.0;
bool is_int64_value(double value) {
  return std::isfinite(value) && std::trunc(value) == value && value >= -kTwoTo63 && value <= kTwoTo63;
}
std::int64_t as_int64(double value) {
  return value == kTwoTo63 ? std::numeric_limits<std::int64_t>::max() : static_cast<std::int64_t>(value);
}

}  // namespace

void write_matrix_market(const std::string& path, const HostCoo<double>& coo, MatrixMarketInfo::Field field,
                         MatrixMarketInfo::Symmetry symmetry) {
  validate_matrix(coo);
  if (field == Info::Field::Pattern && symmetry == Info::Symmetry::SkewSymmetric) {
    throw FormatError("write_matrix_market: a pattern matrix cannot be skew-symmetric");
  }
  if (symmetry != Info::Symmetry::General) check_symmetry(coo, field, symmetry);

  // Symmetric files keep the lower triangle; skew ones have no diagonal at all.
  auto is_written = [&](std::int64_t n) {
    return symmetry == Info::Symmetry::General || coo.coords[2 * n] >= coo.coords[2 * n + 1];
  };
  std::int64_t written = 0;
  for (std::int64_t n = 0; n < coo.nnz(); ++n) written += is_written(n);

  std::string out;
  out.reserve(64 + static_cast<std::size_t>(written) * (field == Info::Field::Pattern ? 16 : 40));
  append_header(out, "coordinate", field, symmetry);
  detail::append_int(out, coo.shape[0]);
  out += ' ';
  detail::append_int(out, coo.shape[1]);
  out += ' ';
  detail::append_int(out, written);
  out += '\n';
  for (std::int64_t n = 0; n < coo.nnz(); ++n) {
    if (!is_written(n)) continue;
    const std::int64_t row = coo.coords[2 * n];
    const std::int64_t col = coo.coords[2 * n + 1];
    detail::append_int(out, row + 1);
    out += ' ';
    detail::append_int(out, col + 1);
    const double value = coo.values[n];
    if (field == Info::Field::Real) {
      out += ' ';
      detail::append_double(out, value);
    } else if (field == Info::Field::Integer) {
      if (!is_int64_value(value)) {
        std::string shown;  // as the real field would write it (to_string wrote 1e-7 as 0.000000)
        detail::append_double(shown, value);
        throw FormatError("write_matrix_market: value " + shown + " of entry " + entry_text(row, col) +
                          " is not a 64-bit integer; write it with the real field");
      }
      out += ' ';
      detail::append_int(out, as_int64(value));
    }
    out += '\n';
  }
  write_text_file(path, out);
}

void write_matrix_market_array(const std::string& path, std::int64_t rows, std::int64_t cols,
                               const std::vector<double>& col_major) {
  if (rows < 0 || cols < 0) {
    throw ShapeError("write_matrix_market_array: negative shape " + std::to_string(rows) + " x " +
                     std::to_string(cols));
  }
  const std::int64_t count = tessera::detail::checked_count_product(
      rows, cols, "write_matrix_market_array: a " + std::to_string(rows) + " x " + std::to_string(cols) + " matrix");
  if (static_cast<std::uint64_t>(count) != col_major.size()) {
    throw ShapeError("write_matrix_market_array: " + std::to_string(col_major.size()) + " values for a " +
                     std::to_string(rows) + " x " + std::to_string(cols) + " matrix");
  }
  std::string out;
  out.reserve(64 + col_major.size() * 25);
  append_header(out, "array", Info::Field::Real, Info::Symmetry::General);
  detail::append_int(out, rows);
  out += ' ';
  detail::append_int(out, cols);
  out += '\n';
  for (const double value : col_major) {
    detail::append_double(out, value);
    out += '\n';
  }
  write_text_file(path, out);
}

}  // namespace tessera::io
