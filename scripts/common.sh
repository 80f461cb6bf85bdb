# Shared by demo.sh and test.sh (sourced, not run): parse --cuda / --jobs / --kokkos-src /
# --kokkos-kernels-src / --sanitize / --target, run the bootstrap, configure and build Tessera
# into build/<cfg> (build/<cfg>-kokkos-<version> with --kokkos-src, build/host-sanitize with
# --sanitize; --target NAME, repeatable, builds only those targets).
# Sets: REPO CFG JOBS BUILD_DIR PREFIX REST_ARGS (the arguments not consumed here).

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
T0=$SECONDS
step() { printf '==> [%4ds] %s\n' "$((SECONDS - T0))" "$*" >&2; }
run()  { printf '+ %s\n' "$*" >&2; "$@"; }

CFG=host
JOBS=$(nproc 2>/dev/null || echo 2)
REST_ARGS=()
KOKKOS_ARGS=()   # --kokkos-src DIR / --kokkos-kernels-src DIR, passed on to bootstrap.sh
SANITIZE=0       # --sanitize: AddressSanitizer and UndefinedBehaviorSanitizer (host builds)
TARGETS=()       # --target NAME: build only these
# Prints lines <range> of <script> (its usage header) and exits when any argument is -h or
# --help: passed on to the example or to ctest, it would only get there after a full build.
usage_if_asked() {
  local script=$1 range=$2 arg
  shift 2
  for arg in "$@"; do
    if [[ $arg == -h || $arg == --help ]]; then
      sed -n "${range}p" "$script" | sed 's/^# \{0,1\}//'; exit 0
    fi
  done
}

parse_common_args() {
  while [[ $# -gt 0 ]]; do
    case $1 in
      --cuda) CFG=cuda ;;
      --jobs) [[ $# -ge 2 ]] || { echo "error: --jobs needs a number (--jobs N)" >&2; exit 1; }; JOBS=$2; shift ;;
      --jobs=*) JOBS=${1#*=} ;;
      --sanitize) SANITIZE=1 ;;
      --target) [[ $# -ge 2 ]] || { echo "error: --target needs a target name" >&2; exit 1; }; TARGETS+=("$2"); shift ;;
      --kokkos-src|--kokkos-kernels-src)
        [[ $# -ge 2 ]] || { echo "error: $1 needs a source folder ($1 DIR)" >&2; exit 1; }
        KOKKOS_ARGS+=("$1" "$2"); shift ;;
      *) REST_ARGS+=("$1") ;;
    esac
    shift
  done
}

# Bootstrap the dependencies, then configure + build Tessera.
bootstrap_and_build() {
  [[ $SANITIZE == 1 && $CFG == cuda ]] && { echo "error: --sanitize is for host builds, not --cuda" >&2; exit 1; }
  local boot_args=(--jobs "$JOBS" "${KOKKOS_ARGS[@]+"${KOKKOS_ARGS[@]}"}")
  [[ $CFG == cuda ]] && boot_args+=(--cuda)
  step "bootstrap: Kokkos (+ Kokkos Kernels) for '$CFG'"
  run "$REPO/scripts/bootstrap.sh" "${boot_args[@]}"
  PREFIX=$("$REPO/scripts/bootstrap.sh" "${boot_args[@]}" --print-prefix)

  export TESSERA_DATA_DIR=${TESSERA_DATA_DIR:-$REPO/../shared/data}
  # The prefix's name less its hash: build/host, or build/host-kokkos-4.6.1 for a --kokkos-src
  # Kokkos, so that switching between Kokkos versions does not rebuild one tree each time.
  local deps_name=${PREFIX##*/}
  BUILD_DIR=$REPO/build/${deps_name%-*}
  [[ $SANITIZE == 1 ]] && BUILD_DIR+=-sanitize
  # Two runs at once (demo.sh and test.sh) must not configure and build one tree together:
  # the second waits; the lock is held until this script ends, tests included.
  mkdir -p "$REPO/build"
  exec {BUILD_LOCK_FD}>"$REPO/build/.${BUILD_DIR##*/}.lock"
  if ! flock -n "$BUILD_LOCK_FD"; then step "waiting for another run using ${BUILD_DIR#"$REPO"/}"; flock "$BUILD_LOCK_FD"; fi
  local cfg_args=(-DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH="$PREFIX"
                  -DTESSERA_DATA_DIR="$TESSERA_DATA_DIR")
  # Kokkos' package folders by path: CMake keeps a found *_DIR in its cache, so after the
  # prefix changes (new patches, a new key) CMAKE_PREFIX_PATH alone would leave the build on the old one.
  local lib=lib
  [[ -d $PREFIX/lib/cmake/Kokkos ]] || lib=lib64
  cfg_args+=(-DKokkos_DIR="$PREFIX/$lib/cmake/Kokkos")
  if [[ -d $PREFIX/$lib/cmake/KokkosKernels ]]; then
    cfg_args+=(-DKokkosKernels_DIR="$PREFIX/$lib/cmake/KokkosKernels")
  else
    cfg_args+=(-UKokkosKernels_DIR)
  fi
  command -v ninja >/dev/null && [[ ! -f $BUILD_DIR/Makefile ]] && cfg_args+=(-G Ninja)
  if [[ $CFG == cuda ]]; then
    # Kokkos' nvcc_wrapper calls nvcc from PATH.
    command -v nvcc >/dev/null || export PATH=${CUDA_HOME:-/usr/local/cuda}/bin:$PATH
    cfg_args+=(-DCMAKE_CXX_COMPILER="$PREFIX/bin/nvcc_wrapper")
  fi
  if [[ $SANITIZE == 1 ]]; then
    # -O1 and line tables (-g1) for the reports' stack traces: -O2 -g compiles the template-heavy
    # tests about twice as slowly under the sanitizers. The benchmarks are not tests. The MPI
    # tests' environment turns leak checks off (CMakeLists.txt, TESSERA_MPI_TEST_ENV).
    local flags="-fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer"
    cfg_args+=(-DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1 -DNDEBUG"
               -DCMAKE_CXX_FLAGS="$flags" -DTESSERA_BUILD_PERF_TESTS=OFF
               -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=address,undefined"
               -DCMAKE_SHARED_LINKER_FLAGS="-fsanitize=address,undefined")
  fi
  step "configure Tessera ($CFG) in ${BUILD_DIR#"$REPO"/}"
  run cmake -S "$REPO" -B "$BUILD_DIR" "${cfg_args[@]}"
  step "build Tessera ($JOBS jobs${TARGETS[*]+", targets: ${TARGETS[*]}"})"
  run cmake --build "$BUILD_DIR" -j "$JOBS" ${TARGETS[@]+--target "${TARGETS[@]}"}
}
