-- The Binary mechanism through SQL: constructors, types, aggregate, window
-- and two-step forms, and every class of bad input.
CREATE EXTENSION dp_stream;
SET dp_stream.seed = 'regression';

-- constructors and the mechanism type
SELECT dp_binary(0.5, 365, 1);
SELECT dp_binary(epsilon => 1, horizon => 1024, max_per_step => 3);
SELECT 'binary(epsilon=0.25, horizon=7)'::dp_mechanism;
SELECT dp_binary(0.5, 365, 1)::text::dp_mechanism::text = dp_binary(0.5, 365, 1)::text AS text_round_trip,
       dp_binary(0.1, 100, 1)::text AS exact_epsilon_text;
SELECT dp_binary(NULL, 365, 1) IS NULL AS null_epsilon_gives_null_mechanism;

-- bad parameters: each names the parameter, with an SQLSTATE
SELECT dp_binary(0, 365, 1);
SELECT dp_binary(-1, 365, 1);
SELECT dp_binary('NaN', 365, 1);
SELECT dp_binary('Infinity', 365, 1);
SELECT dp_binary(1e6, 365, 1);
SELECT dp_binary(1e-20, 365, 1);
SELECT dp_binary(1, 0, 1);
SELECT dp_binary(1, -5, 1);
SELECT dp_binary(1, 4611686018427387905, 1);
SELECT dp_binary(1, 10, 0);
SELECT dp_binary(1, 10, 1125899906842625);
SELECT 'binary(epsilon=1)'::dp_mechanism;
SELECT 'binary(horizon=10)'::dp_mechanism;
SELECT 'tree(epsilon=1,horizon=10)'::dp_mechanism;
SELECT 'binary(epsilon=1,horizon=10'::dp_mechanism;
SELECT 'binary(epsilon=abc,horizon=10)'::dp_mechanism;
SELECT 'binary(epsilon=1,horizon=10) trailing'::dp_mechanism;

-- a running count over 20 days, window form
CREATE TABLE daily (day int, n bigint);
INSERT INTO daily SELECT d, (d * 7) % 4 FROM generate_series(1, 20) d;
SELECT day, n, sum(n) OVER w AS true_count,
       dp_count(n, dp_binary(1.0, 20, 3)) OVER w AS private_count,
       dp_error_bound(dp_binary(1.0, 20, 3), row_number() OVER w) AS bound_95
FROM daily WINDOW w AS (ORDER BY day) ORDER BY day;

-- the same stream released by the window, the aggregate and the two-step
-- form agree when the noise stream is restarted between them
SET dp_stream.seed = 'same stream';
CREATE TEMP TABLE by_window AS
  SELECT day, dp_count(n, dp_binary(1.0, 20, 3)) OVER (ORDER BY day) AS c FROM daily;
SET dp_stream.seed = 'same stream';
CREATE TEMP TABLE by_state AS
  SELECT dp_count_state(n, dp_binary(1.0, 20, 3) ORDER BY day) AS s FROM daily;
SET dp_stream.seed = 'same stream';
SELECT dp_count(n, dp_binary(1.0, 20, 3) ORDER BY day) AS aggregate_release,
       (SELECT c FROM by_window WHERE day = 20) AS window_release,
       (SELECT dp_estimate(s) FROM by_state) AS state_release
FROM daily;

-- the state type: text and binary round trips, accessors, continuation
SELECT s::text::dp_counter::text = s::text AS text_round_trip,
       dp_steps(s), dp_estimate(s), dp_mechanism(s),
       round(dp_error_bound(s)::numeric, 0) AS bound_95,
       round(dp_error_bound(s, 0.5)::numeric, 0) AS bound_50
FROM by_state;
SELECT dp_counter_recv_round_trip
FROM (SELECT dp_counter_send(s) = dp_counter_send(s::text::dp_counter) AS dp_counter_recv_round_trip FROM by_state) x;
SELECT dp_mechanism_send(dp_binary(0.3, 9, 1)) = dp_mechanism_send('binary(epsilon=0.3,horizon=9,max_per_step=1)') AS mechanism_send_stable;
CREATE TEMP TABLE stored AS SELECT s FROM by_state;
UPDATE stored SET s = dp_push(s, 2);
SELECT dp_steps(s), dp_estimate(s) FROM stored;
SELECT dp_push(NULL::dp_counter, 1) IS NULL AS null_state_stays_null;
SELECT dp_steps(dp_push(s, NULL::bigint)) AS null_value_is_a_step FROM stored;
-- the float8 overload: any double is a step, NaN and infinities included
SELECT dp_steps(dp_push(dp_push(dp_push(dp_count_state(v, dp_binary(1, 9, 1)), 1.5::float8), 'NaN'::float8), '-Infinity'::float8)) AS float_steps
FROM generate_series(1, 4) v;
SELECT dp_steps(dp_count_state(v::float8, dp_binary(1, 9, 1))) AS float8_state_steps,
       dp_steps(dp_count_state(v::int, dp_binary(1, 9, 1))) AS int4_state_steps
FROM generate_series(1, 5) v;
SET dp_stream.seed = 'float push';
SELECT dp_estimate(dp_push(dp_count_state(v, dp_binary(1, 9, 3)), 2.5::float8)) AS pushed_float FROM generate_series(1, 2) v;
SET dp_stream.seed = 'float push';
SELECT dp_estimate(dp_push(dp_count_state(v, dp_binary(1, 9, 3)), 2::bigint)) AS pushed_rounded_int FROM generate_series(1, 2) v;

-- the horizon: step T + 1 is refused, naming T and the unbounded alternative
SELECT dp_count(1, dp_binary(1.0, 3, 1)) FROM generate_series(1, 4);
SELECT dp_push(dp_push(s, 1), 1) FROM stored;
SELECT dp_error_bound(dp_binary(1, 10, 1), 11);
SELECT dp_error_bound(dp_binary(1, 10, 1), -1);

-- NULL values are steps of 0; values are clamped into [0, max_per_step];
-- floats are rounded half to even, NaN counts as 0, infinities are clamped
SET dp_stream.seed = 'clamp';
SELECT dp_count(v, dp_binary(1.0, 8, 2) ORDER BY i)
FROM (VALUES (1, 5), (2, -3), (3, NULL), (4, 2), (5, 1), (6, 0), (7, 100), (8, 2)) t(i, v);
SET dp_stream.seed = 'clamp';
SELECT dp_count(v, dp_binary(1.0, 8, 2) ORDER BY i)
FROM (VALUES (1, 2), (2, 0), (3, 0), (4, 2), (5, 1), (6, 0), (7, 2), (8, 2)) t(i, v);
SET dp_stream.seed = 'clamp';
SELECT dp_count(v, dp_binary(1.0, 8, 2) ORDER BY i)
FROM (VALUES (1, 'Infinity'::float8), (2, '-Infinity'), (3, 'NaN'), (4, 1.5), (5, 0.6),
             (6, 0.4), (7, 2.5), (8, 1e300)) t(i, v);
SELECT dp_count(v, dp_binary(1.0, 8, 2)) FROM (SELECT 1 WHERE false) e(v);

-- a frame whose start moves is refused; frames anchored at the start work
SELECT dp_count(n, dp_binary(1, 20, 1)) OVER (ORDER BY day ROWS BETWEEN 2 PRECEDING AND CURRENT ROW) FROM daily;
SELECT dp_count(n, dp_binary(1, 20, 1)) OVER (ORDER BY day ROWS BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING) FROM daily;
SELECT dp_count(n, dp_binary(1, 20, 1)) OVER (ORDER BY day ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW EXCLUDE CURRENT ROW) FROM daily;
SELECT count(*) FROM (SELECT dp_count(n, dp_binary(1, 20, 1)) OVER (ORDER BY day ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) FROM daily) x;
SELECT count(*) FROM (SELECT dp_count(n, dp_binary(1, 20, 1)) OVER (ORDER BY day ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING) FROM daily) x;

-- a mechanism must be given and must not change within a stream
SELECT dp_count(n, NULL::dp_mechanism) OVER (ORDER BY day) FROM daily;
SELECT dp_count(n, dp_binary(1, 20 + (day > 10)::int, 1)) OVER (ORDER BY day) FROM daily;

-- malformed state text names the field
-- the decoder of unsealed text (states written before 0.6.0), which only a
-- superuser may use (test/regress/sql/sealing.sql)
SET dp_stream.read_unsealed = on;
SELECT ''::dp_counter;
SELECT 'v3 binary(epsilon=1,horizon=2,max_per_step=1) steps=0 nodes=[0,0]'::dp_counter;
SELECT 'v1 binary(epsilon=0,horizon=2,max_per_step=1) steps=0 nodes=[0,0]'::dp_counter;
SELECT 'v1 binary(epsilon=1,horizon=2,max_per_step=1) steps=3 nodes=[0,0]'::dp_counter;
SELECT 'v1 binary(epsilon=1,horizon=2,max_per_step=1) steps=1 nodes=[0]'::dp_counter;
SELECT 'v1 binary(epsilon=1,horizon=2,max_per_step=1) steps=1 nodes=[0,'::dp_counter;
SELECT 'v1 binary(epsilon=1,horizon=2,max_per_step=1) steps=1 nodes=[0,1] x'::dp_counter;
RESET dp_stream.read_unsealed;
SELECT dp_error_bound(s, 1.5) FROM stored;
SELECT dp_error_bound(s, 'NaN') FROM stored;

-- dp_stream.seed is for superusers only, tested with a real login role
CREATE ROLE dp_regress_user LOGIN;
SET dp_stream.seed = 'attacker';
CREATE TABLE attacker_release AS SELECT dp_count(1, dp_binary(1e-9, 4, 1)) AS r;
GRANT SELECT ON attacker_release TO dp_regress_user;
RESET dp_stream.seed;
\c - dp_regress_user
-- once the library is loaded, the SET itself fails with 42501
SELECT dp_binary(1, 4, 1) IS NOT NULL AS library_loaded;
SET dp_stream.seed = 'attacker';
\set VERBOSITY sqlstate
SHOW dp_stream.seed;
\set VERBOSITY default
\c - dp_regress_user
-- before it is loaded PostgreSQL keeps a placeholder, which loading the
-- library discards with a warning: the seed never takes effect, so the
-- release differs from the one the seed produces (noise scale 3e9: equal
-- with probability below 1e-9)
SET dp_stream.seed = 'attacker';
SELECT dp_count(1, dp_binary(1e-9, 4, 1)) <> (SELECT r FROM attacker_release) AS seed_did_not_take_effect;
\c - postgres
DROP TABLE attacker_release;
DROP ROLE dp_regress_user;
