-- The window form of the other mechanisms against their formulas, written
-- out here (docs/mechanisms.md): 3000 seeded streams of random bits each,
-- epsilon = 1, bands two-sided at p = 1e-6 with exact fourth moments.
--   hybrid at t:  k = floor(log2(t + 1)) closed blocks of scale 2, and
--                 popcount(t + 1 - 2^k) tree terms of scale 2 (k + 1);
--   two_level (T = 64, B = 8) at t: floor(t / 8) + t mod 8 terms of scale 2.
BEGIN;
SELECT plan(6);
SET LOCAL dp_stream.seed = 'pgtap mechanisms';
-- written in 0.14.0's order; its warning is tested in test/regress/sql/argument_order.sql
SET LOCAL dp_stream.argument_order_warning = off;

CREATE FUNCTION pg_temp.moments(b float8, OUT v numeric, OUT m4 numeric) LANGUAGE sql AS $$
  SELECT sum(pz * z ^ 2)::numeric, sum(pz * z ^ 4)::numeric
  FROM (SELECT z, (1 - exp(-1 / b)) / (1 + exp(-1 / b)) * exp(-abs(z) / b) AS pz
        FROM generate_series(-ceil(200 * b)::int, ceil(200 * b)::int) z) x $$;

CREATE TEMP TABLE errors AS
SELECT stream, t, hybrid - truth AS hybrid_error, two_level - truth AS two_level_error
FROM (
  SELECT stream, t, sum(bit) OVER w AS truth,
         dp_count(bit, dp_hybrid(1.0, 1)) OVER w AS hybrid,
         dp_count(bit, dp_two_level(1.0, 64, 1, block => 8)) OVER w AS two_level
  FROM (SELECT s AS stream, t, (hashint8(s * 1000 + t) & 1)::bigint AS bit
        FROM generate_series(1, 3000) s, generate_series(1, 64) t) x
  WINDOW w AS (PARTITION BY stream ORDER BY t ROWS UNBOUNDED PRECEDING)
) y;

-- expected: groups (terms, scale) per mechanism and step
CREATE TEMP TABLE expected AS
SELECT 'hybrid' AS mechanism, t, k AS terms_a, 2.0 AS scale_a,
       length(replace((t + 1 - 2 ^ k)::int::bit(8)::text, '0', '')) AS terms_b, 2.0 * (k + 1) AS scale_b
FROM (SELECT t, floor(log(2, t + 1))::int AS k FROM unnest(ARRAY[5, 6, 40]) t) x
UNION ALL
SELECT 'two_level', t, t / 8 + t % 8, 2.0, 0, 1.0 FROM unnest(ARRAY[7, 57, 64]) t;

SELECT ok(abs(observed - variance) <= 4.8916 * sqrt((fourth + 2 * variance ^ 2) / n),
          format('%s, t = %s: error variance %s vs %s x V(%s) + %s x V(%s) = %s', e.mechanism, e.t,
                 round(observed, 1), terms_a, scale_a, terms_b, scale_b, round(variance, 1)))
FROM expected e
JOIN LATERAL (SELECT avg(CASE WHEN e.mechanism = 'hybrid' THEN hybrid_error ELSE two_level_error END::numeric ^ 2) AS observed,
                     count(*) AS n FROM errors WHERE errors.t = e.t) o ON true
JOIN LATERAL (SELECT terms_a * a.v + terms_b * b.v AS variance,
                     terms_a * (a.m4 - 3 * a.v ^ 2) + terms_b * (b.m4 - 3 * b.v ^ 2) AS fourth
              FROM pg_temp.moments(scale_a::float8) a, pg_temp.moments(scale_b::float8) b) m ON true
WHERE (e.mechanism, e.t) IN (('hybrid', 5), ('hybrid', 6), ('hybrid', 40), ('two_level', 7), ('two_level', 57))
ORDER BY e.mechanism, e.t;

-- the hybrid's 90% bound (two noise scales) covers at least 90%
SELECT ok(avg((abs(hybrid_error) <= dp_error_bound(dp_hybrid(1.0, 1), t, 0.9))::int) >= 0.9 - 4.7534 * sqrt(0.09 / 3000),
          format('hybrid 90%% bound at t = 40 covers %s of 3000 streams',
                 round(avg((abs(hybrid_error) <= dp_error_bound(dp_hybrid(1.0, 1), t, 0.9))::int), 4)))
FROM errors WHERE t = 40;

SELECT * FROM finish();
ROLLBACK;
