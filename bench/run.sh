#!/usr/bin/env bash
# Runs every benchmark; tables on stdout, data and PNG plots in bench/out/.
#   bench/run.sh                 full sizes (about 16 minutes on 2 cores)
#   BENCH_QUICK=1 bench/run.sh   small sizes, for a smoke run
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p bench/out
bench/accuracy.sh
bench/mechanisms.sh
# exact rolling-window variances (about 15 s; Honaker at 2^16 only with --slow)
bench/rolling.sh
bench/expiration.sh
bench/comparison.sh
bench/aggregates.sh
# exits 1 when a ratio misses its target by more than the run's noise: reported, the rest still runs
bench/throughput.sh || echo "bench/throughput.sh: some ratios missed their targets (above)"
bench/sampler_timing.sh
# instructions per step of every mechanism by horizon (callgrind, about 2 minutes)
bench/step_work.sh
bench/hospital.sh
bench/biases.sh
