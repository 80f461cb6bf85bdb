#pragma once
/// \file
/// Everything a user of Tessera needs: tensors, encodings, conversions, I/O, kernels.
#include "tessera/core/coo.hpp"
#include "tessera/core/device_coo.hpp"
#include "tessera/core/error.hpp"
#include "tessera/core/io/matrix_market.hpp"
#include "tessera/core/io/tns.hpp"
#include "tessera/core/tensor.hpp"
#include "tessera/formats/convert.hpp"
#include "tessera/formats/encoding.hpp"
#include "tessera/formats/levels.hpp"
#include "tessera/formats/validate.hpp"
#ifdef TESSERA_HAVE_KOKKOSKERNELS
#include "tessera/formats/crs_matrix.hpp"
#endif
#include "tessera/formats/nv24.hpp"
#include "tessera/formats/sliced_ell.hpp"
#include "tessera/formats/vnm.hpp"
#include "tessera/kernels/mttkrp/mttkrp.hpp"
#include "tessera/kernels/mttkrp/mttkrp_dense.hpp"
#include "tessera/kernels/nm_spmm/nm_spmm.hpp"
#include "tessera/kernels/spgemm/spgemm.hpp"
#include "tessera/kernels/spmm/spmm.hpp"
#include "tessera/kernels/spmv/sliced_ell_spmv.hpp"
#include "tessera/kernels/spmv/spmv.hpp"
#include "tessera/kernels/ttm/ttm.hpp"
