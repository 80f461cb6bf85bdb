#!/usr/bin/env bash
# Packs dist_spmv_bench with the shared libraries of the PETSc it was linked against, so the
# PETSc comparison can run on a machine that has MPI but no PETSc (e.g. a many-core node
# without network access). The machine's own libmpi is used there: the C library, the C++
# runtime and Open MPI itself are left out of the pack.
#   perf_tests/pack_dist_bench.sh [build-dir] [out.tar.xz]
# On the other machine, from a checkout of the same commit:
#   tar xJf dist_bench.tar.xz && TESSERA_COMMIT=<commit> RANKS="1 2 4 8 16" dist_bench/run.sh
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$repo/build/host}
out=${2:-$PWD/dist_bench.tar.xz}
bench=$build/perf_tests/dist_spmv_bench
[ -x "$bench" ] || { echo "error: $bench not built" >&2; exit 2; }
petsc=$(ldd "$bench" | awk '/libpetsc/ {print $3}')
[ -n "$petsc" ] || { echo "error: $bench is not linked against PETSc" >&2; exit 2; }

stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage/dist_bench/lib" "$stage/dist_bench/build/perf_tests"
cp "$bench" "$stage/dist_bench/build/perf_tests/"
# The bandwidth probe run_dist.sh prints beside the table (MPI only, no PETSc).
[ -x "$build/perf_tests/memory_bandwidth" ] && cp "$build/perf_tests/memory_bandwidth" "$stage/dist_bench/build/perf_tests/"
# Every library the bench and PETSc load, under its soname, except those the target
# machine provides itself.
skip='/(libc|libm|libdl|libpthread|librt|libstdc\+\+|libgcc_s|libgomp|libmpi|libopen-rte|libopen-pal)\.so'
{ ldd "$bench"; ldd "$petsc"; } | awk '$2 == "=>" && $3 ~ /^\// {print $1, $3}' | sort -u |
  while read -r soname path; do
    [[ $path =~ $skip ]] || cp -L "$path" "$stage/dist_bench/lib/$soname"
  done
cat > "$stage/dist_bench/run.sh" <<'RUN'
#!/usr/bin/env bash
# Runs perf_tests/run_dist.sh of the checkout in the current folder with the packed bench;
# the packed libraries come after the machine's own (its libmpi first).
here=$(cd "$(dirname "$0")" && pwd)
export LD_LIBRARY_PATH=${LD_LIBRARY_PATH:+$LD_LIBRARY_PATH:}$here/lib
exec perf_tests/run_dist.sh "$here/build"
RUN
chmod +x "$stage/dist_bench/run.sh"
tar cf - -C "$stage" dist_bench | xz -T0 -6 > "$out"
echo "packed $(du -h "$out" | cut -f1) into $out ($(ls "$stage/dist_bench/lib" | wc -l) libraries)"
