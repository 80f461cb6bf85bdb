#!/usr/bin/env bash
# demo.sh — bootstrap, build and run the SpMM pipeline example.
#   scripts/demo.sh [--cuda] [--jobs N] [example args, e.g. a .mtx or .mtx.gz path]
# Data: $TESSERA_DATA_DIR (default: <repo>/../shared/data).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
if [[ ${1:-} == -h || ${1:-} == --help ]]; then
  sed -n '2,4p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 0
fi
parse_common_args "$@"
bootstrap_and_build

export OMP_PROC_BIND=${OMP_PROC_BIND:-spread} OMP_PLACES=${OMP_PLACES:-threads}
step "run the example"
run "$BUILD_DIR/examples/spmm_pipeline" "${REST_ARGS[@]}"
step "done"
