#!/usr/bin/env bash
# fuzz.sh — build the fuzz targets of the file readers (clang's libFuzzer with ASan and UBSan)
# and run each for a while.
#   scripts/fuzz.sh [--seconds N] [--jobs N] [target...]
# Targets: fuzz_matrix_market, fuzz_tns, fuzz_dist_matrix_market (default: all), in fuzz/.
# Each starts from the seeds fuzz/make_seeds.py writes plus what earlier runs kept in
# build/fuzz/corpus/<target>. A finding (a sanitizer report, an exception that is not a
# tessera::Error, a failed round trip, a hang past 10 s, 2 GB of memory) stops the script with
# status 1 and leaves the input in build/fuzz/findings/. Needs clang and libclang-rt-dev
# (scripts/bootstrap.sh installs them). Default: 60 seconds per target.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
usage_if_asked "${BASH_SOURCE[0]}" 2,10 "$@"
parse_common_args "$@"

SECONDS_PER_TARGET=60 TARGETS=()
set -- "${REST_ARGS[@]+"${REST_ARGS[@]}"}"
while [[ $# -gt 0 ]]; do
  case $1 in
    --seconds) [[ $# -ge 2 ]] || { echo "error: --seconds needs a number" >&2; exit 1; }; SECONDS_PER_TARGET=$2; shift ;;
    --seconds=*) SECONDS_PER_TARGET=${1#*=} ;;
    fuzz_matrix_market|fuzz_tns|fuzz_dist_matrix_market) TARGETS+=("$1") ;;
    *) echo "error: unknown argument '$1' (see --help)" >&2; exit 1 ;;
  esac
  shift
done
[[ $SECONDS_PER_TARGET =~ ^[1-9][0-9]*$ ]] || { echo "error: --seconds wants a positive integer" >&2; exit 1; }
[[ ${#TARGETS[@]} -gt 0 ]] || TARGETS=(fuzz_matrix_market fuzz_tns fuzz_dist_matrix_market)
command -v clang++ >/dev/null || { echo "error: clang++ not found (scripts/bootstrap.sh installs clang)" >&2; exit 1; }

OUT=$REPO/build/fuzz
step "configure and build the fuzz targets in ${OUT#"$REPO"/}"
gen=()
command -v ninja >/dev/null && [[ ! -f $OUT/Makefile ]] && gen=(-G Ninja)
run cmake -S "$REPO/fuzz" -B "$OUT" -DCMAKE_CXX_COMPILER=clang++ "${gen[@]+"${gen[@]}"}" >/dev/null
run cmake --build "$OUT" -j "$JOBS" --target "${TARGETS[@]}"
run python3 "$REPO/fuzz/make_seeds.py" "$OUT/seeds"
mkdir -p "$OUT/findings"

for target in "${TARGETS[@]}"; do
  seeds=$OUT/seeds/matrix_market
  [[ $target == fuzz_tns ]] && seeds=$OUT/seeds/tns
  corpus=$OUT/corpus/$target
  mkdir -p "$corpus"
  # Open MPI's start-up allocations are never freed: leak checks would report them, not the reader.
  leaks=1
  [[ $target == fuzz_dist_matrix_market ]] && leaks=0
  step "$target for $SECONDS_PER_TARGET s"
  log=$OUT/$target.log
  if ! (cd "$OUT/findings" && ASAN_OPTIONS=detect_leaks=$leaks "$OUT/$target" "$corpus" "$seeds" \
          -max_total_time="$SECONDS_PER_TARGET" -max_len=4096 -timeout=10 -rss_limit_mb=2048 \
          -print_final_stats=1 -artifact_prefix="$OUT/findings/$target-") >"$log" 2>&1; then
    tail -n 40 "$log" >&2
    echo "error: $target found a failing input (above; saved in ${OUT#"$REPO"/}/findings)" >&2
    exit 1
  fi
  # libFuzzer's closing lines: "#N DONE cov: C ft: F corp: K/B ..." and "Done N runs in S second(s)".
  done_line=$(grep -E '^#[0-9]+[[:space:]]+DONE' "$log" | tail -n 1 || true)
  printf '%s: %s executions in %s s, coverage %s edges (%s features), corpus %s inputs\n' "$target" \
    "$(grep -oE 'Done [0-9]+ runs' "$log" | grep -oE '[0-9]+' || echo '?')" "$SECONDS_PER_TARGET" \
    "$(sed -nE 's/.*cov: ([0-9]+).*/\1/p' <<<"$done_line")" "$(sed -nE 's/.*ft: ([0-9]+).*/\1/p' <<<"$done_line")" \
    "$(sed -nE 's/.*corp: ([0-9]+).*/\1/p' <<<"$done_line")"
done
step "done: no findings"
