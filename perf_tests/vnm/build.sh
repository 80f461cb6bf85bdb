#!/usr/bin/env bash
# Builds vnm_check and vnm_bench with plain nvcc (no Kokkos, no CMake): the GPU machine has
# no GoogleTest/Benchmark. vnm_spmm_sm90a.cu (the producer-warpgroup kernel) is compiled for
# sm_90a only, as in the CMake build. Usage: build.sh <out_dir> [arch=sm_90]
set -euo pipefail
out=${1:?out dir}; arch=${2:-sm_90}
root=$(cd "$(dirname "$0")/../.." && pwd)
source "$root/perf_tests/common/wait_all.sh"
mkdir -p "$out"
inc="-I$root/core/include -I$root/formats/include -I$root/kernels/include"
flags="-O3 -std=c++17 -lineinfo -arch=$arch"
nvcc $flags $inc -c "$root/kernels/src/nm_spmm/cuda/vnm_spmm.cu" -o "$out/vnm_spmm.o" &
nvcc -O3 -std=c++17 -lineinfo -gencode arch=compute_90a,code=sm_90a $inc -c "$root/kernels/src/nm_spmm/cuda/vnm_spmm_sm90a.cu" \
  -o "$out/vnm_spmm_sm90a.o" &
wait_all
objs="$out/vnm_spmm.o $out/vnm_spmm_sm90a.o"
nvcc $flags $inc "$root/perf_tests/vnm/vnm_check.cu" $objs -o "$out/vnm_check" &
nvcc $flags $inc "$root/perf_tests/vnm/vnm_bench.cu" $objs -lcublas -o "$out/vnm_bench" &
wait_all
