#!/usr/bin/env bash
# Builds spmm_tca_check and spmm_tca_bench with plain nvcc (no Kokkos, no CMake):
# the GPU machine has no GoogleTest/Benchmark. Usage: build.sh <out_dir> [arch=sm_90]
set -euo pipefail
out=${1:?out dir}; arch=${2:-sm_90}
root=$(cd "$(dirname "$0")/../.." && pwd)
source "$root/perf_tests/common/wait_all.sh"
mkdir -p "$out"
inc="-I$root/core/include -I$root/kernels/include"
flags="-O3 -std=c++17 -lineinfo -arch=$arch -Xcompiler -fopenmp,-O3"
nvcc $flags $inc -c "$root/kernels/src/spmm/cuda/spmm_tca.cu" -o "$out/spmm_tca.o" &
g++ -O2 -std=c++17 $inc -c "$root/core/src/io/matrix_market.cpp" -o "$out/matrix_market.o" &
g++ -O2 -std=c++17 $inc -c "$root/core/src/io/text_file.cpp" -o "$out/text_file.o" &
wait_all
libz=-lz; [ -e /usr/lib/x86_64-linux-gnu/libz.so ] || libz=/usr/lib/x86_64-linux-gnu/libz.so.1
nvcc $flags $inc "$root/perf_tests/spmm_tca/spmm_tca_check.cu" "$out"/spmm_tca.o "$out"/matrix_market.o "$out"/text_file.o $libz -o "$out/spmm_tca_check" &
nvcc $flags $inc "$root/perf_tests/spmm_tca/spmm_tca_bench.cu" "$out"/spmm_tca.o "$out"/matrix_market.o "$out"/text_file.o $libz -lcusparse -o "$out/spmm_tca_bench" &
wait_all
