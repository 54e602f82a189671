#!/usr/bin/env bash
# Accuracy of every mechanism.
#  1. Exact: the variance of the release at every t = 1..T (T = 2^10, 2^16,
#     2^20, epsilon = 1, max_per_step = 1) from each mechanism's own noise
#     description (bench/mechanisms.c), mean and max over t.
#  2. Empirical, through SQL as the product is used: seeded trials of
#     dp_count(x, m) OVER (ORDER BY t) over a fixed random 0/1 stream, the
#     squared error against the true running count, compared with (1); and
#     dp_error_sd(m, t) against the square root of (1).  Exits 1 when a
#     check fails.
#  3. Plots of the variance by t.
#   bench/mechanisms.sh                 full size (under ~10 minutes on 2 cores)
#   BENCH_QUICK=1 bench/mechanisms.sh   20 trials at 2^10 only (about a minute)
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p bench/out docs/img
started=$(date +%s)

# Trials at 2^10 are cheap (about 25 ms for all mechanisms): 1000 narrow the
# band of the check to about +-0.25 of the variance.  2^16 costs 64 times
# more per trial; the mean over t is checked there only.
trials=${BENCH_TRIALS:-1000}
large_trials=${BENCH_LARGE_TRIALS:-200}
largest_log2=20
if [ -n "${BENCH_QUICK:-}" ]; then trials=20; large_trials=0; largest_log2=16; fi
small=1024
large=65536
# Two-sided normal quantile for a false failure probability of 1e-6 per check.
z_fail=4.8916

scripts/setup.sh
make -s
cc -std=c11 -O2 $(make -s core-flags) -o bench/out/mechanisms bench/mechanisms.c -lsodium -lm
bench/out/mechanisms bench/out "$largest_log2" | tee bench/out/mechanisms.txt

. scripts/cluster.sh
dp_install_extension
dp_cluster_start

psql_q() { psql -X -q -v ON_ERROR_STOP=1 "$@"; }
psql_at() { psql -X -At -v ON_ERROR_STOP=1 "$@"; }

psql_q <<SQL
CREATE EXTENSION dp_stream;
-- a fixed random 0/1 stream per horizon (the error does not depend on the data)
CREATE TABLE stream_small AS SELECT g::bigint AS t, (hashint8(g) & 1)::bigint AS x
  FROM generate_series(1, $small) g;
CREATE TABLE stream_large AS SELECT g::bigint AS t, (hashint8(g) & 1)::bigint AS x
  FROM generate_series(1, $large) g;
CREATE INDEX ON stream_small (t);
CREATE INDEX ON stream_large (t);
CREATE TABLE exact (horizon bigint, label text, text text, mean float8, max float8,
                    mean_sd_square float8);
CREATE TABLE exact_by_t (label text, t bigint, variance float8, sd_square float8);
CREATE TABLE exact_points (horizon bigint, label text, t bigint, variance float8);
\copy exact FROM 'bench/out/mechanisms_exact.tsv' WITH (FORMAT text, HEADER true)
\copy exact_by_t FROM 'bench/out/mechanisms_exact_1024.tsv' WITH (FORMAT text, HEADER true)
\copy exact_points FROM 'bench/out/mechanisms_points.tsv' WITH (FORMAT text, HEADER true)
-- the SQL form of each mechanism, and the squared errors of the trials
CREATE TABLE mechanism (id int, label text, horizon bigint, m dp_mechanism, via text, expression text);
-- one row per trial and mechanism, errors[t] at t = 1..T (compact: 10^7 errors)
CREATE UNLOGGED TABLE error_small (id int, trial int, errors float8[]);
CREATE UNLOGGED TABLE error_large (id int, trial int, mean_square float8);
VACUUM ANALYZE;
SQL

# The SQL constructor of a label at horizon $2, one line per kind; a label
# without one (or whose constructor this install lacks) is built from the
# C program's text form, cast to dp_mechanism.
constructor() {
  case $1 in
    binary) echo "dp_binary|dp_binary(1, $2, 1)" ;;
    two_level) echo "dp_two_level|dp_two_level(1, $2, 1)" ;;
    hybrid) echo "dp_hybrid|dp_hybrid(1, 1)" ;;
    kary) echo "dp_kary|dp_kary(1, $2, 1)" ;;
    balanced) echo "dp_balanced|dp_balanced(1, $2, 1)" ;;
    balanced_unbounded) echo "dp_balanced_unbounded|dp_balanced_unbounded(1, 1)" ;;
    ppcum) echo "dp_ppcum|dp_ppcum(1, $2, 1)" ;;
    simple_ii) echo "dp_simple_ii|dp_simple_ii(1, 1)" ;;
    simple_i) echo "dp_simple_i|dp_simple_i(1, $2, 1)" ;;
    honaker_2) echo "dp_honaker|dp_honaker(1, $2, 1, arity => 2)" ;;
    honaker) echo "dp_honaker|dp_honaker(1, $2, 1)" ;;
    binary_rho) echo "dp_gaussian_binary|dp_gaussian_binary(0.5, $2, 1)" ;;
    blt) echo "dp_blt|dp_blt(0.5, $2, 1)" ;;
    smooth_binary) echo "dp_smooth_binary|dp_smooth_binary(0.5, $2, 1)" ;;
    *) echo "|" ;;
  esac
}

# Resolve every label of the exact table at both horizons.  The SQL
# mechanism must print as the C program's text: the exact figure is then for
# the very mechanism SQL runs (a default arity that differed would show here).
notes=""
failures=0
id=0
while IFS=$'\t' read -r horizon label text; do
  IFS='|' read -r function expression <<<"$(constructor "$label" "$horizon")"
  via=constructor
  if [ -z "$function" ] || [ "$(psql_at -c "SELECT to_regproc('$function') IS NOT NULL")" != t ]; then
    expression="'$text'::dp_mechanism"
    via="text form"
  fi
  if ! sql_text=$(psql_at -c "SELECT ($expression)::text" 2>/dev/null); then
    notes+="skipped $label at T = $horizon: $expression is not accepted by this install"$'\n'
    continue
  fi
  if [ "$sql_text" != "$text" ]; then
    notes+="FAIL $label at T = $horizon: SQL gives $sql_text, the exact figures are for $text"$'\n'
    failures=$((failures + 1))
    continue
  fi
  id=$((id + 1))
  psql_q -c "INSERT INTO mechanism VALUES ($id, '$label', $horizon, $expression, '$via',
                                           \$expr\$$expression\$expr\$)"
done < <(psql_at -F $'\t' -c "SELECT horizon, label, text FROM exact
                                WHERE horizon IN ($small, $large)
                                  -- the same mechanism under two labels: once
                                  AND (horizon, text, label) IN (SELECT horizon, text, min(label)
                                                                 FROM exact GROUP BY 1, 2)
                                ORDER BY horizon, label")

# dp_error_sd must be the square root of the exact variance (same formula).
echo
echo "dp_error_sd(m, t) against sqrt(exact variance), t in {1, 2, 3, 100, T/3, T/2+1, T-1, T}:"
echo
echo "| mechanism | T | via | max relative difference | check |"
echo "|---|---|---|---|---|"
psql_at -F ' | ' <<'SQL' | tee bench/out/mechanisms_error_sd.txt
SELECT '| ' || m.label, m.horizon, m.via,
       to_char(max(abs(dp_error_sd(m.m, p.t) / sqrt(p.variance) - 1)), '9.99EEEE'),
       CASE WHEN max(abs(dp_error_sd(m.m, p.t) / sqrt(p.variance) - 1)) <= 1e-9
            THEN 'pass' ELSE 'FAIL' END || ' |'
FROM mechanism m JOIN exact_points p USING (label, horizon)
GROUP BY m.label, m.horizon, m.via ORDER BY m.horizon, m.label;
SQL
failures=$((failures + $(grep -c FAIL bench/out/mechanisms_error_sd.txt || true)))

# The trials: one query per trial and mechanism computes all T releases.
# SET dp_stream.seed restarts the noise stream, so trial i is reproducible
# and the trials are independent draws.
mechanisms_small=$(psql_at -F '|' -c "SELECT id, expression FROM mechanism WHERE horizon = $small ORDER BY id")
{
  for i in $(seq "$trials"); do
    echo "SET dp_stream.seed = 'trial-$i';"
    while IFS='|' read -r mid m; do
      echo "INSERT INTO error_small SELECT $mid, $i, array_agg(e ORDER BY t) FROM
              (SELECT t, (dp_count(x, $m) OVER w)::float8 - (sum(x) OVER w)::float8 AS e
               FROM stream_small WINDOW w AS (ORDER BY t)) s;"
    done <<<"$mechanisms_small"
  done
} >bench/out/mechanisms_trials_small.sql
small_start=$(date +%s)
psql_q -f bench/out/mechanisms_trials_small.sql
small_seconds=$(( $(date +%s) - small_start ))

large_seconds=0
if [ "$large_trials" -gt 0 ]; then
  mechanisms_large=$(psql_at -F '|' -c "SELECT id, expression FROM mechanism WHERE horizon = $large ORDER BY id")
  {
    for i in $(seq "$large_trials"); do
      echo "SET dp_stream.seed = 'trial-$i';"
      while IFS='|' read -r mid m; do
        echo "INSERT INTO error_large SELECT $mid, $i, avg(e * e) FROM
                (SELECT (dp_count(x, $m) OVER w)::float8 - (sum(x) OVER w)::float8 AS e
                 FROM stream_large WINDOW w AS (ORDER BY t)) s;"
      done <<<"$mechanisms_large"
    done
  } >bench/out/mechanisms_trials_large.sql
  large_start=$(date +%s)
  psql_q -f bench/out/mechanisms_trials_large.sql
  large_seconds=$(( $(date +%s) - large_start ))
fi

# The checks.  With e_t the error at t in a trial and V_t its exact variance,
# v_t = mean over trials of e_t^2 estimates V_t (the mechanisms are unbiased,
# so this is also a test of the mean).  The mean over t, vbar = mean over
# trials of M_i with M_i = mean over t of e_t^2, is a mean of n i.i.d. trials:
# by the CLT it is normal with sd(M)/sqrt(n), and by Cauchy-Schwarz
# sd(M) <= mean over t of sd(e_t^2), where Var(e_t^2) = k4 + 2 V_t^2 from
# the exact fourth cumulant k4 of the sum of discrete Laplace terms.  The
# band z_fail * that / sqrt(n) is therefore conservative: a correct
# mechanism fails it with probability at most about 1e-6 (two-sided normal
# tail at z = 4.89; the CLT is the only approximation).  Per t, the share
# of steps within their own 99% band is reported, not checked: the steps
# share noise terms, so the count outside is not binomial.  Also reported:
# z against the trials' own sd of M (how far off the estimate really is), and
# that sd over its Cauchy-Schwarz bound (how conservative the band is).
echo
echo "Empirical check through SQL at T = $small, $trials trials (SET dp_stream.seed = 'trial-i'):"
echo "vbar = mean over t of the empirical variance, V = exact mean variance; band = $z_fail x (mean over t of sd(e_t^2)) / sqrt(trials)"
echo
echo "| mechanism | via | exact V | empirical vbar | ratio | band (ratio) | per-t ratio min / median / max | t within own 99% band | z (empirical sd) | sd(M) / its bound | check |"
echo "|---|---|---|---|---|---|---|---|---|---|---|"
psql_at -q -F ' | ' <<SQL | tee bench/out/mechanisms_empirical_small.txt
CREATE TABLE empirical_by_t AS
  SELECT id, u.t, avg(u.e * u.e) AS v, count(*) AS n
  FROM error_small, unnest(errors) WITH ORDINALITY AS u (e, t) GROUP BY id, u.t;
WITH per_t AS (
  SELECT * FROM empirical_by_t
), per_trial AS (
  SELECT id, label, stddev_samp(mean_square) AS sd
  FROM (SELECT id, (SELECT avg(e * e) FROM unnest(errors) e) AS mean_square FROM error_small) s
  JOIN mechanism USING (id) GROUP BY id, label
), joined AS (
  SELECT m.label, m.via, p.t, p.v, p.n, x.variance, x.sd_square
  FROM per_t p JOIN mechanism m USING (id) JOIN exact_by_t x ON x.label = m.label AND x.t = p.t
)
SELECT '| ' || j.label, j.via, round(e.mean::numeric, 1), round(avg(j.v)::numeric, 1),
       round((avg(j.v) / e.mean)::numeric, 3),
       '1 ± ' || round(($z_fail * e.mean_sd_square / sqrt(max(j.n)) / e.mean)::numeric, 3),
       round(min(j.v / j.variance)::numeric, 2) || ' / ' ||
         round((percentile_cont(0.5) WITHIN GROUP (ORDER BY j.v / j.variance))::numeric, 2) || ' / ' ||
         round(max(j.v / j.variance)::numeric, 2),
       round(100.0 * avg((abs(j.v - j.variance) <= 2.5758 * j.sd_square / sqrt(j.n))::int), 1) || '%',
       round(((avg(j.v) - e.mean) / (pt.sd / sqrt(max(j.n))))::numeric, 2),
       round((pt.sd / e.mean_sd_square)::numeric, 2),
       CASE WHEN abs(avg(j.v) - e.mean) <= $z_fail * e.mean_sd_square / sqrt(max(j.n))
            THEN 'pass' ELSE 'FAIL' END || ' |'
FROM joined j JOIN exact e ON e.label = j.label AND e.horizon = $small
  JOIN per_trial pt ON pt.label = j.label
GROUP BY j.label, j.via, e.mean, e.mean_sd_square, pt.sd ORDER BY j.label;
SQL
failures=$((failures + $(grep -c FAIL bench/out/mechanisms_empirical_small.txt || true)))

if [ "$large_trials" -gt 0 ]; then
  echo
  echo "Empirical check through SQL at T = $large, $large_trials trials: mean over t only"
  echo
  echo "| mechanism | via | exact V | empirical vbar | ratio | band (ratio) | z (empirical sd) | sd(M) / its bound | check |"
  echo "|---|---|---|---|---|---|---|---|---|"
  psql_at -F ' | ' <<SQL | tee bench/out/mechanisms_empirical_large.txt
SELECT '| ' || m.label, m.via, round(e.mean::numeric, 1), round(avg(l.mean_square)::numeric, 1),
       round((avg(l.mean_square) / e.mean)::numeric, 3),
       '1 ± ' || round(($z_fail * e.mean_sd_square / sqrt(count(*)) / e.mean)::numeric, 3),
       round(((avg(l.mean_square) - e.mean) / (stddev_samp(l.mean_square) / sqrt(count(*))))::numeric, 2),
       round((stddev_samp(l.mean_square) / e.mean_sd_square)::numeric, 2),
       CASE WHEN abs(avg(l.mean_square) - e.mean) <= $z_fail * e.mean_sd_square / sqrt(count(*))
            THEN 'pass' ELSE 'FAIL' END || ' |'
FROM error_large l JOIN mechanism m USING (id) JOIN exact e ON e.label = m.label AND e.horizon = $large
GROUP BY m.label, m.via, e.mean, e.mean_sd_square ORDER BY m.label;
SQL
  failures=$((failures + $(grep -c FAIL bench/out/mechanisms_empirical_large.txt || true)))
fi

# Empirical and exact variance by t at 2^10 for three mechanisms, for the plot.
psql_q <<'SQL'
\copy (SELECT t, max(v) FILTER (WHERE label = 'binary'), max(variance) FILTER (WHERE label = 'binary'), max(v) FILTER (WHERE label = 'balanced'), max(variance) FILTER (WHERE label = 'balanced'), max(v) FILTER (WHERE label = 'balanced_unbounded'), max(variance) FILTER (WHERE label = 'balanced_unbounded') FROM (SELECT m.label, p.t, p.v FROM empirical_by_t p JOIN mechanism m USING (id)) p JOIN exact_by_t USING (label, t) GROUP BY t ORDER BY t) TO 'bench/out/mechanisms_empirical_1024.dat' WITH (FORMAT text, NULL '?')
SQL

dp_cluster_stop

# Plots: every pure epsilon-DP mechanism at 2^16 (log y), and the empirical
# variance by t at 2^10 over the exact curve.
bench/mechanisms_plot.sh "$trials"
cp bench/out/mechanisms_variance_2_16.png bench/out/mechanisms_empirical_2_10.png docs/img/

echo
printf '%s' "$notes"
echo "SQL trials: $small_seconds s at T = $small ($trials trials), $large_seconds s at T = $large ($large_trials trials); total $(( $(date +%s) - started )) s"
echo "wrote bench/out/mechanisms_*.dat, bench/out/mechanisms_*.png (copied to docs/img/)"
if [ "$failures" -gt 0 ]; then
  echo "$failures check(s) FAILED" >&2
  exit 1
fi
echo "all checks passed"
