#pragma once
/// \file
/// tessera::dist::spmv — y = alpha * A * x + beta * y for a row-distributed A.
/// The halo exchange of x's ghost entries (halo.hpp: non-blocking MPI on hosts; on GPUs peer
/// copies within a node, else MPI) runs while the diagonal block is multiplied;
/// then the off-diagonal block (boundary rows only) adds its part with the ghosts:
/// \code{.unparsed}
///   start halo(x) ; y = alpha*A_diag*x_owned + beta*y ; finish halo ;
///   y(boundary_rows) += alpha*A_offd*x_ghost   (one pass; on a device with long boundary rows:
///                                                into a buffer by the native kernel, then added)
/// \endcode
/// On host spaces the diagonal product runs on A.diagonal_sliced_ell(), a sliced ELLPACK
/// copy built on the first call (formats/sliced_ell.hpp says why).
/// Collective over A.comm(). Shapes are checked through the partitions, which every
/// rank holds identically, so a mismatch throws ShapeError on all ranks at once.
#include <cstdint>
#include <string>
#include <type_traits>

#include <Kokkos_Core.hpp>

#include "tessera/core/dist/dist_tensor.hpp"
#include "tessera/core/dist/dist_vector.hpp"
#include "tessera/kernels/common/profiling_region.hpp"
#include "tessera/kernels/spmv/sliced_ell_spmv.hpp"
#include "tessera/kernels/spmv/spmv.hpp"

namespace tessera::dist {
namespace detail {

inline void require_same_blocks(const char* kernel, const char* what, const RowPartition& got,
                                const RowPartition& expected) {
  if (got == expected) return;
  const auto text = [](const RowPartition& p) {
    std::string s;
    for (std::size_t r = 0; r < p.offsets().size(); ++r) s += (r ? "," : "") + std::to_string(p.offsets()[r]);
    return "[" + s + "]";
  };
  throw ShapeError(std::string(kernel) + ": " + what + " has row blocks " + text(got) + ", expected " + text(expected));
}

// out(rows(r), c) += add(r, c): the off-diagonal product lands on the boundary rows.
// One row per iteration, as in Halo's pack.
template <class Space, class RowView, class AddView, class OutView>
void add_to_rows(const Space& space, const RowView& rows, const AddView& add, const OutView& out) {
  const std::int64_t k = static_cast<std::int64_t>(add.extent(1));
  Kokkos::parallel_for(
      "tessera::dist::add_boundary_rows", Kokkos::RangePolicy<Space>(space, 0, add.extent(0)),
      KOKKOS_LAMBDA(const std::int64_t r) {
        for (std::int64_t c = 0; c < k; ++c) out(rows(r), c) += add(r, c);
      });
}

// y(rows(r)) += alpha * (row r of offd) . ghosts, one row per thread: one pass over the
// off-diagonal block, no temporary and no second pass over the boundary rows (that pass
// costs a sizable share of the off-diagonal product itself on the host, a kernel on a device).
template <class Space, class T, class Local, class RowView, class GhostView, class YView>
void add_boundary_products(const Space& space, T alpha, const Local& offd, const RowView& rows,
                           const GhostView& ghosts, const YView& y) {
  const auto& s = offd.decompose();
  const auto* const pos = s.levels[1].pos.data();
  const auto* const crd = s.levels[1].crd.data();
  const auto* const vals = s.vals.data();
  const auto* const row = rows.data();
  const T* const x = ghosts.data();
  T* const out = y.data();
  Kokkos::parallel_for(
      "tessera::dist::spmv[boundary]", Kokkos::RangePolicy<Space>(space, 0, offd.extent(0)),
      KOKKOS_LAMBDA(const std::int64_t r) {
        T sum = 0;
        for (auto q = pos[r]; q < pos[r + 1]; ++q) sum += vals[q] * x[crd[q]];
        out[row[r]] += alpha * sum;
      });
}

// C(rows(r), c) += alpha * (row r of offd) . ghosts(:, c), one thread per row and column (the
// columns of a row side by side): add_boundary_products for k columns, no temporary block and no
// second pass over the boundary rows.
template <class Space, class T, class Local, class RowView, class GhostView, class OutView>
void add_boundary_block_products(const Space& space, T alpha, const Local& offd, const RowView& rows,
                                 const GhostView& ghosts, const OutView& out) {
  const auto& s = offd.decompose();
  const auto pos = s.levels[1].pos;
  const auto crd = s.levels[1].crd;
  const auto vals = s.vals;
  const std::int64_t k = static_cast<std::int64_t>(ghosts.extent(1));
  Kokkos::parallel_for(
      "tessera::dist::spmm[boundary]",
      Kokkos::RangePolicy<Space, Kokkos::IndexType<std::int64_t>>(space, 0, offd.extent(0) * k),
      KOKKOS_LAMBDA(const std::int64_t i) {
        const std::int64_t r = i / k, c = i % k;
        T sum = 0;
        for (auto q = pos(r); q < pos(r + 1); ++q) sum += vals(q) * ghosts(crd(q), c);
        out(rows(r), c) += alpha * sum;
      });
}

// Average entries per boundary row up to which the boundary products are added by one thread per row
// (dist::spmv on a device) or per row and column (dist::spmm).
inline constexpr std::int64_t kShortBoundaryRow = 8;

}  // namespace detail

/// Collective: y = alpha * A * x + beta * y.
template <class T, class Enc, class Space>
void spmv(const Space& space, T alpha, const DistTensor<T, Enc, Space>& A, const DistVector<T, Space>& x, T beta,
          const DistVector<T, Space>& y) {
  detail::require_same_blocks("dist::spmv", "x", x.rows(), A.cols());
  detail::require_same_blocks("dist::spmv", "y", y.rows(), A.rows());
  if (y.shares_storage_with(x)) throw AliasError("dist::spmv: y is x, which it reads; pass y its own DistVector");
  using HaloT = Halo<T, Space>;
  const kernels::ProfilingRegion profiling_region(kernels::region_name<T>("dist::spmv", "halo overlap"));
  HaloT& halo = A.halo();
  // A contiguous vector is a (n x 1) row-major block: the halo packs blocks.
  constexpr bool host = Kokkos::SpaceAccessibility<Kokkos::HostSpace, typename Space::memory_space>::accessible;
  halo.start(space, typename HaloT::const_block_view(x.local().data(), x.local().extent(0), 1));
  halo.overlap([&] {
    if constexpr (host && std::is_same_v<typename Enc::ordinal_type, int>)
      tessera::spmv(space, alpha, A.diagonal_sliced_ell(), x.local(), beta, y.local());
    else
      tessera::spmv(space, alpha, A.diagonal(), x.local(), beta, y.local());
  });
  const auto ghosts = halo.finish(space);
  if (A.off_diagonal().nnz() > 0) {
    // On a device, boundary rows of a few entries (a stencil's, a mesh's) take one thread
    // each; longer ones go through the native kernel, which spreads them over vector lanes.
    const bool short_rows = A.off_diagonal().nnz() <= detail::kShortBoundaryRow * A.off_diagonal().extent(0);
    if (host || short_rows) {
      detail::add_boundary_products(space, alpha, A.off_diagonal(), A.boundary_rows(), ghosts, y.local());
    } else {
      using block = typename HaloT::block_view;
      using ghost_view = Kokkos::View<const T*, typename HaloT::device_type>;
      const block t = halo.scratch(A.off_diagonal().extent(0));
      tessera::spmv(space, alpha, A.off_diagonal(), ghost_view(ghosts.data(), ghosts.extent(0)), T(0),
                    Kokkos::View<T*, typename HaloT::device_type>(t.data(), t.extent(0)));
      detail::add_to_rows(space, A.boundary_rows(), t, block(y.local().data(), y.local().extent(0), 1));
    }
  }
}

/// Runs on a default-constructed instance of A's execution space.
template <class T, class Enc, class Space>
void spmv(T alpha, const DistTensor<T, Enc, Space>& A, const DistVector<T, Space>& x, T beta,
          const DistVector<T, Space>& y) {
  spmv(Space(), alpha, A, x, beta, y);
}

}  // namespace tessera::dist
