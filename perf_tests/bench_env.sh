# Sourced by the perf_tests/run_*.sh scripts: the shared set-up of a benchmark run.
#   source bench_env.sh <benchmark-name> [build-dir]
# Sets repo, build, threads and bench (the benchmark binary, which must exist), and
# exports the OpenMP placement and the data folder the benchmarks read.
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${2:-$repo/build/host}
threads=${OMP_NUM_THREADS:-$(nproc)}
export OMP_NUM_THREADS=$threads OMP_PROC_BIND=${OMP_PROC_BIND:-spread} OMP_PLACES=${OMP_PLACES:-threads}
export TESSERA_DATA_DIR=${TESSERA_DATA_DIR:-$repo/../shared/data}
bench=$build/perf_tests/$1
[ -x "$bench" ] || { echo "error: $bench not built (run scripts/test.sh first)" >&2; exit 2; }
mkdir -p "$repo/perf_tests/results"
