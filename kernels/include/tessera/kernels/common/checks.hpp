#pragma once
// Shape checks shared by the kernel front ends.
#include <cstdint>
#include <string>

#include "tessera/core/error.hpp"

namespace tessera::kernels {

inline void require_extent(const char* kernel, const char* what, std::int64_t actual, std::int64_t expected) {
  if (actual != expected)
    throw ShapeError(std::string(kernel) + ": " + what + " is " + std::to_string(actual) + ", expected " +
                     std::to_string(expected));
}

}  // namespace tessera::kernels
