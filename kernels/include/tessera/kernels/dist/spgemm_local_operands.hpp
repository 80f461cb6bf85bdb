#pragma once
/// \file
/// The operands of dist::spgemm's local product, built in the matrices' space: A's rows with
/// columns [owned columns | ghost slots], and the rows of B they name (B's owned rows, then the
/// rows fetched from other ranks) with global column ids. Only the rows sent and fetched pass
/// through the host, in the MPI buffers. The operands' arrays and the temporaries come from the
/// device pool of temporaries on CUDA (result_arrays.hpp): no cudaMalloc, and no cudaFree waiting
/// for the device, per product.
#include <cstdint>
#include <limits>
#include <numeric>
#include <string>
#include <vector>

#include <Kokkos_Core.hpp>

#include "tessera/core/allocation.hpp"
#include "tessera/core/dist/dist_tensor.hpp"
#include "tessera/core/error.hpp"
#include "tessera/formats/assembly/parallel.hpp"
#include "tessera/formats/assembly/result_arrays.hpp"
#include "tessera/formats/host_transfer.hpp"

namespace tessera::dist::detail {

template <class Space>
using IndexView = Kokkos::View<std::int64_t*, tessera::detail::DeviceOf<Space>>;
template <class Space>
using Arrays = tessera::detail::ResultArrays<Space>;

// Refuses a local operand whose entries or columns its encoding's index types cannot hold.
template <class Local>
void require_fits(std::int64_t entries, std::int64_t cols, const char* what) {
  using Offset = typename Local::offset_type;
  using Ordinal = typename Local::ordinal_type;
  if (entries > static_cast<std::int64_t>(std::numeric_limits<Offset>::max()) ||
      cols - 1 > static_cast<std::int64_t>(std::numeric_limits<Ordinal>::max()))
    throw OverflowError(std::string("dist::spgemm: ") + what + " has " + std::to_string(entries) + " entries and " +
                        std::to_string(cols) + " columns, past the encoding's index types; use 64-bit indices");
}

// For each of `rows` local rows, its row in the off-diagonal block, or -1 (in `arrays`).
template <class Space, class RowView>
IndexView<Space> off_diagonal_row_of(std::int64_t rows, const RowView& boundary_rows, Arrays<Space>& arrays) {
  const auto out = arrays.template take<IndexView<Space>>("tessera::dist::spgemm off-diagonal rows", rows);
  Kokkos::deep_copy(Space(), out, std::int64_t{-1});
  Kokkos::parallel_for(
      "tessera::dist::spgemm[off-diagonal rows]", tessera::detail::range<Space>(boundary_rows.extent(0)),
      KOKKOS_LAMBDA(const std::int64_t b) { out(boundary_rows(b)) = b; });
  return out;
}

// A DistTensor's two blocks, for kernels that take each owned row's entries from both.
template <class Local>
struct OwnedRowParts {
  using Space = typename Local::execution_space;
  typename Local::pos_view d_pos, o_pos;
  typename Local::crd_view d_crd, o_crd;
  typename Local::vals_view d_vals, o_vals;
  IndexView<Space> off_row;  // each owned row's row in the off-diagonal block, or -1

  KOKKOS_INLINE_FUNCTION std::int64_t length(std::int64_t r) const {
    const std::int64_t b = off_row(r);
    return static_cast<std::int64_t>(d_pos(r + 1) - d_pos(r)) + (b < 0 ? 0 : o_pos(b + 1) - o_pos(b));
  }
};

// M's blocks; the array of each row's off-diagonal row in `arrays`.
template <class T, class Enc, class Space>
OwnedRowParts<Tensor<T, Enc, Space>> owned_row_parts(const DistTensor<T, Enc, Space>& M, Arrays<Space>& arrays) {
  const auto& d = M.diagonal().decompose();
  const auto& o = M.off_diagonal().decompose();
  return {d.levels[1].pos,
          o.levels[1].pos,
          d.levels[1].crd,
          o.levels[1].crd,
          d.vals,
          o.vals,
          off_diagonal_row_of<Space>(M.rows().count(comm_rank(M.comm())), M.boundary_rows(), arrays)};
}

// Arrays in `arrays` for the owned rows of `parts`, each as long as its two blocks' rows together
// (pos filled).
template <class Local>
typename Local::Storage storage_for(const OwnedRowParts<Local>& parts, std::int64_t rows, const std::string& what,
                                    Arrays<typename Local::execution_space>& arrays) {
  using Space = typename Local::execution_space;
  typename Local::Storage s;
  s.levels[1].pos = arrays.template take<typename Local::pos_view>("tessera::dist::spgemm " + what + " pos", rows + 1);
  tessera::detail::offsets_into<typename Local::offset_type, Space>(
      s.levels[1].pos, rows, KOKKOS_LAMBDA(std::int64_t r) { return parts.length(r); },
      "tessera::dist::spgemm " + what + " pos");
  const std::int64_t nnz = tessera::detail::total_of(s.levels[1].pos);
  s.levels[1].crd = arrays.template take<typename Local::crd_view>("tessera::dist::spgemm " + what + " crd", nnz);
  s.vals = arrays.template take<typename Local::vals_view>("tessera::dist::spgemm " + what + " vals", nnz);
  return s;
}

// A's rows on this rank, columns [its column block | ghost slots]: a row's diagonal entries,
// then its off-diagonal ones past the owned columns (both ascending, so the row is).
template <class T, class Enc, class Space>
Tensor<T, Enc, Space> rows_with_ghost_slots(const DistTensor<T, Enc, Space>& A) {
  using Local = Tensor<T, Enc, Space>;
  using Offset = typename Local::offset_type;
  using Ordinal = typename Local::ordinal_type;
  const std::int64_t rows = A.rows().count(comm_rank(A.comm())), owned = A.cols().count(comm_rank(A.comm()));
  if (A.import_plan().ghosts() == 0) return A.diagonal();  // no ghost slots: the diagonal block as it is
  require_fits<Local>(A.diagonal().nnz() + A.off_diagonal().nnz(), owned + A.import_plan().ghosts(), "A's rows");
  Arrays<Space> arrays{Space(), tessera::detail::call_scoped};
  const auto parts = owned_row_parts(A, arrays);
  typename Local::Storage s = storage_for(parts, rows, "A", arrays);
  const auto pos = s.levels[1].pos;
  const auto crd = s.levels[1].crd;
  const auto vals = s.vals;
  Kokkos::parallel_for(
      "tessera::dist::spgemm[A rows]", tessera::detail::range<Space>(rows), KOKKOS_LAMBDA(const std::int64_t r) {
        Offset e = pos(r);
        for (Offset q = parts.d_pos(r); q < parts.d_pos(r + 1); ++q, ++e) {
          crd(e) = parts.d_crd(q);
          vals(e) = parts.d_vals(q);
        }
        const std::int64_t b = parts.off_row(r);
        if (b < 0) return;
        for (Offset q = parts.o_pos(b); q < parts.o_pos(b + 1); ++q, ++e) {
          crd(e) = static_cast<Ordinal>(owned + parts.o_crd(q));
          vals(e) = parts.o_vals(q);
        }
      });
  return Local({rows, owned + A.import_plan().ghosts()}, std::move(s), arrays.owner());
}

// B's owned rows with global columns: a row's ghost columns below its column block, its
// diagonal entries, then its ghost columns above the block (ghost slots ascend with the columns).
template <class Local>
struct GlobalColumnRows {
  using Space = typename Local::execution_space;
  using Offset = typename Local::offset_type;
  OwnedRowParts<Local> parts;
  IndexView<Space> ghost_cols;
  std::int64_t c0;

  // Writes owned row r from position e of crd and vals.
  template <class Crd, class Vals>
  KOKKOS_INLINE_FUNCTION void copy(std::int64_t r, const Crd& crd, const Vals& vals, std::int64_t e) const {
    using Ordinal = typename Crd::non_const_value_type;
    const std::int64_t b = parts.off_row(r);
    Offset q = b < 0 ? 0 : parts.o_pos(b);
    const Offset q_end = b < 0 ? 0 : parts.o_pos(b + 1);
    for (; q < q_end && ghost_cols(parts.o_crd(q)) < c0; ++q, ++e) {
      crd(e) = static_cast<Ordinal>(ghost_cols(parts.o_crd(q)));
      vals(e) = parts.o_vals(q);
    }
    for (Offset k = parts.d_pos(r); k < parts.d_pos(r + 1); ++k, ++e) {
      crd(e) = static_cast<Ordinal>(c0 + parts.d_crd(k));
      vals(e) = parts.d_vals(k);
    }
    for (; q < q_end; ++q, ++e) {
      crd(e) = static_cast<Ordinal>(ghost_cols(parts.o_crd(q)));
      vals(e) = parts.o_vals(q);
    }
  }
};

template <class T, class Enc, class Space>
GlobalColumnRows<Tensor<T, Enc, Space>> global_column_rows(const DistTensor<T, Enc, Space>& B, Arrays<Space>& arrays) {
  return {owned_row_parts(B, arrays),
          tessera::detail::upload_array<IndexView<Space>>("tessera::dist::spgemm ghost columns",
                                                          B.import_plan().ghost_cols),
          B.cols().begin(comm_rank(B.comm()))};
}

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

// [B's owned rows ; the fetched rows], global columns: the local product's right operand.
template <class T, class Enc, class Space>
Tensor<T, Enc, Space> stacked_rows(const DistTensor<T, Enc, Space>& B, const HostRows<T>& fetched) {
  using Local = Tensor<T, Enc, Space>;
  using Offset = typename Local::offset_type;
  using Ordinal = typename Local::ordinal_type;
  const int rank = comm_rank(B.comm());
  const std::int64_t own = B.rows().count(rank), more = static_cast<std::int64_t>(fetched.lengths.size());
  if (more == 0 && B.import_plan().ghosts() == 0 && B.cols().begin(rank) == 0 && B.cols().count(rank) == B.extent(1))
    return B.diagonal();  // one rank: the global columns are the diagonal block's
  const std::int64_t own_nnz = B.diagonal().nnz() + B.off_diagonal().nnz();
  require_fits<Local>(own_nnz + static_cast<std::int64_t>(fetched.cols.size()), B.extent(1),
                      "the rows of B with the fetched ones");
  std::vector<std::int64_t> starts(more + 1, 0);
  std::partial_sum(fetched.lengths.begin(), fetched.lengths.end(), starts.begin() + 1);
  const auto f_pos = tessera::detail::upload_array<IndexView<Space>>("tessera::dist::spgemm fetched offsets", starts);
  const auto f_cols =
      tessera::detail::upload_array<IndexView<Space>>("tessera::dist::spgemm fetched columns", fetched.cols);
  const auto f_vals = tessera::detail::upload_array<Kokkos::View<T*, tessera::detail::DeviceOf<Space>>>(
      "tessera::dist::spgemm fetched values", fetched.vals);
  Arrays<Space> arrays{Space(), tessera::detail::call_scoped};
  const auto rows_of_b = global_column_rows(B, arrays);
  typename Local::Storage out;
  out.levels[1].pos = arrays.template take<typename Local::pos_view>("tessera::dist::spgemm B pos", own + more + 1);
  tessera::detail::offsets_into<Offset, Space>(
      out.levels[1].pos, own + more,
      KOKKOS_LAMBDA(std::int64_t r) {
        return r < own ? rows_of_b.parts.length(r) : f_pos(r - own + 1) - f_pos(r - own);
      },
      "tessera::dist::spgemm B pos");
  const std::int64_t nnz = own_nnz + starts[more];
  out.levels[1].crd = arrays.template take<typename Local::crd_view>("tessera::dist::spgemm B crd", nnz);
  out.vals = arrays.template take<typename Local::vals_view>("tessera::dist::spgemm B vals", nnz);
  const auto pos = out.levels[1].pos;
  const auto crd = out.levels[1].crd;
  const auto vals = out.vals;
  Kokkos::parallel_for(
      "tessera::dist::spgemm[B rows]", tessera::detail::range<Space>(own),
      KOKKOS_LAMBDA(const std::int64_t r) { rows_of_b.copy(r, crd, vals, pos(r)); });
  Kokkos::parallel_for(
      "tessera::dist::spgemm[fetched rows]", tessera::detail::range<Space>(starts[more]),
      KOKKOS_LAMBDA(const std::int64_t e) {
        crd(own_nnz + e) = static_cast<Ordinal>(f_cols(e));
        vals(own_nnz + e) = f_vals(e);
      });
  return Local({own + more, B.extent(1)}, std::move(out), arrays.owner());
}

}  // namespace tessera::dist::detail
