#pragma once
// Checked cuSPARSE calls for the GPU benchmarks that run it as their baseline: a failing call
// throws std::runtime_error naming the call and cuSPARSE's error.
#include <cusparse.h>

#include <stdexcept>
#include <string>

#define CUSPARSE_CHECK(expr)                                                                 \
  do {                                                                                       \
    const cusparseStatus_t s_ = (expr);                                                      \
    if (s_ != CUSPARSE_STATUS_SUCCESS)                                                       \
      throw std::runtime_error(std::string(#expr) + ": " + cusparseGetErrorString(s_));     \
  } while (0)
