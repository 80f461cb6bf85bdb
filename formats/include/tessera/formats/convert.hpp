#pragma once
/// \file
/// Building tensors and converting between encodings.
/// \code{.unparsed}
///   from_coo<T, Enc, Space>(coo)   COO triplets (HostCoo or DeviceCoo; any order, duplicates summed) -> tensor
///   to_coo(A)                      tensor -> HostCoo (stored entries, storage order)
///   to_device_coo(A)               tensor -> DeviceCoo in A's space (stored entries, storage order)
///   convert<DstEnc>(A)             any encoding -> any encoding, same space
///   transpose(A)                   order-2 tensor -> its transpose, same encoding and space
///   from_dense<Enc>(view)          dense Kokkos View (rank = order, any layout) -> tensor
///   to_dense(A)                    tensor -> dense LayoutRight View in A's space
/// \endcode
/// All of them run in parallel in the tensor's execution space (host spaces through Kokkos,
/// Kokkos::Cuda on the device): triplets are sorted by storage-order keys with a stable radix
/// sort and packed level by level (formats/assembly/). The results are bit for bit those of a
/// sequential build: entries in storage order, duplicates summed in input order in the
/// triplets' precision, then converted to T.
#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <Kokkos_Core.hpp>

#include "tessera/core/allocation.hpp"
#include "tessera/core/checked_count.hpp"
#include "tessera/core/coo.hpp"
#include "tessera/core/device_coo.hpp"
#include "tessera/core/error.hpp"
#include "tessera/core/tensor.hpp"
#include "tessera/formats/assembly/assemble.hpp"
#include "tessera/formats/assembly/dense.hpp"
#include "tessera/formats/assembly/parallel.hpp"
#include "tessera/formats/assembly/resort.hpp"
#include "tessera/formats/assembly/stored_entries.hpp"
#include "tessera/formats/encoding.hpp"
#include "tessera/formats/host_levels.hpp"
#include "tessera/formats/validate.hpp"

namespace tessera {

/// Kokkos::View data type of a dense array of order N: T*, T**, ...
template <class T, int N>
struct DenseArray {
  using type = typename DenseArray<T, N - 1>::type*;  ///< The data type: T with N stars.
};
/// End of the recursion: a scalar.
template <class T>
struct DenseArray<T, 0> {
  using type = T;  ///< The data type: T.
};
/// Dense LayoutRight View of order N in Space's memory (what to_dense returns).
template <class T, int N, class Space>
using DenseView = Kokkos::View<typename DenseArray<T, N>::type, Kokkos::LayoutRight,
                               Kokkos::Device<Space, typename Space::memory_space>>;

namespace detail {

template <int N>
Shape<N> checked_shape(const std::vector<std::int64_t>& shape) {
  if (static_cast<int>(shape.size()) != N)
    throw ShapeError("COO data has order " + std::to_string(shape.size()) + ", the encoding has order " +
                     std::to_string(N));
  Shape<N> out{};
  for (int m = 0; m < N; ++m) {
    if (shape[m] < 0) throw ShapeError("extent of mode " + std::to_string(m) + " is negative: " + std::to_string(shape[m]));
    out[m] = shape[m];
  }
  return out;
}

template <class Enc>
void check_shape_fits(const Shape<Enc::order>& shape) {
  for (int m = 0; m < Enc::order; ++m)
    check_fits<typename Enc::ordinal_type>(shape[m], ("extent of mode " + std::to_string(m)).c_str());
}

template <int N>
void check_coo_sizes(std::int64_t coordinates, std::int64_t nnz) {
  if (coordinates != nnz * N)
    throw ShapeError("COO data has " + std::to_string(coordinates) + " coordinates for " + std::to_string(nnz) +
                     " values of order " + std::to_string(N) + " (expected " + std::to_string(nnz * N) + ")");
}

}  // namespace detail

/// COO triplets on the host (any order, duplicates summed) -> tensor of encoding Enc in Space,
/// built in Space (a device space gets one copy of the triplets first).
template <class T, class Enc, class Space = Kokkos::DefaultExecutionSpace, class U>
Tensor<T, Enc, Space> from_coo(const HostCoo<U>& coo) {
  static_assert(is_encoding_v<Enc>, "Enc must be a tessera::Encoding");
  constexpr int N = Enc::order;
  const Shape<N> shape = detail::checked_shape<N>(coo.shape);
  detail::check_shape_fits<Enc>(shape);
  const std::int64_t nnz = coo.nnz();
  detail::check_coo_sizes<N>(static_cast<std::int64_t>(coo.coords.size()), nnz);
  using Coords = detail::CoordsView<Space>;
  using Values = Kokkos::View<const U*, detail::DeviceOf<Space>>;
  if constexpr (std::is_same_v<typename Space::memory_space, Kokkos::HostSpace>) {
    using Unmanaged = Kokkos::MemoryTraits<Kokkos::Unmanaged>;
    const Kokkos::View<const std::int64_t**, Kokkos::LayoutRight, Kokkos::HostSpace, Unmanaged> coords(
        coo.coords.data(), nnz, N);
    const Kokkos::View<const U*, Kokkos::HostSpace, Unmanaged> values(coo.values.data(), nnz);
    return detail::assemble<T, Enc, Space, U>(shape, Coords(coords), Values(values));
  } else {
    const DeviceCoo<U, Space> copy = to_device<Space>(coo);
    return detail::assemble<T, Enc, Space, U>(shape, Coords(copy.coords), Values(copy.values));
  }
}

/// COO triplets already in Space's memory (any order, duplicates summed) -> tensor of encoding
/// Enc in the same space, built there without a copy of the triplets.
template <class T, class Enc, class Space = Kokkos::DefaultExecutionSpace, class U>
Tensor<T, Enc, Space> from_coo(const DeviceCoo<U, Space>& coo) {
  static_assert(is_encoding_v<Enc>, "Enc must be a tessera::Encoding");
  constexpr int N = Enc::order;
  const Shape<N> shape = detail::checked_shape<N>(coo.shape);
  detail::check_shape_fits<Enc>(shape);
  const std::int64_t nnz = coo.nnz();
  const std::int64_t rows = static_cast<std::int64_t>(coo.coords.extent(0));
  const std::int64_t width = rows == 0 ? N : static_cast<std::int64_t>(coo.coords.extent(1));
  if (rows != nnz || width != N)
    throw ShapeError("COO data has " + std::to_string(rows) + " x " + std::to_string(width) + " coordinates for " +
                     std::to_string(nnz) + " values of order " + std::to_string(N) + " (expected " +
                     std::to_string(nnz) + " x " + std::to_string(N) + ")");
  return detail::assemble<T, Enc, Space, U>(shape, coo.coords, coo.values);
}

/// Tensor -> DeviceCoo in the tensor's space: its stored entries, in storage order (the zeros
/// of a dense last level are structure and left out; explicit zeros of sparse levels are kept).
template <class T, class Enc, class Space>
DeviceCoo<T, Space> to_device_coo(const Tensor<T, Enc, Space>& tensor) {
  return detail::expand_entries(tensor);
}

/// Tensor -> HostCoo (stored entries, storage order, as to_device_coo).
template <class T, class Enc, class Space>
HostCoo<T> to_coo(const Tensor<T, Enc, Space>& tensor) {
  return to_host(detail::expand_entries(tensor));
}

/// Any encoding -> any encoding of the same order, same space. An order-2 conversion that
/// swaps the storage order (CSR <-> CSC, DCSR <-> DCSC, ...) sorts by the new major coordinate only.
template <class DstEnc, class T, class SrcEnc, class Space>
Tensor<T, DstEnc, Space> convert(const Tensor<T, SrcEnc, Space>& tensor) {
  static_assert(DstEnc::order == SrcEnc::order, "conversions keep the tensor's order");
  detail::check_shape_fits<DstEnc>(tensor.shape());
  if constexpr (SrcEnc::order == 2) {
    if (DstEnc::mode_order[0] == SrcEnc::mode_order[1] && detail::resorts_by_minor<SrcEnc>(tensor.shape()))
      return detail::resort_by_minor<T, DstEnc>(tensor, tensor.shape());
  }
  const DeviceCoo<T, Space> entries = detail::expand_entries(tensor);
  return detail::assemble<T, DstEnc, Space, T>(tensor.shape(), entries.coords, entries.values);
}

/// The transpose of an order-2 tensor (shape (n, m) for (m, n)), in the same encoding and space:
/// CSR of A -> CSR of A^T (whose arrays are those of A's CSC), and likewise for every encoding.
template <class T, class Enc, class Space>
Tensor<T, Enc, Space> transpose(const Tensor<T, Enc, Space>& tensor) {
  static_assert(Enc::order == 2, "transpose takes an order-2 tensor");
  const Shape<2> shape{tensor.shape()[1], tensor.shape()[0]};
  detail::check_shape_fits<Enc>(shape);
  // Enc's storage order over A^T's coordinates is (A's minor, A's major).
  if (detail::resorts_by_minor<Enc>(tensor.shape())) return detail::resort_by_minor<T, Enc>(tensor, shape);
  const DeviceCoo<T, Space> entries = detail::expand_entries(tensor);
  const auto coords = entries.coords;
  Kokkos::parallel_for("tessera::transpose", detail::range<Space>(entries.nnz()), KOKKOS_LAMBDA(const std::int64_t n) {
    const std::int64_t row = coords(n, 0);
    coords(n, 0) = coords(n, 1);
    coords(n, 1) = row;
  });
  return detail::assemble<T, Enc, Space, T>(shape, entries.coords, entries.values);
}

/// Tensor -> dense LayoutRight View in the tensor's space, written there in parallel.
template <class T, class Enc, class Space>
DenseView<T, Enc::order, Space> to_dense(const Tensor<T, Enc, Space>& tensor) {
  constexpr int N = Enc::order;
  using Result = DenseView<T, N, Space>;
  const auto& s = tensor.shape();
  const std::size_t bytes = detail::checked_dense_elements(s, sizeof(T), "to_dense") * sizeof(T);
  Kokkos::LayoutRight layout;
  for (int m = 0; m < N; ++m) layout.dimension[m] = static_cast<std::size_t>(s[m]);
  const Result dense = detail::guard_allocation("tessera::dense", bytes, Space::memory_space::name(),
                                                [&] { return Result("tessera::dense", layout); });
  using Flat = Kokkos::View<T*, detail::DeviceOf<Space>>;
  detail::scatter_to_dense(tensor, Flat(Kokkos::View<T*, detail::DeviceOf<Space>, Kokkos::MemoryUnmanaged>(
                                            dense.data(), dense.size())));
  return dense;
}

/// Dense Kokkos View (rank = order, any layout) -> tensor of encoding Enc, built in Space (by
/// default the View's space; a View elsewhere is copied there first). Zeros are not stored.
template <class Enc, class Space = void, class View>
auto from_dense(const View& view) {
  using T = typename View::non_const_value_type;
  using S = std::conditional_t<std::is_void_v<Space>, typename View::execution_space, Space>;
  using Memory = typename S::memory_space;
  constexpr int N = Enc::order;
  static_assert(static_cast<int>(View::rank) == N, "the View's rank must equal the encoding's order");
  using Right = Kokkos::View<typename DenseArray<T, N>::type, Kokkos::LayoutRight, detail::DeviceOf<S>>;
  Kokkos::LayoutRight layout;
  std::array<std::int64_t, N> shape;
  for (int m = 0; m < N; ++m) {
    layout.dimension[m] = view.extent(m);
    shape[m] = static_cast<std::int64_t>(view.extent(m));
  }
  const std::size_t bytes = detail::checked_dense_elements(shape, sizeof(T), "from_dense") * sizeof(T);
  const auto in_space = detail::guard_allocation("tessera::dense (copy)", bytes, Memory::name(), [&] {
    return Kokkos::create_mirror_view_and_copy(Memory(), view);  // the View itself where it is in S's memory
  });
  // Read in place where the View already is one contiguous row-major array, copied otherwise.
  const T* data = nullptr;
  if constexpr (std::is_same_v<typename std::decay_t<decltype(in_space)>::array_layout, Kokkos::LayoutRight>)
    if (in_space.span_is_contiguous()) data = in_space.data();
  Right right;
  if (data == nullptr) {
    right = detail::guard_allocation("tessera::dense (row-major)", bytes, Memory::name(), [&] {
      return Right(Kokkos::view_alloc(Kokkos::WithoutInitializing, "tessera::dense"), layout);
    });
    Kokkos::deep_copy(right, in_space);
    data = right.data();
  }
  using Flat = Kokkos::View<const T*, detail::DeviceOf<S>>;
  const Flat flat(Kokkos::View<const T*, detail::DeviceOf<S>, Kokkos::MemoryUnmanaged>(data, in_space.size()));
  const DeviceCoo<T, S> entries = detail::dense_entries<S, T, N>(flat, shape);
  return detail::assemble<T, Enc, S, T>(Shape<N>(shape), entries.coords, entries.values);
}

/// Adopts user-provided arrays after checking them against the encoding's contract.
template <class T, class Enc, class Space>
Tensor<T, Enc, Space> from_arrays(const Shape<Enc::order>& shape, typename Tensor<T, Enc, Space>::Storage storage,
                                  std::shared_ptr<const void> owner = nullptr) {
  Tensor<T, Enc, Space> tensor(shape, std::move(storage), std::move(owner));
  validate(tensor);
  return tensor;
}

}  // namespace tessera
