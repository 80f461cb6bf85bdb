#!/usr/bin/env bash
# One call on the GPU machine: build spmm_tca_check and spmm_tca_bench in a configured CUDA build
# folder, then the correctness sweep, compute-sanitizer memcheck on a subset, the benchmark; on
# request (part "sanitizers") racecheck, synccheck and initcheck on the subset. Logs under $OUT
# (or ./tca_out). The build folder: scripts/test.sh --cuda's, or cmake -S . -B build/cuda
# -DCMAKE_CXX_COMPILER=<kokkos>/bin/nvcc_wrapper (-DTESSERA_BUILD_TESTS=OFF without GoogleTest).
# Usage: [CHECK_JOBS=8] [SANITIZER_SECONDS=480] [BENCH_ARGS="--prec bf16,fp64 ..."] run_device.sh <build_dir>
#        [matrix_dir=$TESSERA_DATA_DIR/matrices] [parts=check,memcheck,bench]
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=${1:?usage: run_device.sh <build_dir> [matrix_dir] [parts]}
data=${2:-${TESSERA_DATA_DIR:-$here/../../../shared/data}/matrices}; parts=${3:-check,memcheck,bench}
out=${OUT:-./tca_out}; mkdir -p "$out"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader
if ! cmake --build "$build" -j "$(nproc)" --target spmm_tca_check spmm_tca_bench > "$out/build.log" 2>&1; then
  echo "build failed:"; tail -20 "$out/build.log"; exit 1
fi
bin=$build/perf_tests
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
  source "$here/../common/sanitizers.sh"
  run_sanitizers "$out" "${SANITIZER_SECONDS:-480}" "$bin/spmm_tca_check" "$data" --quick
fi
if [[ ,$parts, == *,bench,* ]]; then
  timeout 300 "$bin/spmm_tca_bench" "$data" ${BENCH_ARGS:-} > "$out/bench.md" 2> "$out/bench.err"; echo "bench rc=$?"
  grep -E "SUMMARY|^\| (fp16|bf16|tf32|fp64)" "$out/bench.md"; grep ERROR "$out/bench.err"
fi
