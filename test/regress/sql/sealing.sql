-- Sealed states, keyed (repeatable) noise, secret rotation and the roles
-- (0.6.0).  Noise under a key depends on this database's secret, so the
-- values are never printed, only compared.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS dp_stream;
DROP ROLE IF EXISTS dp_test_admin;
DROP ROLE IF EXISTS dp_test_reader;
DROP ROLE IF EXISTS dp_test_nobody;
DROP ROLE IF EXISTS dp_test_publisher;
RESET client_min_messages;
SET dp_stream.seed = 'sealing';

-- 1. Every stored state is sealed: its text is the sealed bytes; only the
-- mechanism and the steps can be read from it without the secret.
CREATE TABLE states AS
  SELECT dp_count_state(v, dp_binary(1, 64, 1) ORDER BY v) AS c,
         dp_avg_state(v, 0, 10, dp_binary(1, 64, 1) ORDER BY v) AS a
  FROM generate_series(1, 10) v;
SELECT left(c::text, 7) AS counter_text, c::text LIKE '%nodes%' AS shows_nodes, dp_steps(c),
       dp_mechanism(c), left(a::text, 7) AS statistic_text, dp_steps(a)
FROM states;
-- the text and binary forms round-trip
SELECT c::text::dp_counter::text = c::text AS counter_text_round_trip,
       dp_counter_send(c::text::dp_counter) = dp_counter_send(c) AS counter_binary_round_trip,
       a::text::dp_statistic::text = a::text AS statistic_text_round_trip
FROM states;

-- 2. A forged or edited state is refused: every single-bit change of every
-- byte of a sealed counter and of a sealed average, whether it is refused
-- where it enters (this database has the secret) or where it is used.
CREATE FUNCTION edits_refused(sealed bytea, type_name text) RETURNS bigint
LANGUAGE plpgsql AS $$
DECLARE
  refused bigint := 0;
  edited text;
BEGIN
  FOR i IN 0 .. length(sealed) - 1 LOOP
    FOR bit IN 0 .. 7 BY 7 LOOP
      edited := 'sealed:' || replace(encode(set_byte(sealed, i, get_byte(sealed, i) # (1 << bit)),
                                            'base64'), E'\n', '');
      BEGIN
        EXECUTE format('SELECT dp_steps(%L::%s)', edited, type_name);
      EXCEPTION WHEN others THEN
        refused := refused + 1;
      END;
    END LOOP;
  END LOOP;
  RETURN refused;
END $$;
SELECT 2 * length(dp_counter_send(c)) AS counter_edits, edits_refused(dp_counter_send(c), 'dp_counter'),
       2 * length(dp_statistic_send(a)) AS statistic_edits, edits_refused(dp_statistic_send(a), 'dp_statistic')
FROM states;
-- what the refusals say (the input, with its random nonce, is not shown): a
-- changed byte of the ciphertext, a sealed counter given as a statistic, a
-- truncated value, and not base64
CREATE FUNCTION refusal(query text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  state text;
  detail text;
BEGIN
  EXECUTE query;
  RETURN 'accepted';
EXCEPTION WHEN others THEN
  GET STACKED DIAGNOSTICS state = RETURNED_SQLSTATE, detail = PG_EXCEPTION_DETAIL;
  RETURN state || ': ' || detail;
END $$;
SELECT refusal(format('SELECT %L::dp_counter', 'sealed:' || replace(encode(set_byte(b, 100, get_byte(b, 100) # 1),
                                                                         'base64'), E'\n', '')))
FROM (SELECT dp_counter_send(c) AS b FROM states) x;
SELECT refusal(format('SELECT %L::dp_statistic', 'sealed:' || replace(encode(dp_counter_send(c), 'base64'), E'\n', '')))
FROM states;
SELECT refusal(format('SELECT %L::dp_counter',
                      'sealed:' || replace(encode(substring(dp_counter_send(c) FROM 1 FOR 40), 'base64'), E'\n', '')))
FROM states;
SELECT refusal($$SELECT 'sealed:not base64!'::dp_counter$$);
-- unsealed states (0.5.0's, or typed in) are refused; reading them is a
-- superuser's upgrade path
SELECT 'v2 binary(epsilon=1,horizon=4,max_per_step=1) steps=1 nodes=[0,0,0]'::dp_counter;
SET dp_stream.read_unsealed = on;
SELECT dp_steps('v2 binary(epsilon=1,horizon=4,max_per_step=1) steps=1 nodes=[0,0,0]'::dp_counter) AS superuser_reads;
RESET dp_stream.read_unsealed;

-- 3. Forks.  A repeatable state (managed streams use them) draws its noise
-- under a random key of its own, sealed inside it: forks pushed with the
-- same value are identical, so averaging forks gains nothing; other values
-- give other releases.  An ordinary state draws fresh noise on every push
-- (then whoever holds it can compute no release twice, and averaging its
-- forks reveals no more than one snapshot: the pan-private bound).
CREATE TABLE stored AS
  SELECT dp_push(dp_push(dp_push(dp_counter_new(dp_pan_private(dp_binary(1, 64, 1)), true), 1), 0), 1) AS s,
         dp_push(dp_push(dp_push(dp_counter_new(dp_pan_private(dp_binary(1, 64, 1))), 1), 0), 1) AS ordinary;
SELECT count(DISTINCT dp_estimate(dp_push(s, 1))) AS releases_of_50_forks,
       count(DISTINCT dp_estimate(dp_push(dp_push(s, 1), 1))) AS two_steps_on,
       count(DISTINCT dp_estimate(dp_push(ordinary, 1))) > 1 AS ordinary_forks_differ
FROM stored, generate_series(1, 50);
SELECT count(DISTINCT dp_estimate(dp_push(s, v)) - v) > 1 AS other_values_other_noise
FROM stored, generate_series(0, 1) v;
SELECT count(DISTINCT dp_estimate(dp_push(s, 2.5))) AS statistic_forks
FROM (SELECT dp_statistic_new('sum', 0, 10, dp_pan_private(dp_hybrid(1, 1)), true) AS s) x,
     generate_series(1, 20);

-- 4. Keyed noise.  A key is registered once, with its mechanism, and charged.
SELECT dp_stream.create_budget('clinic', 3);
SELECT dp_stream.create_key('daily_admissions', dp_binary(1, 64, 1), 'clinic');
SELECT dp_stream.create_key('daily_average', dp_hybrid(1, 1), 'clinic',
                            statistic => 'average', lower => 0, upper => 7);
SELECT spent_epsilon, remaining_epsilon FROM dp_stream.budget('clinic');
-- what a key is registered to compute, and the key of a mechanism
SELECT dp_stream.key_computes('count') AS count,
       dp_stream.key_computes('average', 0, 7) AS average,
       dp_stream.key_computes('sum', -5, 5, true) AS integer_sum;
SELECT dp_stream.key_computes('median', 0, 1);
SELECT dp_stream.key_computes('count', 0, 1);
SELECT dp_stream.key_computes('sum');
SELECT dp_key_of(dp_keyed(dp_binary(1, 64, 1), 'daily_admissions')) AS keyed,
       dp_key_of(dp_binary(1, 64, 1)) IS NULL AS unkeyed;
SELECT dp_keyed(dp_binary(1, 64, 1), 'daily_admissions');
CREATE TABLE admissions AS SELECT d AS day, (hashint4(d) & 7) AS n FROM generate_series(1, 40) d;
CREATE VIEW keyed_counts AS
  SELECT day, n, sum(n) OVER w AS truth,
         dp_count(n, dp_keyed(dp_binary(1, 64, 1), 'daily_admissions')) OVER w AS released
  FROM admissions WINDOW w AS (ORDER BY day);
CREATE TABLE run1 AS SELECT * FROM keyed_counts;
-- another session, another seed: the same releases
\c
SET dp_stream.seed = 'another';
CREATE TABLE run2 AS SELECT * FROM keyed_counts;
SELECT count(*) AS days, count(*) FILTER (WHERE run1.released = run2.released) AS identical,
       count(*) FILTER (WHERE run1.released <> run1.truth) > 20 AS noisy
FROM run1 JOIN run2 USING (day);
-- K copies in one statement: cross join, LATERAL, correlated subquery
SELECT count(DISTINCT (day, r)) AS distinct_releases, count(*) AS rows
FROM (SELECT k, day, dp_count(n, dp_keyed(dp_binary(1, 64, 1), 'daily_admissions'))
                       OVER (PARTITION BY k ORDER BY day) AS r
      FROM admissions, generate_series(1, 5) k) x;
SELECT count(DISTINCT r) AS lateral_releases
FROM generate_series(1, 5) k,
     LATERAL (SELECT dp_count(n, dp_keyed(dp_binary(1, 64, 1), 'daily_admissions') ORDER BY day) + k * 0 AS r
              FROM admissions) x;
SELECT count(DISTINCT (SELECT dp_count(n, dp_keyed(dp_binary(1, 64, 1), 'daily_admissions') ORDER BY day)
                       FROM admissions WHERE k > 0)) AS correlated_releases
FROM generate_series(1, 5) k;
-- a materialized view refreshed twice is identical
CREATE MATERIALIZED VIEW keyed_view AS SELECT * FROM keyed_counts;
CREATE TABLE before_refresh AS SELECT * FROM keyed_view;
REFRESH MATERIALIZED VIEW keyed_view;
REFRESH MATERIALIZED VIEW keyed_view;
SELECT count(*) AS differing_rows
FROM ((TABLE keyed_view EXCEPT TABLE before_refresh) UNION ALL (TABLE before_refresh EXCEPT TABLE keyed_view)) d;
-- a changed day changes only the releases whose nodes cover it: the days
-- before it are released as before, and day 40 (= 32 + 8) uses the node of
-- days 1..32, which day 35 is not in
UPDATE admissions SET n = CASE WHEN n = 0 THEN 1 ELSE 0 END WHERE day = 35;
SELECT count(*) FILTER (WHERE day < 35 AND k.released <> r.released) AS changed_before,
       count(*) FILTER (WHERE day >= 35 AND k.released <> r.released) > 0 AS changed_after
FROM keyed_counts k JOIN run1 r USING (day);
-- a keyed average: repeatable too
-- (an average is NULL while its noisy count is not positive)
SELECT count(DISTINCT coalesce(r::text, 'undefined')) AS average_releases, count(*) AS copies
FROM (SELECT k, dp_avg(n, 0, 7, dp_keyed(dp_hybrid(1, 1), 'daily_average') ORDER BY day) AS r
      FROM admissions, generate_series(1, 5) k GROUP BY k) x;
-- the same data computed another way would get fresh noise, so a key is
-- registered for one computation: other bounds, integer values (of a sum), another
-- statistic are refused
SELECT dp_avg(n, 0, 7.000001, dp_keyed(dp_hybrid(1, 1), 'daily_average') ORDER BY day) FROM admissions;
SELECT dp_avg(n::float8, 0, 7, dp_keyed(dp_hybrid(1, 1), 'daily_average') ORDER BY day)
       IS NOT DISTINCT FROM dp_avg(n, 0, 7, dp_keyed(dp_hybrid(1, 1), 'daily_average') ORDER BY day)
       AS real_input_same_computation_same_release
FROM admissions;
SELECT dp_sum(n, 0, 7, dp_keyed(dp_hybrid(1, 1), 'daily_average') ORDER BY day) FROM admissions;
SELECT dp_sum(n, 0, 7, dp_keyed(dp_binary(1, 64, 1), 'daily_admissions') ORDER BY day) FROM admissions;
-- a managed stream takes no keyed mechanism (advance runs as the owner)
SELECT dp_stream.create_stream('keyed_stream', 'count', dp_keyed(dp_binary(1, 64, 1), 'daily_admissions'));
-- refusals: an unregistered key, a key with another mechanism, mechanisms
-- whose noise is drawn before their data, a bad name, a second registration
SELECT dp_count(n, dp_keyed(dp_binary(1, 64, 1), 'no_such_key')) FROM admissions;
SELECT dp_count(n, dp_keyed(dp_binary(2, 64, 1), 'daily_admissions')) FROM admissions;
SELECT dp_keyed(dp_ppcum(1, 64, 1), 'k');
SELECT dp_keyed(dp_simple_i(1, 64, 1), 'k');
SELECT dp_keyed(dp_binary(1, 64, 1), 'not a name');
SELECT dp_keyed(dp_keyed(dp_binary(1, 64, 1), 'a'), 'b');
SELECT dp_stream.create_key('daily_admissions', dp_binary(1, 64, 1), 'clinic');
SELECT dp_stream.create_key('too_much', dp_binary(2, 64, 1), 'clinic');
SELECT count(*) AS charges FROM dp_stream.charges WHERE dataset = 'clinic';

-- 5. Rotation: new values are sealed under the new secret, old ones still
-- open until they are resealed and the old secret is dropped.
CREATE TABLE old_secret AS
  SELECT id FROM dp_stream.secrets WHERE purpose = 'seal' ORDER BY created_at DESC, id DESC LIMIT 1;
SELECT dp_stream.rotate_secret() <> (SELECT id FROM old_secret) AS rotated;
SELECT dp_steps(c) AS old_value_opens FROM states;
SELECT dp_stream.drop_secret((SELECT id FROM dp_stream.secrets WHERE purpose = 'seal'
                              ORDER BY created_at DESC, id DESC LIMIT 1));
SELECT dp_stream.drop_secret((SELECT id FROM dp_stream.secrets WHERE purpose = 'noise'));
CREATE TABLE unresealed AS SELECT c FROM states;
UPDATE states SET c = dp_reseal(c), a = dp_reseal(a);
SELECT dp_stream.drop_secret((SELECT id FROM old_secret));
SELECT dp_steps(c) AS resealed_value_opens FROM states;
\set VERBOSITY terse
SELECT dp_steps(c) FROM unresealed;
\set VERBOSITY default
SELECT count(*) AS keyed_releases_unchanged
FROM keyed_counts k JOIN run1 r USING (day) WHERE day < 35 AND k.released = r.released;

-- 6. Roles, with real LOGIN roles: an administrator creates and advances
-- streams and registers keys; a reader reads releases; neither reads
-- states, secrets or (the reader) the ledger, nor draws noise on a stored
-- state.
CREATE ROLE dp_test_admin LOGIN IN ROLE dp_stream_admin;
CREATE ROLE dp_test_reader LOGIN IN ROLE dp_stream_reader;
CREATE ROLE dp_test_nobody LOGIN;
\c - dp_test_admin
SELECT dp_stream.create_stream('admin_count', 'count', dp_binary(1, 64, 1), first_period => '2026-01-01',
                               dataset => 'clinic');
SELECT step FROM dp_stream.advance('admin_count', '2026-01-01', 3);
SELECT dataset, epsilon, purpose, charged_by, remaining_after FROM dp_stream.spending ORDER BY charged_at;
SELECT name, steps, next_period, created_by FROM dp_stream.stream_list WHERE name = 'admin_count';
SELECT dp_stream.create_key('admin_key', dp_hybrid(0.5, 1));
SELECT key, used_by, computes FROM dp_stream.keys ORDER BY key;
SELECT dp_count(n, dp_keyed(dp_hybrid(0.5, 1), 'admin_key')) IS NOT NULL AS admin_uses_own_key
FROM (VALUES (1), (0)) v(n);
SELECT dp_count(n, dp_keyed(dp_binary(1, 64, 1), 'daily_admissions')) FROM (VALUES (1), (0)) v(n);
SELECT * FROM dp_stream.streams;
SELECT * FROM dp_stream.secrets;
SELECT dp_stream.rotate_secret();
SET dp_stream.read_unsealed = on;
UPDATE dp_stream.releases SET estimate = 0;
DELETE FROM dp_stream.charges;
-- advance runs as the owner: an overload of an extension function that a
-- role able to create functions in its schema adds is never called there
\c - postgres
GRANT CREATE ON SCHEMA public TO dp_test_admin;
\c - dp_test_admin
CREATE FUNCTION public.dp_error_bound(c dp_counter, confidence numeric) RETURNS float8
LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'hijacked as %', current_user; END $$;
SELECT step FROM dp_stream.advance('admin_count', '2026-01-02', 2);
DROP FUNCTION public.dp_error_bound(dp_counter, numeric);
\c - postgres
REVOKE CREATE ON SCHEMA public FROM dp_test_admin;
\c - dp_test_reader
SELECT stream, step, period, released_by FROM dp_stream.releases WHERE stream = 'admin_count';
SELECT name, steps FROM dp_stream.stream_list WHERE name = 'admin_count';
SELECT * FROM dp_stream.streams;
SELECT * FROM dp_stream.secrets;
SELECT * FROM dp_stream.charges;
SELECT * FROM dp_stream.spending;
SELECT * FROM dp_stream.keys;
SELECT dp_stream.budget('clinic');
SELECT dp_stream.advance('admin_count', '2026-01-02', 1);
SELECT dp_stream.create_stream('reader_count', 'count', dp_binary(1, 64, 1));
SELECT dp_stream.create_key('reader_key', dp_binary(1, 64, 1));
SELECT dp_stream.charge('clinic', 0.1, 'reader');
SELECT dp_stream.create_budget('reader', 10);
SELECT dp_stream.rotate_secret();
INSERT INTO dp_stream.releases (stream, step, period) VALUES ('admin_count', 2, '2026-01-02');
\c - dp_test_nobody
SELECT * FROM dp_stream.releases;
SELECT dp_stream.advance('admin_count', '2026-01-02', 1);
SELECT dp_stream.random_secret();
-- a key may be used only by the role it was registered for: whoever could
-- compute keyed releases over data of their choosing could test guesses
-- about the real data (same data, same noise); another role is told what it
-- is told for a key that does not exist (0.12.0; test/regress/sql/ledger.sql)
SELECT dp_count(n, dp_keyed(dp_binary(1, 64, 1), 'daily_admissions')) FROM (VALUES (1), (0)) v(n);
\c - postgres
SELECT step, period FROM dp_stream.releases WHERE stream = 'admin_count' ORDER BY step;
-- SET ROLE: the key is registered for the role in force, not the login
CREATE ROLE dp_test_publisher IN ROLE dp_stream_admin;
SET ROLE dp_test_publisher;
SELECT dp_stream.create_key('publisher_key', dp_binary(1, 64, 1));
RESET ROLE;
SELECT used_by FROM dp_stream.keys WHERE key = 'publisher_key';
DROP ROLE dp_test_admin;
DROP ROLE dp_test_reader;
DROP ROLE dp_test_nobody;
DROP ROLE dp_test_publisher;
