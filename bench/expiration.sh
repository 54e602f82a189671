#!/usr/bin/env bash
# Privacy expiration against its window baseline at equal accuracy.
#  1. bench/expiration.c: each mechanism tuned to a mean squared error of
#     1000 over T = 2^18 (exact variances); the error sd against t; the
#     privacy loss against the age d of an item, guaranteed
#     (dp_privacy_loss) and exact (the noise-shifting linear program,
#     worst over 12 positions), every exact loss checked against its curve.
#  2. Through SQL: dp_error_sd of the tuned mechanisms equals the C figure,
#     and seeded trials of dp_count(...) OVER (ORDER BY t) over 1024 steps
#     have the mean squared error dp_error_sd predicts (band: 4.89 standard
#     errors of the trials, p = 1e-6).
#  3. Plots: docs/img/expiration_error.png, docs/img/expiration_loss.png.
#   bench/expiration.sh                 full (about 3 minutes)
#   BENCH_QUICK=1 bench/expiration.sh   fewer ages and trials (about a minute)
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p bench/out docs/img
started=$(date +%s)
trials=${BENCH_TRIALS:-300}
quick=""
if [ -n "${BENCH_QUICK:-}" ]; then quick=quick; trials=40; fi
z_fail=4.8916

scripts/setup.sh
make -s
cc -std=c11 -O2 $(make -s core-flags) -o bench/out/expiration bench/expiration.c -lsodium -lm
failures=0
bench/out/expiration bench/out $quick | tee bench/out/expiration.txt || failures=$((failures + 1))

gnuplot <<'PLOT'
set terminal pngcairo size 1000,600 noenhanced
set output 'bench/out/expiration_error.png'
set title "Error of the release at each step: privacy that expires (lambda) and its window baseline,\neach set to the same mean squared error, 1000 over 2^18 steps"
set logscale x 2
set xlabel 'time step t'
set ylabel 'standard deviation of the release error'
# the curves fill the plot: the key goes below it
set key below
set grid
array labels[6] = ['expiring, lambda = 0.5', 'expiring, lambda = 1', 'expiring, lambda = 2', 'expiring, lambda = 3', \
                   'window of 127 steps', 'window of 1023 steps']
# the windows dashed: the expiring curves and theirs cross
plot for [i=2:5] 'bench/out/expiration_error.dat' using 1:i with lines lw 2 lc i-1 title labels[i - 1], \
     for [i=6:7] 'bench/out/expiration_error.dat' using 1:i with lines lw 2 lc i-1 dt 2 title labels[i - 1]
PLOT
gnuplot <<'PLOT'
set terminal pngcairo size 1000,620 noenhanced
set output 'bench/out/expiration_loss.png'
set title 'How much privacy an item d steps old has lost (solid: guaranteed; dashed: exact, worst of 12 positions)'
set logscale x 10
set logscale y 10
set xrange [1:100000]
set xlabel 'age d (d = 0 plotted at 1)'
set ylabel 'privacy loss'
set key top left
set grid
array labels[6] = ['expiring, lambda = 0.5', 'expiring, lambda = 1', 'expiring, lambda = 2', 'expiring, lambda = 3', \
                   'window of 127 steps', 'window of 1023 steps']
plot for [i=1:6] 'bench/out/expiration_loss.dat' using ($1 < 1 ? 1 : $1):(column(2*i)) with lines lw 2 lc i title labels[i], \
     for [i=1:6] 'bench/out/expiration_loss.dat' using ($1 < 1 ? 1 : $1):(column(2*i+1)) with lines lw 1 dt 2 lc i notitle
PLOT
cp bench/out/expiration_error.png bench/out/expiration_loss.png docs/img/

. scripts/cluster.sh
dp_install_extension
dp_cluster_start
psql_q() { psql -X -q -v ON_ERROR_STOP=1 "$@"; }
psql_at() { psql -X -At -v ON_ERROR_STOP=1 "$@"; }
psql_q -c "CREATE EXTENSION dp_stream"
psql_q -c "CREATE TABLE stream AS SELECT g::bigint AS t, (hashint8(g) & 1)::bigint AS x FROM generate_series(1, 1024) g"
psql_q -c "CREATE TABLE tuned (label text, m dp_mechanism)"
grep -E '^(expiring|baseline)' bench/out/expiration.txt | grep -v 'epsilon_past =' |
  sed -E 's/^(expiring lambda=[0-9.]+|baseline W=[0-9]+) +([a-z_]+\([^)]*\)).*/\1|\2/' |
  while IFS='|' read -r label text; do
    psql_q -c "INSERT INTO tuned VALUES ('$label', '$text'::dp_mechanism)"
  done

echo
echo "dp_error_sd through SQL against the C program (t = 1, 1000, 2^18):"
sd_check=$(psql_at -q -F ' ' <<'SQL' | tail -1
CREATE TEMP TABLE c_figures (t bigint, sds float8[]);
\copy c_figures FROM PROGRAM 'grep -v "^#" bench/out/expiration_error.dat | awk ''{printf "%s\t{", $1; for (i = 2; i <= NF; i++) printf "%s%s", $i, (i < NF ? "," : ""); print "}"}''' WITH (FORMAT text)
SELECT count(*) FILTER (WHERE abs(dp_error_sd(m, c.t) / c.sds[k] - 1) > 1e-5) AS differ, count(*)
FROM (SELECT label, m, row_number() OVER () AS k FROM tuned) x
JOIN c_figures c ON c.t IN (1, 1000, 262144);
SQL
)
echo "  $sd_check (differing, compared)"
[ "${sd_check%% *}" = 0 ] || failures=$((failures + 1))

echo
echo "Seeded trials through SQL, T = 1024, $trials trials per mechanism:"
echo
echo "| mechanism | exact MSE over t <= 1024 | empirical | band | check |"
echo "|---|---|---|---|---|"
{
  echo "CREATE TABLE trial (label text, trial int, mean_square float8);"
  for i in $(seq "$trials"); do
    echo "SET dp_stream.seed = 'expiration-$i';"
    echo "INSERT INTO trial SELECT label, $i, (SELECT avg(e ^ 2) FROM
            (SELECT ((dp_count(x, m) OVER w) - (sum(x) OVER w))::float8 AS e
             FROM stream WINDOW w AS (ORDER BY t)) s) FROM tuned;"
  done
} >bench/out/expiration_trials.sql
psql_q -f bench/out/expiration_trials.sql
psql_at -F ' | ' <<SQL | tee bench/out/expiration_empirical.txt
SELECT '| ' || t.label,
       round(e.mse::numeric, 1), round(avg(t.mean_square)::numeric, 1),
       '± ' || round(($z_fail * stddev_samp(t.mean_square) / sqrt(count(*)))::numeric, 1),
       CASE WHEN abs(avg(t.mean_square) - e.mse) <= $z_fail * stddev_samp(t.mean_square) / sqrt(count(*))
            THEN 'pass' ELSE 'FAIL' END || ' |'
FROM trial t JOIN (SELECT label, avg(dp_error_sd(m, s) ^ 2) AS mse
                   FROM tuned, generate_series(1, 1024) s GROUP BY label) e USING (label)
GROUP BY t.label, e.mse ORDER BY t.label;
SQL
failures=$((failures + $(grep -c FAIL bench/out/expiration_empirical.txt || true)))
echo
echo "expiration bench: $failures failed checks, $(( $(date +%s) - started )) s"
[ "$failures" -eq 0 ]
