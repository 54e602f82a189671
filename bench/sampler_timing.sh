#!/usr/bin/env bash
# Timing of single discrete Laplace draws against their value, reference and
# table samplers (bench/sampler_timing.c); table in bench/out/sampler_timing.txt.
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p bench/out
scripts/setup.sh
draws=${BENCH_DRAWS:-2000000}
if [ -n "${BENCH_QUICK:-}" ]; then draws=200000; fi
cc -std=c11 -O2 $(make -s core-flags) -o bench/out/sampler_timing bench/sampler_timing.c -lsodium -lm
bench/out/sampler_timing "$draws" | tee bench/out/sampler_timing.txt
