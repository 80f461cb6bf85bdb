#pragma once
/// \file
/// Building tensors and converting between encodings.
/// \code{.unparsed}
///   from_coo<T, Enc, Space>(coo)   COO triplets (any order, duplicates summed) -> tensor
///   to_coo(A)                      tensor -> HostCoo (stored entries, storage order)
///   convert<DstEnc>(A)             any encoding -> any encoding, same space
///   from_dense<Enc>(view)          dense Kokkos View (rank = order, any layout) -> tensor
///   to_dense(A)                    tensor -> dense LayoutRight View in A's space
/// \endcode
/// Every conversion goes through sorted coordinates on the host; see host_levels.hpp.
#include <algorithm>
#include <array>
#include <cstdint>
#include <numeric>
#include <string>
#include <type_traits>
#include <vector>

#include <Kokkos_Core.hpp>

#include "tessera/core/coo.hpp"
#include "tessera/core/error.hpp"
#include "tessera/core/tensor.hpp"
#include "tessera/formats/encoding.hpp"
#include "tessera/formats/host_levels.hpp"
#include "tessera/formats/host_transfer.hpp"
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

// Stable sort of entry ids by one key: counting sort when the key range is
// comparable to the entry count, comparison sort otherwise.
template <class KeyOf>
void stable_sort_by_key(std::vector<std::int64_t>& perm, std::int64_t extent, KeyOf key_of) {
  const std::int64_t n = static_cast<std::int64_t>(perm.size());
  if (extent <= 4 * n + 4096) {
    std::vector<std::int64_t> start(extent + 1, 0);
    for (std::int64_t id : perm) ++start[key_of(id) + 1];
    for (std::int64_t k = 0; k < extent; ++k) start[k + 1] += start[k];
    std::vector<std::int64_t> sorted(n);
    for (std::int64_t id : perm) sorted[start[key_of(id)]++] = id;
    perm.swap(sorted);
  } else {
    std::stable_sort(perm.begin(), perm.end(), [&](std::int64_t a, std::int64_t b) { return key_of(a) < key_of(b); });
  }
}

}  // namespace detail

/// COO triplets (any order, duplicates summed) -> tensor of encoding Enc in Space.
template <class T, class Enc, class Space = Kokkos::DefaultExecutionSpace, class U>
Tensor<T, Enc, Space> from_coo(const HostCoo<U>& coo) {
  static_assert(is_encoding_v<Enc>, "Enc must be a tessera::Encoding");
  constexpr int N = Enc::order;
  const Shape<N> shape = detail::checked_shape<N>(coo.shape);
  detail::check_shape_fits<Enc>(shape);
  const std::int64_t nnz = coo.nnz();
  if (static_cast<std::int64_t>(coo.coords.size()) != nnz * N)
    throw ShapeError("COO data has " + std::to_string(coo.coords.size()) + " coordinates for " + std::to_string(nnz) +
                     " values of order " + std::to_string(N) + " (expected " + std::to_string(nnz * N) + ")");
  for (std::int64_t n = 0; n < nnz; ++n)
    for (int m = 0; m < N; ++m) {
      const std::int64_t c = coo.coords[n * N + m];
      if (c < 0 || c >= shape[m])
        throw IndexError("entry " + std::to_string(n) + " has coordinate " + std::to_string(c) + " in mode " +
                         std::to_string(m) + ", outside [0, " + std::to_string(shape[m]) + ")");
    }

  // Sort entry ids in storage order: least significant storage level first.
  std::vector<std::int64_t> perm(nnz);
  std::iota(perm.begin(), perm.end(), std::int64_t{0});
  for (int l = N - 1; l >= 0; --l) {
    const int m = Enc::mode_order[l];
    detail::stable_sort_by_key(perm, shape[m], [&](std::int64_t id) { return coo.coords[id * N + m]; });
  }

  // Gather keys in storage order, summing duplicates (in the input precision).
  std::array<std::vector<std::int64_t>, N> keys;
  for (auto& k : keys) k.reserve(nnz);
  std::vector<U> summed;
  summed.reserve(nnz);
  for (std::int64_t s = 0; s < nnz; ++s) {
    const std::int64_t id = perm[s];
    bool duplicate = !summed.empty();
    for (int l = 0; l < N && duplicate; ++l) duplicate = keys[l].back() == coo.coords[id * N + Enc::mode_order[l]];
    if (duplicate) {
      summed.back() += coo.values[id];
      continue;
    }
    for (int l = 0; l < N; ++l) keys[l].push_back(coo.coords[id * N + Enc::mode_order[l]]);
    summed.push_back(coo.values[id]);
  }
  std::vector<T> values(summed.begin(), summed.end());
  return detail::upload<T, Enc, Space>(shape, detail::pack_sorted<Enc>(shape, keys, values));
}

/// Tensor -> HostCoo (stored entries, storage order).
template <class T, class Enc, class Space>
HostCoo<T> to_coo(const Tensor<T, Enc, Space>& tensor) {
  constexpr int N = Enc::order;
  HostCoo<T> coo;
  coo.shape.assign(tensor.shape().begin(), tensor.shape().end());
  detail::for_each_stored(tensor.shape(), detail::download(tensor), [&](const auto& storage_coords, T v) {
    std::array<std::int64_t, N> mode_coords;
    for (int l = 0; l < N; ++l) mode_coords[Enc::mode_order[l]] = storage_coords[l];
    coo.coords.insert(coo.coords.end(), mode_coords.begin(), mode_coords.end());
    coo.values.push_back(v);
  });
  return coo;
}

/// Any encoding -> any encoding of the same order, same space.
template <class DstEnc, class T, class SrcEnc, class Space>
Tensor<T, DstEnc, Space> convert(const Tensor<T, SrcEnc, Space>& tensor) {
  static_assert(DstEnc::order == SrcEnc::order, "conversions keep the tensor's order");
  return from_coo<T, DstEnc, Space>(to_coo(tensor));
}

/// Tensor -> dense LayoutRight View in the tensor's space.
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
  auto host = detail::guard_allocation("tessera::dense (host copy)", bytes, "HostSpace",
                                       [&] { return Kokkos::create_mirror_view(dense); });
  Kokkos::deep_copy(host, T(0));
  T* data = host.data();
  detail::for_each_stored(s, detail::download(tensor), [&](const auto& storage_coords, T v) {
    std::int64_t linear = 0;
    std::array<std::int64_t, N> mode_coords;
    for (int l = 0; l < N; ++l) mode_coords[Enc::mode_order[l]] = storage_coords[l];
    for (int m = 0; m < N; ++m) linear = linear * s[m] + mode_coords[m];
    data[linear] = v;  // stored coordinates are unique; += would turn a stored -0.0 into +0.0
  });
  Kokkos::deep_copy(dense, host);
  return dense;
}

/// Dense Kokkos View (rank = order, any layout) -> tensor of encoding Enc.
template <class Enc, class Space = void, class View>
auto from_dense(const View& view) {
  using T = typename View::non_const_value_type;
  using S = std::conditional_t<std::is_void_v<Space>, typename View::execution_space, Space>;
  constexpr int N = Enc::order;
  static_assert(static_cast<int>(View::rank) == N, "the View's rank must equal the encoding's order");
  using HostRight = Kokkos::View<typename DenseArray<T, N>::type, Kokkos::LayoutRight, Kokkos::HostSpace>;
  Kokkos::LayoutRight layout;
  HostCoo<T> coo;
  std::array<std::int64_t, N> shape;
  for (int m = 0; m < N; ++m) {
    layout.dimension[m] = view.extent(m);
    shape[m] = static_cast<std::int64_t>(view.extent(m));
    coo.shape.push_back(shape[m]);
  }
  const std::size_t bytes = detail::checked_dense_elements(shape, sizeof(T), "from_dense") * sizeof(T);
  auto host_any_layout = detail::guard_allocation("tessera::dense (host copy)", bytes, "HostSpace", [&] {
    return Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), view);
  });
  HostRight host = detail::guard_allocation("tessera::dense (row-major)", bytes, "HostSpace", [&] {
    return HostRight(Kokkos::view_alloc(Kokkos::WithoutInitializing, "tessera::dense"), layout);
  });
  Kokkos::deep_copy(host, host_any_layout);
  const std::int64_t size = static_cast<std::int64_t>(host.size());
  for (std::int64_t linear = 0; linear < size; ++linear) {
    const T v = host.data()[linear];
    if (v == T(0)) continue;
    std::array<std::int64_t, N> idx;
    std::int64_t rest = linear;
    for (int m = N - 1; m >= 0; --m) {
      idx[m] = rest % coo.shape[m];
      rest /= coo.shape[m];
    }
    coo.coords.insert(coo.coords.end(), idx.begin(), idx.end());
    coo.values.push_back(v);
  }
  return from_coo<T, Enc, S>(coo);
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
