#!/usr/bin/env bash
# Issue 30, item 3 through SQL: the error of W-step window counts measured
# on seeded releases of many partitions, against the exact variance that
# bench/rolling.c reads off the core's noise terms.
#
# P partitions of a fixed random 0/1 stream of T steps, one query each:
#   baseline  r = dp_count(x, balanced) OVER (PARTITION BY p ORDER BY t),
#             estimate r - lag(r, W, 0) (what a user does without the
#             rolling form), whose two releases share noise terms;
#   rolling   dp_rolling_count(x, width => W, mechanism => balanced) OVER
#             (the same window), which runs dp_rolling_of(balanced, W);
# each against the true sum of the last W steps.  The partitions draw
# successive noise from one seeded stream, so they are independent runs.
#
# The check (as bench/mechanisms.sh's): with e_t the error at t, vbar =
# mean over t of the mean over partitions of e_t^2 estimates V, the mean
# over t of the exact variances (the mechanisms are unbiased).  vbar is a
# mean of P i.i.d. per-partition means M = mean_t e_t^2, so normal by the
# CLT with sd(M) / sqrt(P), and sd(M) <= mean_t sd(e_t^2) (Cauchy-Schwarz)
# where Var(e_t^2) = kappa4 + 2 V_t^2, the variance of a sample variance
# from the exact fourth cumulant of the noise: the band z * mean_t
# sd(e_t^2) / sqrt(P), z = 4.89, is failed by a correct mechanism with
# probability about 1e-6 per check.  One more check shows the band has
# power: the figure that ignores the shared terms, Var r_t + Var r_{t-W},
# must be outside the baseline's band.
#
# Prints TAP; a throwaway cluster of its own (the extension must be
# installed); builds bench/rolling.c with the core (cc, libsodium).
#   test/rolling_accuracy.sh            P = 4000, T = 64, W = 7 (about 10 s)
#   ROLLING_PARTITIONS=20000 test/rolling_accuracy.sh   a narrower band
set -uo pipefail
cd "$(dirname "$0")/.."
. scripts/cluster.sh

partitions=${ROLLING_PARTITIONS:-4000}
steps=64
width=7
z_fail=4.8916
planned=5
run=0
failures=0
echo "1..$planned"
report() {  # report STATUS DESCRIPTION
  run=$((run + 1))
  if [ "$1" -eq 0 ]; then echo "ok $run - $2"; else echo "not ok $run - $2"; failures=$((failures + 1)); fi
}

work=$(mktemp -d "${TMPDIR:-/tmp}/dp_stream_rolling_accuracy.XXXXXX")
chmod 755 "$work"
cleanup() { dp_cluster_stop; rm -rf "$work"; }
trap cleanup EXIT

# the exact figures, from the core with the test noise hook
if ! cc -std=c11 -O2 -DDP_TEST_NOISE_HOOK $(make -s core-flags) -o "$work/rolling" \
     bench/rolling.c -lsodium -lm 2>"$work/cc.log"; then
  echo "Bail out! bench/rolling.c did not build: $(head -3 "$work/cc.log")"
  exit 1
fi
baseline_text="balanced(epsilon=1,horizon=$steps,max_per_step=1)"
rolling_text="rolling(epsilon=1,width=$width,max_per_step=1)"
"$work/rolling" --points "$baseline_text" "$steps" "$width" >"$work/baseline.tsv" &&
  "$work/rolling" --points "$baseline_text" "$steps" 0 >"$work/baseline_release.tsv" ||
  { echo "Bail out! no exact figures for $baseline_text"; exit 1; }
have_rolling=1
"$work/rolling" --points "$rolling_text" "$steps" 0 >"$work/rolling.tsv" 2>"$work/rolling.err" ||
  have_rolling=0

dp_cluster_start >/dev/null || { echo "Bail out! the cluster did not start"; exit 1; }
trap cleanup EXIT
trap 'cleanup; exit 130' INT TERM
psql_q() { psql -X -q -v ON_ERROR_STOP=1 -d rolling_accuracy "$@"; }
psql_at() { psql -X -At -v ON_ERROR_STOP=1 -d rolling_accuracy "$@"; }
createdb rolling_accuracy || { echo "Bail out! createdb failed"; exit 1; }
chmod 644 "$work"/*.tsv
psql_q <<SQL || { echo "Bail out! setup failed"; exit 1; }
CREATE EXTENSION dp_stream;
CREATE TABLE stream AS
  SELECT p, t, (hashint8(p * 1000 + t) & 1)::bigint AS x
  FROM generate_series(1, $partitions) p, generate_series(1, $steps) t;
CREATE TABLE exact (estimate text, t bigint, variance float8, sd_square float8);
CREATE TEMP TABLE load (t bigint, variance float8, sd_square float8);
\copy load FROM '$work/baseline.tsv' WITH (FORMAT text, HEADER true)
INSERT INTO exact SELECT 'baseline', * FROM load; TRUNCATE load;
\copy load FROM '$work/baseline_release.tsv' WITH (FORMAT text, HEADER true)
INSERT INTO exact SELECT 'release', * FROM load; TRUNCATE load;
CREATE TABLE error (estimate text, p int, t bigint, e float8);
SQL
if [ "$have_rolling" = 1 ]; then
  psql_q -c "CREATE TEMP TABLE load (t bigint, variance float8, sd_square float8)" \
    -c "\\copy load FROM '$work/rolling.tsv' WITH (FORMAT text, HEADER true)" \
    -c "INSERT INTO exact SELECT 'rolling', * FROM load"
fi

# 1. the SQL mechanisms are the ones the exact figures are for
# (compared as canonical texts: the cast fills the default arity in)
baseline_sql=$(psql_at -c "SELECT dp_balanced(1, $steps, 1)::text
                           = ('$baseline_text'::dp_mechanism)::text" 2>&1)
rolling_sql=$(psql_at -c "SELECT dp_rolling_of(dp_balanced(1, $steps, 1), $width)::text
                          = ('$rolling_text'::dp_mechanism)::text" 2>&1)
if [ "$baseline_sql" = t ] && [ "$have_rolling" = 1 ] && [ "$rolling_sql" = t ]; then
  report 0 "dp_balanced(1, $steps, 1) is $baseline_text and its rolling form of width $width is $rolling_text"
else
  report 1 "the SQL mechanisms are not those of the exact figures ($baseline_text: $baseline_sql; $rolling_text: $rolling_sql; $(head -1 "$work/rolling.err" 2>/dev/null))"
fi

# the seeded releases and their errors against the true window sums
psql_q <<SQL || { echo "Bail out! the baseline's releases failed"; exit 1; }
SET dp_stream.seed = 'rolling accuracy baseline';
INSERT INTO error
SELECT 'baseline', p, t, (r - coalesce(lag(r, $width) OVER w, 0))::float8 - truth
FROM (SELECT p, t, dp_count(x, dp_balanced(1, $steps, 1)) OVER w AS r,
             (sum(x) OVER (w ROWS BETWEEN $((width - 1)) PRECEDING AND CURRENT ROW))::float8 AS truth
      FROM stream WINDOW w AS (PARTITION BY p ORDER BY t)) s
WINDOW w AS (PARTITION BY p ORDER BY t);
SQL
if [ "$have_rolling" = 1 ]; then
  psql_q <<SQL || echo "# the rolling form's releases failed"
SET dp_stream.seed = 'rolling accuracy rolling';
INSERT INTO error
SELECT 'rolling', p, t,
       (dp_rolling_count(x, width => $width, mechanism => dp_balanced(1, $steps, 1)) OVER w)::float8
       - (sum(x) OVER (w ROWS BETWEEN $((width - 1)) PRECEDING AND CURRENT ROW))::float8
FROM stream WINDOW w AS (PARTITION BY p ORDER BY t);
SQL
fi

# vbar, V, the band, and the figure without the cancellation, per estimate
psql_at -F $'\t' >"$work/summary.tsv" <<SQL
WITH empirical AS (
  SELECT estimate, t, avg(e * e) AS v, count(*) AS n FROM error GROUP BY estimate, t
), naive AS (
  SELECT avg(a.variance + coalesce(b.variance, 0)) AS v
  FROM exact a LEFT JOIN exact b ON b.estimate = 'release' AND b.t = a.t - $width
  WHERE a.estimate = 'release'
)
SELECT x.estimate, avg(m.v), avg(x.variance), $z_fail * avg(x.sd_square) / sqrt(min(m.n)),
       (SELECT v FROM naive), min(m.n)
FROM exact x JOIN empirical m USING (estimate, t)
GROUP BY x.estimate ORDER BY x.estimate;
SQL
line() { grep "^$1"$'\t' "$work/summary.tsv"; }

# 2 and 3. the baseline, and the power of its band
IFS=$'\t' read -r _ vbar exact band naive n <<<"$(line baseline)"
if [ -n "${vbar:-}" ]; then
  ok=$(awk -v a="$vbar" -v b="$exact" -v c="$band" 'BEGIN { print (a - b <= c && b - a <= c) ? 0 : 1 }')
  report "$ok" "release(t) - release(t-$width) of $baseline_text over $n partitions: empirical mean variance $(printf %.2f "$vbar"), exact $(printf %.2f "$exact") ± $(printf %.2f "$band")"
  ok=$(awk -v a="$naive" -v b="$exact" -v c="$band" 'BEGIN { print (a - b > c || b - a > c) ? 0 : 1 }')
  report "$ok" "the figure without the shared terms' cancellation, Var r_t + Var r_{t-$width} = $(printf %.2f "$naive"), is outside that band"
else
  report 1 "no baseline errors were measured"
  report 1 "no baseline errors were measured"
fi

# 4. the rolling form
IFS=$'\t' read -r _ vbar exact band _ n <<<"$(line rolling)"
if [ -n "${vbar:-}" ]; then
  ok=$(awk -v a="$vbar" -v b="$exact" -v c="$band" 'BEGIN { print (a - b <= c && b - a <= c) ? 0 : 1 }')
  report "$ok" "dp_rolling_count(x, width => $width, ...) over $n partitions: empirical mean variance $(printf %.2f "$vbar"), exact $(printf %.2f "$exact") ± $(printf %.2f "$band")"
else
  report 1 "no rolling errors were measured (the kind or dp_rolling_count is missing)"
fi

# 5. dp_error_sd of the rolling mechanism is the exact figure at every t
if [ "$have_rolling" = 1 ]; then
  worst=$(psql_at -c "SELECT max(abs(dp_error_sd(dp_rolling_of(dp_balanced(1, $steps, 1), $width), t)
                                  / sqrt(variance) - 1))
                      FROM exact WHERE estimate = 'rolling'" 2>&1)
  ok=$(awk -v w="$worst" 'BEGIN { print (w + 0 == w && w <= 1e-9) ? 0 : 1 }')
  report "$ok" "dp_error_sd of the rolling mechanism is the square root of the exact variance at t = 1..$steps (largest relative gap $worst)"
else
  report 1 "dp_error_sd of the rolling mechanism: no exact figures ($(head -1 "$work/rolling.err"))"
fi

[ "$run" -eq "$planned" ] || { echo "# You planned $planned tests but ran $run"; exit 1; }
[ "$failures" -eq 0 ]
