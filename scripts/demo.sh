#!/usr/bin/env bash
# demo.sh — bootstrap, build and run the SpMM pipeline example.
#   scripts/demo.sh [--cuda] [--jobs N] [--kokkos-src DIR] [matrix.mtx[.gz]] [--n N=64] [--reps R=10] [--grid G=512]
# (the last four go to the example; without a file A is the 5-point Laplacian of a G x G grid)
# --kokkos-src DIR [--kokkos-kernels-src DIR]: build with that Kokkos (3.4 to 4.x) instead of 3.4.1.
# Data: $TESSERA_DATA_DIR (default: <repo>/../shared/data).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
usage_if_asked "${BASH_SOURCE[0]}" 2,6 "$@"
parse_common_args "$@"
# The demo needs Kokkos alone: it reuses the test configuration's install where that is there,
# and otherwise builds Kokkos without Kokkos Kernels (most of a bare machine's bootstrap).
if [[ $CFG == host && ${#KOKKOS_ARGS[@]} -eq 0 &&
      ! -f $("$REPO/scripts/bootstrap.sh" --print-prefix)/.tessera-deps-complete ]]; then
  KOKKOS_ARGS+=(--without-kokkos-kernels)
fi
TARGETS+=(spmm_pipeline)
bootstrap_and_build

export OMP_PROC_BIND=${OMP_PROC_BIND:-spread} OMP_PLACES=${OMP_PLACES:-threads}
step "run the example"
run "$BUILD_DIR/examples/spmm_pipeline" "${REST_ARGS[@]}"
step "done"
