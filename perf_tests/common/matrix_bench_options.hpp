#pragma once
// The options the GPU matrix benchmarks share: --reps R, --prec fp32,fp64, --only NAME,
// --no-real, --no-generated (each program's usage text describes them).
#include <string>

#include "tessera/core/command_line.hpp"

struct MatrixBenchOptions {
  int reps;
  bool fp32 = true, fp64 = true, real = true, generated = true;
  std::string only;

  explicit MatrixBenchOptions(int default_reps) : reps(default_reps) {}

  // Takes the command line's current option if it is one of these; false if it is not.
  bool take(tessera::CommandLine& cl) {
    if (cl.is("--reps")) {
      reps = static_cast<int>(cl.integer(1, 1000));
    } else if (cl.is("--prec")) {
      const std::string list = cl.text();
      fp32 = list.find("fp32") != std::string::npos;
      fp64 = list.find("fp64") != std::string::npos;
      if (!fp32 && !fp64) cl.reject();
    } else if (cl.is("--only")) {
      only = cl.text();
    } else if (cl.is("--no-real")) {
      real = false;
    } else if (cl.is("--no-generated")) {
      generated = false;
    } else {
      return false;
    }
    return true;
  }
  // Whether --only lets the matrix `name` run.
  bool wanted(const std::string& name) const { return only.empty() || name.find(only) != std::string::npos; }
};
