#pragma once
// Kokkos glue for the VNM CUDA kernel: Views + stage plan -> raw arguments. Included by
// vnm_spmm.hpp only in CUDA builds that link tessera_kernels_cuda (TESSERA_HAVE_CUDA_KERNELS).
#include <Kokkos_Core.hpp>

#include <type_traits>

#include "tessera/formats/vnm.hpp"
#include "tessera/kernels/nm_spmm/cuda/vnm_spmm.hpp"

namespace tessera::kernels::cuda {

template <class AView, class CView>
VnmSpmmArgs make_vnm_args(const AView& A, const Tensor<float, VNM, Kokkos::Cuda>& B,
                          const VnmStages<Kokkos::Cuda>& stages, const CView& C) {
  const auto& e = B.extents();
  const auto& p = B.pattern();
  VnmSpmmArgs a;
  a.m = static_cast<std::int64_t>(C.extent(0));
  a.k = e.rows;
  a.n = e.cols;
  a.N = p.n;
  a.M = p.m;
  a.L = p.l;
  a.A = A.data();
  a.a_col_major = std::is_same_v<typename AView::array_layout, Kokkos::LayoutLeft>;
  a.lda = static_cast<std::int64_t>(a.a_col_major ? A.stride(1) : A.stride(0));
  a.vals = B.values().data();
  a.stored_rows = e.stored_rows;
  a.padded_cols = e.padded_cols;
  a.packed = stages.packed;
  a.tile_stage_pos = stages.tile_stage_pos.data();
  a.stage = reinterpret_cast<const int4*>(stages.stage.data());
  a.column_list = stages.packed ? stages.column_list.data() : nullptr;
  a.offsets = stages.offsets.data();
  a.offsets_ld = stages.offsets_ld;
  a.max_tile_stages = stages.max_tile_stages;
  a.C = C.data();
  a.c_col_major = std::is_same_v<typename CView::array_layout, Kokkos::LayoutLeft>;
  a.ldc = static_cast<std::int64_t>(a.c_col_major ? C.stride(1) : C.stride(0));
  return a;
}

}  // namespace tessera::kernels::cuda
