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
gnuplot <<PLOT
set terminal pngcairo size 900,500 noenhanced
set output 'bench/out/accuracy_by_t.png'
set title 'How far the Binary mechanism'."'".'s release is from the true count at each step (T = 1024 steps, epsilon = 1)'
set xlabel 'time step t'
set ylabel 'root mean squared error over $trials runs'
set xrange [0:1024]
set key top left
# headroom above the data for the key
set offsets 0, 0, graph 0.35, 0
plot 'bench/out/accuracy_by_t.dat' using 1:2 with lines lc rgb '#999999' title 'measured', \\
     '' using 1:3 with lines lw 2 lc rgb '#c0392b' title 'predicted: the noise of the popcount(t) tree nodes that sum to step t'
PLOT
echo "wrote bench/out/accuracy_by_t.png"
