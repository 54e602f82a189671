-- Attacks on stored states and managed streams (issue 23, holes 1, 3 and
-- 4), each run as the roles it names: real LOGIN roles without superuser,
-- switched to with SET SESSION AUTHORIZATION.  On 0.11.0 the analyst
-- recovered every daily value from two versions of a state, the writer's
-- swapped-in state was pushed by the job, and an administrator's rolled-back
-- look-ahead and retries gave exact values; every check below then fails.
-- Noise values are never printed: only what an attacker can conclude.  It
-- runs in a database of its own: its streams and releases (append-only)
-- must not show in the other tests' catalogs.
SET client_min_messages = warning;
DROP DATABASE IF EXISTS dp_attack_states;
DROP ROLE IF EXISTS dp_attack_publisher;
DROP ROLE IF EXISTS dp_attack_analyst;
DROP ROLE IF EXISTS dp_attack_steward;
DROP ROLE IF EXISTS dp_attack_job;
DROP ROLE IF EXISTS dp_attack_writer;
DROP ROLE IF EXISTS dp_attack_admin;
RESET client_min_messages;
CREATE DATABASE dp_attack_states;
\set regress_db :DBNAME
\c dp_attack_states
CREATE EXTENSION dp_stream;
SET dp_stream.seed = 'attack_states';
\set SHOW_CONTEXT never

CREATE ROLE dp_attack_publisher LOGIN;
CREATE ROLE dp_attack_analyst LOGIN;
CREATE ROLE dp_attack_steward LOGIN IN ROLE dp_attack_publisher, dp_attack_analyst;
CREATE ROLE dp_attack_job LOGIN;
CREATE ROLE dp_attack_writer LOGIN;
CREATE ROLE dp_attack_admin LOGIN IN ROLE dp_stream_admin;

-- The SQLSTATE a statement raises (00000 when it succeeds), as the caller.
CREATE FUNCTION attack_sqlstate(query text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  state text;
BEGIN
  EXECUTE query;
  RETURN '00000';
EXCEPTION WHEN others THEN
  GET STACKED DIAGNOSTICS state = RETURNED_SQLSTATE;
  RETURN state;
END $$;

-- 1. Two versions of a state.  A publisher advances a counter and an
-- average daily and keeps every version in a history table; an analyst may
-- SELECT that table and nothing else.
CREATE TABLE attack_data AS
  SELECT day, 1 + (hashint4(day) & 15) AS n FROM generate_series(1, 60) day;
CREATE TABLE attack_history (day int PRIMARY KEY, c dp_counter, a dp_statistic);
GRANT SELECT ON attack_data TO dp_attack_publisher;
GRANT SELECT, INSERT ON attack_history TO dp_attack_publisher;
GRANT SELECT ON attack_history TO dp_attack_analyst;

SET SESSION AUTHORIZATION dp_attack_publisher;
INSERT INTO attack_history
  VALUES (0, dp_counter_new(dp_binary(1.0, 64, 16)), dp_statistic_new('average', 0, 16, dp_hybrid(1.0, 1)));
DO $$
BEGIN
  FOR d IN 1 .. 60 LOOP
    INSERT INTO attack_history
      SELECT d, dp_push(h.c, x.n), dp_push(h.a, x.n::float8)
      FROM attack_history h, attack_data x WHERE h.day = d - 1 AND x.day = d;
  END LOOP;
END $$;
-- the publisher uses its own states
SELECT dp_estimate(c) IS NOT NULL AS publisher_estimates, dp_steps(c) FROM attack_history WHERE day = 60;
RESET SESSION AUTHORIZATION;

SET SESSION AUTHORIZATION dp_attack_analyst;
-- public fields stay readable
SELECT dp_steps(c) AS counter_steps, dp_mechanism(c), dp_steps(a) AS average_steps, dp_mechanism(a)
FROM attack_history WHERE day = 60;
-- the attack of the issue: the next version minus the previous one pushed
-- with 0 (the analyst keeps what it gets; the test scores it below)
CREATE TEMP TABLE analyst_diffs (day int, diff bigint, refused boolean);
DO $$
BEGIN
  FOR k IN 0 .. 59 LOOP
    BEGIN
      INSERT INTO analyst_diffs
        SELECT k + 1, dp_estimate(b.c) - dp_estimate(dp_push(a.c, 0)), false
        FROM attack_history a, attack_history b WHERE a.day = k AND b.day = k + 1;
    EXCEPTION WHEN insufficient_privilege THEN
      INSERT INTO analyst_diffs VALUES (k + 1, NULL, true);
    END;
  END LOOP;
END $$;
-- every function that opens a state refuses the analyst
SELECT f, attack_sqlstate(format('SELECT %s FROM attack_history WHERE day = 30', f)) AS sqlstate
FROM unnest(ARRAY['dp_estimate(c)', 'dp_push(c, 0)', 'dp_push(c, 0::float8)', 'dp_error_bound(c, 0.95)',
                  'dp_reseal(c)', 'dp_bind(c, ''dp_attack_analyst'')',
                  'dp_estimate(a)', 'dp_estimate(a, ''count'')', 'dp_push(a, 1)', 'dp_push(a, 1::float8)',
                  'dp_error_bound(a, 0.95)', 'dp_summary(a)', 'dp_reseal(a)',
                  'dp_bind(a, ''dp_attack_analyst'')']) AS f;
-- what it says (the role is not named)
SELECT dp_estimate(c) FROM attack_history WHERE day = 30;
-- a state taken through text is the same state
SELECT dp_estimate(c::text::dp_counter) FROM attack_history WHERE day = 30;
RESET SESSION AUTHORIZATION;
SELECT count(*) AS attempts, count(*) FILTER (WHERE d.diff = x.n) AS values_recovered,
       count(*) FILTER (WHERE d.refused) AS refused_42501
FROM analyst_diffs d JOIN attack_data x USING (day);

-- Handing a state over: the publisher cannot give it to a role it does not
-- have the privileges of; a role with both (or a superuser) can, and then
-- the new role may use it and the old one may not.
SET SESSION AUTHORIZATION dp_attack_publisher;
SELECT attack_sqlstate('SELECT dp_bind(c, ''dp_attack_analyst'') FROM attack_history WHERE day = 60') AS publisher_binds_to_analyst;
-- dp_reseal keeps the state's role
CREATE TEMP TABLE resealed AS SELECT dp_reseal(c) AS c FROM attack_history WHERE day = 60;
GRANT SELECT ON resealed TO dp_attack_analyst;
RESET SESSION AUTHORIZATION;
SET SESSION AUTHORIZATION dp_attack_analyst;
SELECT attack_sqlstate('SELECT dp_estimate(c) FROM resealed') AS analyst_on_resealed;
RESET SESSION AUTHORIZATION;
SET SESSION AUTHORIZATION dp_attack_steward;
CREATE TEMP TABLE handed AS
  SELECT dp_bind(c, 'dp_attack_analyst') AS c, dp_bind(a, 'dp_attack_analyst') AS a
  FROM attack_history WHERE day = 60;
GRANT SELECT ON handed TO dp_attack_analyst, dp_attack_publisher;
RESET SESSION AUTHORIZATION;
SET SESSION AUTHORIZATION dp_attack_analyst;
SELECT dp_estimate(c) IS NOT NULL AS analyst_estimates, dp_steps(dp_push(c, 1)) AS pushed_steps,
       (dp_summary(a)).count IS NOT NULL AS analyst_summarizes
FROM handed;
RESET SESSION AUTHORIZATION;
-- the same state: the same releases
SELECT dp_estimate(h.c) = dp_estimate(o.c) AS same_release, dp_summary(h.a) = dp_summary(o.a) AS same_summary
FROM handed h, attack_history o WHERE o.day = 60;
SET SESSION AUTHORIZATION dp_attack_publisher;
SELECT attack_sqlstate('SELECT dp_estimate(c) FROM handed') AS publisher_on_handed;
RESET SESSION AUTHORIZATION;
-- superusers may use and bind every state
SELECT dp_estimate(c) IS NOT NULL AS superuser_estimates,
       dp_steps(dp_bind(c, 'dp_attack_job')) AS bound_steps
FROM attack_history WHERE day = 60;

-- 3. A writer with UPDATE on the job's state column swaps in a repeatable
-- state of its own (keeping a copy, to recompute every later release): the
-- job's next push refuses it.
CREATE TABLE attack_job (name text PRIMARY KEY, s dp_counter);
GRANT SELECT, INSERT, UPDATE ON attack_job TO dp_attack_job;
GRANT SELECT, UPDATE (s) ON attack_job TO dp_attack_writer;
SET SESSION AUTHORIZATION dp_attack_job;
INSERT INTO attack_job VALUES ('admissions', dp_counter_new(dp_hybrid(1.0, 50)));
UPDATE attack_job SET s = dp_push(s, 12);
RESET SESSION AUTHORIZATION;
SET SESSION AUTHORIZATION dp_attack_writer;
SELECT attack_sqlstate('SELECT dp_estimate(s) FROM attack_job') AS writer_reads_job_state;
CREATE TEMP TABLE writer_copy AS SELECT dp_counter_new(dp_hybrid(1.0, 50), true) AS s;
UPDATE attack_job SET s = (SELECT s FROM writer_copy);
RESET SESSION AUTHORIZATION;
SET SESSION AUTHORIZATION dp_attack_job;
SELECT attack_sqlstate('UPDATE attack_job SET s = dp_push(s, 7)') AS job_pushes_swapped_state;
UPDATE attack_job SET s = dp_push(s, 7);
RESET SESSION AUTHORIZATION;

-- The same writer shares a group role with the job (a team role, or
-- dp_stream_admin that every publishing job is granted): a state it binds
-- to the group is still not the job's.  Only the bound role itself uses a
-- state, not every role that inherits its privileges (review of 0.12.0:
-- the job pushed the group's state and the writer recomputed every
-- release, and could use the job's own states through the group too).
CREATE ROLE dp_attack_staff NOLOGIN;
GRANT dp_attack_staff TO dp_attack_job, dp_attack_writer;
SET SESSION AUTHORIZATION dp_attack_job;
UPDATE attack_job SET s = dp_push(dp_counter_new(dp_hybrid(1.0, 50)), 12);
RESET SESSION AUTHORIZATION;
SET SESSION AUTHORIZATION dp_attack_writer;
SELECT attack_sqlstate('SELECT dp_bind(s, ''dp_attack_staff'') FROM attack_job') AS writer_binds_job_state_to_group;
CREATE TEMP TABLE writer_group_copy AS
  SELECT dp_bind(dp_counter_new(dp_hybrid(1.0, 50), true), 'dp_attack_staff') AS s;
UPDATE attack_job SET s = (SELECT s FROM writer_group_copy);
RESET SESSION AUTHORIZATION;
SET SESSION AUTHORIZATION dp_attack_job;
SELECT attack_sqlstate('UPDATE attack_job SET s = dp_push(s, 7)') AS job_pushes_group_state;
-- a member uses a group's states deliberately, as the group
SELECT s AS group_state FROM attack_job \gset
SET ROLE dp_attack_staff;
SELECT dp_steps(dp_push(:'group_state'::dp_counter, 7)) AS pushed_as_the_group;
RESET ROLE;
RESET SESSION AUTHORIZATION;

-- 4. Repeatable states are pan-private and content-keyed; a kind that
-- cannot key its noise by content is refused.
SELECT dp_mechanism(dp_counter_new(dp_binary(1.0, 64, 1), true)) AS repeatable_counter,
       dp_mechanism(dp_statistic_new('sum', 0, 10, dp_hybrid(1.0, 1), true)) AS repeatable_sum;
SELECT dp_counter_new(dp_simple_i(1.0, 64, 1), true);
SELECT dp_statistic_new('sum', 0, 10, dp_ppcum(1.0, 64, 1), true);
SELECT dp_counter_new(dp_binary(1.0, 64, 1), false) IS NOT NULL AS ordinary_states_unchanged;

-- A stream created in a transaction cannot be advanced in it: a stream
-- whose creation rolls back releases nothing.
BEGIN;
SELECT dp_stream.create_stream('attack_new', 'count', dp_binary(1.0, 64, 1), first_period => '2026-01-01');
SELECT step FROM dp_stream.advance('attack_new', '2026-01-01', 1);
ROLLBACK;

SELECT dp_stream.create_stream('attack_lookahead', 'count', dp_binary(1.0, 256, 50),
                               first_period => '2026-01-01');
SELECT dp_stream.create_stream('attack_retry', 'count', dp_binary(1.0, 256, 50),
                               first_period => '2026-01-01');
CREATE TABLE attack_periods AS
  SELECT t, 1 + (hashint4(t + 1000) & 31) AS x FROM generate_series(1, 99) t;

-- The look-ahead: an administrator (not a superuser, never reading raw
-- data) advances 99 periods with no data, keeps the releases and rolls
-- back; the job then publishes the real periods.  With noise keyed by
-- position only, release minus look-ahead was the true running count at
-- every period (99 of 99).  Now every period's newest node holds data the
-- look-ahead did not have (every x >= 1), so its closing noise term is
-- fresh: given all earlier terms, the two releases agree exactly with
-- probability at most max_k P(X = k) = tanh(eps / (2 * Delta)) for a
-- discrete Laplace term of scale at least Delta / eps (one closing term
-- alone protects a change of Delta = 50; eps = 1): 0.0100.  The number of
-- exact periods is then dominated by Binomial(99, 0.01), and P(>= 10) <
-- C(99, 10) * 0.01^10 < 2e-7.
SET SESSION AUTHORIZATION dp_attack_admin;
CREATE TEMP TABLE lookahead (step bigint, estimate float8);
DO $$
DECLARE
  seen float8[];
BEGIN
  BEGIN
    PERFORM dp_stream.advance('attack_lookahead', timestamp '2026-01-01' + 98 * interval '1 day', NULL);
    SELECT array_agg(estimate ORDER BY step) INTO seen FROM dp_stream.releases
    WHERE stream = 'attack_lookahead';
    RAISE EXCEPTION 'roll the look-ahead back';
  EXCEPTION WHEN raise_exception THEN
    NULL;
  END;
  INSERT INTO lookahead SELECT i, seen[i] FROM generate_subscripts(seen, 1) i;
END $$;
SELECT count(*) AS looked_ahead, (SELECT steps FROM dp_stream.stream_list WHERE name = 'attack_lookahead') AS steps_after_rollback
FROM lookahead;
GRANT SELECT ON lookahead TO PUBLIC;
RESET SESSION AUTHORIZATION;
-- the job (here a superuser: it reads the data) publishes the 99 real periods
DO $$
BEGIN
  FOR i IN 1 .. 99 LOOP
    PERFORM dp_stream.advance('attack_lookahead', timestamp '2026-01-01' + (i - 1) * interval '1 day',
                              (SELECT x FROM attack_periods p WHERE p.t = i));
  END LOOP;
END $$;
SELECT count(*) AS compared,
       count(*) FILTER (WHERE r.estimate - l.estimate = p.running) < 10 AS lookahead_recovers_nearly_nothing
FROM lookahead l
JOIN dp_stream.releases r ON r.stream = 'attack_lookahead' AND r.step = l.step
JOIN (SELECT t, sum(x) OVER (ORDER BY t) AS running FROM attack_periods) p ON p.t = l.step;
SET SESSION AUTHORIZATION dp_attack_admin;

-- Retries: each of 40 periods advanced with 10 and with 17, each rolled
-- back, then with 40.  With position-keyed noise the three releases
-- differed by exactly 7 and 30 (40 of 40); now the newest node's content
-- differs, so each pair agrees exactly with probability at most 0.0100 (as
-- above), and P(>= 8 of 40) < C(40, 8) * 0.01^8 < 1e-8.
CREATE TEMP TABLE retries (step bigint, with_10 float8, with_17 float8, with_40 float8);
DO $$
DECLARE
  period timestamp;
  first float8;
  second float8;
BEGIN
  FOR t IN 1 .. 40 LOOP
    period := timestamp '2026-01-01' + (t - 1) * interval '1 day';
    BEGIN
      first := (dp_stream.advance('attack_retry', period, 10)).estimate;
      RAISE EXCEPTION 'retry';
    EXCEPTION WHEN raise_exception THEN
      NULL;
    END;
    BEGIN
      second := (dp_stream.advance('attack_retry', period, 17)).estimate;
      RAISE EXCEPTION 'retry';
    EXCEPTION WHEN raise_exception THEN
      NULL;
    END;
    INSERT INTO retries VALUES (t, first, second, (dp_stream.advance('attack_retry', period, 40)).estimate);
  END LOOP;
END $$;
SELECT count(*) AS periods,
       count(*) FILTER (WHERE with_17 - with_10 = 7) < 8 AS retry_differs_not_by_the_change,
       count(*) FILTER (WHERE with_40 - with_10 = 30) < 8 AS real_differs_not_by_the_change
FROM retries;
-- the administrator cannot read the states themselves
SELECT attack_sqlstate('SELECT counter FROM dp_stream.streams') AS admin_reads_states;
RESET SESSION AUTHORIZATION;

-- A managed stream's state is its own: another stream's state, or an older
-- version of its own, put into the catalog (only its owner can write it)
-- is refused by advance.
BEGIN;
UPDATE dp_stream.streams
   SET counter = (SELECT counter FROM dp_stream.streams WHERE name = 'attack_lookahead'),
       steps = 99
 WHERE name = 'attack_retry';
SELECT step FROM dp_stream.advance('attack_retry', timestamp '2026-01-01' + 99 * interval '1 day', 1);
ROLLBACK;
CREATE TEMP TABLE older AS SELECT counter, steps FROM dp_stream.streams WHERE name = 'attack_retry';
SELECT step FROM dp_stream.advance('attack_retry', timestamp '2026-01-01' + 40 * interval '1 day', 1);
BEGIN;
UPDATE dp_stream.streams SET counter = o.counter, steps = o.steps FROM older o
 WHERE name = 'attack_retry';
SELECT step FROM dp_stream.advance('attack_retry', timestamp '2026-01-01' + 41 * interval '1 day', 1);
ROLLBACK;
BEGIN;
UPDATE dp_stream.streams SET counter = o.counter FROM older o WHERE name = 'attack_retry';
SELECT step FROM dp_stream.advance('attack_retry', timestamp '2026-01-01' + 41 * interval '1 day', 1);
ROLLBACK;
SELECT step FROM dp_stream.advance('attack_retry', timestamp '2026-01-01' + 41 * interval '1 day', 1);
-- the same for a statistic's state: a fresh repeatable state made outside
-- create_stream belongs to no stream
SELECT dp_stream.create_stream('attack_average', 'average', dp_hybrid(1.0, 1), 0, 10,
                               first_period => '2026-01-01');
SELECT step FROM dp_stream.advance('attack_average', '2026-01-01', 4);
BEGIN;
UPDATE dp_stream.streams
   SET statistic_state = dp_push(dp_statistic_new('average', 0, 10, dp_hybrid(1.0, 1), true), 4::float8)
 WHERE name = 'attack_average';
SELECT step FROM dp_stream.advance('attack_average', '2026-01-02', 4);
ROLLBACK;
-- (an average's release may be NULL: its noisy count can be 0 or less)
SELECT step, stream = 'attack_average' AS released FROM dp_stream.advance('attack_average', '2026-01-02', 4);

-- 5. A sealed state's length depends on its public fields only: 1000
-- states of one mechanism and step count, over random data (from none to
-- every step at its bound), have one length.  (0.11.0: 118 to 124 bytes.)
SELECT setseed(0.23);
CREATE TEMP TABLE lengths AS
  SELECT k, octet_length(dp_counter_send(dp_count_state(x, dp_binary(1.0, 64, 16) ORDER BY t))) AS binary_count,
         octet_length(dp_counter_send(dp_count_state(x, dp_hybrid(1.0, 16) ORDER BY t))) AS hybrid_count,
         octet_length(dp_statistic_send(dp_avg_state(v, 0, 100, dp_hybrid(1.0, 1) ORDER BY t))) AS hybrid_average
  FROM (SELECT k, t, (random() * 16 * (k % 3) / 2)::bigint AS x,
               CASE WHEN random() < k % 4 / 4.0 THEN NULL ELSE random() * 100 END AS v
        FROM generate_series(1, 1000) k, generate_series(1, 40) t) d
  GROUP BY k;
SELECT count(*) AS states, count(DISTINCT binary_count) AS binary_lengths,
       count(DISTINCT hybrid_count) AS hybrid_lengths, count(DISTINCT hybrid_average) AS average_lengths
FROM lengths;

\c :regress_db
DROP DATABASE dp_attack_states;
DROP ROLE dp_attack_steward;
DROP ROLE dp_attack_publisher;
DROP ROLE dp_attack_analyst;
DROP ROLE dp_attack_staff;
DROP ROLE dp_attack_job;
DROP ROLE dp_attack_writer;
DROP ROLE dp_attack_admin;
