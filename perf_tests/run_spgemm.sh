#!/usr/bin/env bash
# Runs the host SpGEMM benchmark (Tessera vs Eigen sequential, vs Kokkos Kernels on
# OpenMP, one process) and the workspace memory table; writes
# perf_tests/results/spgemm_host.md.
#   perf_tests/run_spgemm.sh [build-dir] [extra benchmark flags]
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$repo/build/host}
shift || true
threads=${OMP_NUM_THREADS:-$(nproc)}
export OMP_NUM_THREADS=$threads OMP_PROC_BIND=${OMP_PROC_BIND:-spread} OMP_PLACES=${OMP_PLACES:-threads}
export TESSERA_DATA_DIR=${TESSERA_DATA_DIR:-$repo/../shared/data}
bench=$build/perf_tests/spgemm_bench
[ -x "$bench" ] || { echo "error: $bench not built" >&2; exit 2; }
json=$(mktemp --suffix=.json)
trap 'rm -f "$json"' EXIT
echo "==> running $bench with $threads OpenMP threads (sequential rows use Kokkos::Serial)"
"$bench" --benchmark_out="$json" --benchmark_out_format=json --benchmark_min_time=0.1 "$@"
mkdir -p "$repo/perf_tests/results"
out=$repo/perf_tests/results/spgemm_host.md
{
  (cd "$repo" && python3 perf_tests/ratio_table.py "$json" --threads "$threads (spgemm_omp), 1 (spgemm_seq)" \
     --title "Host SpGEMM C = B * S(B)^T (double): Tessera vs Eigen 3.4 (sequential) and Kokkos Kernels 3.4.1 (OpenMP)")
  echo "## Peak workspace bytes, sequential: Dense vs Hash (sparse)"
  echo
  "$bench" --memory_table "$@" 2>/dev/null
} > "$out"
echo "==> table written to $out"
cat "$out"
