#!/usr/bin/env bash
# Runs the host sparse-addition benchmark (Tessera vs Eigen sequential, vs Kokkos Kernels'
# spadd on OpenMP, one process); writes perf_tests/results/add_host.md.
#   perf_tests/run_add.sh [build-dir] [extra benchmark flags]
set -euo pipefail
source "$(dirname "$0")/bench_env.sh" add_bench "${1:-}"
shift || true
json=$(mktemp --suffix=.json)
trap 'rm -f "$json"' EXIT
echo "==> running $bench with $threads OpenMP threads (sequential rows use Kokkos::Serial)"
"$bench" --benchmark_out="$json" --benchmark_out_format=json --benchmark_min_time=0.1 "$@"
out=$repo/perf_tests/results/add_host.md
(cd "$repo" && python3 perf_tests/ratio_table.py "$json" --threads "$threads (add_omp), 1 (add_seq)" \
   --title "Host sparse addition C = A + B (double; B = A^T, or A with its columns reversed where rectangular): Tessera vs Eigen 3.4 (sequential) and Kokkos Kernels 3.4.1 spadd (OpenMP); the GFLOP/s columns are G input entries merged per second") > "$out"
echo "==> table written to $out"
cat "$out"
