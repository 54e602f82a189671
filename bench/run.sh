#!/usr/bin/env bash
# Runs every benchmark; tables on stdout, data and PNG plots in bench/out/.
#   bench/run.sh                 full sizes (about 16 minutes on 2 cores)
#   BENCH_QUICK=1 bench/run.sh   small sizes, for a smoke run
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p bench/out
bench/accuracy.sh
bench/mechanisms.sh
bench/expiration.sh
bench/comparison.sh
bench/aggregates.sh
bench/throughput.sh
bench/sampler_timing.sh
bench/hospital.sh
bench/biases.sh
