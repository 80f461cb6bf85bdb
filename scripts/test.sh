#!/usr/bin/env bash
# test.sh — bootstrap, build and run the test suite with ctest.
#   scripts/test.sh [--cuda] [--jobs N] [--kokkos-src DIR] [--sanitize] [--target NAME] [--label-exclude LABEL]
#                   [--build-only] [extra ctest args]
# --kokkos-src DIR [--kokkos-kernels-src DIR]: build with that Kokkos (3.4 to 4.x) instead of 3.4.1.
# --sanitize: the host suite with ASan and UBSan in build/host-sanitize (no leak checks in the
# MPI tests: Open MPI's own cannot be told apart). --target NAME (repeatable): build only those
# targets (then select the tests to run with -R).
# Tests labelled `gpu` run only where nvidia-smi finds a GPU. The `install` test
# installs the build into a scratch prefix and builds a consumer project against it.
# Data: $TESSERA_DATA_DIR (default: <repo>/../shared/data).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
usage_if_asked "${BASH_SOURCE[0]}" 2,11 "$@"
parse_common_args "$@"

# Our own --label-exclude is merged with the automatic `gpu` exclusion.
EXCLUDE=() CTEST_EXTRA=() BUILD_ONLY=0
set -- "${REST_ARGS[@]+"${REST_ARGS[@]}"}"
while [[ $# -gt 0 ]]; do
  case $1 in
    --label-exclude|-LE)
      [[ $# -ge 2 ]] || { echo "error: $1 needs a label (--label-exclude LABEL)" >&2; exit 1; }
      EXCLUDE+=("$2"); shift ;;
    --label-exclude=*) EXCLUDE+=("${1#*=}") ;;
    --build-only) BUILD_ONLY=1 ;;   # compile everything, run nothing (CUDA builds without a GPU)
    *) CTEST_EXTRA+=("$1") ;;
  esac
  shift
done
if nvidia-smi >/dev/null 2>&1; then
  step "GPU present: tests labelled 'gpu' included"
elif [[ $CFG == cuda ]]; then
  # A CUDA-enabled Kokkos cannot even initialize without a device: compile only.
  step "no GPU (nvidia-smi fails) for a CUDA build: building only, no tests run"
  BUILD_ONLY=1
else
  step "no GPU (nvidia-smi fails): excluding tests labelled 'gpu'"
  EXCLUDE+=(gpu)
fi

bootstrap_and_build
if [[ $BUILD_ONLY == 1 ]]; then step "built (--build-only: tests not run)"; exit 0; fi

# MPI tests: OpenMPI refuses to start as root (CI containers) and to place more
# ranks than cores (2-core machines) unless told otherwise.
if [[ $EUID -eq 0 ]]; then
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi
export OMPI_MCA_rmaps_base_oversubscribe=${OMPI_MCA_rmaps_base_oversubscribe:-1}

if [[ $SANITIZE == 1 ]]; then
  # A failed operator new is fatal under ASan whatever these say; a failed malloc (Kokkos'
  # allocations) returns null and becomes an exception, as without ASan.
  export ASAN_OPTIONS=${ASAN_OPTIONS:-allocator_may_return_null=1:detect_leaks=1}
  export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1}
fi

# --no-tests=error: a filter that matches nothing (a mistyped -R) fails instead of passing.
ctest_args=(--test-dir "$BUILD_DIR" --output-on-failure --no-tests=error -j "$JOBS")
if [[ ${#EXCLUDE[@]} -gt 0 ]]; then
  ctest_args+=(--label-exclude "^($(IFS='|'; echo "${EXCLUDE[*]}"))\$")
fi
step "ctest"
run ctest "${ctest_args[@]}" "${CTEST_EXTRA[@]+"${CTEST_EXTRA[@]}"}"
step "done"
