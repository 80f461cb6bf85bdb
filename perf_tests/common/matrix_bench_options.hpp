#pragma once
// The options the GPU matrix benchmarks share: those of bench_options.hpp (both precisions by
// default), --no-real, --no-generated (each program's usage text describes them).
#include "bench_options.hpp"

struct MatrixBenchOptions : BenchOptions {
  bool real = true, generated = true;

  explicit MatrixBenchOptions(int default_reps) : BenchOptions(default_reps, true, true) {}

  // Takes the command line's current option if it is one of these; false if it is not.
  bool take(tessera::CommandLine& cl) {
    if (BenchOptions::take(cl)) return true;
    if (cl.is("--no-real")) {
      real = false;
    } else if (cl.is("--no-generated")) {
      generated = false;
    } else {
      return false;
    }
    return true;
  }
};
