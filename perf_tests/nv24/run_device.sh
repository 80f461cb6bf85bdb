#!/usr/bin/env bash
# One call on the GPU machine: build nv24_check, nv24_bench and nv24_wgmma_probe in a configured
# CUDA build folder, then the wgmma.sp layout probe, the correctness sweep, compute-sanitizer
# memcheck on a subset, the benchmark; on request (part "sanitizers") racecheck, synccheck and
# initcheck on the subset. Logs under $OUT (or ./nv24_out). The build folder: scripts/test.sh
# --cuda's, or cmake -S . -B build/cuda -DCMAKE_CXX_COMPILER=<kokkos>/bin/nvcc_wrapper
# (-DTESSERA_BUILD_TESTS=OFF without GoogleTest).
# Usage: [SANITIZER_SECONDS=480] [BENCH_ARGS="--cold-l2 ..."] run_device.sh <build_dir>
#        [matrix_dir=$TESSERA_DATA_DIR/matrices] [parts=check,memcheck,bench]
#   (parts may also hold quickbench: the two cubes only). matrix_dir holds west0497.mtx.gz and
#   cryg2500.mtx.gz.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=${1:?usage: run_device.sh <build_dir> [matrix_dir] [parts]}
data=${2:-${TESSERA_DATA_DIR:-$here/../../../shared/data}/matrices}; parts=${3:-check,memcheck,bench}
out=${OUT:-./nv24_out}; mkdir -p "$out"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader
if ! cmake --build "$build" -j "$(nproc)" --target nv24_check nv24_bench nv24_wgmma_probe > "$out/build.log" 2>&1; then
  echo "build failed:"; tail -20 "$out/build.log"; exit 1
fi
bin=$build/perf_tests
lt=$(find / -name 'libcusparseLt.so.0' -not -path '/proc/*' 2>/dev/null | head -1)
[ -n "$lt" ] && export CUSPARSELT_LIB=$lt
"$bin/nv24_wgmma_probe" > "$out/probe.log" 2>&1; echo "probe rc=$?"; tail -1 "$out/probe.log"
if [[ ,$parts, == *,check,* ]]; then
  timeout 240 "$bin/nv24_check" "$data" > "$out/check.log" 2>&1; echo "check rc=$?"
  grep -E "FAIL|ERROR|TOTAL" "$out/check.log" | tail -15
fi
if [[ ,$parts, == *,memcheck,* ]]; then
  timeout 200 compute-sanitizer --tool memcheck --error-exitcode 3 "$bin/nv24_check" "$data" --quick \
    > "$out/memcheck.log" 2>&1; echo "memcheck rc=$?"; tail -3 "$out/memcheck.log"
fi
if [[ ,$parts, == *,sanitizers,* ]]; then
  source "$here/../common/sanitizers.sh"
  run_sanitizers "$out" "${SANITIZER_SECONDS:-480}" "$bin/nv24_check" "$data" --quick
fi
if [[ ,$parts, == *,bench,* || ,$parts, == *,quickbench,* ]]; then
  quick=""; [[ ,$parts, == *,quickbench,* ]] && quick=--quick
  timeout 400 "$bin/nv24_bench" $quick ${BENCH_ARGS:-} > "$out/bench.md" 2> "$out/bench.err"; echo "bench rc=$?"
  grep -E "SUMMARY|GPU" "$out/bench.md"; tail -2 "$out/bench.err"
fi
