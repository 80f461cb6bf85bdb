#pragma once
/// \file
/// The CUDA fast path of resort_by_minor between compressed-row layouts (CSR <-> CSC, transpose of
/// either): the dedicated transpose of formats/cuda/transpose_csr.hpp instead of a global radix
/// sort. It applies to int column ids, int or int64 offsets, values of 2, 4 or 8 bytes (moved as
/// words), and declines (std::nullopt) where a column is too long for its per-column sort. Its
/// workspace and the result's arrays come from the scratch pool (formats/cuda/device_scratch.hpp,
/// result_arrays.hpp): no allocation and no device synchronization to free them on repeated
/// conversions.
#include <cstdint>
#include <optional>
#include <type_traits>

#include <Kokkos_Core.hpp>

#include "tessera/core/tensor.hpp"
#include "tessera/formats/assembly/parallel.hpp"
#include "tessera/formats/assembly/result_arrays.hpp"
#include "tessera/formats/encoding.hpp"

#if defined(KOKKOS_ENABLE_CUDA) && defined(TESSERA_HAVE_FORMATS_CUDA)
#include "tessera/formats/cuda/device_scratch.hpp"
#include "tessera/formats/cuda/transpose_csr.hpp"
#endif

namespace tessera::detail {

template <class Enc>
constexpr bool is_compressed_rows_v = Enc::order == 2 && Enc::level_kinds[0] == LevelKind::Dense &&
                                      Enc::level_kinds[1] == LevelKind::Compressed;

#if defined(KOKKOS_ENABLE_CUDA) && defined(TESSERA_HAVE_FORMATS_CUDA)
template <class T, class DstEnc, class SrcEnc, class Space>
constexpr bool has_cuda_transpose_v =
    std::is_same_v<Space, Kokkos::Cuda> && is_compressed_rows_v<SrcEnc> && is_compressed_rows_v<DstEnc> &&
    std::is_same_v<typename SrcEnc::ordinal_type, int> && std::is_same_v<typename DstEnc::ordinal_type, int> &&
    std::is_same_v<typename SrcEnc::offset_type, typename DstEnc::offset_type> &&
    (std::is_same_v<typename SrcEnc::offset_type, int> || std::is_same_v<typename SrcEnc::offset_type, std::int64_t>) &&
    (sizeof(T) == 2 || sizeof(T) == 4 || sizeof(T) == 8);

template <std::size_t Bytes>
using WordOf =
    std::conditional_t<Bytes == 2, std::uint16_t, std::conditional_t<Bytes == 4, std::uint32_t, std::uint64_t>>;

// `src`'s entries in (minor, major) order as a DstEnc tensor of `out_shape`; nullopt where declined.
template <class T, class DstEnc, class SrcEnc>
std::optional<Tensor<T, DstEnc, Kokkos::Cuda>> cuda_transpose(const Tensor<T, SrcEnc, Kokkos::Cuda>& src,
                                                              const Shape<2>& out_shape) {
  using Result = Tensor<T, DstEnc, Kokkos::Cuda>;
  using Offset = typename SrcEnc::offset_type;
  using Word = WordOf<sizeof(T)>;
  const std::int64_t nnz = src.nnz();
  const formats::cuda::CsrArrays<Offset, Word> in{src.level(1).pos.data(), src.level(1).crd.data(),
                                                  reinterpret_cast<const Word*>(src.values().data()),
                                                  src.shape()[SrcEnc::mode_order[0]],
                                                  src.shape()[SrcEnc::mode_order[1]], nnz};
  // The result's arrays from the scratch pool too: freeing Kokkos allocations (cudaFree) would
  // wait for the device whenever a transposed temporary dies.
  ResultArrays<Kokkos::Cuda> arrays{Kokkos::Cuda()};
  typename Result::Storage storage;
  auto& level = storage.levels[1];
  level.pos = arrays.take<typename Result::pos_view>("tessera::pos1", in.cols + 1);
  level.crd = arrays.take<typename Result::crd_view>("tessera::crd1", nnz);
  storage.vals = arrays.take<typename Result::vals_view>("tessera::vals", nnz);
  const formats::cuda::TransposedArrays<Offset, Word> out{level.pos.data(), level.crd.data(),
                                                          reinterpret_cast<Word*>(storage.vals.data())};
  const cudaStream_t stream = Kokkos::Cuda().cuda_stream();
  const formats::cuda::DeviceScratch workspace("tessera::transpose workspace",
                                               formats::cuda::transpose_csr_workspace_bytes(in), stream);
  if (!formats::cuda::transpose_csr(in, out, workspace.data(), workspace.size(), stream)) return std::nullopt;
  return Result(out_shape, std::move(storage), arrays.owner());
}
#endif

// The dedicated transpose where it applies and does not decline; std::nullopt otherwise.
template <class T, class DstEnc, class SrcEnc, class Space>
std::optional<Tensor<T, DstEnc, Space>> dedicated_transpose(const Tensor<T, SrcEnc, Space>& src,
                                                            const Shape<2>& out_shape) {
#if defined(KOKKOS_ENABLE_CUDA) && defined(TESSERA_HAVE_FORMATS_CUDA)
  if constexpr (has_cuda_transpose_v<T, DstEnc, SrcEnc, Space>) return cuda_transpose<T, DstEnc>(src, out_shape);
#endif
  (void)src;
  (void)out_shape;
  return std::nullopt;
}

}  // namespace tessera::detail
