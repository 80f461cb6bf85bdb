#!/usr/bin/env bash
# Builds vnm_check and vnm_bench with plain nvcc (no Kokkos, no CMake): the GPU machine has
# no GoogleTest/Benchmark. Usage: build.sh <out_dir> [arch=sm_90]
set -euo pipefail
out=${1:?out dir}; arch=${2:-sm_90}
root=$(cd "$(dirname "$0")/../.." && pwd)
mkdir -p "$out"
inc="-I$root/core/include -I$root/formats/include -I$root/kernels/include"
flags="-O3 -std=c++17 -arch=$arch"
nvcc $flags $inc -c "$root/kernels/src/nm_spmm/cuda/vnm_spmm.cu" -o "$out/vnm_spmm.o"
nvcc $flags $inc "$root/perf_tests/vnm/vnm_check.cu" "$out/vnm_spmm.o" -o "$out/vnm_check" &
nvcc $flags $inc "$root/perf_tests/vnm/vnm_bench.cu" "$out/vnm_spmm.o" -lcublas -o "$out/vnm_bench" &
wait
