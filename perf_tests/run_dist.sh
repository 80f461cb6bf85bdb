#!/usr/bin/env bash
# Strong scaling of the distributed SpMV/SpMM against PETSc (MatMult, MatMatMult) on
# the same matrix and ranks in the same run: a generated 3-D Poisson 7-point matrix
# (N^3 rows, ~7 N^3 nonzeros; N = 120 gives 1.73 M rows, 12.0 M nonzeros) and a real
# matrix. One OpenMP thread per rank (pure MPI, as PETSc runs). Writes
# perf_tests/results/dist_spmv_spmm_host.md.
#   perf_tests/run_dist.sh [build-dir]
# Environment: RANKS (default "1 2"), GRID (120), MATRIX (wave), K (16), REPS (20), RUNS (5),
# LAUNCHES (3: separate processes per configuration; one process's timings can sit 20% off
# another's on the same machine, so the table takes the median over launches),
# SPMM_LOOP (auto | portable), SPMM_STORES (auto | cached | streaming): dist::spmm's host loop
# options (SpmmOptions::host_loop, ::output_stores; default auto),
# TESSERA_COMMIT (the commit to print when the tree has no git history).
set -euo pipefail
export OMP_NUM_THREADS=1  # one thread per rank: pure MPI scaling
source "$(dirname "$0")/bench_env.sh" dist_spmv_bench "${1:-}"
ranks=${RANKS:-1 2} grid=${GRID:-120} matrix=${MATRIX:-wave} k=${K:-16}
flags=(--k "$k" --reps "${REPS:-20}" --runs "${RUNS:-5}")
if [[ -n ${SPMM_LOOP:-} ]]; then flags+=(--spmm-loop "$SPMM_LOOP"); fi
if [[ -n ${SPMM_STORES:-} ]]; then flags+=(--spmm-stores "$SPMM_STORES"); fi
# OpenMPI refuses root and more ranks than cores unless told (see scripts/test.sh).
if [[ $EUID -eq 0 ]]; then export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1; fi
export OMPI_MCA_rmaps_base_oversubscribe=${OMPI_MCA_rmaps_base_oversubscribe:-1}

rows=$(mktemp) bandwidth=$(mktemp)
trap 'rm -f "$rows" "$bandwidth"' EXIT
load_start=$(cut -d' ' -f1-3 /proc/loadavg)
binding_for() {  # one core per rank where there are enough
  if (( $1 > $(getconf _NPROCESSORS_ONLN) )); then echo "--bind-to none"; else echo "--bind-to core --map-by core"; fi
}
# The machine's memory bandwidth at the same rank counts and binding: the ceiling of a
# memory-bound kernel's efficiency.
probe=$build/perf_tests/memory_bandwidth
if [[ -x $probe ]]; then
  for p in $ranks; do
    echo "==> mpiexec -n $p memory_bandwidth" >&2
    # shellcheck disable=SC2046  # the binding is several words
    mpiexec $(binding_for "$p") -n "$p" "$probe" | tee -a "$bandwidth" >&2
  done
else
  echo "note: $probe not built, the bandwidth table is left out" >&2
fi
for input in "--poisson $grid" "$TESSERA_DATA_DIR/matrices/$matrix.mtx.gz"; do
  for p in $ranks; do
    # OpenMP must not re-bind the rank's one thread (with ranks bound to a whole socket,
    # OMP_PROC_BIND=spread put every rank's thread on the socket's first core).
    read -r -a binding <<< "$(binding_for "$p")"
    for launch in $(seq "${LAUNCHES:-3}"); do
      echo "==> [launch $launch] mpiexec -n $p dist_spmv_bench $input ${flags[*]}" >&2
      # shellcheck disable=SC2086  # $input is two words for the Poisson case
      OMP_PROC_BIND=false mpiexec "${binding[@]}" -n "$p" "$bench" $input "${flags[@]}" | tee -a "$rows" >&2
    done
  done
done

load_end=$(cut -d' ' -f1-3 /proc/loadavg)
# TESSERA_COMMIT names the commit where the tree is a copy without git history.
if [[ -n ${TESSERA_COMMIT:-} ]]; then
  commit=$TESSERA_COMMIT
else
  commit=$(git -C "$repo" rev-parse --short=12 HEAD)
  git -C "$repo" diff --quiet HEAD -- . ':!perf_tests/results' || commit="$commit (with uncommitted changes)"
fi
out=$repo/perf_tests/results/dist_spmv_spmm_host.md
{
  echo "# Distributed SpMV / SpMM strong scaling: Tessera (dist::spmv, dist::spmm) vs PETSc (MatMult, MatMatMult AIJ x DENSE)"
  echo
  echo "- CPU: $(lscpu | sed -n 's/^Model name: *//p' | head -1) ($(getconf _NPROCESSORS_ONLN) logical CPUs, load average (1, 5, 15 min) $load_start before the runs, $load_end after), 1 OpenMP thread per rank, Open MPI $(mpiexec --version 2>/dev/null | head -1 | awk '{print $NF}')"
  echo "- date: $(date -u +%Y-%m-%dT%H:%M:%S+00:00)"
  echo "- commit: $commit"
  echo "- time: ms per call, slowest rank; each launch takes the median of ${RUNS:-5} batches of ${REPS:-20} calls, the table the median over ${LAUNCHES:-3} launches (separate processes); PETSc ratio = PETSc time / Tessera time (> 1: Tessera faster)"
  echo "- efficiency: t(1 rank) / (ranks x t(ranks)), same library; max |diff|: largest difference between the two libraries' results"
  echo "- SpMM: B and C with k = $k columns; PETSc: MatMatMult(A, B, MAT_REUSE_MATRIX), A and B of the types listed below"
  echo
  grep '^<!--' "$rows" | sed 's/^<!-- \(.*\) -->$/- \1/' | sort -u
  echo
  echo "| matrix | ranks | op | Tessera ms | PETSc ms | PETSc / Tessera | max abs diff | Tessera efficiency | PETSc efficiency |"
  echo "|---|---|---|---|---|---|---|---|---|"
  python3 - "$rows" <<'PY'
import statistics
import sys
# Rows of every launch, grouped by (matrix, ranks, op) in first-seen order; times are the
# median over launches, the difference the largest seen.
groups = {}
for l in open(sys.argv[1]):
    if not l.startswith('|'):
        continue
    c = [x.strip() for x in l.strip().strip('|').split('|')]
    groups.setdefault((c[0], c[1], c[2]), []).append(c)
def median(values):
    values = [float(v) for v in values if v != '-']
    return statistics.median(values) if values else None
table = {}
for key, launches in groups.items():
    t, pt = median([c[3] for c in launches]), median([c[4] for c in launches])
    diffs = [float(c[6]) for c in launches if c[6] != '-']
    table[key] = (t, pt, max(diffs) if diffs else None)
for (m, p, op), (t, pt, diff) in table.items():
    b = table.get((m, '1', op))
    eff = lambda t1, tp: '%.0f%%' % (100 * t1 / (int(p) * tp)) if t1 and tp else '-'
    cells = [m, p, op, '%.4f' % t, '%.4f' % pt if pt else '-', '%.2fx' % (pt / t) if pt else '-',
             '%.1e' % diff if diff is not None else '-', eff(b[0], t) if b else '-', eff(b[1], pt) if b else '-']
    print('| ' + ' | '.join(cells) + ' |')
PY
  if [[ -s $bandwidth ]]; then
    echo
    echo "## Memory bandwidth of the same ranks (perf_tests/dist/memory_bandwidth.cpp, this run)"
    echo
    echo "Each rank streams its own arrays (128 MiB each); GB/s of all ranks together, slowest rank's median time."
    echo "Efficiency: (GB/s at P ranks) / (P x GB/s at 1 rank), the most a kernel limited by memory bandwidth can keep."
    echo
    echo "| ranks | read GB/s | read efficiency | triad GB/s | triad efficiency |"
    echo "|---|---|---|---|---|"
    python3 - "$bandwidth" <<'PY'
import sys
rows = [[x.strip() for x in l.strip().strip('|').split('|')] for l in open(sys.argv[1]) if l.startswith('|')]
one = next((r for r in rows if r[0] == '1'), None)
for p, read, triad in rows:
    eff = lambda v, i: '%.0f%%' % (100 * float(v) / (int(p) * float(one[i]))) if one else '-'
    print('| %s | %s | %s | %s | %s |' % (p, read, eff(read, 1), triad, eff(triad, 2)))
PY
  fi
} > "$out"
echo "==> table written to $out" >&2
cat "$out"
