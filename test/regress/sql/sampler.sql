-- Fresh noise (no dp_stream.seed) is drawn by the constant-time table
-- sampler; check its law through SQL.  dp_binary(epsilon, 1) releases one
-- node: the value plus one discrete Laplace draw of scale 1 / epsilon.
-- Bands are at p = 1e-6 (z = 4.8916) from the exact moments; every draw is
-- fresh, so the figures differ between runs but the verdicts do not.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS dp_stream;
RESET dp_stream.seed;

CREATE TEMP TABLE draws AS
SELECT g, dp_count(1, dp_binary(eps, 1, 1)) - 1 AS noise, eps
FROM generate_series(1, 100000) g, (VALUES (0.5::float8), (1.0), (0.05)) e(eps)
GROUP BY g, eps;

-- mean within its band; variance 2q / (1 - q)^2 within the band of its
-- estimator (fourth moment of the law, by summation)
WITH law AS (
  SELECT eps, exp(-eps) AS q FROM (VALUES (0.5::float8), (1.0), (0.05)) e(eps)
), moments AS MATERIALIZED (
  SELECT l.eps, 2 * l.q / (1 - l.q) ^ 2 AS variance,
         (SELECT sum(2 * (1 - l.q) / (1 + l.q) * exp(-l.eps * z) * (z::float8) ^ 4)
            FROM generate_series(1, least(2000, (600 / l.eps)::int)) z) AS fourth
  FROM law l
)
SELECT m.eps,
       abs(avg(d.noise)) <= 4.8916 * sqrt(m.variance / count(*)) AS mean_ok,
       abs(avg(d.noise::float8 ^ 2) - m.variance)
         <= 4.8916 * sqrt((m.fourth - m.variance ^ 2) / count(*)) AS variance_ok
FROM draws d JOIN moments m USING (eps)
GROUP BY m.eps, m.variance, m.fourth
ORDER BY m.eps;

-- chi-squared at epsilon = 1 over the values -6..6 and the two tails (cells -7 and 7):
-- 15 cells, 14 degrees of freedom, critical value 55.5 at p = 1e-6
WITH cells AS (
  SELECT greatest(-7, least(7, noise)) AS cell, count(*) AS observed
  FROM draws WHERE eps = 1 GROUP BY 1
), expected AS (
  SELECT c AS cell,
         100000 * CASE WHEN abs(c) < 7 THEN (1 - exp(-1.0)) / (1 + exp(-1.0)) * exp(-abs(c))
                       ELSE exp(-7.0) / (1 + exp(-1.0)) END AS expected
  FROM generate_series(-7, 7) c
)
SELECT sum((coalesce(observed, 0) - expected) ^ 2 / expected) < 55.5 AS chi_squared_ok
FROM expected LEFT JOIN cells USING (cell);

-- Keyed noise (0.11.0).  An installation where no key was registered draws
-- keyed noise with the table sampler under a "table_noise" secret; a
-- database that had keys keeps the "noise" secret and the reference
-- sampler until a superuser switches.  Everything below is rolled back,
-- but the key's registration: a key draws no noise in the transaction that
-- registers it (0.12.0), so it is committed first and removed at the end.
SELECT dp_stream.create_key('sampler_check', dp_binary(1, 16, 1)) IS NOT NULL AS registered;
BEGIN;
SELECT purpose, count(*) FROM dp_stream.secrets
 WHERE purpose IN ('noise', 'table_noise') GROUP BY purpose ORDER BY purpose;
CREATE TEMP TABLE keyed_runs (run text, t int, released bigint);
CREATE TEMP VIEW keyed_release AS
  SELECT t, dp_count(1, dp_keyed(dp_binary(1, 16, 1), 'sampler_check'))
              OVER (ORDER BY t ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS released
  FROM generate_series(1, 16) t;
INSERT INTO keyed_runs SELECT 'table', * FROM keyed_release;
INSERT INTO keyed_runs SELECT 'table again', * FROM keyed_release;
-- the key's secret gone, its draws are refused, not drawn again under
-- another secret (0.15.0: a key records the noise secret it draws under)
DELETE FROM dp_stream.secrets WHERE purpose = 'table_noise';
\i test/fixtures/refusal_of.sql
SELECT refusal_of('SELECT * FROM keyed_release') AS without_the_key_secret;
DROP FUNCTION refusal_of(text);
-- as in a database upgraded with keys: no table_noise secret, and the key
-- draws under the noise secret
ALTER TABLE dp_stream.keys DISABLE TRIGGER keys_append_only;
UPDATE dp_stream.keys SET noise_secret = dp_stream.keyed_noise_secret() WHERE key = 'sampler_check';
ALTER TABLE dp_stream.keys ENABLE TRIGGER keys_append_only;
INSERT INTO keyed_runs SELECT 'reference', * FROM keyed_release;
INSERT INTO keyed_runs SELECT 'reference again', * FROM keyed_release;
-- the switch: a new secret, with a warning about the new noise
SELECT dp_stream.use_table_sampler_for_keyed_noise() IS NOT NULL AS switched;
INSERT INTO keyed_runs SELECT 'switched', * FROM keyed_release;
INSERT INTO keyed_runs SELECT 'switched again', * FROM keyed_release;
-- every sampler and secret repeats its own noise; they differ from each other
SELECT a.run, b.run AS against, bool_and(a.released = b.released) AS same_releases
FROM keyed_runs a JOIN keyed_runs b USING (t)
WHERE (a.run, b.run) IN (('table', 'table again'), ('reference', 'reference again'),
                         ('switched', 'switched again'), ('table', 'reference'),
                         ('reference', 'switched'), ('table', 'switched'))
GROUP BY a.run, b.run ORDER BY a.run, b.run;
-- switching again changes nothing; the table_noise secret cannot be dropped
SELECT dp_stream.use_table_sampler_for_keyed_noise() =
       (SELECT id FROM dp_stream.secrets WHERE purpose = 'table_noise') AS same_secret;
DO $$
BEGIN
  PERFORM dp_stream.drop_secret((SELECT id FROM dp_stream.secrets WHERE purpose = 'table_noise'));
  RAISE EXCEPTION 'dropped';
EXCEPTION WHEN object_in_use THEN
  RAISE WARNING 'refused: %', SQLERRM;
END $$;
ROLLBACK;
-- the registry is append-only: a superuser lifts its trigger to remove the key
ALTER TABLE dp_stream.keys DISABLE TRIGGER USER;
DELETE FROM dp_stream.keys WHERE key = 'sampler_check';
ALTER TABLE dp_stream.keys ENABLE TRIGGER USER;
-- only the extension's owner (superusers) may switch
SELECT has_function_privilege('public', 'dp_stream.use_table_sampler_for_keyed_noise()',
                              'EXECUTE') AS public_may_switch;
