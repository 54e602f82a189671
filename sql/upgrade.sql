-- Upgrading from 0.1.0 keeps stored mechanisms and states usable.  (The
-- objects are 0.1.0's; the library is the current one, which writes states
-- unsealed, in the current format, until the database's extension reaches
-- 0.6.0, as the older libraries did.  Reading 0.1.0's version-1 bytes and
-- text is tested in test/unit/test_binary.c and sql/mechanisms.sql.)
DROP EXTENSION IF EXISTS dp_stream CASCADE;
CREATE EXTENSION dp_stream VERSION '0.1.0';
SET dp_stream.seed = 'upgrade';
CREATE TABLE kept AS
  SELECT dp_binary(1, 100, 1) AS m, dp_count_state(v, dp_binary(1, 100, 1) ORDER BY v) AS s
  FROM generate_series(1, 10) v;
SELECT s AS state_stored_under_0_1_0 FROM kept;
ALTER EXTENSION dp_stream UPDATE TO '0.2.0';
SELECT extversion FROM pg_extension WHERE extname = 'dp_stream';
SELECT m, dp_steps(s), dp_estimate(s), dp_mechanism(s)::text = m::text AS same_mechanism FROM kept;
SELECT dp_steps(dp_push(s, 1)) AS continued FROM kept;
SELECT dp_count(1, m) IS NOT NULL AS counted FROM kept;
SELECT dp_hybrid(1, 1) IS NOT NULL AS new_functions_present;
-- and on to 0.5.0 (sums, averages, variances, managed streams): the stored
-- counters still work, and a managed stream keeps an unsealed state
ALTER EXTENSION dp_stream UPDATE TO '0.5.0';
SELECT extversion FROM pg_extension WHERE extname = 'dp_stream';
SELECT dp_steps(dp_push(s, 1)) AS continued_after_0_5_0 FROM kept;
SELECT dp_sum(v, 0, 10, dp_binary(1, 100, 1)) IS NOT NULL AS sums_present FROM generate_series(1, 10) v;
SELECT dp_stream.create_stream('visits', 'count', dp_binary(1, 100, 1), first_period => '2026-01-01');
SELECT step FROM dp_stream.advance('visits', '2026-01-01', 3);
SELECT step FROM dp_stream.advance('visits', '2026-01-02', 4);
SELECT left(counter::text, 3) AS unsealed_catalog_state FROM dp_stream.streams;
-- 0.6.0 seals: the update seals the catalog's states; the stream continues
ALTER EXTENSION dp_stream UPDATE;
SELECT extversion FROM pg_extension WHERE extname = 'dp_stream';
SELECT left(counter::text, 7) AS sealed_catalog_state, dp_steps(counter) FROM dp_stream.streams;
SELECT step FROM dp_stream.advance('visits', '2026-01-03', 5);
-- a state in a user's table stays unsealed and is refused until a superuser
-- reseals it (dp_stream.read_unsealed, then dp_reseal)
\set VERBOSITY terse
SELECT dp_steps(s) FROM kept;
\set VERBOSITY default
SET dp_stream.read_unsealed = on;
UPDATE kept SET s = dp_reseal(s);
RESET dp_stream.read_unsealed;
SELECT dp_steps(dp_push(s, 1)) AS continued_after_0_6_0, left(s::text, 7) AS sealed FROM kept;
-- a state that named no role (unsealed, or sealed before 0.12.0) belongs to
-- the extension's owner: another role gets 42501 until it is handed over
CREATE ROLE dp_upgrade_job;
GRANT SELECT ON kept TO dp_upgrade_job;
SET ROLE dp_upgrade_job;
\set VERBOSITY terse
SELECT dp_estimate(s) FROM kept;
\set VERBOSITY default
RESET ROLE;
UPDATE kept SET s = dp_bind(s, 'dp_upgrade_job');
SET ROLE dp_upgrade_job;
SELECT dp_steps(dp_push(s, 1)) AS continued_by_its_role FROM kept;
RESET ROLE;
-- the upgraded schema matches a fresh install (0.1.0's script plus the
-- update scripts, chosen by CREATE EXTENSION): same functions
CREATE TEMP TABLE upgraded AS
  SELECT p.oid::regprocedure::text AS f FROM pg_proc p JOIN pg_depend d ON d.objid = p.oid
  JOIN pg_extension e ON d.refobjid = e.oid WHERE e.extname = 'dp_stream';
DROP TABLE kept;
DROP ROLE dp_upgrade_job;
DROP EXTENSION dp_stream;
CREATE EXTENSION dp_stream;
CREATE TEMP TABLE fresh AS
  SELECT p.oid::regprocedure::text AS f FROM pg_proc p JOIN pg_depend d ON d.objid = p.oid
  JOIN pg_extension e ON d.refobjid = e.oid WHERE e.extname = 'dp_stream';
SELECT count(*) AS only_in_one
FROM ((SELECT f FROM upgraded EXCEPT ALL SELECT f FROM fresh)
      UNION ALL (SELECT f FROM fresh EXCEPT ALL SELECT f FROM upgraded)) x;
SELECT count(*) AS functions FROM upgraded;
-- 0.14.0 moved max_per_step to the third place of dp_kary, dp_balanced,
-- dp_honaker, dp_two_level, dp_expiring, dp_expiring_baseline and
-- dp_mechanism_of.  A view written for 0.13.0 keeps its meaning: its calls
-- go to the old definitions, renamed <name>_before_0_14, and the update
-- does not stop at it.
DROP EXTENSION dp_stream;
CREATE EXTENSION dp_stream VERSION '0.13.0';
CREATE VIEW written_for_0_13 AS
  SELECT dp_kary(1, 64, 4)::text AS kary, dp_balanced(1, 64, 5, 2)::text AS balanced,
         dp_honaker(1, 64, 2)::text AS honaker, dp_two_level(1, 100, 20)::text AS two_level,
         dp_expiring(1, 2)::text AS expiring,
         dp_expiring_baseline(1, 0.5, 30, 365)::text AS expiring_baseline,
         dp_mechanism_of('kary', 1, 64, 4)::text AS mechanism_of;
CREATE TEMP TABLE before_update AS SELECT * FROM written_for_0_13;
ALTER EXTENSION dp_stream UPDATE;
SELECT extversion FROM pg_extension WHERE extname = 'dp_stream';
SELECT (SELECT row(w.*)::text FROM written_for_0_13 w) = (SELECT row(b.*)::text FROM before_update b)
       AS same_mechanisms_after_the_update;
SELECT * FROM written_for_0_13;
SELECT pg_get_viewdef('written_for_0_13') LIKE '%dp_kary_before_0_14(%' AS calls_the_old_definition;
-- the same calls written now mean the new order (and warn)
SELECT dp_kary(1, 64, 4)::text AS kary_now;
DROP VIEW written_for_0_13;
DROP EXTENSION dp_stream;
CREATE EXTENSION dp_stream;
