-- The privacy unit (0.7.0): "one patient contributes at most k admissions".
-- A hospital's admissions over a year; patients come back.  The recipe
-- keeps each patient's first k admissions, counts them per day, and
-- releases the running count with noise calibrated to k, not to a day.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS dp_stream;
RESET client_min_messages;
SET dp_stream.seed = 'privacy unit';

CREATE TABLE patient_admissions AS
  SELECT p AS patient_id,
         date '2026-01-01' + ((hashint4(p * 7 + v) & 2147483647) % 365) AS admitted
  FROM generate_series(1, 3000) p,
       generate_series(1, 1 + (hashint4(p) & 2147483647) % 6) v;   -- 1 to 6 admissions each
SELECT (SELECT count(*) FROM patient_admissions) AS admissions,
       (SELECT count(DISTINCT patient_id) FROM patient_admissions) AS patients,
       (SELECT max(n) FROM (SELECT count(*) AS n FROM patient_admissions GROUP BY patient_id) p)
         AS most_by_one_patient,
       (SELECT max(n) FROM (SELECT count(*) AS n FROM patient_admissions GROUP BY admitted) d)
         AS busiest_day;

-- 1. bound what one person contributes: each patient's first 3 admissions
CREATE VIEW bounded_admissions AS
  SELECT patient_id, admitted
  FROM (SELECT patient_id, admitted,
               row_number() OVER (PARTITION BY patient_id ORDER BY admitted) AS nth
        FROM patient_admissions) x
  WHERE nth <= 3;

-- 2. one row per day of the year (the stream's structure is public), the
-- bounded count of that day, and the release: person level, k = 3; the
-- per-day clamp (max_per_step) is set above any possible day and does not
-- enter the noise
CREATE TABLE released AS
SELECT d.day, coalesce(a.n, 0) AS admitted,
       sum(coalesce(a.n, 0)) OVER w AS true_running,
       dp_count(a.n, dp_person_level(dp_binary(epsilon => 1.0, horizon => 365, max_per_step => 1000), 3))
         OVER w AS private_running
FROM (SELECT g::date AS day
      FROM generate_series(date '2026-01-01', date '2026-12-31', interval '1 day') g) d
LEFT JOIN (SELECT admitted AS day, count(*) AS n FROM bounded_admissions GROUP BY 1) a USING (day)
WINDOW w AS (ORDER BY d.day);
SELECT day, admitted, true_running, private_running,
       dp_error_bound(dp_person_level(dp_binary(1.0, 365, 1000), 3), (day - date '2026-01-01' + 1)::bigint) AS bound_95
FROM released WHERE day IN ('2026-01-31', '2026-06-30', '2026-12-31') ORDER BY day;

-- every release within its 95% bound? (expect about 95% of 365)
SELECT count(*) FILTER (WHERE abs(private_running - true_running)
                        <= dp_error_bound(dp_person_level(dp_binary(1.0, 365, 1000), 3),
                                          (day - date '2026-01-01' + 1)::bigint)) AS within_bound,
       count(*) AS days
FROM released;

-- what the same guarantee for each patient would cost at event level: a
-- day's whole count (here up to the busiest day) must be hidden
SELECT dp_error_bound(dp_person_level(dp_binary(1.0, 365, 1000), 3), 365) AS person_level_k3,
       dp_error_bound(dp_binary(1.0, 365, 40), 365) AS event_level_day_of_40;

-- sums and averages: k observations per person, each in [lower, upper]
SELECT round(dp_estimate(s)::numeric, 2) AS private_average_stay,
       round(dp_error_bound(s)::numeric, 2) AS bound_95,
       round(true_average::numeric, 2) AS true_average_stay
FROM (SELECT dp_avg_state(los, 0, 30, dp_person_level(dp_hybrid(1.0, 1), 3) ORDER BY day, patient_id) AS s,
             avg(los) AS true_average
      FROM (SELECT admitted AS day, patient_id,
                   ((hashint4(patient_id) & 2147483647) % 14 + 1)::float8 AS los
            FROM bounded_admissions) x) y;

-- refusals
SELECT dp_person_level(dp_ppcum(1.0, 365, 1), 3);
SELECT dp_person_level(dp_simple_i(1.0, 365, 1), 3);
SELECT dp_person_level(dp_binary(1.0, 365, 1), 0);
SELECT dp_person_level(dp_person_level(dp_binary(1.0, 365, 1), 2), 3);
SELECT dp_sum(v, 0, 1e6, dp_person_level(dp_binary(1.0, 365, 1), 5000)) FROM (VALUES (1.0::float8)) x(v);
SELECT dp_sum(1.0::float8, 0, 1, 'binary(epsilon=1,horizon=4,max_per_step=1,contributions=2,per_observation=true)'::dp_mechanism);
