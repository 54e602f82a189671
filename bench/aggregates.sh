#!/usr/bin/env bash
# The Conjectures 1 and 2 of Budaeva et al. [BLD+] measured: the error of the Binary Average
# and Binary Variance mechanisms against t, for T = 2^10 .. 2^16, epsilon 1
# and 0.1, on i.i.d. uniform values and on an hourly smart-meter profile;
# and the midpoint average estimator against the plain one.
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p bench/out/aggregates
trials=${BENCH_AGGREGATES_TRIALS:-200}
[ -n "${BENCH_QUICK:-}" ] && trials=10
cc -std=c11 -O2 -Wall -Wextra -Wno-unused-parameter $(make -s core-flags) -o bench/out/aggregates_bench \
  bench/aggregates.c -lsodium -lm
echo "== average estimators: midpoint against plain ($(( trials * 2 )) trials)"
bench/out/aggregates_bench estimators $(( trials * 2 )) | tee bench/out/aggregates_estimators.txt
echo
echo "== conjectures 1 and 2: normalised error, $trials trials per configuration"
bench/out/aggregates_bench conjectures "$trials" bench/out/aggregates | tee bench/out/aggregates.txt

gnuplot <<PLOT
set terminal pngcairo size 1000,650 noenhanced font ',10'
set logscale xy
set format x '2^{%L}'
set format x '%g'
set xlabel 't (time steps)'
set key outside bottom center horizontal maxrows 3
set style data lines
do for [statistic in "average variance"] {
  do for [data in "uniform meter"] {
    set output sprintf('bench/out/aggregates_%s_%s.png', statistic, data)
    set ylabel sprintf('95th percentile of |error| / %s, over %s runs', statistic eq 'average' ? 'range' : '(range/2)^2', '${trials}')
    set title sprintf("How fast the error of a private running %s falls over time (Binary, %s data)\nagainst the bound Budaeva et al. conjecture (their conjecture %s)", \
                      statistic, data eq 'meter' ? 'hourly smart-meter' : 'uniform random', statistic eq 'average' ? '1' : '2')
    f(T, e) = sprintf('bench/out/aggregates/aggregates_%s_%s_T%d_eps%s.dat', data, statistic, T, e)
    plot f(10, '1') using 1:2 lw 2 lc rgb '#1f77b4' title 'horizon 2^10, epsilon 1', \
         f(13, '1') using 1:2 lw 2 lc rgb '#2ca02c' title 'horizon 2^13, epsilon 1', \
         f(16, '1') using 1:2 lw 2 lc rgb '#d62728' title 'horizon 2^16, epsilon 1', \
         f(10, '0.1') using 1:2 lw 2 dt 2 lc rgb '#1f77b4' title 'horizon 2^10, epsilon 0.1', \
         f(13, '0.1') using 1:2 lw 2 dt 2 lc rgb '#2ca02c' title 'horizon 2^13, epsilon 0.1', \
         f(16, '0.1') using 1:2 lw 2 dt 2 lc rgb '#d62728' title 'horizon 2^16, epsilon 0.1', \
         f(16, '1') using 1:4 lw 1 lc rgb '#000000' title 'the conjectured bound, horizon 2^16, epsilon 1 (constant 1, delta = 0.05)', \
         f(16, '1') using 1:(2*16**1.5/1/\$1) lw 1 dt 3 lc rgb '#000000' title "2 log2(T)^1.5 / (epsilon t), the shape measured (the sum's error over the count), horizon 2^16, epsilon 1"
  }
}
PLOT
echo "wrote bench/out/aggregates_{average,variance}_{uniform,meter}.png"
