#!/usr/bin/env bash
# Builds nv24_check, nv24_bench and nv24_wgmma_probe with plain nvcc (no Kokkos, no CMake):
# the GPU machine has no GoogleTest/Benchmark. nv24_spmm_wgmma.cu is compiled for sm_90a only
# (wgmma needs the arch-specific target). Usage: build.sh <out_dir> [arch=sm_90]
set -euo pipefail
out=${1:?out dir}; arch=${2:-sm_90}
root=$(cd "$(dirname "$0")/../.." && pwd)
source "$root/perf_tests/common/wait_all.sh"
mkdir -p "$out"
inc="-I$root/core/include -I$root/formats/include -I$root/kernels/include"
flags="-O3 -std=c++17 -lineinfo -arch=$arch -Xcompiler -fopenmp,-O3"
sm90a="-O3 -std=c++17 -lineinfo -gencode arch=compute_90a,code=sm_90a -Xptxas -v"
nvcc $flags $inc -c "$root/kernels/src/nm_spmm/cuda/nv24_spmm.cu" -o "$out/nv24_spmm.o" &
nvcc $flags $inc -c "$root/kernels/src/nm_spmm/cuda/nv24_tune.cu" -o "$out/nv24_tune.o" &
nvcc $sm90a $inc -c "$root/kernels/src/nm_spmm/cuda/nv24_spmm_wgmma.cu" -o "$out/nv24_spmm_wgmma.o" \
  2> "$out/nv24_spmm_wgmma.ptxas.txt" &
wait_all
g++ -O2 -std=c++17 $inc -c "$root/core/src/io/matrix_market.cpp" -o "$out/matrix_market.o" &
g++ -O2 -std=c++17 $inc -c "$root/core/src/io/text_file.cpp" -o "$out/text_file.o" &
wait_all
libz=-lz; [ -e /usr/lib/x86_64-linux-gnu/libz.so ] || libz=/usr/lib/x86_64-linux-gnu/libz.so.1
objs="$out/nv24_spmm.o $out/nv24_tune.o $out/nv24_spmm_wgmma.o"
nvcc $flags $inc "$root/perf_tests/nv24/nv24_check.cu" $objs "$out"/matrix_market.o "$out"/text_file.o $libz -o "$out/nv24_check" &
nvcc $flags $inc "$root/perf_tests/nv24/nv24_bench.cu" $objs -lcublas -ldl -o "$out/nv24_bench" &
wait_all
nvcc -O3 -std=c++17 -gencode arch=compute_90a,code=sm_90a $inc "$root/perf_tests/nv24/nv24_wgmma_probe.cu" \
  -o "$out/nv24_wgmma_probe"
