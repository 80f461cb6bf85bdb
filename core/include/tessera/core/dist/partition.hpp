#pragma once
/// \file
/// RowPartition: contiguous blocks of rows (or vector entries) over the ranks of a
/// communicator; rank r owns [offsets[r], offsets[r+1]). Every rank holds the same
/// partition, so decisions taken from it agree on all ranks without communication.
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "tessera/core/error.hpp"

namespace tessera::dist {

/// Contiguous blocks of rows, one per part (rank): part r owns rows [begin(r), end(r)).
class RowPartition {
 public:
  /// No parts, no rows.
  RowPartition() : offsets_{0} {}

  /// offsets: parts + 1 non-decreasing values starting at 0. Throws ShapeError otherwise.
  explicit RowPartition(std::vector<std::int64_t> offsets) : offsets_(std::move(offsets)) {
    if (offsets_.empty() || offsets_.front() != 0)
      throw ShapeError("RowPartition: offsets must start at 0 (got " +
                       (offsets_.empty() ? std::string("none") : std::to_string(offsets_.front())) + ")");
    for (std::size_t r = 1; r < offsets_.size(); ++r)
      if (offsets_[r] < offsets_[r - 1])
        throw ShapeError("RowPartition: offsets decrease at part " + std::to_string(r - 1) + " (" +
                         std::to_string(offsets_[r - 1]) + " > " + std::to_string(offsets_[r]) + ")");
  }

  /// Equal counts (the first `rows % parts` parts get one more).
  static RowPartition uniform(std::int64_t rows, int parts) {
    check_counts("uniform", rows, parts);
    std::vector<std::int64_t> offsets(parts + 1);
    for (int r = 0; r <= parts; ++r) offsets[r] = rows / parts * r + std::min<std::int64_t>(r, rows % parts);
    return RowPartition(std::move(offsets));
  }

  /// Contiguous blocks of about equal weight; row i weighs row_nnz[i] + 1 (its
  /// entries plus the per-row cost, so matrices with few or no entries still split
  /// by rows). Parts may be empty when there are fewer rows than parts.
  static RowPartition balanced(const std::vector<std::int64_t>& row_nnz, int parts) {
    const std::int64_t rows = static_cast<std::int64_t>(row_nnz.size());
    check_counts("balanced", rows, parts);
    std::vector<std::int64_t> prefix(rows + 1, 0);  // prefix[i] = weight of rows [0, i)
    for (std::int64_t i = 0; i < rows; ++i) prefix[i + 1] = prefix[i] + row_nnz[i] + 1;
    const double total = static_cast<double>(prefix[rows]);
    std::vector<std::int64_t> offsets(parts + 1, rows);
    offsets[0] = 0;
    for (int r = 1; r < parts; ++r) {
      const double target = total * r / parts;
      // First boundary whose prefix weight reaches the target: closest from below or above.
      auto it = std::lower_bound(prefix.begin(), prefix.end(), target);
      std::int64_t b = it - prefix.begin();
      if (b > 0 && target - prefix[b - 1] < prefix[std::min(b, rows)] - target) --b;
      offsets[r] = std::clamp(std::min(b, rows), offsets[r - 1], rows);
    }
    return RowPartition(std::move(offsets));
  }

  /// Number of parts.
  int parts() const { return static_cast<int>(offsets_.size()) - 1; }
  /// Total number of rows.
  std::int64_t size() const { return offsets_.back(); }
  /// First row of `part`.
  std::int64_t begin(int part) const { return offsets_[part]; }
  /// One past the last row of `part`.
  std::int64_t end(int part) const { return offsets_[part + 1]; }
  /// Number of rows of `part`.
  std::int64_t count(int part) const { return offsets_[part + 1] - offsets_[part]; }
  /// The parts() + 1 offsets.
  const std::vector<std::int64_t>& offsets() const { return offsets_; }

  /// Part owning `row` (0 <= row < size()); empty parts own nothing.
  int owner(std::int64_t row) const {
    return static_cast<int>(std::upper_bound(offsets_.begin(), offsets_.end(), row) - offsets_.begin()) - 1;
  }

  /// Same offsets.
  bool operator==(const RowPartition& o) const { return offsets_ == o.offsets_; }
  /// Different offsets.
  bool operator!=(const RowPartition& o) const { return !(*this == o); }

 private:
  /// A partition has at least one part and no negative row count (0 parts divided by zero in
  /// uniform and dropped every row in balanced).
  static void check_counts(const char* rule, std::int64_t rows, int parts) {
    if (parts < 1 || rows < 0)
      throw ShapeError("RowPartition::" + std::string(rule) + ": " + std::to_string(rows) + " rows into " +
                       std::to_string(parts) + " parts (need parts >= 1, rows >= 0)");
  }

  std::vector<std::int64_t> offsets_;
};

}  // namespace tessera::dist
