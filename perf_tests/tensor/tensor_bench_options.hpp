#pragma once
// The options the tensor benchmarks share: --reps R, --prec fp32,fp64, --scale S, --only NAME,
// --host (each program's usage text describes them).
#include <string>

#include "tessera/core/command_line.hpp"

struct TensorBenchOptions {
  int reps = 5;
  bool fp32 = true, fp64 = false;
  double scale = 1;
  std::string only;
  bool host = false;

  // Takes the command line's current option if it is one of these; false if it is not.
  bool take(tessera::CommandLine& cl) {
    if (cl.is("--reps")) {
      reps = static_cast<int>(cl.integer(1, 1000));
    } else if (cl.is("--prec")) {
      const std::string list = cl.text();
      fp32 = list.find("fp32") != std::string::npos;
      fp64 = list.find("fp64") != std::string::npos;
      if (!fp32 && !fp64) cl.reject();
    } else if (cl.is("--scale")) {
      scale = cl.double_value();
      if (!(scale > 0)) cl.reject();
    } else if (cl.is("--only")) {
      only = cl.text();
    } else if (cl.is("--host")) {
      host = true;
    } else {
      return false;
    }
    return true;
  }
  // Whether --only lets the tensor `name` run.
  bool wanted(const std::string& name) const { return only.empty() || name.find(only) != std::string::npos; }
};
