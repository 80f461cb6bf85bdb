#!/usr/bin/env bash
# Builds pipe_rates with plain nvcc (the f64 mma shapes m16n8k{4,8,16} need sm_90 or newer).
# Usage: build.sh <out_dir> [arch=sm_90]
set -euo pipefail
out=${1:?out dir}; arch=${2:-sm_90}
mkdir -p "$out"
nvcc -O3 -std=c++17 -arch="$arch" "$(dirname "$0")/pipe_rates.cu" -o "$out/pipe_rates"
