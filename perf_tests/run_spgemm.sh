#!/usr/bin/env bash
# Runs the host SpGEMM benchmark (Tessera vs Eigen sequential, vs Kokkos Kernels on
# OpenMP, one process) and the workspace memory table; writes
# perf_tests/results/spgemm_host.md.
#   perf_tests/run_spgemm.sh [build-dir] [extra benchmark flags]
set -euo pipefail
source "$(dirname "$0")/bench_env.sh" spgemm_bench "${1:-}"
shift || true
json=$(mktemp --suffix=.json)
trap 'rm -f "$json"' EXIT
echo "==> running $bench with $threads OpenMP threads (sequential rows use Kokkos::Serial)"
"$bench" --benchmark_out="$json" --benchmark_out_format=json --benchmark_min_time=0.1 "$@"
out=$repo/perf_tests/results/spgemm_host.md
{
  (cd "$repo" && python3 perf_tests/ratio_table.py "$json" --threads "$threads (spgemm_omp), 1 (spgemm_seq)" \
     --vs-best tessera_dense,tessera_hash \
     --title "Host SpGEMM C = B * S(B)^T (double): Tessera vs Eigen 3.4 (sequential) and Kokkos Kernels 3.4.1 (OpenMP)")
  echo "## Peak workspace bytes, sequential: Dense vs Hash (sparse)"
  echo
  "$bench" --memory_table "$@" 2>/dev/null
} > "$out"
echo "==> table written to $out"
cat "$out"
