-- The internal functions behind a managed stream's identity (0.12.0):
-- dp_stream.bind_stream seals a stream id into a state, state_stream reads
-- it (0 for a state of no stream), written_by_this_transaction tells
-- advance that a catalog row is its own transaction's.  advance uses them
-- (test/regress/sql/attack_states.sql attacks it); here their own results and refusals.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS dp_stream;
RESET client_min_messages;
SET dp_stream.seed = 'stream_identity';
\set VERBOSITY terse
-- a fresh state belongs to no stream; bound, it names its stream, keeps its
-- steps and mechanism, and pushes keep the id
SELECT dp_stream.state_stream(dp_counter_new(dp_hybrid(1.0, 1), true)) AS fresh_counter,
       dp_stream.state_stream(dp_statistic_new('average', 0, 10, dp_hybrid(1.0, 1), true)) AS fresh_statistic;
WITH s AS (SELECT dp_stream.bind_stream(dp_push(dp_counter_new(dp_hybrid(1.0, 1), true), 3), 4711) AS c,
                  dp_stream.bind_stream(dp_statistic_new('sum', 0, 10, dp_hybrid(1.0, 1), true), 4712) AS a)
SELECT dp_stream.state_stream(c) AS counter_stream, dp_steps(c) AS steps,
       dp_stream.state_stream(dp_push(c, 2)) AS after_push,
       dp_stream.state_stream(a) AS statistic_stream,
       dp_stream.state_stream(dp_push(a, 2.5::float8)) AS statistic_after_push
FROM s;
-- NULL in, NULL out (strict); a stream id must be positive
SELECT dp_stream.bind_stream(NULL::dp_counter, 1) IS NULL AS null_state,
       dp_stream.state_stream(NULL::dp_statistic) IS NULL AS null_statistic;
SELECT dp_stream.bind_stream(dp_counter_new(dp_hybrid(1.0, 1), true), 0);
SELECT dp_stream.bind_stream(dp_counter_new(dp_hybrid(1.0, 1), true), -5);
-- a row written by this transaction, and one that was not
CREATE TEMP TABLE identity_rows (n int);
INSERT INTO identity_rows VALUES (1);
BEGIN;
INSERT INTO identity_rows VALUES (2);
SELECT n, dp_stream.written_by_this_transaction(xmin) AS mine FROM identity_rows ORDER BY n;
COMMIT;
SELECT dp_stream.written_by_this_transaction(NULL) IS NULL AS null_xid;
-- none of them is for other roles
DROP ROLE IF EXISTS dp_identity_nobody;
CREATE ROLE dp_identity_nobody LOGIN;
SET SESSION AUTHORIZATION dp_identity_nobody;
-- (with non-NULL arguments: the planner folds a strict call on a NULL
-- constant to NULL before any privilege is checked)
CREATE TEMP TABLE nobody_state AS SELECT dp_counter_new(dp_hybrid(1.0, 1), true) AS c;
SELECT dp_stream.state_stream(c) FROM nobody_state;
SELECT dp_stream.bind_stream(c, 1) FROM nobody_state;
SELECT dp_stream.written_by_this_transaction(xmin) FROM nobody_state;
DROP TABLE nobody_state;
RESET SESSION AUTHORIZATION;
DROP ROLE dp_identity_nobody;
