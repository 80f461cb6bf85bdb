#!/usr/bin/env bash
# memcheck_gpu_tests.sh — run every ctest entry labelled `gpu` of a CUDA build under
# compute-sanitizer memcheck, each with its own ctest environment and working folder.
#   scripts/memcheck_gpu_tests.sh [build_dir] [-R REGEX]
# build_dir defaults to build/cuda. MPI entries are sanitized in every rank
# (--target-processes all). Prints one line per test and exits 1 when any test fails or
# memcheck reports an access error; each log is kept in <build_dir>/memcheck/<test>.log.
set -euo pipefail
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
[[ ${1:-} == -h || ${1:-} == --help ]] && { sed -n '2,7p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 0; }
BUILD=build/cuda FILTER=()
while [[ $# -gt 0 ]]; do
  case $1 in
    -R) [[ $# -ge 2 ]] || { echo "error: -R needs a regular expression" >&2; exit 1; }; FILTER=(-R "$2"); shift ;;
    -*) echo "error: unknown option '$1' (see --help)" >&2; exit 1 ;;
    *) BUILD=$1 ;;
  esac
  shift
done
[[ $BUILD == /* ]] || BUILD=$REPO/$BUILD
[[ -f $BUILD/CTestTestfile.cmake ]] || { echo "error: no ctest build in $BUILD" >&2; exit 1; }
SANITIZER=$(command -v compute-sanitizer || echo "${CUDA_HOME:-/usr/local/cuda}/bin/compute-sanitizer")
[[ -x $SANITIZER ]] || { echo "error: compute-sanitizer not found" >&2; exit 1; }
mkdir -p "$BUILD/memcheck"

# One line per test from ctest's JSON: name, working folder, environment, command (tab-separated,
# the environment and the command joined by \x1f).
tests=$(ctest --test-dir "$BUILD" -N -L '^gpu$' "${FILTER[@]+"${FILTER[@]}"}" --show-only=json-v1 | python3 -c '
import json, sys
for t in json.load(sys.stdin)["tests"]:
    props = {p["name"]: p["value"] for p in t.get("properties", [])}
    print("\t".join([t["name"], props.get("WORKING_DIRECTORY", "."),
                     "\x1f".join(props.get("ENVIRONMENT", [])), "\x1f".join(t["command"])]))')
[[ -n $tests ]] || { echo "error: no test labelled gpu in $BUILD" >&2; exit 1; }

failed=0
while IFS=$'\t' read -r name dir env command; do
  IFS=$'\x1f' read -r -a env_list <<<"$env"
  IFS=$'\x1f' read -r -a cmd_list <<<"$command"
  log=$BUILD/memcheck/$name.log
  start=$SECONDS
  # API errors are not reported: the tests make allocations fail on purpose (OutOfMemoryError), and
  # the library turns every failed CUDA call into an exception, which fails the test anyway.
  # stdin from /dev/null: mpiexec would otherwise read the rest of the test list.
  if (cd "$dir" && env "${env_list[@]+"${env_list[@]}"}" "$SANITIZER" --tool memcheck --target-processes all \
        --report-api-errors no --error-exitcode 86 "${cmd_list[@]}") </dev/null >"$log" 2>&1; then
    result=clean
  else
    result="FAILED (status $?)"; failed=1
  fi
  summary=$(grep -E 'ERROR SUMMARY' "$log" | awk '{ s += $4 } END { print s + 0 }')
  printf '%-32s %-18s memcheck errors: %s (%d s)\n' "$name" "$result" "$summary" "$((SECONDS - start))"
done <<<"$tests"
exit $failed
