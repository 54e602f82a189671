#!/usr/bin/env bash
# Maddi's comparison [Mad] reproduced: epsilon = 1, T = 1000 and 10000, random
# bit streams, error |M(t) - c(t)|.  First with the post's 25 trials (tables
# and data), then with 500 trials (tables and the plots: 25 trials leave
# the curves too noisy to read) to show which differences are real.
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p bench/out/comparison bench/out/comparison_many
many=${BENCH_COMPARISON_TRIALS:-500}
[ -n "${BENCH_QUICK:-}" ] && many=50
cc -std=c11 -O2 $(make -s core-flags) -o bench/out/comparison_bench bench/comparison.c -lsodium -lm
echo "== the post's protocol: 25 trials"
bench/out/comparison_bench 25 bench/out/comparison | tee bench/out/comparison.txt
echo
echo "== the same with $many trials"
bench/out/comparison_bench "$many" bench/out/comparison_many | tee bench/out/comparison_many.txt

gnuplot <<PLOT
trials = '${many}'
set terminal pngcairo size 1000,600 noenhanced font ',10'
set xlabel 'time step t'
set ylabel sprintf('mean |released - true running count| over %s runs', trials)
set logscale y
# in the empty decade between Simple I and the others
set key at graph 0.99, graph 0.78 right top vertical maxrows 5 opaque box
set style data lines
do for [T in "1000 10000"] {
  set output sprintf('bench/out/comparison_T%s.png', T)
  set title sprintf('How far each mechanism'."'".'s running count is from the truth: %s steps of 0 or 1, epsilon = 1', T)
  f = sprintf('bench/out/comparison_many/comparison_T%s.dat', T)
  plot f using 1:2 lw 2 lc rgb '#7f7f7f' title 'Simple I', \
       f using 1:3 lw 1 lc rgb '#1f77b4' title 'Simple II', \
       f using 1:4 lw 1 lc rgb '#2ca02c' title 'Two-level, blocks of 10', \
       f using 1:8 lw 1 lc rgb '#17becf' title 'Two-level, sqrt(T) blocks', \
       f using 1:9 lw 2 lc rgb '#d62728' title 'Binary', \
       f using 1:10 lw 1 lc rgb '#ff7f0e' title 'Hybrid (no horizon)', \
       f using 1:11 lw 1 lc rgb '#9467bd' title 'PPCum', \
       f using 1:12 lw 1 dt 2 lc rgb '#d62728' title 'Binary, pan-private', \
       f using 1:13 lw 1 dt 2 lc rgb '#17becf' title 'Two-level, sqrt(T) blocks, pan-private'
}
unset logscale y
set key at graph 0.02, graph 0.98 left top vertical Left reverse box
set output 'bench/out/comparison_blocks.png'
set title 'Two-level: the error of the running count by block size, 10000 steps of 0 or 1, epsilon = 1'
f = 'bench/out/comparison_many/comparison_T10000.dat'
plot f using 1:4 title 'blocks of 10', f using 1:5 title 'blocks of 25', f using 1:6 title 'blocks of 50', \
     f using 1:7 title 'blocks of 100 = sqrt(T)'
PLOT
echo "wrote bench/out/comparison_T1000.png, comparison_T10000.png, comparison_blocks.png"
