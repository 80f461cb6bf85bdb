#pragma once
/// \file
/// Whether the MPI library can read and write CUDA device memory directly. Open MPI
/// says so through MPIX_Query_cuda_support() (mpi-ext.h); other MPIs are assumed not to.
namespace tessera::dist {

/// True only when the MPI library was built with CUDA support and reports it at run time.
bool mpi_is_cuda_aware();

}  // namespace tessera::dist
