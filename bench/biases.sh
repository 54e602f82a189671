#!/usr/bin/env bash
# The accuracy claims of docs/benchmarks.md "Biases and bands, measured"
# (bench/biases.c): dp_expiring's error sd against t and epsilon (exact),
# Honaker's Chernoff bound against the exact quantile (bracketed), the
# streams that leave dp_error_bound_max's band at some step and the
# simultaneous (union-bound) band (seeded runs of the core), and
# dp_consistent's bias against t (seeded runs of the core); then
# bench/truncation.sh (person-level truncation against noise, SQL).
#   bench/biases.sh                 full (about 25 minutes on one core, most of it Honaker)
#   BENCH_QUICK=1 bench/biases.sh   fewer steps and runs (about a minute)
#   bench/biases.sh consistent      one part: expiring, honaker, band, consistent
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p bench/out
quick=""
[ -n "${BENCH_QUICK:-}" ] && quick=quick
part=${1:-all}

scripts/setup.sh
make -s
cc -std=c11 -O2 $(make -s core-flags) -o bench/out/biases bench/biases.c -lsodium -lm
bench/out/biases "$part" $quick | tee bench/out/biases.txt
if [ "$part" = all ]; then
  bench/truncation.sh
fi
