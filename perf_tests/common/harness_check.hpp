#pragma once
// Checked CUDA runtime calls for the stand-alone GPU harnesses (spmm_tca, vnm, nv24):
// a failing call throws std::runtime_error naming the call, the CUDA error and the line.
#include <cuda_runtime.h>

#include <stdexcept>
#include <string>

#define HARNESS_CHECK(expr)                                                                              \
  do {                                                                                                   \
    const cudaError_t e_ = (expr);                                                                       \
    if (e_ != cudaSuccess)                                                                               \
      throw std::runtime_error(std::string(#expr) + ": " + cudaGetErrorString(e_) + " at line " +       \
                               std::to_string(__LINE__));                                                \
  } while (0)
