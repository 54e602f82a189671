#!/usr/bin/env bash
# BLT factorization design: tunes theta/omega for d = 1..5 buffers at
# T = 2^10, 2^16, 2^20 (rho = 1/2, max_per_step 1) and compares with the
# square-root factorization and the binary tree.  "--table" regenerates the
# parameter table of src/core/mechanisms/dp_blt.c (horizons 2^1 .. 2^62).
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p bench/out
cc -std=c11 -O2 $(make -s core-flags) -o bench/out/blt_design bench/blt_design.c -lsodium -lm
bench/out/blt_design "$@" | tee bench/out/blt_design.txt
