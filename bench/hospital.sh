#!/usr/bin/env bash
# The hospital example of docs/publications.md ("Wards and patients"),
# measured: 10 wards, 3,000 patients with 1 to 6 admissions in 2026, a
# running count per ward as one publication protecting each patient (k = 3
# admissions across all wards, epsilon 1, Binary over 365 days), against
# the same counts at event level (unit: one ward-day, max_per_step = the
# busiest ward-day, epsilon 1).
#   - runs: BENCH_RUNS publications of each kind over the same data, each
#     its own key, so that every run's noise is independent of the others';
#   - coverage: the share of releases (every ward, every day, every run)
#     inside their 95% band (dp_error_bound), and of the last day's releases
#     alone (independent across wards and runs: checked against the least
#     count a binomial(n, 0.95) reaches except with probability 1e-6);
#   - the error at day 365 per ward: RMSE over the runs and the 95% band;
#     at person level against the truncated count (the noise) and against
#     the full count (noise and truncation);
#   - one publish of the whole year (the managed form) and whether its
#     releases equal the view form's;
#   - a plot of the error by day: docs/img/hospital_by_day.png.
# The runs use the view form (dp_count OVER (PARTITION BY ward ORDER BY
# day)), whose releases equal publish's over the same data.
#   bench/hospital.sh                  200 runs of each (about 20 s)
#   BENCH_RUNS=40 bench/hospital.sh    40 runs
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p bench/out
runs=${BENCH_RUNS:-200}
[ -n "${BENCH_QUICK:-}" ] && runs=40
started=$(date +%s)

scripts/setup.sh
make -s
. scripts/cluster.sh
dp_install_extension
dp_cluster_start
psql_q() { psql -X -q -v ON_ERROR_STOP=1 "$@"; }

psql_q <<'SQL'
SET client_min_messages = warning;
CREATE EXTENSION dp_stream;
\i test/fixtures/hospital.sql
-- the public axis and both inputs, with their running truths
CREATE TABLE axis AS
SELECT w.ward, d.day, (d.day - date '2026-01-01' + 1)::bigint AS step,
       k.n AS kept, a.n AS admitted,
       sum(coalesce(k.n, 0)) OVER w AS kept_to_date,
       sum(coalesce(a.n, 0)) OVER w AS admitted_to_date
FROM wards w
CROSS JOIN (SELECT g::date AS day
            FROM generate_series(date '2026-01-01', date '2026-12-31', interval '1 day') g) d
LEFT JOIN (SELECT ward, admitted AS day, count(*) AS n FROM kept_admissions GROUP BY 1, 2) k USING (ward, day)
LEFT JOIN (SELECT ward, admitted AS day, count(*) AS n FROM admissions GROUP BY 1, 2) a USING (ward, day)
WINDOW w AS (PARTITION BY w.ward ORDER BY d.day);
SELECT max(admitted) AS busiest FROM axis \gset
CREATE TABLE kinds (kind text PRIMARY KEY, mechanism dp_mechanism);
INSERT INTO kinds VALUES
  ('person', 'binary(epsilon=1,horizon=365,max_per_step=100)'),
  ('event', format('binary(epsilon=1,horizon=365,max_per_step=%s)', :busiest)::dp_mechanism);
SQL

# the publications, committed before they draw
psql_q -v runs="$runs" <<'SQL'
SET client_min_messages = warning;
SELECT count(dp_stream.create_publication(format('%s_%s', k.kind, r), 'count', k.mechanism,
                                          partition_by => 'ward', privacy_unit => k.kind,
                                          contributions => CASE k.kind WHEN 'person' THEN 3 END,
                                          first_period => '2026-01-01'))
FROM kinds k, generate_series(1, :runs) r \gset
SQL

psql_q -v runs="$runs" <<'SQL'
\timing on
CREATE TABLE releases AS
SELECT k.kind, r AS run, x.ward, x.step,
       CASE k.kind WHEN 'person' THEN x.kept_to_date ELSE x.admitted_to_date END AS truth,
       x.admitted_to_date,
       dp_count(CASE k.kind WHEN 'person' THEN x.kept ELSE x.admitted END,
                dp_publication(format('%s_%s', k.kind, r), x.ward))
         OVER (PARTITION BY k.kind, r, x.ward ORDER BY x.step) AS estimate,
       dp_error_bound(dp_publication(format('%s_%s', k.kind, r), x.ward), x.step, 0.95) AS band
FROM kinds k, generate_series(1, :runs) r, axis x;
\timing off
SQL

out=bench/out/hospital.txt
{
echo "Hospital example: 10 wards, 3,000 patients, 2026; epsilon 1, Binary, horizon 365;"
echo "person: k = 3 across all wards; event: one ward-day, max_per_step = the busiest ward-day."
echo "$runs runs of each (independent keys), $(nproc) cores, $(date -u +%Y-%m-%d)."
echo
psql -X -q -At -F ' | ' <<'SQL'
SELECT 'admissions ' || count(*) || ', kept at k = 3: ' || (SELECT count(*) FROM kept_admissions)
       || ' (' || round(100 - 100.0 * (SELECT count(*) FROM kept_admissions) / count(*), 1)
       || '% truncated), patients in several wards: '
       || (SELECT count(*) FROM (SELECT patient_id FROM admissions GROUP BY 1
                                 HAVING count(DISTINCT ward) > 1) p)
       || ', busiest ward-day: ' || (SELECT max(admitted) FROM axis)
FROM admissions;
SQL
echo
echo "Day 365, per ward (RMSE over the runs; band: the 95% half-width; sd: dp_error_sd of the"
echo "release, the same for every ward):"
echo
echo "| ward | admissions | truncated | person band | person sd | person RMSE (vs kept) | person RMSE (vs all) | event band | event sd | event RMSE |"
echo "|---|---|---|---|---|---|---|---|---|---|"
psql -X -q -At -F ' | ' <<'SQL'
SELECT '| ' || coalesce(p.ward, 'all wards'), (sum(p.admitted_to_date) / count(DISTINCT p.run))::bigint,
       round(100 - 100.0 * sum(p.truth) / sum(p.admitted_to_date), 1) || '%',
       round(max(p.band)), round(dp_error_sd(dp_publication('person_1', 'emergency'), 365)::numeric, 1),
       round(sqrt(avg((p.estimate - p.truth) ^ 2))::numeric, 1),
       round(sqrt(avg((p.estimate - p.admitted_to_date) ^ 2))::numeric, 1),
       round(max(e.band)), round(dp_error_sd(dp_publication('event_1', 'emergency'), 365)::numeric, 1),
       round(sqrt(avg((e.estimate - e.truth) ^ 2))::numeric, 1) || ' |'
FROM releases p JOIN releases e ON e.kind = 'event' AND e.run = p.run AND e.ward = p.ward AND e.step = p.step
WHERE p.kind = 'person' AND p.step = 365
GROUP BY GROUPING SETS ((p.ward), ())
ORDER BY grouping(p.ward), max(p.admitted_to_date) DESC;
SQL
echo
echo "Coverage of the 95% band:"
echo
echo "| unit | releases | inside | share | worst run | last day: inside / streams | binomial threshold (p = 1e-6) |"
echo "|---|---|---|---|---|---|---|"
psql -X -q -At -F ' | ' <<'SQL'
-- the least c with P(binomial(n, 0.95) < c) <= 1e-6, n = the last day's streams
CREATE TEMP TABLE threshold AS
WITH RECURSIVE params AS (SELECT count(*)::int AS n, 0.95::float8 AS p FROM releases
                          WHERE kind = 'person' AND step = 365),
terms AS (
  SELECT 0 AS i, (SELECT n * ln(1 - p) FROM params) AS log_pmf
  UNION ALL
  SELECT t.i + 1, t.log_pmf + ln((pa.n - t.i)::float8 / (t.i + 1)) + ln(pa.p / (1 - pa.p))
  FROM terms AS t, params AS pa WHERE t.i < pa.n
), cdf AS (
  SELECT i, sum(CASE WHEN log_pmf > -700 THEN exp(log_pmf) ELSE 0 END) OVER (ORDER BY i) AS below_or_at
  FROM terms
)
SELECT min(i) AS c FROM cdf WHERE below_or_at > 1e-6;
SELECT '| ' || kind, count(*), count(*) FILTER (WHERE abs(estimate - truth) <= band),
       round(avg((abs(estimate - truth) <= band)::int), 4),
       (SELECT round(min(s), 4) FROM (SELECT avg((abs(estimate - truth) <= band)::int) AS s
                                      FROM releases AS y WHERE y.kind = x.kind GROUP BY run) z),
       count(*) FILTER (WHERE step = 365 AND abs(estimate - truth) <= band) || ' / '
         || count(*) FILTER (WHERE step = 365),
       (SELECT c FROM threshold) || CASE WHEN count(*) FILTER (WHERE step = 365 AND abs(estimate - truth) <= band)
                                              >= (SELECT c FROM threshold) THEN ' (pass)' ELSE ' (FAIL)' END || ' |'
FROM releases AS x GROUP BY kind ORDER BY kind DESC;
SQL
} | tee "$out"

# the error by day: RMSE over runs and wards against the 95% band, both units
psql -X -q -At -F ' ' <<'SQL' >bench/out/hospital_by_day.dat
SELECT p.step, sqrt(avg((p.estimate - p.truth) ^ 2)), max(p.band),
       sqrt(avg((p.estimate - p.admitted_to_date) ^ 2)),
       sqrt(avg((e.estimate - e.truth) ^ 2)), max(e.band)
FROM releases p JOIN releases e ON e.kind = 'event' AND e.run = p.run AND e.ward = p.ward AND e.step = p.step
WHERE p.kind = 'person'
GROUP BY p.step ORDER BY p.step;
SQL
gnuplot <<'PLOT'
set terminal pngcairo size 1000,560 noenhanced
set output 'bench/out/hospital_by_day.png'
set title 'Hospital example: error of the running count per ward by day (RMSE over runs and wards), epsilon = 1'
set xlabel 'day of 2026'
set ylabel 'admissions'
set xrange [1:365]
set yrange [0:2700]
set key top left
set grid
plot 'bench/out/hospital_by_day.dat' using 1:5 with lines lw 2 lc rgb '#c0392b' title 'event level (a ward-day of up to 20): RMSE', \
     '' using 1:6 with lines lw 1 dt 2 lc rgb '#c0392b' title 'event level: 95% band', \
     '' using 1:4 with lines lw 2 lc rgb '#e69f00' title 'person level, k = 3: RMSE against all admissions', \
     '' using 1:2 with lines lw 2 lc rgb '#2471a3' title 'person level, k = 3: RMSE against the kept admissions', \
     '' using 1:3 with lines lw 1 dt 2 lc rgb '#2471a3' title 'person level: 95% band'
PLOT
mkdir -p docs/img
cp bench/out/hospital_by_day.png docs/img/

echo
echo "The managed form: one publish of the year (a fresh publication), against the view form:"
psql_q <<'SQL'
SET client_min_messages = warning;
SELECT dp_stream.create_publication('managed', 'count', mechanism, partition_by => 'ward',
                                    privacy_unit => 'person', contributions => 3,
                                    first_period => '2026-01-01') IS NOT NULL AS registered
FROM kinds WHERE kind = 'person' \gset
SQL
psql -X -v ON_ERROR_STOP=1 <<'SQL' | tee -a "$out"
\timing on
SELECT dp_stream.publish('managed', '2026-01-01',
         (SELECT array_agg(dp_stream.observation(ward, admitted, 1, patient_id::text)) FROM admissions),
         through => '2026-12-31');
\timing off
SELECT count(*) AS releases, count(*) FILTER (WHERE r.estimate = v.estimate AND r.error_bound = v.band)
         AS equal_to_view_form
FROM dp_stream.publication_releases AS r
JOIN (SELECT x.ward, x.step, dp_count(x.kept, dp_publication('managed', x.ward))
                               OVER (PARTITION BY x.ward ORDER BY x.step) AS estimate,
             dp_error_bound(dp_publication('managed', x.ward), x.step, 0.95) AS band
      FROM axis x) AS v
  ON v.ward = r.partition AND v.step = (r.period::date - date '2026-01-01' + 1)
WHERE r.publication = 'managed';
SQL
echo
echo "hospital bench: $(( $(date +%s) - started )) s; table in $out"
grep -q FAIL "$out" && exit 1
exit 0
