# Sourced by the run_device.sh scripts: compute-sanitizer's racecheck (shared-memory hazards),
# synccheck (barrier misuse) and initcheck (reads of uninitialised global memory) over one
# correctness program, the three at once. Logs go to <out>/<tool>.log; the summary names each
# racecheck hazard's two accesses by source line (the CMake targets compile with -lineinfo), as
# a sweep repeats one hazard thousands of times.
# Usage: run_sanitizers <out_dir> <seconds per tool> <program> [args...]
run_sanitizers() {
  local out=$1 limit=$2 tool rc
  shift 2
  local -A pids=()
  for tool in racecheck synccheck initcheck; do
    local report=()
    [[ $tool == racecheck ]] && report=(--racecheck-report hazard)  # one report per hazard, parsed below
    timeout "$limit" compute-sanitizer --tool "$tool" "${report[@]}" --print-limit 200 --error-exitcode 3 "$@" \
      > "$out/$tool.log" 2>&1 &
    pids[$tool]=$!
  done
  for tool in racecheck synccheck initcheck; do
    wait "${pids[$tool]}"; rc=$?
    echo "$tool rc=$rc$([[ $rc == 124 ]] && echo " (stopped at the ${limit} s limit)")"
    grep -E "ERROR SUMMARY|RACECHECK SUMMARY|TOTAL" "$out/$tool.log" | tail -2
  done
  grep -E "^=========     (Write|Read) Thread" "$out/racecheck.log" |
    sed -E 's/^=========     (Write|Read) Thread .* in ([^ ]+)$/  \1 at \2/' | sort | uniq -c | sort -rn | head -10
}
