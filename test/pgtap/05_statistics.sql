-- Sums, averages and variances through SQL against their formulas, written
-- out here (docs/aggregates.md): 3000 seeded streams of 31 steps, Binary with
-- T = 32 (6 levels), epsilon = 1, so at t = 31 every release is a sum of
-- popcount(31) = 5 node noises.  Bands are two-sided at p = 1e-6 with exact
-- fourth cumulants.  A wrong sensitivity or budget split fails them:
--   dp_sum real [0,10]:            Laplace scale 6 * 10 / 1      (epsilon whole)
--   dp_sum integer [0,10]:         discrete Laplace, scale 60
--   dp_avg count:                  discrete Laplace, scale 6 * 1 / (1/2)
--   dp_variance sum, [-5,5]:       Laplace scale 6 * 10 / (1/3)  (midpoint 0)
BEGIN;
SELECT plan(6);
SET LOCAL dp_stream.seed = 'pgtap statistics';

CREATE FUNCTION pg_temp.discrete_moments(b float8, OUT v numeric, OUT m4 numeric) LANGUAGE sql AS $$
  SELECT sum(pz * z ^ 2)::numeric, sum(pz * z ^ 4)::numeric
  FROM (SELECT z, (1 - exp(-1 / b)) / (1 + exp(-1 / b)) * exp(-abs(z) / b) AS pz
        FROM generate_series(-ceil(200 * b)::int, ceil(200 * b)::int) z) x $$;

CREATE TEMP TABLE streams AS
SELECT s AS stream, t, CASE WHEN t % 4 = 0 THEN NULL ELSE (hashint8(s * 100 + t) & 15) END AS v,
       -- the truth clamps into [0, 10]; least() alone would turn NULL into 10
       CASE WHEN t % 4 = 0 THEN NULL ELSE least(hashint8(s * 100 + t) & 15, 10) END AS clamped
FROM generate_series(1, 3000) s, generate_series(1, 31) t;

-- sums through the window form; the average's count and the variance's
-- centred sum through the states of whole streams (states are refused as
-- window results), so all four are checked at t = 31
CREATE TEMP TABLE errors AS
SELECT stream, t,
       real_sum - sum(clamped) OVER w AS real_sum_error,
       integer_sum - sum(clamped) OVER w AS integer_sum_error
FROM (
  SELECT stream, t, v, clamped,
         dp_sum(v::float8, 0, 10, dp_binary(1.0, 32, 1)) OVER w AS real_sum,
         dp_sum(v::int, 0, 10, dp_binary(1.0, 32, 1)) OVER w AS integer_sum
  FROM streams WINDOW w AS (PARTITION BY stream ORDER BY t)
) x
WINDOW w AS (PARTITION BY stream ORDER BY t);

ALTER TABLE errors ADD COLUMN count_error float8, ADD COLUMN centred_sum_error float8;
UPDATE errors e SET count_error = s.count_error, centred_sum_error = s.centred_sum_error
FROM (SELECT stream,
             dp_estimate(dp_avg_state(v::float8, 0, 10, dp_binary(1.0, 32, 1) ORDER BY t), 'count')
               - count(v) AS count_error,
             dp_estimate(dp_variance_state(v::float8 - 5, -5, 5, dp_binary(1.0, 32, 1) ORDER BY t), 'sum')
               - sum(clamped - 5) AS centred_sum_error
      FROM streams GROUP BY stream) s
WHERE e.stream = s.stream AND e.t = 31;

CREATE TEMP TABLE expected (name text, variance numeric, fourth numeric);
INSERT INTO expected
  SELECT 'real_sum', 5 * 2 * 60.0 ^ 2, 5 * 12 * 60.0 ^ 4
  UNION ALL SELECT 'integer_sum', 5 * v, 5 * (m4 - 3 * v ^ 2) FROM pg_temp.discrete_moments(60)
  UNION ALL SELECT 'count', 5 * v, 5 * (m4 - 3 * v ^ 2) FROM pg_temp.discrete_moments(12)
  UNION ALL SELECT 'centred_sum', 5 * 2 * 180.0 ^ 2, 5 * 12 * 180.0 ^ 4;

SELECT ok(abs(observed - e.variance) <= 4.8916 * sqrt((e.fourth + 2 * e.variance ^ 2) / n),
          format('%s at t = 31: error variance %s vs %s', e.name, round(observed, 1), round(e.variance, 1)))
FROM expected e
JOIN LATERAL (
  SELECT count(*) AS n,
         avg((CASE e.name WHEN 'real_sum' THEN real_sum_error WHEN 'integer_sum' THEN integer_sum_error
                          WHEN 'count' THEN count_error ELSE centred_sum_error END)::numeric ^ 2) AS observed
  FROM errors WHERE t = 31) o ON true
ORDER BY e.name;

-- and the noise is centred: mean error within 4.89 standard errors
SELECT ok(abs(avg(real_sum_error)) <= 4.8916 * sqrt(36000.0 / count(*)) AND
          abs(avg(centred_sum_error)) <= 4.8916 * sqrt(324000.0 / count(*)),
          format('sums are unbiased: mean errors %s and %s', round(avg(real_sum_error)::numeric, 2),
                 round(avg(centred_sum_error)::numeric, 2)))
FROM errors WHERE t = 31;

SELECT ok(bool_and(integer_sum_error = round(integer_sum_error)),
          'integer sums have integer noise')
FROM errors;

SELECT * FROM finish();
ROLLBACK;
