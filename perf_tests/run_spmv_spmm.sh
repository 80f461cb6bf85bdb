#!/usr/bin/env bash
# Runs the host SpMV/SpMM benchmark (Tessera vs Kokkos Kernels, one process) and
# writes the ratio table to perf_tests/results/spmv_spmm_host_<threads>t.md.
#   perf_tests/run_spmv_spmm.sh [build-dir] [extra benchmark flags]
# Environment: TESSERA_COMMIT (the commit to print when the tree has no git history).
set -euo pipefail
source "$(dirname "$0")/bench_env.sh" spmv_spmm_bench "${1:-}"
shift || true
json=$(mktemp --suffix=.json)
trap 'rm -f "$json"' EXIT
echo "==> running $bench with $threads threads (takes a few minutes)"
"$bench" --benchmark_out="$json" --benchmark_out_format=json --benchmark_min_time=0.2 "$@"
out=$repo/perf_tests/results/spmv_spmm_host_${threads}t.md
(cd "$repo" && python3 perf_tests/ratio_table.py "$json" --threads "$threads" ${TESSERA_COMMIT:+--commit "$TESSERA_COMMIT"} \
   --title "Host SpMV / SpMM (double): Tessera vs Kokkos Kernels 3.4.1, $threads thread(s)") > "$out"
echo "==> table written to $out"
cat "$out"
