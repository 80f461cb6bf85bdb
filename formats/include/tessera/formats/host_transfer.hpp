#pragma once
/// \file
/// Moves level arrays between host vectors (HostLevels) and a Tensor's Views in any space.
#include <string>
#include <vector>

#include <Kokkos_Core.hpp>

#include "tessera/core/allocation.hpp"
#include "tessera/core/tensor.hpp"
#include "tessera/formats/host_levels.hpp"

namespace tessera::detail {

template <class View, class V>
View upload_array(const std::string& label, const std::vector<V>& host) {
  View out = uninitialized_view<View>(label, host.size());
  using Unmanaged = Kokkos::View<const V*, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>;
  Kokkos::deep_copy(out, Unmanaged(host.data(), host.size()));
  return out;
}

template <class V, class View>
std::vector<V> download_array(const View& view) {
  std::vector<V> host = host_vector<V>(view.label(), view.extent(0));
  using Unmanaged = Kokkos::View<V*, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>;
  Kokkos::deep_copy(Unmanaged(host.data(), host.size()), view);
  return host;
}

template <class T, class Enc, class Space>
Tensor<T, Enc, Space> upload(const Shape<Enc::order>& shape, const HostLevels<Enc, T>& host) {
  using Result = Tensor<T, Enc, Space>;
  typename Result::Storage storage;
  for (int l = 0; l < Enc::order; ++l) {
    const std::string tag = std::to_string(l);
    if (Enc::level_has_pos[l])
      storage.levels[l].pos = upload_array<typename Result::pos_view>("tessera::pos" + tag, host.pos[l]);
    if (Enc::level_has_crd[l])
      storage.levels[l].crd = upload_array<typename Result::crd_view>("tessera::crd" + tag, host.crd[l]);
  }
  storage.vals = upload_array<typename Result::vals_view>("tessera::vals", host.vals);
  return Result(shape, std::move(storage));
}

template <class T, class Enc, class Space>
HostLevels<Enc, T> download(const Tensor<T, Enc, Space>& tensor) {
  HostLevels<Enc, T> host;
  const auto& storage = tensor.decompose();
  for (int l = 0; l < Enc::order; ++l) {
    host.pos[l] = download_array<typename Enc::offset_type>(storage.levels[l].pos);
    host.crd[l] = download_array<typename Enc::ordinal_type>(storage.levels[l].crd);
  }
  host.vals = download_array<T>(storage.vals);
  return host;
}

}  // namespace tessera::detail
