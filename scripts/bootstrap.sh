#!/usr/bin/env bash
# bootstrap.sh — make a Debian 12 machine ready to build Tessera.
#
# Installs the Debian packages Tessera needs, fetches Kokkos 3.4.1 and Kokkos
# Kernels 3.4.1 from Debian's `trilinos` 13.2.0 source package, applies
# third_party/patches/*.patch and builds/installs them into a cache folder keyed
# by configuration and by a hash of (patches + build options + script version).
# With --kokkos-src DIR it builds that Kokkos source folder instead (3.4 to 4.x;
# patched only from third_party/patches/kokkos-<major>.<minor>/), keyed by a hash
# of its files.
# A finished install is marked by a stamp file and reused, so reruns take seconds.
# Nothing is written into the repository.
#
# Run with --help for the options.
set -euo pipefail

# Bump when the build recipe changes in a way the option strings below don't show.
SCRIPT_VERSION=1

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
PATCH_DIR=$REPO/third_party/patches
DEPS_ROOT=${TESSERA_DEPS_DIR:-$HOME/.cache/tessera-deps}
T0=$SECONDS

usage() {
  cat <<'EOF'
Usage: scripts/bootstrap.sh [--cuda] [--jobs N] [--kokkos-src DIR [--kokkos-kernels-src DIR]]
                           [--without-kokkos-kernels] [MODE]

Prepares Kokkos 3.4.1 (+ Kokkos Kernels 3.4.1 for the host configuration) for
Tessera and installs it under ${TESSERA_DEPS_DIR:-$HOME/.cache/tessera-deps}/<cfg>-<hash>.

  --cuda               CUDA+OpenMP+Serial Kokkos for sm_90 (Hopper), built with
                       Kokkos' nvcc_wrapper; no Kokkos Kernels (optional for Tessera)
  --jobs N             parallel build jobs (default: nproc)
  --kokkos-src DIR     build the Kokkos source folder DIR (3.4 to 4.x) instead of
                       Debian's 3.4.1, into <cfg>-kokkos-<version>-<hash>; the hash
                       covers every file of DIR. No Kokkos Kernels unless given:
  --kokkos-kernels-src DIR
                       Kokkos Kernels source folder of the same major.minor (host only)
  --without-kokkos-kernels
                       Kokkos alone for the host configuration, into <cfg>-core-<hash>
                       (what the demo needs: minutes less on a bare machine)
Modes (default: install missing Debian packages, fetch, patch, build, install):
  --print-prefix       print the install prefix of the chosen configuration and exit
  --sources-only DIR   only put the extracted, patched kokkos/ and kokkos-kernels/
                       sources into DIR (carry it to an offline machine) and stop
  --from-sources DIR   build offline from a folder made by --sources-only
                       (no apt, no network)
  --help               this text

Environment: TESSERA_DEPS_DIR (cache root), CUDA_HOME (default /usr/local/cuda),
NVCC_WRAPPER_DEFAULT_ARCH (nvcc_wrapper's -arch when none is given; sm_90).
EOF
}

step() { printf '==> [%4ds] %s\n' "$((SECONDS - T0))" "$*" >&2; }
die()  { printf 'bootstrap.sh: error: %s\n' "$*" >&2; exit 1; }

# ---------------------------------------------------------------- arguments
CFG=host MODE=build MODE_DIR="" JOBS=$(nproc 2>/dev/null || echo 2) KOKKOS_SRC="" KK_SRC="" NO_KK=0
while [[ $# -gt 0 ]]; do
  case $1 in
    --cuda) CFG=cuda ;;
    --jobs) [[ $# -ge 2 ]] || die "--jobs needs a number"; JOBS=$2; shift ;;
    --jobs=*) JOBS=${1#*=} ;;
    --print-prefix) MODE=print ;;
    --without-kokkos-kernels) NO_KK=1 ;;
    --sources-only|--from-sources)
      [[ $# -ge 2 && $2 != -* ]] || die "$1 needs a folder (got '${2:-}'; write ./$2 for a folder named so)"
      MODE=${1#--}; MODE_DIR=$2; shift ;;
    --kokkos-src|--kokkos-kernels-src)
      [[ $# -ge 2 && -d $2 ]] || die "$1 needs a source folder (got '${2:-}')"
      if [[ $1 == --kokkos-src ]]; then KOKKOS_SRC=$(cd "$2" && pwd); else KK_SRC=$(cd "$2" && pwd); fi
      shift ;;
    -h|--help) usage; exit 0 ;;
    *) usage >&2; die "unknown argument: $1" ;;
  esac
  shift
done
[[ $JOBS =~ ^[1-9][0-9]*$ ]] || die "--jobs: not a positive number: $JOBS"
if [[ -n $KOKKOS_SRC ]]; then
  [[ $MODE == build || $MODE == print ]] ||
    die "--$MODE is for Debian's sources; a --kokkos-src folder is local already"
  [[ -z $KK_SRC || $CFG == host ]] || die "--kokkos-kernels-src: Kokkos Kernels is built for the host configuration only"
else
  [[ -z $KK_SRC ]] || die "--kokkos-kernels-src needs --kokkos-src (the Kokkos it is built on)"
fi

# ---------------------------------------------------------------- build options
# Kokkos: Serial+OpenMP, Release, C++17, PIC. CUDA adds Hopper with lambdas and
# relaxed constexpr (the CONSTEXPR warning Kokkos prints for nvcc+C++17 is known
# and harmless for our use).
KOKKOS_OPTS=(
  -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_STANDARD=17 -DCMAKE_CXX_EXTENSIONS=OFF
  -DCMAKE_POSITION_INDEPENDENT_CODE=ON
  -DKokkos_ENABLE_SERIAL=ON -DKokkos_ENABLE_OPENMP=ON
  -DKokkos_ENABLE_TESTS=OFF -DKokkos_ENABLE_EXAMPLES=OFF
)
if [[ $CFG == cuda ]]; then
  KOKKOS_OPTS+=(-DKokkos_ENABLE_CUDA=ON -DKokkos_ARCH_HOPPER90=ON
                -DKokkos_ENABLE_CUDA_LAMBDA=ON -DKokkos_ENABLE_CUDA_CONSTEXPR=ON)
fi
# Kokkos Kernels (host only), without explicit instantiations (ETI): the benchmarks instantiate
# the few kernels they compare against where they call them, from the same templates with the
# same flags, and the library then builds in seconds instead of ~20 min on 2 cores. TPLs off
# (3.4's cuSPARSE/cuBLAS code does not compile against CUDA 13, and we call vendor libraries
# directly). Not built for --cuda. Should it ever be: with CMake >= 4 its configure needs
# find_package(CUDAToolkit) before find_package(Kokkos) (e.g. via -DCMAKE_PROJECT_INCLUDE=<file
# doing that>).
KK_OPTS=(
  -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_STANDARD=17 -DCMAKE_CXX_EXTENSIONS=OFF
  -DCMAKE_POSITION_INDEPENDENT_CODE=ON
  -DKokkosKernels_INST_DOUBLE=OFF -DKokkosKernels_INST_FLOAT=OFF
  -DKokkosKernels_INST_COMPLEX_DOUBLE=OFF -DKokkosKernels_INST_COMPLEX_FLOAT=OFF
  -DKokkosKernels_INST_ORDINAL_INT=OFF -DKokkosKernels_INST_ORDINAL_INT64_T=OFF
  -DKokkosKernels_INST_OFFSET_INT=OFF -DKokkosKernels_INST_OFFSET_SIZE_T=OFF
  -DKokkosKernels_INST_LAYOUTLEFT=OFF -DKokkosKernels_INST_LAYOUTRIGHT=OFF
  -DKokkosKernels_INST_EXECSPACE_SERIAL=OFF -DKokkosKernels_INST_EXECSPACE_OPENMP=OFF
  -DKokkosKernels_ENABLE_TPL_BLAS=OFF -DKokkosKernels_ENABLE_TPL_LAPACK=OFF
  -DKokkosKernels_ENABLE_TPL_CUSPARSE=OFF -DKokkosKernels_ENABLE_TPL_CUBLAS=OFF
  -DKokkosKernels_ENABLE_TESTS=OFF -DKokkosKernels_ENABLE_EXAMPLES=OFF
)
BUILD_KK=$([[ $CFG == host && $NO_KK == 0 && ( -z $KOKKOS_SRC || -n $KK_SRC ) ]] && echo 1 || echo 0)

# ---------------------------------------------------------------- sources brought by the user
# "<major>.<minor>.<patch>" from the set(<Pkg>_VERSION_MAJOR 4) ... lines of a source
# folder's CMakeLists.txt (Kokkos Kernels writes SET, and 3.4 writes the patch as 01).
source_version() {
  local dir=$1 pkg=$2 part n v=""
  for part in MAJOR MINOR PATCH; do
    n=$(sed -nE "s/^[[:space:]]*set\([[:space:]]*${pkg}_VERSION_${part}[[:space:]]+([0-9]+)[[:space:]]*\).*/\1/Ip" \
          "$dir/CMakeLists.txt" 2>/dev/null | head -n1)
    [[ -n $n ]] || die "$dir is not a $pkg source folder (no ${pkg}_VERSION_$part in its CMakeLists.txt)"
    v+=${v:+.}$((10#$n))
  done
  echo "$v"
}
# A hash of every file of a folder, names and contents (.git left out): two source
# folders that differ anywhere never share an install prefix.
tree_hash() {
  (cd "$1" && find . -path ./.git -prune -o -type f -print0 | LC_ALL=C sort -z | xargs -0 sha256sum) |
    sha256sum | cut -c1-12
}
KOKKOS_VERSION=3.4.1 KK_VERSION=3.4.1
if [[ -n $KOKKOS_SRC ]]; then
  KOKKOS_VERSION=$(source_version "$KOKKOS_SRC" Kokkos)
  IFS=. read -r K_MAJOR K_MINOR _ <<< "$KOKKOS_VERSION"
  (( K_MAJOR == 4 || (K_MAJOR == 3 && K_MINOR >= 4) )) ||
    die "$KOKKOS_SRC is Kokkos $KOKKOS_VERSION; Tessera builds with Kokkos 3.4 to 4.x"
  KK_VERSION=none
  if [[ -n $KK_SRC ]]; then
    KK_VERSION=$(source_version "$KK_SRC" KokkosKernels)
    [[ ${KK_VERSION%.*} == "${KOKKOS_VERSION%.*}" ]] ||
      die "$KK_SRC is Kokkos Kernels $KK_VERSION; Kokkos $KOKKOS_VERSION needs Kokkos Kernels ${KOKKOS_VERSION%.*}.x"
  fi
fi

# ---------------------------------------------------------------- cache key
# The sources key covers the sources' identity and the patches; the install key adds the options.
# third_party/patches/*.patch are for Debian's 3.4.1; a source brought with --kokkos-src gets
# only those of third_party/patches/kokkos-<major>.<minor>/, if that folder exists.
if [[ -n $KOKKOS_SRC ]]; then
  mapfile -t PATCHES < <(compgen -G "$PATCH_DIR/kokkos-${KOKKOS_VERSION%.*}/*.patch" | LC_ALL=C sort)
  SRC_KEY=$( { echo "tessera-deps-src v$SCRIPT_VERSION kokkos $KOKKOS_VERSION $(tree_hash "$KOKKOS_SRC")"
               [[ -z $KK_SRC ]] || echo "kokkos-kernels $KK_VERSION $(tree_hash "$KK_SRC")"
               for p in "${PATCHES[@]}"; do basename "$p"; cat "$p"; done
             } | sha256sum | cut -c1-12)
else
  [[ -d $PATCH_DIR ]] || die "no patch folder $PATCH_DIR"
  mapfile -t PATCHES < <(find "$PATCH_DIR" -maxdepth 1 -name '*.patch' | LC_ALL=C sort)
  SRC_KEY=$( { echo "tessera-deps-src v$SCRIPT_VERSION trilinos 13.2.0"
               for p in "${PATCHES[@]}"; do basename "$p"; cat "$p"; done
             } | sha256sum | cut -c1-12)
fi
KEY=$( { echo "$SRC_KEY $CFG"; [[ $CFG == cuda ]] && echo "compiler: <prefix>/bin/nvcc_wrapper"
         printf '%s\n' "${KOKKOS_OPTS[@]}"
         [[ $BUILD_KK == 1 ]] && printf '%s\n' "${KK_OPTS[@]}"; true
       } | sha256sum | cut -c1-12)
PREFIX=$DEPS_ROOT/$CFG-$KEY
[[ -z $KOKKOS_SRC ]] || PREFIX=$DEPS_ROOT/$CFG-kokkos-$KOKKOS_VERSION-$KEY
# Kokkos alone where Kokkos Kernels would have come with it: a name (and build folder) of its own.
[[ $NO_KK == 1 && $CFG == host && -z $KOKKOS_SRC ]] && PREFIX=$DEPS_ROOT/$CFG-core-$KEY
STAMP=$PREFIX/.tessera-deps-complete
SRC_STAMP_NAME=.tessera-sources   # inside a sources folder: its SRC_KEY

if [[ $MODE == print ]]; then echo "$PREFIX"; exit 0; fi

# ---------------------------------------------------------------- helpers
as_root() {
  if [[ $EUID -eq 0 ]]; then "$@"
  elif command -v sudo >/dev/null && sudo -n true 2>/dev/null; then sudo -n "$@"
  else die "need root (or passwordless sudo) to run: $*"; fi
}
APT_OPTS=(-o APT::Sandbox::User=root -o Dpkg::Use-Pty=0 -q)
export DEBIAN_FRONTEND=noninteractive
APT_UPDATED=0
apt_update_once() {
  [[ $APT_UPDATED == 1 ]] && return 0
  step "apt-get update"
  as_root apt-get "${APT_OPTS[@]}" update >/dev/null
  APT_UPDATED=1
}

# True when an apt source configuration lacks deb-src entries that apt-get
# source needs. deb822 (*.sources) files and one-line sources.list are handled.
deb_src_missing() {
  local f
  for f in /etc/apt/sources.list.d/*.sources; do
    [[ -f $f ]] || continue
    grep -Eq '^Types:([[:space:]]+deb)+[[:space:]]*$' "$f" && return 0
  done
  if [[ -f /etc/apt/sources.list ]] && grep -Eq '^[[:space:]]*deb[[:space:]]' /etc/apt/sources.list; then
    grep -Eq '^[[:space:]]*deb-src[[:space:]]' /etc/apt/sources.list || return 0
  fi
  return 1
}
# Edit the existing configuration in place; never adds a host of its own.
enable_deb_src() {
  local f
  step "enabling source indexes (deb-src) in the existing apt configuration"
  for f in /etc/apt/sources.list.d/*.sources; do
    [[ -f $f ]] || continue
    as_root sed -i -E 's/^Types:[[:space:]]*deb[[:space:]]*$/Types: deb deb-src/' "$f"
  done
  if [[ -f /etc/apt/sources.list ]]; then
    local tmp; tmp=$(mktemp)
    # After each active `deb ...` line add `deb-src ...` unless that exact line exists.
    awk '{ print }
         /^[[:space:]]*deb[[:space:]]/ { l = $0; sub(/deb/, "deb-src", l); add[++n] = l }
         /^[[:space:]]*deb-src[[:space:]]/ { have[$0] = 1 }
         END { for (i = 1; i <= n; i++) if (!(add[i] in have)) print add[i] }' \
      /etc/apt/sources.list > "$tmp"
    as_root cp "$tmp" /etc/apt/sources.list; rm -f "$tmp"
  fi
  APT_UPDATED=0
}

# ---------------------------------------------------------------- step: packages
PKGS=(build-essential cmake ninja-build pkg-config libopenmpi-dev openmpi-bin
      libgtest-dev libgmock-dev libbenchmark-dev libeigen3-dev zlib1g-dev dpkg-dev python3
      libpetsc-real-dev clang libclang-rt-dev doxygen)
ensure_packages() {
  local missing=() p
  for p in "${PKGS[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
  done
  if [[ ${#missing[@]} -eq 0 ]]; then step "Debian packages: all present"; return; fi
  apt_update_once
  step "installing Debian packages: ${missing[*]}"
  as_root apt-get "${APT_OPTS[@]}" install -y --no-install-recommends "${missing[@]}" >/dev/null
}

# ---------------------------------------------------------------- step: sources
DL_DIR=$DEPS_ROOT/downloads
TARBALL=trilinos_13.2.0.orig.tar.gz

# The orig tarball, checked against the .dsc apt downloaded next to it.
fetch_tarball() {
  mkdir -p "$DL_DIR"
  if [[ -f $DL_DIR/$TARBALL ]] && compgen -G "$DL_DIR/trilinos_13.2.0-*.dsc" >/dev/null; then
    local dsc want have
    dsc=$(compgen -G "$DL_DIR/trilinos_13.2.0-*.dsc" | head -n1)
    want=$(awk -v f="$TARBALL" '/^Checksums-Sha256:/{s=1;next} /^[^ ]/{s=0} s && $3==f {print $1}' "$dsc")
    have=$(sha256sum "$DL_DIR/$TARBALL" | cut -d' ' -f1)
    if [[ -n $want && $want == "$have" ]]; then step "reusing downloaded $TARBALL"; return; fi
    step "cached $TARBALL does not match its .dsc; downloading again"
    rm -f "$DL_DIR"/trilinos_13.2.0*
  fi
  command -v apt-get >/dev/null || die "apt-get not found; use --from-sources on a machine without apt"
  if deb_src_missing; then enable_deb_src; fi
  apt_update_once
  step "apt-get source --download-only trilinos (~160 MB)"
  (cd "$DL_DIR" && apt-get "${APT_OPTS[@]}" source --download-only trilinos >/dev/null) ||
    die "apt-get source trilinos failed (are deb-src entries reachable?)"
  [[ -f $DL_DIR/$TARBALL ]] ||
    die "Debian's trilinos is not 13.2.0 here (no $TARBALL in $DL_DIR); Tessera needs Kokkos 3.4.1"
}

# Make DIR/{kokkos,kokkos-kernels} from the tarball (or the --kokkos-src folders) + patches
# (atomically via a temp dir).
make_sources() {
  local dir=$1 tmp
  # DIR may be a folder the user named: replace only one this script made (it holds the
  # stamp) or an empty one, never a folder with other contents.
  if [[ -e $dir && ! -f $dir/$SRC_STAMP_NAME ]] && { [[ ! -d $dir ]] || [[ -n $(ls -A "$dir") ]]; }; then
    die "$dir exists and is not a sources folder made by this script (no $SRC_STAMP_NAME in it); name a new or empty folder"
  fi
  need_tools tar patch sha256sum
  [[ -n $KOKKOS_SRC ]] || fetch_tarball
  mkdir -p "$(dirname "$dir")"
  tmp=$(mktemp -d "$(dirname "$dir")/.src-tmp.XXXXXX")
  mkdir -p "$tmp/out"
  if [[ -n $KOKKOS_SRC ]]; then
    step "copying $KOKKOS_SRC${KK_SRC:+ and $KK_SRC}"
    copy_tree "$KOKKOS_SRC" "$tmp/out/kokkos"
    [[ -z $KK_SRC ]] || copy_tree "$KK_SRC" "$tmp/out/kokkos-kernels"
  else
    step "extracting packages/kokkos and packages/kokkos-kernels"
    tar xzf "$DL_DIR/$TARBALL" -C "$tmp" --wildcards '*/packages/kokkos/*' '*/packages/kokkos-kernels/*'
    mv "$tmp"/*/packages/kokkos "$tmp"/*/packages/kokkos-kernels "$tmp/out/"
  fi
  local p
  for p in "${PATCHES[@]}"; do
    step "patch -p1 < ${p#"$REPO"/}"
    patch -d "$tmp/out" -p1 --forward --quiet < "$p" || die "patch $(basename "$p") does not apply"
  done
  echo "$SRC_KEY" > "$tmp/out/$SRC_STAMP_NAME"
  rm -rf "$dir"; mv "$tmp/out" "$dir"; rm -rf "$tmp"
}

# The files of folder $1 (without .git) into folder $2.
copy_tree() { mkdir -p "$2"; tar -C "$1" --exclude=./.git -cf - . | tar -C "$2" -xf -; }

# Two bootstraps sharing a cache (say demo.sh and test.sh at once) must not build
# into the same folder: each install prefix and each sources folder has a lock.
# Prints the fd holding the lock; close it with `exec {fd}>&-`.
take_lock() {
  local fd
  mkdir -p "$DEPS_ROOT"
  exec {fd}>"$1"
  if ! flock -n "$fd"; then step "waiting for another bootstrap (lock $1)"; flock "$fd"; fi
  LOCK_FD=$fd
}

sources_ok() { [[ -f $1/$SRC_STAMP_NAME && $(cat "$1/$SRC_STAMP_NAME") == "$SRC_KEY" ]]; }

# ---------------------------------------------------------------- step: build
need_tools() {
  local t
  for t in "$@"; do command -v "$t" >/dev/null || die "required tool '$t' not found (install it first)"; done
}
GEN=()
if command -v ninja >/dev/null; then GEN=(-G Ninja); fi

# nvcc_wrapper calls `nvcc` from PATH.
find_nvcc() {
  local cuda_home=${CUDA_HOME:-/usr/local/cuda}
  command -v nvcc >/dev/null || export PATH=$cuda_home/bin:$PATH
  command -v nvcc >/dev/null || die "--cuda: nvcc not found (set CUDA_HOME or PATH)"
}

# The compilers a build uses, one line: the C++ compiler's resolved path and version (c++
# and g++ name the same one) and, for --cuda, nvcc's release line. Not in the cache key (a new
# key would rebuild every existing cache); recorded in the stamp, compared when it is reused.
toolchain() {
  local cxx=${CXX:-c++} path
  if [[ $CFG == cuda ]]; then
    find_nvcc
    cxx=${NVCC_WRAPPER_DEFAULT_COMPILER:-g++}
    printf 'nvcc %s; ' "$(nvcc --version 2>/dev/null | grep -i release | head -n1)"
  fi
  path=$(command -v "$cxx") || die "C++ compiler '$cxx' not found"
  printf '%s %s\n' "$(readlink -f "$path")" "$("$cxx" -dumpfullversion 2>/dev/null || "$cxx" -dumpversion)"
}

# Whether the install at $PREFIX can be reused: complete, and built with the compilers of this
# run ($TOOLCHAIN, found before anything is touched: a compiler that is missing stops the run).
# A stamp from before toolchains were recorded is taken as built with them.
install_reusable() {
  [[ -f $STAMP ]] || return 1
  local built
  built=$(sed -n 's/^toolchain=//p' "$STAMP")
  if [[ -z $built ]]; then echo "toolchain=$TOOLCHAIN" >> "$STAMP"; return 0; fi
  [[ $built == "$TOOLCHAIN" ]] && return 0
  step "the compilers changed since $PREFIX was built (then: $built; now: $TOOLCHAIN): rebuilding it"
  rm -f "$STAMP"
  return 1
}

# A build folder left by an interrupted run (Ctrl-C, a lost session: Kokkos Kernels alone takes
# ~15 min on 2 cores) holds a record of what it was building; a rerun from the same sources
# with the same compilers goes on in it instead of starting over. A failed build drops the
# record, so the next run starts clean.
build_and_install() {
  local src=$1 bld=$DEPS_ROOT/build-$CFG-$KEY
  need_tools cmake c++
  [[ ${#GEN[@]} -gt 0 ]] || need_tools make
  local cxx=() record="sources=$src toolchain=$TOOLCHAIN"
  [[ $CFG == cuda ]] && find_nvcc
  rm -rf "$PREFIX"
  if [[ -f $bld/.building && $(cat "$bld/.building") == "$record" ]]; then
    step "resuming the interrupted build in $bld"
  else
    rm -rf "$bld"
    mkdir -p "$bld"
    echo "$record" > "$bld/.building"
  fi
  failed() { tail -n 30 "$2" >&2; rm -f "$bld/.building"; die "$1 failed (log: $2)"; }
  if [[ $CFG == cuda ]]; then
    # Compile with the copy of nvcc_wrapper that ends up in the prefix: Kokkos records
    # its compiler in KokkosConfigCommon.cmake, and the sources may not outlive the install.
    mkdir -p "$PREFIX/bin"
    install -m 755 "$src/kokkos/bin/nvcc_wrapper" "$PREFIX/bin/nvcc_wrapper"
    cxx=(-DCMAKE_CXX_COMPILER="$PREFIX/bin/nvcc_wrapper")
  fi
  step "configuring Kokkos $KOKKOS_VERSION ($CFG) -> $PREFIX"
  cmake -S "$src/kokkos" -B "$bld/kokkos" "${GEN[@]}" "${cxx[@]}" "${KOKKOS_OPTS[@]}" \
        -DCMAKE_INSTALL_PREFIX="$PREFIX" > "$bld.kokkos-configure.log" 2>&1 ||
    failed "Kokkos configure" "$bld.kokkos-configure.log"
  step "building Kokkos ($JOBS jobs)"
  cmake --build "$bld/kokkos" -j "$JOBS" > "$bld.kokkos-build.log" 2>&1 ||
    failed "Kokkos build" "$bld.kokkos-build.log"
  cmake --install "$bld/kokkos" > /dev/null
  if [[ $BUILD_KK == 1 ]]; then
    step "configuring Kokkos Kernels $KK_VERSION (no ETI)"
    cmake -S "$src/kokkos-kernels" -B "$bld/kk" "${GEN[@]}" "${KK_OPTS[@]}" \
          -DKokkos_ROOT="$PREFIX" -DCMAKE_INSTALL_PREFIX="$PREFIX" > "$bld.kk-configure.log" 2>&1 ||
      failed "Kokkos Kernels configure" "$bld.kk-configure.log"
    step "building Kokkos Kernels ($JOBS jobs)"
    cmake --build "$bld/kk" -j "$JOBS" > "$bld.kk-build.log" 2>&1 ||
      failed "Kokkos Kernels build" "$bld.kk-build.log"
    cmake --install "$bld/kk" > /dev/null
  fi
  printf 'config=%s\nkey=%s\nsources=%s\nkokkos=%s\nkokkos_kernels=%s\ndate=%s\ntoolchain=%s\n' \
    "$CFG" "$KEY" "$SRC_KEY" "$KOKKOS_VERSION" "$([[ $BUILD_KK == 1 ]] && echo "$KK_VERSION" || echo none)" \
    "$(date -u +%FT%TZ)" "$TOOLCHAIN" > "$STAMP"
  rm -rf "$bld" "$bld".*.log   # object files are large; the install is what we keep
}

# ---------------------------------------------------------------- main
case $MODE in
  sources-only)
    make_sources "$MODE_DIR"
    step "sources ready in $MODE_DIR ($(du -sh "$MODE_DIR" | cut -f1)); build them with --from-sources"
    ;;
  from-sources)
    TOOLCHAIN=$(toolchain)
    take_lock "$DEPS_ROOT/.lock-$CFG-$KEY"
    install_reusable && { step "already installed: $PREFIX"; exit 0; }
    [[ -f $MODE_DIR/kokkos/CMakeLists.txt && -f $MODE_DIR/kokkos-kernels/CMakeLists.txt ]] ||
      die "$MODE_DIR does not hold kokkos/ and kokkos-kernels/ (make it with --sources-only)"
    sources_ok "$MODE_DIR" ||
      die "$MODE_DIR was patched with a different set of patches than third_party/patches; remake it with --sources-only"
    build_and_install "$(cd "$MODE_DIR" && pwd)"
    step "done: $PREFIX"
    ;;
  build)
    ensure_packages
    TOOLCHAIN=$(toolchain)
    take_lock "$DEPS_ROOT/.lock-$CFG-$KEY"
    if install_reusable; then step "reusing $PREFIX"; exit 0; fi
    SRC=$DEPS_ROOT/src-$SRC_KEY
    take_lock "$DEPS_ROOT/.lock-src-$SRC_KEY"
    if sources_ok "$SRC"; then step "reusing sources $SRC"; else make_sources "$SRC"; fi
    exec {LOCK_FD}>&-   # sources are read-only from here on
    build_and_install "$SRC"
    step "done: $PREFIX"
    ;;
esac
