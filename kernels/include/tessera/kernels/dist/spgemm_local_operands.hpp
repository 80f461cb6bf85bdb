#pragma once
/// \file
/// The operands of dist::spgemm's local products, built in the matrices' space: A's rows with
/// columns [owned columns | ghost slots], and the rows of B they name (B's owned rows, then the
/// rows fetched from other ranks, spgemm_row_fetch.hpp) split by C's column blocks. The operands'
/// arrays and the temporaries come from the device pool of temporaries on CUDA
/// (result_arrays.hpp): no cudaMalloc, and no cudaFree waiting for the device, per product.
#include <cstdint>
#include <limits>
#include <string>

#include <Kokkos_Core.hpp>

#include "tessera/core/allocation.hpp"
#include "tessera/core/dist/dist_tensor.hpp"
#include "tessera/core/dist/ghost_bitmap.hpp"
#include "tessera/core/dist/split_owned_rows.hpp"
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
  // Rows by runs of 32 over a warp's lanes: in a run without ghost entries (most runs) the
  // diagonal entries are one contiguous copy, else each lane copies a row.
  using Lanes = RowLanes<Space>;
  using Member = typename Lanes::Member;
  constexpr std::int64_t run = 32;
  const std::int64_t runs = (rows + run - 1) / run;
  Kokkos::parallel_for(
      "tessera::dist::spgemm[A rows]", Lanes::policy(runs), KOKKOS_LAMBDA(const Member& team) {
        Kokkos::parallel_for(
            Kokkos::TeamThreadRange(team, Lanes::first_row(team), Lanes::end_row(team, runs)),
            [&](const std::int64_t c) {
              const std::int64_t first = c * run, last = first + run < rows ? first + run : rows;
              const Offset d0 = parts.d_pos(first), entries = parts.d_pos(last) - d0, e0 = pos(first);
              if (pos(last) - e0 == entries) {
                Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, static_cast<std::int64_t>(entries)),
                                     [&](const std::int64_t k) {
                                       crd(e0 + k) = parts.d_crd(d0 + k);
                                       vals(e0 + k) = parts.d_vals(d0 + k);
                                     });
                return;
              }
              Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, first, last), [&](const std::int64_t r) {
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
            });
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

// [B's owned rows ; the fetched rows] split by C's column blocks: the local product's right
// operands, one per block of C.
template <class Local>
struct StackedColumnBlocks {
  Local owned;  // the entries in this rank's column block, local column ids
  Local ghost;  // the others, columns by slot of ghost_cols
  IndexView<typename Local::execution_space> ghost_cols;  // ascending global columns outside the block
};

// `fetched`: the rows fetched from the other ranks, in Space (spgemm_row_fetch.hpp).
template <class T, class Enc, class Space, class Fetched>
StackedColumnBlocks<Tensor<T, Enc, Space>> stacked_column_blocks(const DistTensor<T, Enc, Space>& B,
                                                                 const Fetched& fetched) {
  using Local = Tensor<T, Enc, Space>;
  using Offset = typename Local::offset_type;
  using Ordinal = typename Local::ordinal_type;
  using tessera::detail::offsets_into;
  using tessera::detail::range;
  const int rank = comm_rank(B.comm());
  const std::int64_t own = B.rows().count(rank), more = fetched.count;
  const std::int64_t c0 = B.cols().begin(rank), c1 = B.cols().end(rank), stacked = own + more;
  const Space space;
  Arrays<Space> arrays{space, tessera::detail::call_scoped};
  StackedColumnBlocks<Local> out;
  typename Local::Storage owned, ghost;
  ghost.levels[1].pos =
      arrays.template take<typename Local::pos_view>("tessera::dist::spgemm B ghost pos", stacked + 1);
  if (more == 0 && B.off_diagonal().nnz() == 0) {  // one rank, or no entry outside the block: no ghost operand
    Kokkos::deep_copy(space, ghost.levels[1].pos, Offset{0});
    ghost.levels[1].crd = arrays.template take<typename Local::crd_view>("tessera::dist::spgemm B ghost crd", 0);
    ghost.vals = arrays.template take<typename Local::vals_view>("tessera::dist::spgemm B ghost vals", 0);
    out.owned = B.diagonal();
    out.ghost = Local({stacked, 0}, std::move(ghost), arrays.owner());
    out.ghost_cols = IndexView<Space>("tessera::dist::spgemm B ghost columns", 0);
    return out;
  }
  const auto parts = owned_row_parts(B, arrays);
  const auto b_ghosts = tessera::detail::upload_array<IndexView<Space>>("tessera::dist::spgemm B's ghost columns",
                                                                        B.import_plan().ghost_cols);

  // The columns outside the block that the rows hold, and each fetched row's count of them.
  GhostBitmap<Space> slots = empty_ghost_bitmap<Space>(B.extent(1), arrays);
  Kokkos::parallel_for(
      "tessera::dist::spgemm[mark B ghosts]", range<Space>(B.off_diagonal().nnz()),
      KOKKOS_LAMBDA(const std::int64_t e) { slots.mark(b_ghosts(parts.o_crd(e))); });
  const auto f_outside = arrays.template take<IndexView<Space>>("tessera::dist::spgemm fetched ghosts", more);
  Kokkos::parallel_for(
      "tessera::dist::spgemm[mark fetched ghosts]", range<Space>(more), KOKKOS_LAMBDA(const std::int64_t f) {
        std::int64_t n = 0;
        for (std::int64_t k = 0; k < fetched.length(f); ++k) {
          const std::int64_t j = fetched.col(f, k);
          if (j >= c0 && j < c1) continue;
          slots.mark(j);
          ++n;
        }
        f_outside(f) = n;
      });
  const std::int64_t ghosts = number_slots(slots, arrays);
  out.ghost_cols = marked_columns(slots, ghosts, arrays);

  owned.levels[1].pos = arrays.template take<typename Local::pos_view>("tessera::dist::spgemm B pos", stacked + 1);
  offsets_into<Offset, Space>(
      owned.levels[1].pos, stacked,
      KOKKOS_LAMBDA(std::int64_t r) {
        return r < own ? parts.d_pos(r + 1) - parts.d_pos(r) : fetched.length(r - own) - f_outside(r - own);
      },
      "tessera::dist::spgemm B pos");
  offsets_into<Offset, Space>(
      ghost.levels[1].pos, stacked,
      KOKKOS_LAMBDA(std::int64_t r) {
        if (r >= own) return f_outside(r - own);
        const std::int64_t b = parts.off_row(r);
        return b < 0 ? std::int64_t{0} : static_cast<std::int64_t>(parts.o_pos(b + 1) - parts.o_pos(b));
      },
      "tessera::dist::spgemm B ghost pos");
  const std::int64_t owned_nnz = tessera::detail::total_of(owned.levels[1].pos);
  const std::int64_t ghost_nnz = tessera::detail::total_of(ghost.levels[1].pos);
  require_fits<Local>(owned_nnz, c1 - c0, "the rows of B with the fetched ones");
  require_fits<Local>(ghost_nnz, ghosts, "the rows of B with the fetched ones");
  owned.levels[1].crd = arrays.template take<typename Local::crd_view>("tessera::dist::spgemm B crd", owned_nnz);
  owned.vals = arrays.template take<typename Local::vals_view>("tessera::dist::spgemm B vals", owned_nnz);
  ghost.levels[1].crd = arrays.template take<typename Local::crd_view>("tessera::dist::spgemm B ghost crd", ghost_nnz);
  ghost.vals = arrays.template take<typename Local::vals_view>("tessera::dist::spgemm B ghost vals", ghost_nnz);
  const auto pos = owned.levels[1].pos, g_pos = ghost.levels[1].pos;
  const auto crd = owned.levels[1].crd, g_crd = ghost.levels[1].crd;
  const auto vals = owned.vals, g_vals = ghost.vals;
  // B's owned rows lead the owned operand as its diagonal block holds them; their ghost
  // entries are B's boundary rows.
  const auto& diagonal = B.diagonal().decompose();
  const auto head = Kokkos::make_pair(std::int64_t{0}, B.diagonal().nnz());
  Kokkos::deep_copy(space, Kokkos::subview(crd, head), diagonal.levels[1].crd);
  Kokkos::deep_copy(space, Kokkos::subview(vals, head), diagonal.vals);
  const auto boundary_rows = B.boundary_rows();
  Kokkos::parallel_for(
      "tessera::dist::spgemm[B boundary rows]", range<Space>(static_cast<std::int64_t>(boundary_rows.extent(0))),
      KOKKOS_LAMBDA(const std::int64_t b) {
        for (Offset q = parts.o_pos(b), e = g_pos(boundary_rows(b)); q < parts.o_pos(b + 1); ++q, ++e) {
          g_crd(e) = static_cast<Ordinal>(slots.slot(b_ghosts(parts.o_crd(q))));
          g_vals(e) = parts.o_vals(q);
        }
      });
  Kokkos::parallel_for(
      "tessera::dist::spgemm[fetched rows]", range<Space>(more), KOKKOS_LAMBDA(const std::int64_t f) {
        Offset e = pos(own + f), g = g_pos(own + f);
        for (std::int64_t k = 0; k < fetched.length(f); ++k) {
          const std::int64_t j = fetched.col(f, k);
          if (j >= c0 && j < c1) {
            crd(e) = static_cast<Ordinal>(j - c0);
            vals(e++) = fetched.val(f, k);
          } else {
            g_crd(g) = static_cast<Ordinal>(slots.slot(j));
            g_vals(g++) = fetched.val(f, k);
          }
        }
      });
  out.owned = Local({stacked, c1 - c0}, std::move(owned), arrays.owner());
  out.ghost = Local({stacked, ghosts}, std::move(ghost), arrays.owner());
  return out;
}

}  // namespace tessera::dist::detail
