-- The window form's error distribution matches the Binary mechanism's theory.
-- 4000 independent streams (PARTITION BY) of T = 64 random bits, epsilon = 1:
-- L = 7 levels, node scale b = 7, release error at t = sum of popcount(t)
-- discrete Laplace terms, Var = 2q / (1 - q)^2 with q = exp(-1/b).
-- Bands are two-sided at p = 1e-6 (z = 4.8916) with the exact fourth moment;
-- the noise is seeded so the run is reproducible.
BEGIN;
SELECT plan(8);
SET LOCAL dp_stream.seed = 'pgtap statistics';

CREATE TEMP TABLE moments AS
WITH p AS (SELECT exp(-1.0 / 7) AS q),
     pmf AS (SELECT z, (1 - q) / (1 + q) * q ^ abs(z) AS pz
             FROM p, generate_series(-2000, 2000) z)
SELECT sum(pz * z ^ 2)::numeric AS v, sum(pz * z ^ 4)::numeric AS m4 FROM pmf;

CREATE TEMP TABLE errors AS
SELECT stream, t, released - true_count AS error
FROM (
  SELECT stream, t,
         sum(bit) OVER w AS true_count,
         dp_count(bit, dp_binary(1.0, 64, 1)) OVER w AS released
  FROM (SELECT s AS stream, t, (hashint8(s * 1000 + t) & 1)::bigint AS bit
        FROM generate_series(1, 4000) s, generate_series(1, 64) t) x
  WINDOW w AS (PARTITION BY stream ORDER BY t ROWS UNBOUNDED PRECEDING)
) y;

CREATE TEMP TABLE checks AS
SELECT t, k, observed, k * v AS expected,
       4.8916 * sqrt((2 * (k * v) ^ 2 + k * (m4 - 3 * v ^ 2)) / n)::numeric AS band
FROM (SELECT t, length(replace(t::bit(7)::text, '0', '')) AS k,
             avg(error::numeric ^ 2) AS observed, count(*) AS n
      FROM errors WHERE t IN (1, 7, 32, 63, 64) GROUP BY t) e, moments;

SELECT ok(abs(observed - expected) <= band,
          format('t = %s: error variance %s vs %s x Var = %s (band %s)', t, round(observed, 1), k,
                 round(expected, 1), round(band, 1)))
FROM checks ORDER BY t;

SELECT ok(abs(avg(error)) <= 4.8916 * sqrt((SELECT v FROM moments) / 4000),
          'errors at t = 64 are centred on 0')
FROM errors WHERE t = 64;

-- the 90% bound covers at least 90% (one-sided: the guarantee's direction)
SELECT ok(avg((abs(error) <= dp_error_bound(dp_binary(1.0, 64, 1), t, 0.9))::int) >= 0.9 - 4.7534 * sqrt(0.09 / 4000),
          format('90%% bound at t = 63 covers %s of 4000 streams', round(avg((abs(error) <= dp_error_bound(dp_binary(1.0, 64, 1), t, 0.9))::int), 4)))
FROM errors WHERE t = 63;

-- the two-step form continues a stored stream: states pushed one step at a
-- time have exactly the steps and noise structure of the window form
SELECT is((SELECT dp_steps(dp_push(dp_push(dp_count_state(1, dp_binary(1.0, 64, 1)), 1), 0))
           FROM generate_series(1, 10)), 12::bigint, 'dp_push advances a stored state by one step each');

SELECT * FROM finish();
ROLLBACK;
