#pragma once
// Checked CUDA runtime calls for the stand-alone GPU harnesses (spmm_tca, vnm, nv24):
// a failing call throws std::runtime_error naming the call, the CUDA error and the line.
#include <cuda_runtime.h>

#include <cstdio>
#include <stdexcept>
#include <string>

#define HARNESS_CHECK(expr)                                                                              \
  do {                                                                                                   \
    const cudaError_t e_ = (expr);                                                                       \
    if (e_ != cudaSuccess)                                                                               \
      throw std::runtime_error(std::string(#expr) + ": " + cudaGetErrorString(e_) + " at line " +       \
                               std::to_string(__LINE__));                                                \
  } while (0)

// How a harness's main ends on an error it cannot go on after: what it printed so far stays on
// stdout (flushed first, so a log of both streams keeps the order), "ERROR <what>" goes to
// stderr (a table redirected to a file does not swallow it), and the exit status is 2.
inline int harness_error(const char* what) {
  std::fflush(stdout);
  std::fprintf(stderr, "ERROR %s\n", what);
  return 2;
}
