#!/usr/bin/env bash
# The plots of bench/mechanisms.sh, from the data it wrote in bench/out/:
#   mechanisms_variance_2_16.png   the exact variance of every pure epsilon-DP
#                                  mechanism by t at T = 2^16 (from the C
#                                  program alone: bench/out/mechanisms)
#   mechanisms_empirical_2_10.png  the variance measured through SQL at
#                                  T = 2^10 against the exact one
# bench/mechanisms.sh runs this and copies both to docs/img/.
#   bench/mechanisms_plot.sh TRIALS   (the number of SQL runs, for a label)
set -euo pipefail
cd "$(dirname "$0")/.."
trials=${1:?usage: bench/mechanisms_plot.sh TRIALS}
data=bench/out/mechanisms_by_t_65536.dat

# The exact variance oscillates with t (it follows the tree's levels), so
# eleven curves drawn at every bin of 32 steps cover each other.  Drawn as
# means over 1,024 steps, in two panels (a horizon known in advance; none,
# and the baselines), with a colour and a dash of its own per line, they can
# be told apart.  k-ary and Honaker's estimator on the same k-ary tree are
# within a few per cent of each other at every t: one line, its label
# giving both means.  Each label gives the mechanism's mean variance over
# t = 1..T, computed here from the data.
for label in binary two_level hybrid kary balanced balanced_unbounded ppcum simple_ii simple_i honaker_2 honaker; do
  head -1 "$data" | tr ' ' '\n' | grep -qx "$label" || { echo "$data has no column $label" >&2; exit 1; }
done
gnuplot <<PLOT
set terminal pngcairo size 1000,1000 noenhanced
set output 'bench/out/mechanisms_variance_2_16.png'
file = '$data'
# the column of a mechanism, by its name in the header line
col(name) = sum [i=1:words(header)] (word(header, i) eq name ? i : 0)
header = system('head -1 $data')
# the header line is not data
set datafile commentschars '#t'
do for [name in "binary two_level hybrid kary balanced balanced_unbounded ppcum simple_ii simple_i honaker_2 honaker"] {
  stats file using (column(col(name))) nooutput
  eval sprintf('m_%s = STATS_mean', name)
}
bin = 1024
x(t) = floor(t / bin) * bin + bin / 2
set xrange [0:65536]
set logscale y
set format y '10^%T'
set xlabel 'time step t' offset 0,0.7
set ylabel 'variance of the release (mean over 1,024 steps)'
set key below Left reverse maxrows 3 width 1
set grid ytics
set multiplot layout 2,1 title 'Variance of the running count at each step, T = 2^16 steps, epsilon = 1 (exact, from each mechanism'."'".'s noise)'
set title 'With a horizon known in advance'
set yrange [100:20000]
plot file using (x(\$1)):(column(col('balanced'))) smooth unique lw 3 lc rgb '#1f5fa8' dt 1 \\
       title sprintf('Balanced (dp_auto): mean %.0f', m_balanced), \\
     '' using (x(\$1)):(column(col('kary'))) smooth unique lw 2 lc rgb '#16a085' dt 1 \\
       title sprintf('k-ary tree: mean %.0f; with Honaker'."'".'s estimator: %.0f', m_kary, m_honaker), \\
     '' using (x(\$1)):(column(col('two_level'))) smooth unique lw 2 lc rgb '#8e44ad' dt 2 \\
       title sprintf('Two-level: mean %.0f', m_two_level), \\
     '' using (x(\$1)):(column(col('honaker_2'))) smooth unique lw 2 lc rgb '#e67e22' dt 4 \\
       title sprintf('Binary tree with Honaker'."'".'s estimator: mean %.0f', m_honaker_2), \\
     '' using (x(\$1)):(column(col('binary'))) smooth unique lw 3 lc rgb '#c0392b' dt 1 \\
       title sprintf('Binary: mean %.0f', m_binary), \\
     '' using (x(\$1)):(column(col('ppcum'))) smooth unique lw 2 lc rgb '#7f8c8d' dt 3 \\
       title sprintf('PPCum: mean %.0f', m_ppcum)
set title sprintf('Without a horizon, and the baselines (Balanced for comparison; Simple I, %.1e, is off the scale)', m_simple_i)
set yrange [100:300000]
plot file using (x(\$1)):(column(col('balanced'))) smooth unique lw 1 lc rgb '#1f5fa8' dt 3 \\
       title sprintf('Balanced (as above): mean %.0f', m_balanced), \\
     '' using (x(\$1)):(column(col('balanced_unbounded'))) smooth unique lw 3 lc rgb '#2e7d32' dt 1 \\
       title sprintf('Balanced unbounded: mean %.0f', m_balanced_unbounded), \\
     '' using (x(\$1)):(column(col('hybrid'))) smooth unique lw 2 lc rgb '#d4ac0d' dt 2 \\
       title sprintf('Hybrid: mean %.0f', m_hybrid), \\
     '' using (x(\$1)):(column(col('simple_ii'))) smooth unique lw 2 lc rgb '#e84393' dt 4 \\
       title sprintf('Simple II: mean %.0f', m_simple_ii)
unset multiplot
PLOT
gnuplot <<PLOT
set terminal pngcairo size 1000,800 noenhanced
set output 'bench/out/mechanisms_empirical_2_10.png'
set datafile missing '?'
set xrange [0:1024]
set xlabel 'time step t'
set ylabel 'variance of the release'
set key top left
# headroom above the data for the key
set offsets graph 0, graph 0, graph 0.3, graph 0
# two panels: Binary's variance is seven times the others'
set multiplot layout 2,1 title "Variance of the running count measured through SQL ($trials runs, points)\nagainst the exact variance (lines), T = 1024 steps, epsilon = 1"
plot 'bench/out/mechanisms_empirical_1024.dat' using 1:3 with lines lw 1 lc rgb '#f0b0a8' title 'Binary, exact', \\
     '' using 1:2 with points pt 7 ps 0.35 lc rgb '#c0392b' title 'Binary, measured'
plot 'bench/out/mechanisms_empirical_1024.dat' using 1:5 with lines lw 1 lc rgb '#a8c4e8' title 'Balanced, exact', \\
     '' using 1:4 with points pt 7 ps 0.35 lc rgb '#1f5fa8' title 'Balanced, measured', \\
     '' using 1:7 with lines lw 1 lc rgb '#a8d8a0' title 'Balanced unbounded, exact', \\
     '' using 1:6 with points pt 7 ps 0.35 lc rgb '#2e7d32' title 'Balanced unbounded, measured'
unset multiplot
PLOT
