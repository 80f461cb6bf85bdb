#!/usr/bin/env bash
# One call on the GPU machine: build (or use carried binaries), correctness sweep,
# compute-sanitizer memcheck on the quick subset, benchmark; on request (part "sanitizers")
# racecheck, synccheck and initcheck on the quick subset. Logs under $OUT (or ./vnm_out).
# Usage: [SANITIZER_SECONDS=480] run_device.sh [prebuilt_dir=.vnm_build] [parts=check,memcheck,bench] [bench args...]
set -uo pipefail
pre=${1:-.vnm_build}; parts=${2:-check,memcheck,bench}; shift 2 2>/dev/null || shift $#
out=${OUT:-./vnm_out}; mkdir -p "$out"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader
bin=$pre
if [[ -f perf_tests/vnm/build.sh ]] && perf_tests/vnm/build.sh /tmp/vnm_bin > "$out/build.log" 2>&1; then
  bin=/tmp/vnm_bin; echo "built on device"; else echo "using carried binaries in $pre"; fi
if [[ ,$parts, == *,check,* ]]; then
  timeout 240 "$bin/vnm_check" > "$out/check.log" 2>&1; echo "check rc=$?"
  grep -E "FAIL|ERROR|TOTAL" "$out/check.log" | tail -15
fi
if [[ ,$parts, == *,memcheck,* ]]; then
  timeout 200 compute-sanitizer --tool memcheck --error-exitcode 3 "$bin/vnm_check" --quick \
    > "$out/memcheck.log" 2>&1; echo "memcheck rc=$?"; tail -3 "$out/memcheck.log"
fi
if [[ ,$parts, == *,sanitizers,* ]]; then
  source perf_tests/common/sanitizers.sh
  run_sanitizers "$out" "${SANITIZER_SECONDS:-480}" "$bin/vnm_check" --quick
fi
if [[ ,$parts, == *,bench,* ]]; then
  timeout 400 "$bin/vnm_bench" "$@" > "$out/bench.md" 2> "$out/bench.err"; echo "bench rc=$?"
  grep -A8 "^| N:M" "$out/bench.md"; grep ERROR "$out/bench.err"
fi
