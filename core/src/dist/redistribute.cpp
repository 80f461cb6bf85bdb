// COO triplets between ranks: counting by owner, then one MPI_Alltoallv per array.
#include "tessera/core/dist/redistribute.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "tessera/core/dist/mpi_datatype.hpp"

namespace tessera::dist {
namespace {

std::vector<int> displacements(const std::vector<int>& counts, const char* what) {
  std::vector<int> displs(counts.size(), 0);
  std::int64_t sum = 0;
  for (std::size_t q = 0; q < counts.size(); ++q) {
    displs[q] = mpi_count(sum, what);
    sum += counts[q];
  }
  mpi_count(sum, what);
  return displs;
}

}  // namespace

RowPartition balanced_row_partition(MPI_Comm comm, const HostCoo<double>& coo, std::int64_t rows) {
  const int ranks = comm_size(comm), rank = comm_rank(comm);
  const RowPartition blocks = RowPartition::uniform(rows, ranks);

  // This rank's entries as (row, count) runs in row order, so each block's runs are contiguous.
  std::vector<std::int64_t> entry_rows(static_cast<std::size_t>(coo.nnz()));
  for (std::int64_t n = 0; n < coo.nnz(); ++n) entry_rows[n] = coo.coords[2 * n];
  if (!std::is_sorted(entry_rows.begin(), entry_rows.end())) std::sort(entry_rows.begin(), entry_rows.end());
  std::vector<std::int64_t> runs;
  std::vector<int> send(ranks, 0);
  for (std::size_t i = 0; i < entry_rows.size();) {
    std::size_t j = i;
    while (j < entry_rows.size() && entry_rows[j] == entry_rows[i]) ++j;
    runs.push_back(entry_rows[i]);
    runs.push_back(static_cast<std::int64_t>(j - i));
    send[blocks.owner(entry_rows[i])] += 2;
    i = j;
  }
  std::vector<int> recv(ranks, 0);
  MPI_Alltoall(send.data(), 1, MPI_INT, recv.data(), 1, MPI_INT, comm);
  const std::vector<int> send_displs = displacements(send, "balanced_row_partition");
  const std::vector<int> recv_displs = displacements(recv, "balanced_row_partition");
  std::vector<std::int64_t> received(static_cast<std::size_t>(recv_displs.back()) + recv.back());
  MPI_Alltoallv(runs.data(), send.data(), send_displs.data(), MPI_INT64_T, received.data(), recv.data(),
                recv_displs.data(), MPI_INT64_T, comm);

  // This block's rows with entries, in row order (a row may arrive from several ranks). A
  // row weighs its entries + 1, so the rows between them weigh 1 each and are walked as
  // stretches: nothing here is O(rows), which for a matrix of 3e9 rows on a few ranks was
  // an allocation of gigabytes before the local blocks' index checks could speak. Each
  // sender's runs arrive in row order: merged pairwise, O(runs x log ranks), no sort.
  std::vector<std::pair<std::int64_t, std::int64_t>> counted;
  counted.reserve(received.size() / 2);
  for (std::size_t k = 0; k < received.size(); k += 2) counted.emplace_back(received[k], received[k + 1]);
  std::vector<std::size_t> from(ranks + 1, counted.size());  // sender q's runs: [from[q], from[q + 1])
  for (int q = 0; q < ranks; ++q) from[q] = static_cast<std::size_t>(recv_displs[q]) / 2;
  for (int width = 1; width < ranks; width *= 2)
    for (int q = 0; q + width < ranks; q += 2 * width)
      std::inplace_merge(counted.begin() + from[q], counted.begin() + from[q + width],
                         counted.begin() + from[std::min(q + 2 * width, ranks)]);
  const std::int64_t first = blocks.begin(rank), last = blocks.end(rank);
  std::int64_t mine = last - first, before = 0, total = 0;
  for (const auto& c : counted) mine += c.second;
  MPI_Exscan(&mine, &before, 1, MPI_INT64_T, MPI_SUM, comm);
  if (rank == 0) before = 0;  // MPI_Exscan leaves rank 0's result undefined
  MPI_Allreduce(&mine, &total, 1, MPI_INT64_T, MPI_SUM, comm);

  // RowPartition::balanced's boundary r: b, the first row boundary whose prefix weight
  // reaches the target, or b - 1 when that one is closer. The row ending at b lies in
  // exactly one block; its rank sets it, the others leave 0 (shared by a max).
  std::vector<std::int64_t> found(ranks + 1, 0);
  std::int64_t prefix = before;  // weight of the rows before the current stretch
  int r = 1;
  const auto target = [&](int q) { return static_cast<double>(total) * q / ranks; };
  while (r < ranks && target(r) <= prefix) ++r;  // boundaries set by an earlier block
  // Rows [row, row + length) of `weight` each: places every boundary that falls in them.
  const auto stretch = [&](std::int64_t row, std::int64_t length, std::int64_t weight) {
    const std::int64_t end = prefix + length * weight;
    for (; r < ranks && target(r) <= end; ++r) {
      // j: rows of the stretch up to the one ending at or after the target (1..length),
      // from the quotient, then settled in exact integer terms against its rounding.
      std::int64_t j = static_cast<std::int64_t>(std::ceil((target(r) - prefix) / weight));
      while (j < length && prefix + j * weight < target(r)) ++j;
      while (j > 1 && prefix + (j - 1) * weight >= target(r)) --j;
      const std::int64_t b = row + j, ends_before = prefix + (j - 1) * weight, ends_at = prefix + j * weight;
      found[r] = target(r) - ends_before < ends_at - target(r) ? b - 1 : b;
    }
    prefix = end;
  };
  std::int64_t row = first;
  for (std::size_t k = 0; k < counted.size();) {
    const std::int64_t counted_row = counted[k].first;
    std::int64_t entries = 0;
    for (; k < counted.size() && counted[k].first == counted_row; ++k) entries += counted[k].second;
    stretch(row, counted_row - row, 1);
    stretch(counted_row, 1, entries + 1);
    row = counted_row + 1;
  }
  stretch(row, last - row, 1);
  std::vector<std::int64_t> offsets(ranks + 1, 0);
  MPI_Allreduce(found.data(), offsets.data(), ranks + 1, MPI_INT64_T, MPI_MAX, comm);
  offsets[ranks] = rows;
  for (int q = 1; q < ranks; ++q) offsets[q] = std::clamp(offsets[q], offsets[q - 1], rows);
  return RowPartition(std::move(offsets));
}

HostCoo<double> redistribute_rows(MPI_Comm comm, const RowPartition& rows, const HostCoo<double>& coo) {
  const int ranks = comm_size(comm);
  std::vector<int> send(ranks, 0);
  std::vector<int> owner(static_cast<std::size_t>(coo.nnz()));
  for (std::int64_t n = 0; n < coo.nnz(); ++n) {
    owner[n] = rows.owner(coo.coords[2 * n]);
    ++send[owner[n]];
  }
  std::vector<int> send_displs = displacements(send, "redistribute_rows");
  std::vector<double> values(coo.values.size());
  std::vector<std::int64_t> coords(coo.coords.size());
  {
    std::vector<int> next = send_displs;
    for (std::int64_t n = 0; n < coo.nnz(); ++n) {
      const int slot = next[owner[n]]++;
      values[slot] = coo.values[n];
      coords[2 * slot] = coo.coords[2 * n];
      coords[2 * slot + 1] = coo.coords[2 * n + 1];
    }
  }
  std::vector<int> recv(ranks, 0);
  MPI_Alltoall(send.data(), 1, MPI_INT, recv.data(), 1, MPI_INT, comm);
  std::vector<int> recv_displs = displacements(recv, "redistribute_rows");

  HostCoo<double> out;
  out.shape = coo.shape;
  const std::size_t received = static_cast<std::size_t>(recv_displs.back()) + recv.back();
  out.values.resize(received);
  out.coords.resize(2 * received);
  MPI_Alltoallv(values.data(), send.data(), send_displs.data(), MPI_DOUBLE, out.values.data(), recv.data(),
                recv_displs.data(), MPI_DOUBLE, comm);
  // Coordinates travel as pairs: counts and displacements in pairs too.
  for (int q = 0; q < ranks; ++q) {
    send[q] = mpi_count(2 * static_cast<std::int64_t>(send[q]), "redistribute_rows");
    send_displs[q] = mpi_count(2 * static_cast<std::int64_t>(send_displs[q]), "redistribute_rows");
    recv[q] = mpi_count(2 * static_cast<std::int64_t>(recv[q]), "redistribute_rows");
    recv_displs[q] = mpi_count(2 * static_cast<std::int64_t>(recv_displs[q]), "redistribute_rows");
  }
  MPI_Alltoallv(coords.data(), send.data(), send_displs.data(), MPI_INT64_T, out.coords.data(), recv.data(),
                recv_displs.data(), MPI_INT64_T, comm);
  return out;
}

HostCoo<double> gather_coo(MPI_Comm comm, const HostCoo<double>& coo, int root) {
  require_root(comm, root, "gather");
  const int ranks = comm_size(comm);
  const bool is_root = comm_rank(comm) == root;
  int mine = mpi_count(coo.nnz(), "gather_coo");
  std::vector<int> counts(is_root ? ranks : 0);
  MPI_Gather(&mine, 1, MPI_INT, counts.data(), 1, MPI_INT, root, comm);
  std::vector<int> displs = is_root ? displacements(counts, "gather_coo") : std::vector<int>();

  HostCoo<double> out;
  out.shape = coo.shape;
  const std::size_t total = is_root && ranks > 0 ? static_cast<std::size_t>(displs.back()) + counts.back() : 0;
  out.values.resize(total);
  out.coords.resize(2 * total);
  MPI_Gatherv(coo.values.data(), mine, MPI_DOUBLE, out.values.data(), counts.data(), displs.data(), MPI_DOUBLE, root,
              comm);
  for (int q = 0; q < static_cast<int>(counts.size()); ++q) {
    counts[q] = mpi_count(2 * static_cast<std::int64_t>(counts[q]), "gather_coo");
    displs[q] = mpi_count(2 * static_cast<std::int64_t>(displs[q]), "gather_coo");
  }
  MPI_Gatherv(coo.coords.data(), mpi_count(2 * static_cast<std::int64_t>(mine), "gather_coo"), MPI_INT64_T, out.coords.data(), counts.data(), displs.data(), MPI_INT64_T,
              root, comm);
  return out;
}

}  // namespace tessera::dist
