#!/usr/bin/env bash
# Accuracy of rolling (W-step window) counts, exactly, from each mechanism's
# noise terms as the core draws them (bench/rolling.c): the rolling kind's
# release against release(t) - release(t - W) of the running mechanisms
# (dp_auto's balanced tree, Binary, k-ary, Honaker's estimator), W = 7, 28,
# 365, T = 365 and 2^16, epsilon = 1, max_per_step = 1; the decayed sum's
# variance by t beside them (no window).  Checks issue 30's target (at least
# 3x lower mean variance at W = 7, T = 2^16; flat in T) and that each
# release's variance read off the core is its kind's noise description;
# exits 1 when one fails.  Then the plot, docs/img/rolling_variance.png.
#   bench/rolling.sh           about 15 s of CPU (rolling at W = 365 is most of it)
#   bench/rolling.sh --slow    Honaker's estimator and Simple II at 2^16 too
#                              (O(T^2): about 8 minutes of CPU; a later run
#                              without --slow plots their data files again)
#   BENCH_QUICK=1 bench/rolling.sh   T = 365 only
# The same figures through SQL, from seeded releases: test/rolling_accuracy.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p bench/out docs/img
largest=65536
[ -n "${BENCH_QUICK:-}" ] && largest=365
slow=
[ "${1:-}" = --slow ] && slow=--slow

started=$(date +%s)
# the core with the test noise hook, as test/unit/test_calibration_lp.c
cc -std=c11 -O2 -Wall -Wextra -Wno-unused-parameter -DDP_TEST_NOISE_HOOK $(make -s core-flags) \
  -o bench/out/rolling bench/rolling.c -lsodium -lm
status=0
/usr/bin/time -f '%U' -o bench/out/rolling.cpu bench/out/rolling bench/out "$largest" $slow \
  2>bench/out/rolling.err | tee bench/out/rolling.txt || status=$?
echo "exact figures: $(tail -1 bench/out/rolling.cpu) s of CPU, $(( $(date +%s) - started )) s in all (with the build)"
[ "$largest" -ge 65536 ] || exit "$status"

# The plot: variance by t at T = 2^16 (log t), one panel per width; the
# running mechanisms' differences against the rolling kind's release.
series() { [ -s "bench/out/rolling_65536_$1_$2.dat" ] && echo "bench/out/rolling_65536_$1_$2.dat"; }
plot_panel() {
  local w=$1 out="" file
  for entry in "balanced:Balanced (dp_auto), release(t) - release(t-$w):#1f5fa8:1:2" \
               "kary:k-ary, release(t) - release(t-$w):#16a085:2:2" \
               "honaker:Honaker, release(t) - release(t-$w):#e67e22:4:2" \
               "binary:Binary, release(t) - release(t-$w):#c0392b:3:2" \
               "simple_ii:Simple II (each step noised once), release(t) - release(t-$w):#8e44ad:5:2" \
               "rolling:Rolling, width $w (its release; default levels):#2e7d32:1:3" \
               "rolling_full:Rolling, width $w, full tree (its release):#6d4c41:1:2"; do
    IFS=: read -r label title colour dash width <<<"$entry"
    file=$(series "$w" "$label") || continue
    out+="${out:+, }'$file' using 1:2 with lines lw $width lc rgb '$colour' dt $dash title '$title'"
  done
  echo "set title 'W = $w'"
  echo "plot $out"
}
{
  cat <<'PLOT'
set terminal pngcairo size 1000,1100 noenhanced
set output 'bench/out/rolling_variance.png'
set logscale x
set logscale y
set format y '10^%T'
set xrange [1:65536]
set xlabel 'time step t'
set ylabel 'variance of the window count'
set key top left Left reverse font ',9'
set grid ytics
set yrange [1:20000]
set multiplot layout 3,1 title "Variance of the count of the last W steps, T = 2^16, epsilon = 1\n(exact, from the noise terms; every t to 16, then means over bins of 5% of t)"
PLOT
  plot_panel 7
  plot_panel 28
  plot_panel 365
  echo "unset multiplot"
} | gnuplot
cp bench/out/rolling_variance.png docs/img/
echo "wrote bench/out/rolling_*.dat, bench/out/rolling_variance.png (copied to docs/img/)"
exit "$status"
