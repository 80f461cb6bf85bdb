# Sourced by the build scripts: waits for every background job of the calling shell and
# fails when any of them failed (a bare `wait` returns 0 whatever its jobs returned).
wait_all() {
  local rc=0 pid
  for pid in $(jobs -p); do wait "$pid" || rc=1; done
  return $rc
}
