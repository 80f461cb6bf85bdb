#pragma once
// The options every benchmark program with precisions and named inputs shares: --reps R,
// --prec fp32,fp64, --only NAME (each program's usage text describes them).
#include <string>

#include "tessera/core/command_line.hpp"

struct BenchOptions {
  int reps;
  bool fp32, fp64;
  std::string only;

  BenchOptions(int default_reps, bool default_fp32, bool default_fp64)
      : reps(default_reps), fp32(default_fp32), fp64(default_fp64) {}

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
    } else {
      return false;
    }
    return true;
  }
  // Whether --only lets the input `name` run.
  bool wanted(const std::string& name) const { return only.empty() || name.find(only) != std::string::npos; }
};
