#!/usr/bin/env bash
# One call on the GPU machine: the wgmma.sp layout probe (when built), correctness sweep,
# compute-sanitizer memcheck on a subset, benchmark; on request (part "sanitizers") racecheck,
# synccheck and initcheck on the subset. Binaries from build.sh (built here or carried), logs under $OUT (or ./nv24_out).
# Usage: [SANITIZER_SECONDS=480] [BENCH_ARGS="--cold-l2 ..."] run_device.sh [bin_dir=.nv24_dev] [matrix_dir=<bin_dir>/data/matrices] [parts=check,memcheck,bench]
#   (parts may also hold quickbench: the two cubes only). matrix_dir holds west0497.mtx.gz and
#   cryg2500.mtx.gz (copied from the project's data; the GPU machine has no ../shared).
set -uo pipefail
bin=${1:-.nv24_dev}; data=${2:-$bin/data/matrices}; parts=${3:-check,memcheck,bench}
out=${OUT:-./nv24_out}; mkdir -p "$out"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader
lt=$(find / -name 'libcusparseLt.so.0' -not -path '/proc/*' 2>/dev/null | head -1)
[ -n "$lt" ] && export CUSPARSELT_LIB=$lt
[ -x "$bin/nv24_wgmma_probe" ] && { "$bin/nv24_wgmma_probe" > "$out/probe.log" 2>&1; echo "probe rc=$?"; tail -1 "$out/probe.log"; }
if [[ ,$parts, == *,check,* ]]; then
  timeout 240 "$bin/nv24_check" "$data" > "$out/check.log" 2>&1; echo "check rc=$?"
  grep -E "FAIL|ERROR|TOTAL" "$out/check.log" | tail -15
fi
if [[ ,$parts, == *,memcheck,* ]]; then
  timeout 200 compute-sanitizer --tool memcheck --error-exitcode 3 "$bin/nv24_check" "$data" --quick \
    > "$out/memcheck.log" 2>&1; echo "memcheck rc=$?"; tail -3 "$out/memcheck.log"
fi
if [[ ,$parts, == *,sanitizers,* ]]; then
  source perf_tests/common/sanitizers.sh
  run_sanitizers "$out" "${SANITIZER_SECONDS:-480}" "$bin/nv24_check" "$data" --quick
fi
if [[ ,$parts, == *,bench,* || ,$parts, == *,quickbench,* ]]; then
  quick=""; [[ ,$parts, == *,quickbench,* ]] && quick=--quick
  timeout 400 "$bin/nv24_bench" $quick ${BENCH_ARGS:-} > "$out/bench.md" 2> "$out/bench.err"; echo "bench rc=$?"
  grep -E "SUMMARY|GPU" "$out/bench.md"; tail -2 "$out/bench.err"
fi
