-- The adversarial review of 0.14.0 (issue 25): what it found, and what it
-- tried that held, as real non-superuser roles.
-- In a database of its own: the keys and charges it makes stay out of the
-- ledgers other tests list.
\set regress_database :DBNAME
CREATE DATABASE dp_review25;
\c dp_review25
SET client_min_messages = warning;
CREATE EXTENSION dp_stream;
RESET client_min_messages;
SET dp_stream.seed = 'review25';

\i test/fixtures/refusal_of.sql
GRANT EXECUTE ON FUNCTION refusal_of(text) TO PUBLIC;

CREATE TABLE review25_days AS
  SELECT meter, day, (day * meter) % 7 AS n
  FROM generate_series(1, 2) meter, generate_series(1, 10) day;
GRANT SELECT ON review25_days TO PUBLIC;

-- 1. An ORDER BY that orders nothing is no ORDER BY.  OVER (ORDER BY 1)
-- gave every row the release of the whole partition (all rows are peers)
-- and, with a ROWS frame, took the plan's order as the time order: what
-- OVER () is refused for.  The same for constants, NULL, parameters, a
-- subquery's constant column and the partition's own keys (in the
-- subquery below, day is the constant 3).  Decided from the plan, never
-- from the data; over no rows a window computes nothing, so an empty input
-- gets no refusal and no release, as for every window refusal.
CREATE TABLE review25_no_days AS SELECT * FROM review25_days WHERE false;
SELECT window_clause, source,
       refusal_of(format('SELECT dp_count(n, dp_binary(1.0, 20, 10)) OVER (%s) FROM %s',
                               window_clause, source)) AS result
FROM (VALUES ('ORDER BY 1'), ('ORDER BY 1.5, NULL::int'),
             ('ORDER BY NULL::int ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW'),
             ('ORDER BY (SELECT 1)'), ('PARTITION BY meter ORDER BY meter'),
             ('PARTITION BY meter % 2 ORDER BY meter % 2, 7'),
             ('PARTITION BY meter ORDER BY day'), ('ORDER BY 1, day'),
             ('PARTITION BY meter ORDER BY meter, day')) AS w(window_clause),
     (VALUES ('review25_days'), ('(SELECT 3 AS day, meter, n FROM review25_days OFFSET 0) AS s'))
       AS s(source)
ORDER BY 1, 2;
SELECT refusal_of('SELECT dp_count(n, dp_binary(1.0, 20, 10)) OVER (ORDER BY 1) FROM review25_no_days')
       AS empty_input;
-- a parameter, in a generic plan
PREPARE review25_by_parameter(int) AS
  SELECT dp_count(n, dp_binary(1.0, 20, 10)) OVER (ORDER BY $1) FROM review25_days;
SET plan_cache_mode = force_generic_plan;
SELECT refusal_of('EXECUTE review25_by_parameter(1)') AS generic_plan;
RESET plan_cache_mode;
DEALLOCATE review25_by_parameter;
-- the sums, averages and variances share the check
SELECT refusal_of('SELECT dp_avg(n, 0, 7, dp_hybrid(1.0)) OVER (PARTITION BY meter ORDER BY meter) FROM review25_days')
       AS average_by_its_partition;

-- 2. A count's key or publication states its bound wherever it is
-- registered: dp_stream.register_key and register_publication (entry points
-- of dp_stream_admin beside create_key and create_publication) stored a
-- count's key without max_per_step and charged its dataset; the count
-- refused it only when first used.  Now nothing is stored or charged.
CREATE ROLE review25_admin LOGIN;
GRANT dp_stream_admin TO review25_admin;
SET ROLE review25_admin;
SELECT dp_stream.create_budget('review25', 10);
SELECT refusal_of($$SELECT dp_stream.register_key('review25_k', dp_binary(1.0, 20), 'review25',
                                                          'review25_admin', 'count')$$) AS key_without_bound;
SELECT refusal_of($$SELECT dp_stream.register_publication('review25_p', dp_binary(1.0, 20), 'review25_admin',
                            'count', NULL, NULL, false, 'count', 'partition', 'event', NULL, 'none', NULL,
                            '2026-01-01', '1 day', 'review25')$$) AS publication_without_bound;
SELECT charges, spent_epsilon FROM dp_stream.budget('review25');
SELECT (SELECT count(*) FROM dp_stream.keys WHERE key LIKE 'review25%') AS keys,
       (SELECT count(*) FROM dp_stream.publications WHERE name LIKE 'review25%') AS publications;
-- with a bound, and for a sum (whose bound is its range), as before
SELECT dp_stream.register_key('review25_k', dp_binary(1.0, 20, 10), 'review25', 'review25_admin', 'count');
SELECT dp_stream.register_key('review25_s', dp_binary(1.0, 20), 'review25', 'review25_admin',
                              dp_stream.key_computes('sum', 0, 7, false));
SELECT charges, spent_epsilon FROM dp_stream.budget('review25');
RESET ROLE;

-- 3. What held: the wrappers grant nothing.  A role without
-- dp_stream_admin gets 42501 from the wrapper (with the hint) and from the
-- function behind it; a second administrator can neither re-grant nor
-- alter them, nor plant a function in either schema.
CREATE ROLE review25_analyst LOGIN;
CREATE ROLE review25_admin2 LOGIN;
GRANT dp_stream_admin TO review25_admin2;
SET ROLE review25_analyst;
SELECT refusal_of($$SELECT dp_stream.create_budget('review25_x', 1)$$) AS wrapper;
SELECT refusal_of($$SELECT dp_stream_private.create_budget('review25_x', 1)$$) AS behind_it;
SELECT refusal_of($$SELECT dp_stream_private.charge('review25', 1, 'x')$$) AS charge_behind_it;
-- the wrappers' check itself: refused for a function the role may not
-- execute, silent for one it may, and NULL in, nothing raised
SELECT refusal_of($$SELECT dp_stream.require_admin('dp_stream_private.create_budget(text, float8)')$$) AS check_refuses,
       refusal_of($$SELECT dp_stream.require_admin('dp_hybrid(float8, bigint)')$$) AS check_allows,
       refusal_of($$SELECT dp_stream.require_admin(NULL)$$) AS check_of_null;
RESET ROLE;
SET ROLE review25_admin2;
SET client_min_messages = error;	-- GRANT without the grant option only warns
GRANT EXECUTE ON FUNCTION dp_stream_private.create_budget(text, float8) TO review25_analyst;
RESET client_min_messages;
SELECT has_function_privilege('review25_analyst', 'dp_stream_private.create_budget(text, float8)', 'EXECUTE')
       AS analyst_may_create_budget;
SELECT refusal_of('ALTER FUNCTION dp_stream_private.create_budget(text, float8) SECURITY INVOKER') AS alter_private,
       refusal_of('ALTER FUNCTION dp_stream.create_budget(text, float8) SECURITY DEFINER') AS alter_wrapper,
       refusal_of('CREATE FUNCTION dp_stream_private.review25() RETURNS int LANGUAGE sql AS ''SELECT 1''') AS plant;
RESET ROLE;

-- 4. What held: the order warning only warns.  Off or on, the same
-- constructor call builds the same mechanism, and a count's release is
-- the same.
SET dp_stream.argument_order_warning = off;
SET dp_stream.seed = 'review25';
CREATE TEMP TABLE review25_quiet AS
  SELECT dp_kary(1.0, 20, 10)::text AS m,
         (SELECT array_agg(r ORDER BY day) FROM
            (SELECT day, dp_count(n, dp_kary(1.0, 20, 10)) OVER (ORDER BY day) AS r
             FROM review25_days WHERE meter = 1) x) AS releases;
RESET dp_stream.argument_order_warning;
SET client_min_messages = error;
SET dp_stream.seed = 'review25';
CREATE TEMP TABLE review25_loud AS
  SELECT dp_kary(1.0, 20, 10)::text AS m,
         (SELECT array_agg(r ORDER BY day) FROM
            (SELECT day, dp_count(n, dp_kary(1.0, 20, 10)) OVER (ORDER BY day) AS r
             FROM review25_days WHERE meter = 1) x) AS releases;
RESET client_min_messages;
SELECT q.m, q.m = l.m AS same_mechanism, q.releases = l.releases AS same_releases
FROM review25_quiet q, review25_loud l;

-- 5. Left as it is: the renamed definitions keep their old meaning, a
-- default bound of 1 included, so that views written for 0.13.0 do not
-- change.  The bound is stated in the mechanism they build.
SELECT dp_kary_before_0_14(1.0, 20, 4) AS old_kary,
       dp_two_level_before_0_14(1.0, 20, 5) AS old_two_level;

DROP OWNED BY review25_admin, review25_admin2, review25_analyst;
DROP ROLE review25_admin, review25_admin2, review25_analyst;
DROP TABLE review25_days, review25_no_days;
DROP FUNCTION refusal_of(text);

\c :regress_database
DROP DATABASE dp_review25;
