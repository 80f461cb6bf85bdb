#!/usr/bin/env bash
# One call on the GPU machine: build vnm_check and vnm_bench in a configured CUDA build folder,
# then the correctness sweep, compute-sanitizer memcheck on the quick subset, the benchmark; on
# request (part "sanitizers") racecheck, synccheck and initcheck on the quick subset. Logs under
# $OUT (or ./vnm_out). The build folder: scripts/test.sh --cuda's, or cmake -S . -B build/cuda
# -DCMAKE_CXX_COMPILER=<kokkos>/bin/nvcc_wrapper (-DTESSERA_BUILD_TESTS=OFF without GoogleTest).
# Usage: [SANITIZER_SECONDS=480] run_device.sh <build_dir> [parts=check,memcheck,bench] [bench args...]
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=${1:?usage: run_device.sh <build_dir> [parts] [bench args...]}; parts=${2:-check,memcheck,bench}
shift 2 2>/dev/null || shift $#
out=${OUT:-./vnm_out}; mkdir -p "$out"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader
if ! cmake --build "$build" -j "$(nproc)" --target vnm_check vnm_bench > "$out/build.log" 2>&1; then
  echo "build failed:"; tail -20 "$out/build.log"; exit 1
fi
bin=$build/perf_tests
if [[ ,$parts, == *,check,* ]]; then
  timeout 240 "$bin/vnm_check" > "$out/check.log" 2>&1; echo "check rc=$?"
  grep -E "FAIL|ERROR|TOTAL" "$out/check.log" | tail -15
fi
if [[ ,$parts, == *,memcheck,* ]]; then
  timeout 200 compute-sanitizer --tool memcheck --error-exitcode 3 "$bin/vnm_check" --quick \
    > "$out/memcheck.log" 2>&1; echo "memcheck rc=$?"; tail -3 "$out/memcheck.log"
fi
if [[ ,$parts, == *,sanitizers,* ]]; then
  source "$here/../common/sanitizers.sh"
  run_sanitizers "$out" "${SANITIZER_SECONDS:-480}" "$bin/vnm_check" --quick
fi
if [[ ,$parts, == *,bench,* ]]; then
  timeout 400 "$bin/vnm_bench" "$@" > "$out/bench.md" 2> "$out/bench.err"; echo "bench rc=$?"
  grep -A8 "^| N:M" "$out/bench.md"; grep ERROR "$out/bench.err"
fi
