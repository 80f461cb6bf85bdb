#!/usr/bin/env bash
# Runs the workspace studies of the sparse tensor kernels (dedup crossover of dense
# vs sparse workspaces for SpTTM; ISM ablation for SpTTM and SpMTTKRP on Last.fm)
# and writes perf_tests/results/tensor_workspaces_host.md.
#   perf_tests/run_tensor_workspaces.sh [build-dir] [extra benchmark flags]
set -euo pipefail
source "$(dirname "$0")/bench_env.sh" tensor_workspace_bench "${1:-}"
shift || true
crossover=$(mktemp --suffix=.json) ablation=$(mktemp --suffix=.json)
trap 'rm -f "$crossover" "$ablation"' EXIT
echo "==> running $bench with $threads OpenMP threads"
# The crossover decides whether Auto is within 10% of the best policy: median of 12
# repetitions, interleaved at random so that drifts of the machine spread over all policies.
"$bench" --benchmark_filter=crossover --benchmark_out="$crossover" --benchmark_out_format=json \
  --benchmark_min_time=0.2 --benchmark_repetitions=12 --benchmark_enable_random_interleaving=true \
  --benchmark_report_aggregates_only=true "$@"
"$bench" --benchmark_filter=ablation --benchmark_out="$ablation" --benchmark_out_format=json \
  --benchmark_min_time=0.2 "$@"
out=$repo/perf_tests/results/tensor_workspaces_host.md
{
  (cd "$repo" && python3 perf_tests/ratio_table.py "$crossover" --ours auto --threads "$threads" \
     --vs-best dense,hash,bucket,coord,sortonce \
     --title "SpTTM dense vs sparse workspace crossover (synthetic, 2^18 entries x L=4 products; case N<n>_dedup<d>: output N x N x 4, d products per output entry); speedup = Auto / policy")
  (cd "$repo" && python3 perf_tests/ratio_table.py "$ablation" --ours default --threads "$threads" \
     --title "ISM ablation on Last.fm (SpTTM contracting artists, L=8; SpMTTKRP to users, J=16); speedup = default / variant (below 1: the variant is faster)")
} > "$out"
echo "==> tables written to $out"
cat "$out"
