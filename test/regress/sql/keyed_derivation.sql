-- Keyed derivation 2 (0.17.0, issue 29 item 4; docs/keyed_noise.md).
--
-- A key records how its noise terms are derived (dp_stream.keys.derivation):
-- keys registered before 0.17.0 keep derivation 1 for good, keys registered
-- since get 2, which draws each term with one PRF evaluation.  The checks:
-- a new key has derivation 2 and nobody but the extension's owner can change
-- it; a row without the column (a dump of an older version) keeps 1; the
-- two derivations give different values for the same key and data, so a key
-- must never draw under both, and a stored state keeps its key's
-- derivation; the window, aggregate and state forms agree under each;
-- rotate_secret in the same session changes no keyed release; an analyst
-- and a second administrator get nothing new.  Real LOGIN roles, fixed
-- secrets (rolled back).  A database of its own.
\set regress_database :DBNAME
CREATE DATABASE dp_keyed_derivation;
\c dp_keyed_derivation
SET client_min_messages = warning;
CREATE EXTENSION dp_stream;
RESET client_min_messages;
SET dp_stream.argument_order_warning = off;
DROP ROLE IF EXISTS kd_admin;
DROP ROLE IF EXISTS kd_admin2;
DROP ROLE IF EXISTS kd_publisher;
DROP ROLE IF EXISTS kd_analyst;
CREATE ROLE kd_admin LOGIN IN ROLE dp_stream_admin;
CREATE ROLE kd_admin2 LOGIN IN ROLE dp_stream_admin;
CREATE ROLE kd_publisher LOGIN;
CREATE ROLE kd_analyst LOGIN;
GRANT kd_publisher TO kd_admin;
CREATE TABLE readings AS
  SELECT meter, day, (abs(hashint4(meter * 1000 + day)) % 1001) / 100.0::float8 AS kwh
  FROM generate_series(1, 3) meter, generate_series(1, 30) day;
GRANT SELECT ON readings TO kd_publisher, kd_admin2;
GRANT CREATE ON SCHEMA public TO kd_publisher;

-- 1. A key registered now has derivation 2.
SET ROLE kd_admin;
SELECT dp_stream.create_budget('meters', 10);
SELECT dp_stream.create_key('meter_kwh', dp_binary(1.0, 30), 'meters', used_by => 'kd_publisher',
                            statistic => 'variance', lower => 0, upper => 10) IS NOT NULL AS registered;
SELECT dp_stream.create_key('meter_count', dp_binary(1.0, 30, 10), 'meters',
                            used_by => 'kd_publisher') IS NOT NULL AS registered;
SELECT key, derivation FROM dp_stream.keys ORDER BY key;
RESET ROLE;

-- 2. A row without the column, as a dump of 0.16.0 restores it, keeps
-- derivation 1: the column's default (the superuser stands for pg_restore).
INSERT INTO dp_stream.keys (key, mechanism, used_by, computes, dataset, noise_secret)
VALUES ('old_key', dp_keyed(dp_binary(1.0, 30, 10), 'old_key'), 'kd_publisher', 'count', NULL,
        dp_stream.keyed_noise_secret());
SELECT key, derivation FROM dp_stream.keys WHERE key = 'old_key';

-- 3. A second administrator cannot change a key's derivation, register the
-- key again, or reach the table's triggers.
SET ROLE kd_admin2;
\set VERBOSITY terse
UPDATE dp_stream.keys SET derivation = 1 WHERE key = 'meter_kwh';
ALTER TABLE dp_stream.keys DISABLE TRIGGER keys_append_only;
SELECT dp_stream.create_key('meter_kwh', dp_binary(1.0, 30), 'meters', used_by => 'kd_admin2',
                            statistic => 'variance', lower => 0, upper => 10);
-- nor draw under a key of another role, on data it may read
SELECT sum((s).count) FROM (SELECT dp_summary(kwh, 0, 10, dp_keyed(dp_binary(1.0, 30), 'meter_kwh',
                                                                     partition => meter))
                                     OVER (PARTITION BY meter ORDER BY day) AS s FROM readings) w;
\set VERBOSITY default
RESET ROLE;
-- and the owner's own UPDATE is refused by the append-only trigger
\set VERBOSITY terse
UPDATE dp_stream.keys SET derivation = 1 WHERE key = 'meter_kwh';
\set VERBOSITY default

-- 4. The publisher publishes a materialized view; the analyst reads it.
SET ROLE kd_publisher;
CREATE MATERIALIZED VIEW published AS
  SELECT meter, day, (dp_summary(kwh, 0, 10, dp_keyed(dp_binary(1.0, 30), 'meter_kwh',
                                                      partition => meter))
                        OVER (PARTITION BY meter ORDER BY day)).avg AS average
  FROM readings WITH NO DATA;
GRANT SELECT ON published TO kd_analyst;
RESET ROLE;

-- The analyst reads the view and nothing else: not the data, not the
-- registry, and no keyed draw of its own (one answer for every key).
SET ROLE kd_analyst;
\set VERBOSITY terse
SELECT count(*) FROM readings;
SELECT count(*) FROM dp_stream.keys;
SELECT dp_count(1, dp_keyed(dp_binary(1.0, 30, 10), 'meter_count')) OVER (ORDER BY g)
FROM generate_series(1, 3) g;
SELECT dp_count(1, dp_keyed(dp_binary(1.0, 30, 10), 'no_such_key')) OVER (ORDER BY g)
FROM generate_series(1, 3) g;
\set VERBOSITY default
RESET ROLE;

BEGIN;
-- fixed secrets, so that the figures below are reproducible
INSERT INTO dp_stream.secrets (id, purpose, secret, created_at)
VALUES (101, 'table_noise', decode(repeat('5a', 32), 'hex'), '2000-01-01'),
       (102, 'noise', decode(repeat('3c', 32), 'hex'), '2000-01-01');
ALTER TABLE dp_stream.keys DISABLE TRIGGER keys_append_only;
UPDATE dp_stream.keys SET noise_secret = dp_stream.keyed_noise_secret();
ALTER TABLE dp_stream.keys ENABLE TRIGGER keys_append_only;
GRANT kd_publisher TO CURRENT_USER;

-- the releases of one key under each form, as text: window, aggregate over
-- each prefix, and a state of the first 20 days pushed with the last 10
CREATE FUNCTION pg_temp.forms(key text) RETURNS TABLE (form text, releases text)
LANGUAGE sql AS $$
  SELECT 'window', string_agg(c::text, ' ' ORDER BY day)
  FROM (SELECT day, dp_count(round(kwh)::bigint, dp_keyed(dp_binary(1.0, 30, 10), key))
                      OVER (ORDER BY day) AS c
        FROM readings WHERE meter = 1) w
  UNION ALL
  SELECT 'aggregate', string_agg(c::text, ' ' ORDER BY d)
  FROM (SELECT d, (SELECT dp_count(round(kwh)::bigint, dp_keyed(dp_binary(1.0, 30, 10), key)
                                   ORDER BY day)
                   FROM readings WHERE meter = 1 AND day <= d) AS c
        FROM generate_series(1, 30) d) a
  UNION ALL
  SELECT 'state', (SELECT string_agg(dp_estimate(s)::text, ' ' ORDER BY day)
                   FROM (SELECT r.day, st.s
                         FROM readings r,
                              LATERAL (SELECT dp_count_state(round(kwh)::bigint,
                                                             dp_keyed(dp_binary(1.0, 30, 10), key)
                                                             ORDER BY day) AS s
                                       FROM readings WHERE meter = 1 AND day <= r.day) st
                         WHERE r.meter = 1) x)
$$;

-- 5. Under derivation 2 the three forms agree, and a state made over the
-- first 20 days and pushed with the next ten continues the window's
-- releases: the state keeps its key's derivation.
SELECT form, md5(releases) AS releases FROM pg_temp.forms('meter_count');
CREATE TEMP TABLE stored AS
  SELECT dp_count_state(round(kwh)::bigint, dp_keyed(dp_binary(1.0, 30, 10), 'meter_count')
                        ORDER BY day) AS s
  FROM readings WHERE meter = 1 AND day <= 20;
CREATE FUNCTION pg_temp.continued(s dp_counter) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  out text := '';
  r record;
BEGIN
  FOR r IN SELECT round(kwh)::bigint AS v FROM readings WHERE meter = 1 AND day > 20 ORDER BY day LOOP
    s := dp_push(s, r.v);
    out := out || ' ' || dp_estimate(s)::text;
  END LOOP;
  RETURN out;
END $$;
SELECT pg_temp.continued(s) =
       (SELECT ' ' || string_agg(c::text, ' ' ORDER BY day)
        FROM (SELECT day, dp_count(round(kwh)::bigint, dp_keyed(dp_binary(1.0, 30, 10), 'meter_count'))
                            OVER (ORDER BY day) AS c
              FROM readings WHERE meter = 1) w WHERE day > 20) AS state_continues_the_window
FROM stored;

-- ... and so does a variance state (three channels, each stored with the
-- key's derivation) of meter 2's partition, against dp_summary's window
CREATE FUNCTION pg_temp.continued_statistic(s dp_statistic) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  out text := '';
  r record;
BEGIN
  FOR r IN SELECT kwh FROM readings WHERE meter = 2 AND day > 20 ORDER BY day LOOP
    s := dp_push(s, r.kwh);
    out := out || ' ' || dp_summary(s)::text;
  END LOOP;
  RETURN out;
END $$;
SELECT pg_temp.continued_statistic(
         (SELECT dp_variance_state(kwh, 0, 10, dp_keyed(dp_binary(1.0, 30), 'meter_kwh', partition => 2)
                                   ORDER BY day)
          FROM readings WHERE meter = 2 AND day <= 20)) =
       (SELECT ' ' || string_agg(x::text, ' ' ORDER BY day)
        FROM (SELECT day, dp_summary(kwh, 0, 10, dp_keyed(dp_binary(1.0, 30), 'meter_kwh', partition => meter))
                            OVER (PARTITION BY meter ORDER BY day) AS x
              FROM readings WHERE meter = 2) w WHERE day > 20) AS statistic_state_continues_the_window;

-- 6. The same key and data under derivation 1 (what the key would release
-- had it been registered before 0.17.0): the forms agree again, and every
-- release differs from derivation 2's in its noise.  Two derivations of one
-- key would be two independent noises of the same data, which is why a key
-- keeps the one it was registered with, and why a state carries it.
CREATE TEMP TABLE v2 AS SELECT * FROM pg_temp.forms('meter_count');
ALTER TABLE dp_stream.keys DISABLE TRIGGER keys_append_only;
UPDATE dp_stream.keys SET derivation = 1 WHERE key = 'meter_count';
ALTER TABLE dp_stream.keys ENABLE TRIGGER keys_append_only;
SELECT form, md5(releases) AS releases FROM pg_temp.forms('meter_count');
SELECT count(*) AS releases_compared,
       count(*) FILTER (WHERE a = b) AS equal_releases
FROM v2, pg_temp.forms('meter_count') v1,
     LATERAL unnest(string_to_array(v2.releases, ' '), string_to_array(v1.releases, ' ')) AS u (a, b)
WHERE v1.form = v2.form AND v2.form = 'window';
-- the state stored under derivation 2 still continues under derivation 2
-- (its own flag), whatever the key's row says now
SELECT pg_temp.continued(s) =
       (SELECT ' ' || string_agg(r, ' ')
        FROM (SELECT unnest((string_to_array(releases, ' '))[21:30]) AS r
              FROM v2 WHERE form = 'window') x) AS state_keeps_derivation_2
FROM stored;
ALTER TABLE dp_stream.keys DISABLE TRIGGER keys_append_only;
UPDATE dp_stream.keys SET derivation = 2 WHERE key = 'meter_count';
ALTER TABLE dp_stream.keys ENABLE TRIGGER keys_append_only;

-- 7. rotate_secret in the same session: the sealing secret changes, the
-- noise secret does not, and the keyed releases (a statistic over three
-- partitions) are the same before and after, with no stale secret served.
CREATE TEMP TABLE before_rotation AS
  SELECT meter, day, (dp_summary(kwh, 0, 10, dp_keyed(dp_binary(1.0, 30), 'meter_kwh',
                                                      partition => meter))
                        OVER (PARTITION BY meter ORDER BY day))::text AS s
  FROM readings;
SELECT dp_stream.keyed_noise_secret() AS noise_secret_before \gset
SELECT dp_stream.rotate_secret() IS NOT NULL AS rotated;
SELECT dp_stream.keyed_noise_secret() = :noise_secret_before AS same_noise_secret;
CREATE TEMP TABLE after_rotation AS
  SELECT meter, day, (dp_summary(kwh, 0, 10, dp_keyed(dp_binary(1.0, 30), 'meter_kwh',
                                                      partition => meter))
                        OVER (PARTITION BY meter ORDER BY day))::text AS s
  FROM readings;
SELECT count(*) AS releases, count(*) FILTER (WHERE b.s = a.s) AS same
FROM before_rotation b JOIN after_rotation a USING (meter, day);
-- a state sealed now opens and continues
SELECT dp_steps(dp_push(s, 1)) AS continued_after_rotation FROM stored;
ROLLBACK;

-- 8. The analyst reads the published view once it is refreshed.
SET ROLE kd_publisher;
REFRESH MATERIALIZED VIEW published;
RESET ROLE;
SET ROLE kd_analyst;
SELECT count(*) AS rows, count(DISTINCT meter) AS meters FROM published;
RESET ROLE;

-- 9. A key registered under 0.16.0 releases the same values after the
-- update to 0.17.0 (derivation 1, the update's default), and a key
-- registered after the update draws with derivation 2.  (The library is
-- this version's; under 0.16.0's catalog, without the column, it draws
-- with derivation 1, as 0.16.0 did.)
\c :regress_database
CREATE DATABASE dp_keyed_derivation_update;
\c dp_keyed_derivation_update
SET client_min_messages = warning;
CREATE EXTENSION dp_stream VERSION '0.16.0';
RESET client_min_messages;
SET dp_stream.argument_order_warning = off;
SELECT dp_stream.create_budget('b', 10);
SELECT dp_stream.create_key('before_update', dp_binary(1.0, 30, 10), 'b') IS NOT NULL AS registered;
CREATE TABLE released AS
  SELECT g, dp_count(g % 4, dp_keyed(dp_binary(1.0, 30, 10), 'before_update')) OVER (ORDER BY g) AS c
  FROM generate_series(1, 30) g;
ALTER EXTENSION dp_stream UPDATE TO '0.17.0';
SELECT key, derivation FROM dp_stream.keys;
SELECT count(*) AS releases,
       count(*) FILTER (WHERE r.c = n.c) AS unchanged
FROM released r
JOIN (SELECT g, dp_count(g % 4, dp_keyed(dp_binary(1.0, 30, 10), 'before_update')) OVER (ORDER BY g) AS c
      FROM generate_series(1, 30) g) n USING (g);
SELECT dp_stream.create_key('after_update', dp_binary(1.0, 30, 10), 'b') IS NOT NULL AS registered;
SELECT key, derivation FROM dp_stream.keys ORDER BY key;
\c :regress_database
DROP DATABASE dp_keyed_derivation_update;
DROP DATABASE dp_keyed_derivation;
DROP ROLE kd_admin;
DROP ROLE kd_admin2;
DROP ROLE kd_publisher;
DROP ROLE kd_analyst;
