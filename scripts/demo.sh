#!/usr/bin/env bash
# The demo: installs what is missing, builds, starts a throwaway cluster, loads
# a year of daily admission counts and prints the true running count beside
# private ones.  Leaves nothing running.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/setup.sh
make -s
. scripts/cluster.sh
dp_install_extension
dp_cluster_start

psql -X -q -v ON_ERROR_STOP=1 -P pager=off <<'SQL'
CREATE EXTENSION dp_stream;

-- A small clinic's daily admissions for 2025, generated deterministically:
-- an upward trend, fewer admissions at weekends, day-to-day variation from a
-- fixed hash.  One day contributes at most 20 admissions (max_per_step).
CREATE TABLE admissions AS
SELECT day::date AS day,
       greatest(0, round(
         (6 + 4 * (extract(doy FROM day) / 365.0))            -- trend: 6 -> 10 a day
         * CASE extract(isodow FROM day) WHEN 6 THEN 0.6 WHEN 7 THEN 0.5 ELSE 1.1 END
         + ((hashint4(extract(doy FROM day)::int) % 7) - 3) * 0.8
       ))::int AS admitted
FROM generate_series(date '2025-01-01', date '2025-12-31', interval '1 day') day;

\echo
\echo 'True running count of admissions beside dp_count with the Binary mechanism'
\echo '(horizon 365 days, at most 20 admissions a day, three privacy levels).'
\echo 'err = |private - true|; bound = half-width of the 95% interval from dp_error_bound.'
\echo

CREATE TEMP TABLE released AS
SELECT day, admitted,
       sum(admitted) OVER w AS true_count,
       dp_count(admitted, dp_binary(epsilon => 0.5, horizon => 365, max_per_step => 20)) OVER w AS eps_05,
       dp_count(admitted, dp_binary(epsilon => 1.0, horizon => 365, max_per_step => 20)) OVER w AS eps_1,
       dp_count(admitted, dp_binary(epsilon => 2.0, horizon => 365, max_per_step => 20)) OVER w AS eps_2,
       row_number() OVER w AS step
FROM admissions WINDOW w AS (ORDER BY day);

SELECT day, admitted AS "today", true_count AS "true",
       eps_05 AS "eps=0.5", abs(eps_05 - true_count) AS err,
       dp_error_bound(dp_binary(0.5, 365, 20), step)::bigint AS bound,
       eps_1 AS "eps=1", abs(eps_1 - true_count) AS err,
       dp_error_bound(dp_binary(1.0, 365, 20), step)::bigint AS bound,
       eps_2 AS "eps=2", abs(eps_2 - true_count) AS err,
       dp_error_bound(dp_binary(2.0, 365, 20), step)::bigint AS bound
FROM released ORDER BY day;

\echo 'Summary over the year: mean absolute error, and how often the 95% bound held.'
SELECT eps AS epsilon, round(avg(abs(err))) AS mean_abs_error,
       round(100.0 * avg((abs(err) <= bound)::int), 1) AS "bound held %",
       max(true_count) AS final_true_count
FROM (SELECT 0.5 AS eps, eps_05 - true_count AS err, dp_error_bound(dp_binary(0.5, 365, 20), step) AS bound, true_count FROM released
      UNION ALL
      SELECT 1.0, eps_1 - true_count, dp_error_bound(dp_binary(1.0, 365, 20), step), true_count FROM released
      UNION ALL
      SELECT 2.0, eps_2 - true_count, dp_error_bound(dp_binary(2.0, 365, 20), step), true_count FROM released) x
GROUP BY eps ORDER BY eps;
SQL
echo
echo "Demo finished; the throwaway cluster is stopped and removed."
