#!/usr/bin/env bash
# One call on the GPU machine: build (or use carried binaries), correctness sweep,
# compute-sanitizer memcheck on a subset, benchmark; on request (part "sanitizers") racecheck,
# synccheck and initcheck on the subset. Logs under $OUT (or ./tca_out).
# Usage: [CHECK_JOBS=8] [SANITIZER_SECONDS=480] [BENCH_ARGS="--prec bf16,fp64 ..."] run_device.sh [matrix_dir=.tca_data] [prebuilt_dir=.tca_build]
#        [parts=check,memcheck,bench]
set -uo pipefail
data=${1:-.tca_data}; pre=${2:-.tca_build}; parts=${3:-check,memcheck,bench}
out=${OUT:-./tca_out}; mkdir -p "$out"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader
bin=/tmp/tca_bin
if perf_tests/spmm_tca/build.sh "$bin" > "$out/build.log" 2>&1; then echo "built on device"; else
  echo "device build failed (see build.log), using carried binaries"; bin=$pre; fi
if [[ ,$parts, == *,check,* ]]; then
  # The sweep is bound by its host side (inputs, double-precision reference; about 220 s in one
  # process): the real matrices are dealt, largest first, over CHECK_JOBS processes; the first
  # also runs the synthetic ones.
  jobs=${CHECK_JOBS:-8}; groups=$(mktemp -d); i=0
  for k in $(seq 0 $((jobs - 1))); do mkdir -p "$groups/$k"; done
  for f in $(ls -S "$data"/*.mtx* 2>/dev/null); do ln -s "$(realpath "$f")" "$groups/$((i % jobs))/"; i=$((i + 1)); done
  pids=()
  for k in $(seq 0 $((jobs - 1))); do
    only=(); [[ $k -gt 0 ]] && only=(--real-only)
    timeout 240 "$bin/spmm_tca_check" "$groups/$k" "${only[@]}" > "$groups/check_$k.log" 2>&1 &
    pids+=($!)
  done
  rc=0; for p in "${pids[@]}"; do wait "$p" || rc=$?; done
  cat "$groups"/check_*.log > "$out/check.log"; rm -rf "$groups"
  echo "check rc=$rc ($i real matrices over $jobs processes)"
  grep -E "FAIL|ERROR|TOTAL" "$out/check.log" | tail -20
fi
if [[ ,$parts, == *,memcheck,* ]]; then
  timeout 200 compute-sanitizer --tool memcheck --error-exitcode 3 "$bin/spmm_tca_check" "$data" --quick \
    > "$out/memcheck.log" 2>&1; echo "memcheck rc=$?"; tail -4 "$out/memcheck.log"
fi
if [[ ,$parts, == *,sanitizers,* ]]; then
  # racecheck takes over 480 s for the whole subset: its log says how far it got.
  source perf_tests/common/sanitizers.sh
  run_sanitizers "$out" "${SANITIZER_SECONDS:-480}" "$bin/spmm_tca_check" "$data" --quick
fi
if [[ ,$parts, == *,bench,* ]]; then
  timeout 300 "$bin/spmm_tca_bench" "$data" ${BENCH_ARGS:-} > "$out/bench.md" 2> "$out/bench.err"; echo "bench rc=$?"
  grep -E "SUMMARY|^\| (fp16|bf16|tf32|fp64)" "$out/bench.md"; grep ERROR "$out/bench.err"
fi
