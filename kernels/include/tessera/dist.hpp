#pragma once
/// \file
/// The distributed part of Tessera (target Tessera::dist, needs MPI): DistTensor,
/// row-distributed vectors, the parallel Matrix Market reader, the 3-D Poisson
/// generator, dist::ScopeGuard (one GPU per rank), and the distributed kernels dist::spmv, dist::spmm (halo exchange
/// overlapped with local work) and dist::spgemm (1D row-wise).
#include "tessera/core/dist/collective_error.hpp"
#include "tessera/core/dist/dist_tensor.hpp"
#include "tessera/core/dist/dist_vector.hpp"
#include "tessera/core/dist/matrix_market.hpp"
#include "tessera/core/dist/partition.hpp"
#include "tessera/core/dist/poisson_3d.hpp"
#include "tessera/core/dist/scope_guard.hpp"
#include "tessera/kernels/dist/dist_spgemm.hpp"
#include "tessera/kernels/dist/dist_spmm.hpp"
#include "tessera/kernels/dist/dist_spmv.hpp"
