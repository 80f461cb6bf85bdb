#pragma once
// The options the tensor benchmarks share: those of bench_options.hpp (fp32 by default, 5 calls),
// --scale S, --host (each program's usage text describes them).
#include "../common/bench_options.hpp"

struct TensorBenchOptions : BenchOptions {
  double scale = 1;
  bool host = false;

  TensorBenchOptions() : BenchOptions(5, true, false) {}

  // Takes the command line's current option if it is one of these; false if it is not.
  bool take(tessera::CommandLine& cl) {
    if (BenchOptions::take(cl)) return true;
    if (cl.is("--scale")) {
      scale = cl.double_value();
      if (!(scale > 0)) cl.reject();
    } else if (cl.is("--host")) {
      host = true;
    } else {
      return false;
    }
    return true;
  }
};
