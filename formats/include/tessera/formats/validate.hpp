#pragma once
/// \file
/// validate(A): checks a tensor's arrays against its encoding's contract (sizes,
/// monotone pos, coordinates in range and sorted). Used when adopting arrays that
/// the library did not build itself (user arrays, KokkosSparse::CrsMatrix).
#include <cstdint>
#include <string>
#include <vector>

#include "tessera/core/error.hpp"
#include "tessera/core/tensor.hpp"
#include "tessera/formats/host_levels.hpp"
#include "tessera/formats/host_transfer.hpp"

namespace tessera {

/// Checks `tensor`'s arrays against its encoding's contract; FormatError, IndexError or ShapeError otherwise.
template <class T, class Enc, class Space>
void validate(const Tensor<T, Enc, Space>& tensor) {
  const auto host = detail::download(tensor);
  const auto& shape = tensor.shape();
  std::int64_t parent_count = 1;
  // Below a non-unique level the entries' coordinates continue on singleton levels, and the
  // tuple from that level down must rise strictly within a parent: tied[q] says entry q
  // agrees with entry q - 1 on every such level so far (same parent), so that the next
  // level must order them.
  std::vector<char> tied;
  auto level_name = [](int l) { return "level " + std::to_string(l); };
  for (int l = 0; l < Enc::order; ++l) {
    const std::int64_t extent = shape[Enc::mode_order[l]];
    if (extent < 0) throw ShapeError("negative extent " + std::to_string(extent) + " of mode " + std::to_string(Enc::mode_order[l]));
    detail::check_fits<typename Enc::ordinal_type>(extent, "extent");
    const auto& pos = host.pos[l];
    const auto& crd = host.crd[l];
    switch (Enc::level_kinds[l]) {
      case LevelKind::Dense:
        parent_count = detail::checked_count_product(parent_count, extent, level_name(l));
        detail::check_fits<typename Enc::offset_type>(parent_count, "dense level size");
        break;
      case LevelKind::Compressed:
      case LevelKind::CompressedNonUnique: {
        const bool unique = Enc::level_kinds[l] == LevelKind::Compressed;
        if (static_cast<std::int64_t>(pos.size()) != parent_count + 1)
          throw FormatError(level_name(l) + ": pos has " + std::to_string(pos.size()) + " entries, expected " +
                            std::to_string(parent_count + 1));
        if (pos[0] != 0) throw FormatError(level_name(l) + ": pos[0] = " + std::to_string(pos[0]) + ", expected 0");
        for (std::int64_t p = 0; p < parent_count; ++p)
          if (pos[p + 1] < pos[p])
            throw FormatError(level_name(l) + ": pos decreases at " + std::to_string(p + 1));
        if (static_cast<std::int64_t>(pos[parent_count]) != static_cast<std::int64_t>(crd.size()))
          throw FormatError(level_name(l) + ": pos ends at " + std::to_string(pos[parent_count]) + " but crd has " +
                            std::to_string(crd.size()) + " entries");
        for (std::int64_t p = 0; p < parent_count; ++p)
          for (std::int64_t q = pos[p]; q < pos[p + 1]; ++q) {
            if (crd[q] < 0 || crd[q] >= extent)
              throw IndexError(level_name(l) + ": coordinate " + std::to_string(crd[q]) + " at position " +
                               std::to_string(q) + " is outside [0, " + std::to_string(extent) + ")");
            if (q > pos[p] && (unique ? crd[q] <= crd[q - 1] : crd[q] < crd[q - 1]))
              throw IndexError(level_name(l) + ": coordinates not " + (unique ? "strictly increasing" : "sorted") +
                               " at position " + std::to_string(q) + " (" + std::to_string(crd[q - 1]) + " then " +
                               std::to_string(crd[q]) + ")");
          }
        if (!unique) {
          tied.assign(crd.size(), 0);
          for (std::int64_t p = 0; p < parent_count; ++p)
            for (std::int64_t q = pos[p] + 1; q < pos[p + 1]; ++q) tied[q] = crd[q] == crd[q - 1];
        }
        parent_count = static_cast<std::int64_t>(crd.size());
        break;
      }
      case LevelKind::Singleton:
        if (static_cast<std::int64_t>(crd.size()) != parent_count)
          throw FormatError(level_name(l) + ": crd has " + std::to_string(crd.size()) + " entries, expected " +
                            std::to_string(parent_count));
        for (std::int64_t q = 0; q < parent_count; ++q) {
          if (crd[q] < 0 || crd[q] >= extent)
            throw IndexError(level_name(l) + ": coordinate " + std::to_string(crd[q]) + " at position " +
                             std::to_string(q) + " is outside [0, " + std::to_string(extent) + ")");
          if (tied[q] && crd[q] < crd[q - 1])
            throw IndexError(level_name(l) + ": entries not sorted at position " + std::to_string(q) + " (" +
                             std::to_string(crd[q - 1]) + " then " + std::to_string(crd[q]) +
                             " after equal coordinates on the levels above)");
          tied[q] = tied[q] && crd[q] == crd[q - 1];
          if (tied[q] && l == Enc::order - 1)
            throw IndexError("entries " + std::to_string(q - 1) + " and " + std::to_string(q) +
                             " have the same coordinates (duplicates must be summed)");
        }
        break;
    }
  }
  if (static_cast<std::int64_t>(host.vals.size()) != parent_count)
    throw FormatError("vals has " + std::to_string(host.vals.size()) + " entries, expected " +
                      std::to_string(parent_count));
}

}  // namespace tessera
