#pragma once
// The options every benchmark program with precisions and named inputs shares: --reps R,
// --prec fp32,fp64, --only NAME[,NAME...] (each program's usage text describes them).
#include <string>
#include <vector>

#include "tessera/core/command_line.hpp"

struct BenchOptions {
  int reps;
  bool fp32, fp64;
  std::vector<std::string> only;  // name parts; empty: every input

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
      only = cl.text_list();
    } else {
      return false;
    }
    return true;
  }
  // Whether --only lets the input `name` run: its name contains one of the listed parts.
  bool wanted(const std::string& name) const {
    if (only.empty()) return true;
    for (const std::string& part : only)
      if (name.find(part) != std::string::npos) return true;
    return false;
  }
};
