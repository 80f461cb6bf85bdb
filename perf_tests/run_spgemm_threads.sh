#!/usr/bin/env bash
# OpenMP SpGEMM against Kokkos Kernels at each thread count (same process, same
# data), for a many-core host: writes perf_tests/results/spgemm_threads_<tag>.md with
# a summary (geomean and min per thread count) and the per-matrix tables.
#   perf_tests/run_spgemm_threads.sh <tag> [build-dir] [thread counts...]
# Environment: REPS (repetitions, median taken; default 5), COMMIT (the commit the
# binary was built from, when this checkout is not it).
set -euo pipefail
tag=${1:?usage: run_spgemm_threads.sh <tag> [build-dir] [thread counts...]}
source "$(dirname "$0")/bench_env.sh" spgemm_bench "${2:-}"
shift $(( $# < 2 ? $# : 2 ))
counts=("$@")
[ ${#counts[@]} -gt 0 ] || { n=$(nproc --all); for t in 1 2 4 8 16 32 64; do [ "$t" -le "$n" ] && counts+=("$t"); done; }
export OMP_PROC_BIND=close OMP_PLACES=cores
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for t in "${counts[@]}"; do
  echo "==> $t threads"
  OMP_NUM_THREADS=$t "$bench" --benchmark_filter='spgemm_omp/(tessera|kokkoskernels)/' --benchmark_min_time=0.1 \
    --benchmark_repetitions="${REPS:-5}" --benchmark_enable_random_interleaving=true \
    --benchmark_report_aggregates_only=true --benchmark_out="$tmp/t$t.json" --benchmark_out_format=json \
    > /dev/null 2> "$tmp/t$t.err" || { cat "$tmp/t$t.err" >&2; exit 1; }
  (cd "$repo" && python3 perf_tests/ratio_table.py "$tmp/t$t.json" --threads "$t" ${COMMIT:+--commit "$COMMIT"} \
     --title "OpenMP SpGEMM C = B * S(B)^T (double), OMP_NUM_THREADS=$t: Tessera vs Kokkos Kernels 3.4.1") > "$tmp/t$t.md"
done
out=$repo/perf_tests/results/spgemm_threads_$tag.md
{
  echo "# OpenMP SpGEMM vs Kokkos Kernels by thread count ($tag)"
  echo
  echo "Median of ${REPS:-5} interleaved repetitions per benchmark; Kokkos Kernels: handle, symbolic and numeric"
  echo "per call, as Tessera. The tables below give every matrix."
  echo
  echo "| threads | Tessera / Kokkos Kernels, geomean (min) |"
  echo "|---|---|"
  for t in "${counts[@]}"; do
    echo "| $t | $(grep -m1 '^| \*\*geomean' "$tmp/t$t.md" | awk -F'|' '{print $(NF-1)}' | xargs) |"
  done
  echo
  for t in "${counts[@]}"; do cat "$tmp/t$t.md"; done
} > "$out"
echo "==> table written to $out"
