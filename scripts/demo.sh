#!/usr/bin/env bash
# The demo: installs what is missing, builds, starts a throwaway cluster and
# publishes a year of a hospital's admissions with person-level privacy:
# each patient (who may be admitted several times) is protected, releases
# never decrease, and every release comes with its 95% band.  Prints a
# month-by-month table and a summary, and draws the year and each release's
# error against its band in bench/out/demo.png (docs/img/demo.png is a
# copy).  Leaves nothing running.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/setup.sh demo
make -s
. scripts/cluster.sh
dp_install_extension
dp_cluster_start
mkdir -p bench/out

psql -X -q -v ON_ERROR_STOP=1 -P pager=off <<'SQL'
CREATE EXTENSION dp_stream;
SET dp_stream.seed = 'demo';   -- the same run every time: never in production

-- 4,000 patients admitted 1 to 6 times in 2025, more in winter
CREATE TABLE admissions AS
SELECT p AS patient_id,
       date '2025-01-01' + (hashint4(p * 11 + v) & 2147483647)
                           % (CASE WHEN (hashint4(p + v) & 3) = 0 THEN 90 ELSE 365 END) AS admitted
FROM generate_series(1, 4000) p, generate_series(1, 1 + (hashint4(p) & 2147483647) % 6) v;

\echo
\echo 'What is protected: one patient, whatever days their admissions fall on.'
\echo 'Each patient counts at most k = 3 times (their first three admissions);'
\echo 'the noise is calibrated to 3, not to a busy day.'
SELECT (SELECT count(*) FROM admissions) AS admissions,
       (SELECT count(DISTINCT patient_id) FROM admissions) AS patients,
       (SELECT max(n) FROM (SELECT count(*) n FROM admissions GROUP BY patient_id) x) AS most_by_one_patient,
       (SELECT max(n) FROM (SELECT count(*) n FROM admissions GROUP BY admitted) x) AS busiest_day;

CREATE VIEW bounded AS
  SELECT patient_id, admitted
  FROM (SELECT patient_id, admitted,
               row_number() OVER (PARTITION BY patient_id ORDER BY admitted) AS nth
        FROM admissions) x
  WHERE nth <= 3;

-- dp_auto, the recommended mechanism (Balanced for a known horizon), person
-- level k = 3, consistent: integer releases that never decrease
CREATE TABLE released AS
SELECT d.day, row_number() OVER w AS step, coalesce(a.n, 0) AS admitted,
       sum(coalesce(a.n, 0)) OVER w AS true_count,
       dp_count(a.n, dp_consistent(dp_person_level(
                       dp_auto(epsilon => 1.0, horizon => 365, max_per_step => 1000), contributions => 3)))
         OVER w AS private_count
FROM (SELECT g::date AS day FROM generate_series(date '2025-01-01', date '2025-12-31', interval '1 day') g) d
LEFT JOIN (SELECT admitted AS day, count(*) AS n FROM bounded GROUP BY 1) a USING (day)
WINDOW w AS (ORDER BY d.day);
ALTER TABLE released ADD COLUMN band float8;
-- the widest 95% bound so far: a band that never narrows
UPDATE released SET band = dp_error_bound_max(
  dp_consistent(dp_person_level(dp_auto(epsilon => 1.0, horizon => 365, max_per_step => 1000), contributions => 3)), step);

\echo
\echo 'Running count of admissions (at most 3 per patient) at the end of each month:'
SELECT day, true_count AS "true", private_count AS "private",
       private_count - true_count AS error, round(band) AS "95% band"
FROM released
WHERE day = (date_trunc('month', day) + interval '1 month - 1 day')::date
ORDER BY day;

\echo 'Summary over the 365 daily releases:'
SELECT count(*) FILTER (WHERE abs(private_count - true_count) <= band) AS "within the band",
       round(avg(abs(private_count - true_count))) AS "mean |error|",
       bool_and(private_count >= coalesce(lag_count, 0)) AS "never decreases",
       min(private_count) >= 0 AS "never negative",
       max(true_count) AS "year's true count"
FROM (SELECT *, lag(private_count) OVER (ORDER BY day) AS lag_count FROM released) x;

\echo 'The same year protecting a whole day instead (event level, max_per_step = the busiest day):'
SELECT busiest AS "busiest day",
       round(dp_error_bound(dp_auto(epsilon => 1.0, horizon => 365, max_per_step => busiest), 365)) AS "95% band at day 365, event level",
       round(dp_error_bound(dp_person_level(dp_auto(epsilon => 1.0, horizon => 365, max_per_step => 1000), contributions => 3), 365)) AS "person level, k = 3"
FROM (SELECT max(admitted)::bigint AS busiest FROM released) x;

\copy (SELECT step, true_count, private_count, band FROM released ORDER BY step) TO 'bench/out/demo.dat'
SQL

# how many daily releases fall inside their band, counted from the releases
# themselves (the chart and the summary say the same)
inside=$(psql -X -At -v ON_ERROR_STOP=1 -c \
  "SELECT count(*) FILTER (WHERE abs(private_count - true_count) <= band) || ' of ' || count(*) FROM released")
echo "$inside daily releases are inside their 95% band."

if command -v gnuplot >/dev/null 2>&1; then
  # Two panels: the counts themselves (at this scale the two lines and the
  # band coincide), then the error of each release against its band, where
  # the band is visible and the days outside it can be counted.
  gnuplot <<PLOT
set terminal pngcairo size 900,800 noenhanced
set output 'bench/out/demo.png'
set multiplot layout 2,1 title "Hospital admissions in 2025, released every day with each patient protected\n(at most 3 admissions per patient count; epsilon = 1)"
set xrange [1:365]
set xlabel 'day of the year'
set key left top
set ylabel 'admissions so far'
set title 'The running count: true and released (at this scale the lines overlap)'
plot 'bench/out/demo.dat' using 1:2 with lines lw 3 lc rgb '#222222' title 'true count', \
     '' using 1:3 with lines lw 1 lc rgb '#1f77b4' title 'released (private)'
set ylabel 'released - true'
set title 'The error of each release and its 95% band: $inside days inside the band'
set key top center horizontal
# room above the band for the key
set offsets 0, 0, graph 0.25, graph 0.05
plot 'bench/out/demo.dat' using 1:(-\$4):4 with filledcurves lc rgb '#cce0ff' title '95% band', \
     '' using 1:(\$3-\$2) with lines lw 1.5 lc rgb '#1f77b4' title 'error', \
     '' using 1:(abs(\$3-\$2) > \$4 ? \$3-\$2 : 1/0) with points pt 7 ps 0.8 lc rgb '#c0392b' title 'outside the band', \
     0 with lines lw 1 dt 2 lc rgb '#222222' notitle
unset multiplot
PLOT
  echo "Chart: bench/out/demo.png"
fi
echo
echo "Demo finished; the throwaway cluster is stopped and removed."
