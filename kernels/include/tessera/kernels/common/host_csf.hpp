#pragma once
/// \file
/// HostCsf3: raw host pointers to the three (pos, crd) levels and the values of a
/// CSF<3> tensor, for the host tensor kernels. Level 0 holds the stored coordinates
/// of mode 0 (pos[0] = {0, fibers}), level l those of mode l under each parent.
#include "tessera/core/tensor.hpp"
#include "tessera/formats/encoding.hpp"

namespace tessera::kernels {

/// Raw host pointers to the arrays of a CSF<3> tensor.
template <class T, class Ordinal, class Offset>
struct HostCsf3 {
  const Offset* pos[3];   ///< per level
  const Ordinal* crd[3];  ///< per level
  const T* vals;          ///< (nnz)
};

/// The raw pointers of `B`, whose arrays the host must be able to read.
template <class T, class Space>
HostCsf3<T, int, int> host_csf3(const Tensor<T, CSF<3>, Space>& B) {
  const auto& s = B.decompose();
  return {{s.levels[0].pos.data(), s.levels[1].pos.data(), s.levels[2].pos.data()},
          {s.levels[0].crd.data(), s.levels[1].crd.data(), s.levels[2].crd.data()},
          s.vals.data()};
}

}  // namespace tessera::kernels
