#!/usr/bin/env bash
# Accuracy of the Binary mechanism: empirical mean squared error against
# theory at T = 2^10, 2^14, 2^16 and epsilon 0.5, 1, 2; plot of RMSE by t.
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p bench/out
trials=${BENCH_TRIALS:-200}
[ -n "${BENCH_QUICK:-}" ] && trials=20
cc -std=c11 -O2 $(make -s core-flags) -o bench/out/accuracy bench/accuracy.c -lsodium -lm
bench/out/accuracy "$trials" bench/out | tee bench/out/accuracy.txt
gnuplot <<'PLOT'
set terminal pngcairo size 900,500 noenhanced
set output 'bench/out/accuracy_by_t.png'
set title 'Binary mechanism, T = 1024, epsilon = 1: RMSE of the release at each t'
set xlabel 't'
set ylabel 'root mean squared error'
set xrange [0:1024]
set key top left
plot 'bench/out/accuracy_by_t.dat' using 1:2 with lines lc rgb '#999999' title 'empirical', \
     '' using 1:3 with lines lw 2 lc rgb '#c0392b' title 'theory: sqrt(popcount(t) Var)'
PLOT
echo "wrote bench/out/accuracy_by_t.png"
