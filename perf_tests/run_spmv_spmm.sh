#!/usr/bin/env bash
# Runs the host SpMV/SpMM benchmark (Tessera vs Kokkos Kernels, one process) and
# writes the ratio table to perf_tests/results/spmv_spmm_host_<threads>t.md.
#   perf_tests/run_spmv_spmm.sh [build-dir] [extra benchmark flags]
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$repo/build/host}
shift || true
threads=${OMP_NUM_THREADS:-$(nproc)}
export OMP_NUM_THREADS=$threads OMP_PROC_BIND=${OMP_PROC_BIND:-spread} OMP_PLACES=${OMP_PLACES:-threads}
export TESSERA_DATA_DIR=${TESSERA_DATA_DIR:-$repo/../shared/data}
bench=$build/perf_tests/spmv_spmm_bench
[ -x "$bench" ] || { echo "error: $bench not built (run scripts/test.sh first)" >&2; exit 2; }
json=$(mktemp --suffix=.json)
trap 'rm -f "$json"' EXIT
echo "==> running $bench with $threads threads (takes a few minutes)"
"$bench" --benchmark_out="$json" --benchmark_out_format=json --benchmark_min_time=0.2 "$@"
mkdir -p "$repo/perf_tests/results"
out=$repo/perf_tests/results/spmv_spmm_host_${threads}t.md
(cd "$repo" && python3 perf_tests/ratio_table.py "$json" --threads "$threads" \
   --title "Host SpMV / SpMM (double): Tessera vs Kokkos Kernels 3.4.1, $threads thread(s)") > "$out"
echo "==> table written to $out"
cat "$out"
