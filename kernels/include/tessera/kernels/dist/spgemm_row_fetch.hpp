#pragma once
/// \file
/// How dist::spgemm fetches the rows of B that A's ghost columns name. Where the rows, padded to
/// the longest one sent, at most double the bytes moved, they go as fixed-size rows through A's
/// halo (peer copies between the GPUs of a node, else the halo's MPI transport), from device
/// memory to device memory. Otherwise each row goes at its length through MPI_Alltoallv in host
/// memory. Either way the receiver reads the rows in Space through an accessor (count,
/// length(f), col(f, k), val(f, k)) that stacked_column_blocks takes.
#include <mpi.h>

#include <cstdint>
#include <numeric>
#include <vector>

#include <Kokkos_Core.hpp>

#include "tessera/core/dist/collective_error.hpp"
#include "tessera/core/dist/dist_tensor.hpp"
#include "tessera/core/dist/mpi_datatype.hpp"
#include "tessera/formats/assembly/parallel.hpp"
#include "tessera/formats/host_transfer.hpp"
#include "tessera/kernels/dist/spgemm_local_operands.hpp"

namespace tessera::dist::detail {

// ---------------------------------------------------------------- rows at their lengths, MPI

// Rows of a local tensor, on the host for MPI: each row's length, then the rows' columns and
// values one after the other.
template <class T>
struct HostRows {
  std::vector<std::int64_t> lengths, cols;
  std::vector<T> vals;
};

// B's owned rows `ids` with global columns, gathered in the space, then copied to the host.
template <class T, class Enc, class Space>
HostRows<T> gather_rows(const DistTensor<T, Enc, Space>& B, const std::vector<std::int64_t>& ids) {
  const std::int64_t n = static_cast<std::int64_t>(ids.size());
  Arrays<Space> scratch{Space(), tessera::detail::call_scoped};
  const auto rows_of_b = global_column_rows(B, scratch);
  const auto rows = tessera::detail::upload_array<IndexView<Space>>("tessera::dist::spgemm sent rows", ids);
  const auto starts = scratch.template take<IndexView<Space>>("tessera::dist::spgemm sent offsets", n + 1);
  tessera::detail::offsets_into<std::int64_t, Space>(
      starts, n, KOKKOS_LAMBDA(std::int64_t i) { return rows_of_b.parts.length(rows(i)); },
      "tessera::dist::spgemm sent offsets");
  const std::int64_t total = tessera::detail::total_of(starts);
  const auto cols_out = scratch.template take<IndexView<Space>>("tessera::dist::spgemm sent columns", total);
  const auto vals_out = scratch.template take<Kokkos::View<T*, tessera::detail::DeviceOf<Space>>>(
      "tessera::dist::spgemm sent values", total);
  Kokkos::parallel_for(
      "tessera::dist::spgemm[gather rows]", tessera::detail::range<Space>(n),
      KOKKOS_LAMBDA(const std::int64_t i) { rows_of_b.copy(rows(i), cols_out, vals_out, starts(i)); });
  HostRows<T> out;
  const std::vector<std::int64_t> offsets = tessera::detail::download_array<std::int64_t>(starts);
  out.lengths.resize(n);
  for (std::int64_t i = 0; i < n; ++i) out.lengths[i] = offsets[i + 1] - offsets[i];
  out.cols = tessera::detail::download_array<std::int64_t>(cols_out);
  out.vals = tessera::detail::download_array<T>(vals_out);
  return out;
}

// Per-rank counts (and displacements) of a plan's runs, each item weighing `weight(item)`.
template <class Weight>
void run_layout(int ranks, const std::vector<int>& run_ranks, const std::vector<std::int64_t>& run_offsets,
                Weight weight, std::vector<int>& counts, std::vector<int>& displs) {
  counts.assign(ranks, 0);
  displs.assign(ranks, 0);
  std::int64_t sum = 0;
  for (std::size_t k = 0; k < run_ranks.size(); ++k) {
    std::int64_t c = 0;
    for (std::int64_t e = run_offsets[k]; e < run_offsets[k + 1]; ++e) c += weight(e);
    counts[run_ranks[k]] = mpi_count(c, "dist::spgemm");
  }
  for (int q = 0; q < ranks; ++q) {
    displs[q] = mpi_count(sum, "dist::spgemm");
    sum += counts[q];
  }
}

// Fetched rows one after the other, in Space.
template <class T, class Space>
struct RowsByOffsets {
  std::int64_t count = 0;
  IndexView<Space> pos, cols;
  Kokkos::View<T*, tessera::detail::DeviceOf<Space>> vals;

  KOKKOS_INLINE_FUNCTION std::int64_t length(std::int64_t f) const { return pos(f + 1) - pos(f); }
  KOKKOS_INLINE_FUNCTION std::int64_t col(std::int64_t f, std::int64_t k) const { return cols(pos(f) + k); }
  KOKKOS_INLINE_FUNCTION T val(std::int64_t f, std::int64_t k) const { return vals(pos(f) + k); }
};

// Collective: lengths, then columns and values, by MPI_Alltoallv through host memory.
template <class T, class Enc, class Space>
RowsByOffsets<T, Space> fetch_rows_by_mpi(const DistTensor<T, Enc, Space>& A, const DistTensor<T, Enc, Space>& B) {
  MPI_Comm comm = A.comm();
  const int ranks = comm_size(comm);
  const ImportPlan& plan = A.import_plan();
  HostRows<T> sent;
  agree_on_errors(comm, [&] { sent = gather_rows(B, plan.send_indices); });
  std::vector<int> sc, sd, rc, rd;
  run_layout(ranks, plan.send_ranks, plan.send_offsets, [](std::int64_t) { return 1; }, sc, sd);
  run_layout(ranks, plan.recv_ranks, plan.recv_offsets, [](std::int64_t) { return 1; }, rc, rd);
  HostRows<T> fetched;
  fetched.lengths.resize(plan.ghosts());
  MPI_Alltoallv(sent.lengths.data(), sc.data(), sd.data(), MPI_INT64_T, fetched.lengths.data(), rc.data(), rd.data(),
                MPI_INT64_T, comm);
  run_layout(ranks, plan.send_ranks, plan.send_offsets, [&](std::int64_t e) { return sent.lengths[e]; }, sc, sd);
  run_layout(ranks, plan.recv_ranks, plan.recv_offsets, [&](std::int64_t g) { return fetched.lengths[g]; }, rc, rd);
  const std::size_t received = static_cast<std::size_t>(rd.empty() ? 0 : rd.back() + rc.back());
  fetched.cols.resize(received);
  fetched.vals.resize(received);
  MPI_Alltoallv(sent.cols.data(), sc.data(), sd.data(), MPI_INT64_T, fetched.cols.data(), rc.data(), rd.data(),
                MPI_INT64_T, comm);
  MPI_Alltoallv(sent.vals.data(), sc.data(), sd.data(), mpi_datatype<T>(), fetched.vals.data(), rc.data(), rd.data(),
                mpi_datatype<T>(), comm);
  RowsByOffsets<T, Space> out;
  agree_on_errors(comm, [&] {
    std::vector<std::int64_t> starts(fetched.lengths.size() + 1, 0);
    std::partial_sum(fetched.lengths.begin(), fetched.lengths.end(), starts.begin() + 1);
    out.count = plan.ghosts();
    out.pos = tessera::detail::upload_array<IndexView<Space>>("tessera::dist::spgemm fetched offsets", starts);
    out.cols = tessera::detail::upload_array<IndexView<Space>>("tessera::dist::spgemm fetched columns", fetched.cols);
    out.vals = tessera::detail::upload_array<decltype(out.vals)>("tessera::dist::spgemm fetched values", fetched.vals);
  });
  return out;
}

// ---------------------------------------------------------------- padded rows, A's halo

// A row of `width` entries in a halo row of T: its length, `width` columns, `width` values.
template <class T>
struct PaddedRow {
  T* base;
  std::int64_t width;

  // The halo row's T slots: a multiple of 8 bytes, so that every row's columns are aligned.
  static std::int64_t slots(std::int64_t width) {
    const std::int64_t bytes = 8 * (1 + width) + width * static_cast<std::int64_t>(sizeof(T));
    return (bytes + 7) / 8 * (8 / static_cast<std::int64_t>(sizeof(T)));
  }
  KOKKOS_INLINE_FUNCTION std::int64_t* words() const { return reinterpret_cast<std::int64_t*>(base); }
  KOKKOS_INLINE_FUNCTION std::int64_t& length() const { return words()[0]; }
  KOKKOS_INLINE_FUNCTION std::int64_t& col(std::int64_t k) const { return words()[1 + k]; }
  KOKKOS_INLINE_FUNCTION T& val(std::int64_t k) const { return reinterpret_cast<T*>(words() + 1 + width)[k]; }
};

// One of a padded row's arrays indexed like a View, for GlobalColumnRows::copy.
template <class V>
struct RowArray {
  using non_const_value_type = V;
  V* data;
  KOKKOS_INLINE_FUNCTION V& operator()(std::int64_t k) const { return data[k]; }
};

// Fetched rows as the halo's ghost rows, in Space.
template <class T, class Space>
struct PaddedRows {
  std::int64_t count = 0, width = 0;
  Kokkos::View<T**, Kokkos::LayoutRight, Kokkos::Device<Space, typename Space::memory_space>> rows;

  KOKKOS_INLINE_FUNCTION PaddedRow<T> row(std::int64_t f) const { return {&rows(f, 0), width}; }
  KOKKOS_INLINE_FUNCTION std::int64_t length(std::int64_t f) const { return row(f).length(); }
  KOKKOS_INLINE_FUNCTION std::int64_t col(std::int64_t f, std::int64_t k) const { return row(f).col(k); }
  KOKKOS_INLINE_FUNCTION T val(std::int64_t f, std::int64_t k) const { return row(f).val(k); }
};

// Collective: the longest row that any rank sends, where every rank's rows padded to it take at
// most twice their own bytes all ranks together; -1 where they would take more.
template <class T, class Enc, class Space>
std::int64_t padded_width(const DistTensor<T, Enc, Space>& A, const DistTensor<T, Enc, Space>& B) {
  const ImportPlan& plan = A.import_plan();
  std::int64_t longest = 0, sums[2] = {plan.sends(), 0};  // rows sent, entries sent
  agree_on_errors(A.comm(), [&] {
    if (plan.sends() == 0) return;
    Arrays<Space> scratch{Space(), tessera::detail::call_scoped};
    const auto parts = owned_row_parts(B, scratch);
    const auto ids = tessera::detail::upload_array<IndexView<Space>>("tessera::dist::spgemm sent rows",
                                                                      plan.send_indices);
    Kokkos::parallel_reduce(
        "tessera::dist::spgemm[longest sent row]", tessera::detail::range<Space>(plan.sends()),
        KOKKOS_LAMBDA(const std::int64_t s, std::int64_t& most) {
          const std::int64_t n = parts.length(ids(s));
          if (n > most) most = n;
        },
        Kokkos::Max<std::int64_t>(longest));
    Kokkos::parallel_reduce(
        "tessera::dist::spgemm[sent entries]", tessera::detail::range<Space>(plan.sends()),
        KOKKOS_LAMBDA(const std::int64_t s, std::int64_t& sum) { sum += parts.length(ids(s)); }, sums[1]);
  });
  MPI_Allreduce(MPI_IN_PLACE, &longest, 1, MPI_INT64_T, MPI_MAX, A.comm());
  MPI_Allreduce(MPI_IN_PLACE, sums, 2, MPI_INT64_T, MPI_SUM, A.comm());
  return sums[0] * longest <= 2 * sums[1] ? longest : -1;
}

// Collective: the rows through A's halo, each padded to `width` entries; valid until the halo's
// next exchange.
template <class T, class Enc, class Space>
PaddedRows<T, Space> fetch_padded_rows(const Space& space, const DistTensor<T, Enc, Space>& A,
                                       const DistTensor<T, Enc, Space>& B, std::int64_t width) {
  // What may throw comes before the exchange starts, agreed on by every rank.
  Arrays<Space> scratch{space, tessera::detail::call_scoped};
  GlobalColumnRows<Tensor<T, Enc, Space>> rows_of_b;
  agree_on_errors(A.comm(), [&] {
    if (A.import_plan().sends() > 0) rows_of_b = global_column_rows(B, scratch);
  });
  auto& halo = A.halo();
  const auto ids = halo.send_indices();
  using Send = typename Halo<T, Space>::block_view;
  halo.start_packed(space, PaddedRow<T>::slots(width), [&](const Send& send) {
    Kokkos::parallel_for(
        "tessera::dist::spgemm[pack rows]",
        Kokkos::RangePolicy<Space, Kokkos::IndexType<std::int64_t>>(space, 0, send.extent(0)),
        KOKKOS_LAMBDA(const std::int64_t s) {
          const PaddedRow<T> row{&send(s, 0), width};
          row.length() = rows_of_b.parts.length(ids(s));
          rows_of_b.copy(ids(s), RowArray<std::int64_t>{&row.col(0)}, RowArray<T>{&row.val(0)}, 0);
        });
  });
  halo.overlap([] {});
  return {A.import_plan().ghosts(), width, halo.finish(space)};
}

}  // namespace tessera::dist::detail
