-- dp_stream.seed: accepted only from SET, SET LOCAL or set_config() in the
-- session itself; refused from every place that stores it (catalogs every
-- role can read, configuration, connection options), and a function's SET
-- clause never yields seeded noise.  Noise scale 1e9 (epsilon 1e-9): two
-- independent releases agree with probability far below 1e-9.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS dp_stream;
RESET client_min_messages;
CREATE TABLE seed_days (day int, n bigint);
INSERT INTO seed_days SELECT d, d % 3 FROM generate_series(1, 12) d;

-- SET gives a reproducible stream: the same window query twice, same rows
SET dp_stream.seed = 'seed setting';
CREATE TEMP TABLE first_release AS
  SELECT day, dp_count(n, dp_binary(1e-9, 12, 2)) OVER (ORDER BY day) AS c FROM seed_days;
SET dp_stream.seed = 'seed setting';
CREATE TEMP TABLE second_release AS
  SELECT day, dp_count(n, dp_binary(1e-9, 12, 2)) OVER (ORDER BY day) AS c FROM seed_days;
SELECT count(*) AS rows, count(*) FILTER (WHERE f.c = s.c) AS identical_rows,
       count(DISTINCT f.c) > 1 AS noisy
FROM first_release f JOIN second_release s USING (day);
-- SET LOCAL and set_config() restart the same stream
BEGIN;
SET LOCAL dp_stream.seed = 'seed setting';
SELECT count(*) AS identical_rows FROM (
  SELECT day, dp_count(n, dp_binary(1e-9, 12, 2)) OVER (ORDER BY day) AS c FROM seed_days
  INTERSECT SELECT day, c FROM first_release) x;
COMMIT;
SELECT set_config('dp_stream.seed', 'seed setting', false) AS set_config;
SELECT count(*) AS identical_rows FROM (
  SELECT day, dp_count(n, dp_binary(1e-9, 12, 2)) OVER (ORDER BY day) AS c FROM seed_days
  INTERSECT SELECT day, c FROM first_release) x;
-- a different seed gives a different stream
SET dp_stream.seed = 'another seed';
SELECT count(*) AS identical_rows FROM (
  SELECT day, dp_count(n, dp_binary(1e-9, 12, 2)) OVER (ORDER BY day) AS c FROM seed_days
  INTERSECT SELECT day, c FROM first_release) x;
-- a session SET stays in force inside a function whose SET clause sets
-- something else
CREATE FUNCTION seed_other_clause() RETURNS bigint LANGUAGE sql SET work_mem = '5MB'
  AS $$ SELECT dp_count(1, dp_binary(1e-9, 4, 1)) $$;
SET dp_stream.seed = 'inside a function';
CREATE TABLE seed_reference AS SELECT seed_other_clause() AS r;
SET dp_stream.seed = 'inside a function';
SELECT seed_other_clause() = (SELECT r FROM seed_reference) AS same_release;
RESET dp_stream.seed;

-- with the library loaded, every statement that would store the seed fails
-- with 42501 and nothing is stored
CREATE ROLE dp_seed_user LOGIN;
ALTER ROLE dp_seed_user SET dp_stream.seed = 'stored';
SELECT :'LAST_ERROR_SQLSTATE' AS sqlstate;
\set VERBOSITY terse
DO $$ BEGIN
  EXECUTE format('ALTER DATABASE %I SET dp_stream.seed = %L', current_database(), 'stored');
END $$;
SELECT :'LAST_ERROR_SQLSTATE' AS sqlstate;
DO $$ BEGIN
  EXECUTE format('ALTER ROLE dp_seed_user IN DATABASE %I SET dp_stream.seed = %L',
                 current_database(), 'stored');
END $$;
SELECT :'LAST_ERROR_SQLSTATE' AS sqlstate;
ALTER ROLE ALL SET dp_stream.seed = 'stored';
SELECT :'LAST_ERROR_SQLSTATE' AS sqlstate;
CREATE FUNCTION seed_clause() RETURNS bigint LANGUAGE sql
  SET dp_stream.seed = 'stored' AS $$ SELECT dp_count(1, dp_binary(1e-9, 4, 1)) $$;
SELECT :'LAST_ERROR_SQLSTATE' AS sqlstate;
SET dp_stream.seed = 'stored';
CREATE FUNCTION seed_clause() RETURNS bigint LANGUAGE sql
  SET dp_stream.seed FROM CURRENT AS $$ SELECT dp_count(1, dp_binary(1e-9, 4, 1)) $$;
SELECT :'LAST_ERROR_SQLSTATE' AS sqlstate;
RESET dp_stream.seed;
ALTER FUNCTION seed_other_clause() SET dp_stream.seed = 'stored';
SELECT :'LAST_ERROR_SQLSTATE' AS sqlstate;
CREATE PROCEDURE seed_procedure() LANGUAGE sql SET dp_stream.seed = 'stored' AS 'SELECT 1';
SELECT :'LAST_ERROR_SQLSTATE' AS sqlstate;
ALTER SYSTEM SET dp_stream.seed = 'stored';
SELECT :'LAST_ERROR_SQLSTATE' AS sqlstate;
\set VERBOSITY default
SELECT count(*) AS stored_settings FROM pg_db_role_setting
WHERE array_to_string(setconfig, ' ') LIKE '%dp_stream.seed%';
SELECT count(*) AS stored_clauses FROM pg_proc
WHERE array_to_string(proconfig, ' ') LIKE '%dp_stream.seed%';
-- removing a stored seed is never refused
ALTER ROLE dp_seed_user RESET dp_stream.seed;
ALTER FUNCTION seed_other_clause() RESET dp_stream.seed;

-- a non-superuser (a real login) cannot set the seed nor read it once the
-- library is loaded
\c - dp_seed_user
SELECT dp_binary(1, 4, 1) IS NOT NULL AS library_loaded;
SET dp_stream.seed = 'attacker';
SELECT :'LAST_ERROR_SQLSTATE' AS sqlstate;
\set VERBOSITY sqlstate
SHOW dp_stream.seed;
\set VERBOSITY default
SELECT :'LAST_ERROR_SQLSTATE' AS sqlstate;
\set VERBOSITY sqlstate
SELECT current_setting('dp_stream.seed');
\set VERBOSITY default
SELECT :'LAST_ERROR_SQLSTATE' AS sqlstate;
\set VERBOSITY sqlstate
SELECT current_setting('dp_stream.seed', true);
\set VERBOSITY default
SELECT count(*) AS visible_in_pg_settings FROM pg_settings WHERE name = 'dp_stream.seed';

-- a new session has not loaded the library: PostgreSQL stores a function's
-- SET clause as a placeholder without asking the extension.  At call time
-- the clause is applied like a SET (PGC_S_SESSION); the noise source sees
-- that the value in force came from a function's SET clause and refuses it
-- before drawing anything.
\c - postgres
SELECT count(*) AS library_loaded FROM pg_settings WHERE name = 'dp_stream.seed';
CREATE FUNCTION seed_clause() RETURNS bigint LANGUAGE sql
  SET dp_stream.seed = 'stored' AS $$ SELECT dp_count(1, dp_binary(1e-9, 4, 1)) $$;
CREATE FUNCTION seed_clause_definer() RETURNS bigint LANGUAGE sql SECURITY DEFINER
  SET dp_stream.seed = 'stored' AS $$ SELECT dp_count(1, dp_binary(1e-9, 4, 1)) $$;
CREATE FUNCTION seed_clause_outer() RETURNS bigint LANGUAGE sql
  SET dp_stream.seed = 'stored' AS $$ SELECT seed_other_clause() $$;
CREATE FUNCTION seed_clause_plpgsql() RETURNS bigint LANGUAGE plpgsql
  SET dp_stream.seed = 'stored' AS $$
BEGIN
  BEGIN
    RETURN dp_count(1, dp_binary(1e-9, 4, 1)) FROM generate_series(1, 1);
  EXCEPTION WHEN division_by_zero THEN
    RETURN 0;
  END;
END $$;
CREATE PROCEDURE seed_procedure(INOUT r bigint) LANGUAGE plpgsql
  SET dp_stream.seed = 'stored' AS $$
BEGIN
  r := dp_count(1, dp_binary(1e-9, 4, 1)) FROM generate_series(1, 1);
END $$;
GRANT EXECUTE ON FUNCTION seed_clause_definer() TO dp_seed_user;
SELECT proname, proconfig FROM pg_proc
WHERE array_to_string(proconfig, ' ') LIKE '%dp_stream.seed%' ORDER BY proname;
SELECT count(*) AS library_loaded FROM pg_settings WHERE name = 'dp_stream.seed';
-- the library loads inside this call
SELECT seed_clause();
SELECT count(*) AS library_loaded FROM pg_settings WHERE name = 'dp_stream.seed';
\set VERBOSITY terse
SELECT seed_clause();
SELECT :'LAST_ERROR_SQLSTATE' AS sqlstate;
-- from a function called by the one with the clause, from inside a
-- subtransaction, from a procedure
SELECT seed_clause_outer();
SELECT seed_clause_plpgsql();
CALL seed_procedure(NULL);
-- also when a session SET of the same seed was in force before the call
SET dp_stream.seed = 'stored';
SELECT seed_clause();
SELECT dp_count(1, dp_binary(1e-9, 4, 1)) IS NOT NULL AS session_seed_still_works;
RESET dp_stream.seed;
-- a non-superuser calling a superuser's SECURITY DEFINER function, with the
-- library loaded first or loading inside the call
\c - dp_seed_user
SELECT seed_clause_definer();
\c - dp_seed_user
SELECT dp_binary(1, 4, 1) IS NOT NULL AS library_loaded;
SELECT seed_clause_definer();
\set VERBOSITY default
\c - postgres
-- without the clause the function releases ordinary noise
ALTER FUNCTION seed_clause() RESET dp_stream.seed;
SELECT seed_clause() IS NOT NULL AS released;

-- a placeholder SET by a superuser before the library loads is a session
-- SET: it is kept when the library loads
\c - postgres
SET dp_stream.seed = 'inside a function';
SELECT count(*) AS library_loaded FROM pg_settings WHERE name = 'dp_stream.seed';
SELECT seed_other_clause() = (SELECT r FROM seed_reference) AS same_release;

-- a seed stored while the library was not loaded (PostgreSQL only checks
-- that the caller is a superuser) is readable through SHOW by every role
-- until the library loads, then discarded with a WARNING: never used
\c - postgres
ALTER ROLE dp_seed_user SET dp_stream.seed = 'stored';
SET dp_stream.seed = 'stored';
CREATE TABLE seed_stored_release AS SELECT dp_count(1, dp_binary(1e-9, 4, 1)) AS r;
GRANT SELECT ON seed_stored_release TO dp_seed_user;
\c - dp_seed_user
\set VERBOSITY sqlstate
SHOW dp_stream.seed;
\set VERBOSITY default
SELECT dp_count(1, dp_binary(1e-9, 4, 1)) <> (SELECT r FROM seed_stored_release)
  AS seed_did_not_take_effect;
\set VERBOSITY sqlstate
SHOW dp_stream.seed;
\set VERBOSITY default
\c - postgres
ALTER ROLE dp_seed_user RESET dp_stream.seed;

-- connection options (PGOPTIONS) are discarded the same way
\c -reuse-previous=on "options=-cdp_stream.seed=stored"
SELECT dp_binary(1, 4, 1) IS NOT NULL AS library_loaded;
\set VERBOSITY sqlstate
SHOW dp_stream.seed;
\set VERBOSITY default
\c -reuse-previous=on "options="
SELECT current_setting('dp_stream.seed', true) IS NULL AS no_seed_option;

DROP TABLE seed_stored_release, seed_reference, seed_days;
DROP FUNCTION seed_clause(), seed_clause_definer(), seed_clause_outer(),
  seed_clause_plpgsql(), seed_other_clause();
DROP PROCEDURE seed_procedure(bigint);
DROP ROLE dp_seed_user;
