-- Every counting mechanism through SQL: constructors and options, the
-- window, aggregate and two-step forms, bounds, horizons and bad input.
CREATE EXTENSION IF NOT EXISTS dp_stream;
SET dp_stream.seed = 'mechanisms';
-- the calls below are written in 0.14.0's order; its warning about calls
-- that meant another mechanism before is tested in argument_order.sql
SET dp_stream.argument_order_warning = off;

-- constructors and their canonical text
SELECT dp_simple_i(1, 100, 1);
SELECT dp_simple_ii(0.5, 1);
SELECT dp_two_level(1, 100, 1);
SELECT dp_two_level(epsilon => 1, horizon => 100, block => 25, max_per_step => 2);
SELECT dp_two_level(1, 101, 1) AS block_is_ceil_sqrt;
SELECT dp_hybrid(1, 1), dp_hybrid(0.5, 4);
SELECT dp_ppcum(1, 365, 1);
SELECT dp_pan_private(dp_binary(1, 64, 1));
SELECT dp_consistent(dp_hybrid(1, 1));
SELECT dp_consistent(dp_pan_private(dp_two_level(1, 10, 1)));
SELECT 'two_level(epsilon=1,horizon=100)'::dp_mechanism;
SELECT 'hybrid(epsilon=1, pan_private=true, consistent=false)'::dp_mechanism;
SELECT m::text::dp_mechanism::text = m::text AS text_round_trip,
       dp_mechanism_send(m) = dp_mechanism_send(m::text::dp_mechanism) AS binary_round_trip
FROM (VALUES (dp_simple_i(0.3, 7, 1)), (dp_simple_ii(0.3, 2)), (dp_two_level(0.3, 50, 1, block => 3)),
             (dp_hybrid(0.3, 1)), (dp_ppcum(0.3, 9, 1)), (dp_consistent(dp_pan_private(dp_binary(0.3, 9, 1))))) v(m);
SELECT dp_two_level(NULL, 100, 1) IS NULL AS null_epsilon_gives_null;

-- bad parameters and options
SELECT dp_two_level(1, 100, 1, block => 0);
SELECT dp_two_level(1, 100, 1, block => 101);
SELECT dp_hybrid(0, 1);
SELECT dp_hybrid('NaN', 1);
SELECT dp_hybrid(1, 0);
SELECT dp_hybrid(1, 1125899906842624);
SELECT dp_simple_i(1, 1099511627776, 1048576);
SELECT dp_simple_ii(1, -1);
SELECT dp_ppcum(1, 0, 1);
SELECT dp_pan_private(dp_ppcum(1, 10, 1));
SELECT 'hybrid(epsilon=1,horizon=5)'::dp_mechanism;
SELECT 'simple_ii(epsilon=1,block=3)'::dp_mechanism;
SELECT 'two_level(epsilon=1,horizon=5,block=x)'::dp_mechanism;
SELECT 'two_level(epsilon=1,horizon=5,block=6)'::dp_mechanism;
SELECT 'binary(epsilon=1,horizon=5,pan_private=maybe)'::dp_mechanism;
SELECT 'ppcum(epsilon=1,horizon=5,pan_private=true)'::dp_mechanism;

-- a month of events: true and private running counts for each mechanism
CREATE TABLE events AS SELECT d AS day, (d * 5) % 3 AS n FROM generate_series(1, 30) d;
SELECT day, n, sum(n) OVER w AS truth,
       dp_count(n, dp_simple_i(1, 30, 2)) OVER w AS simple_i,
       dp_count(n, dp_simple_ii(1, 2)) OVER w AS simple_ii,
       dp_count(n, dp_two_level(1, 30, 2)) OVER w AS two_level,
       dp_count(n, dp_hybrid(1, 2)) OVER w AS hybrid,
       dp_count(n, dp_ppcum(1, 30, 2)) OVER w AS ppcum,
       dp_count(n, dp_consistent(dp_binary(1, 30, 2))) OVER w AS binary_consistent
FROM events WINDOW w AS (ORDER BY day) ORDER BY day;

-- window, aggregate and two-step forms release the same value from the
-- same noise stream, for every mechanism and option
CREATE FUNCTION forms_agree(m dp_mechanism) RETURNS boolean LANGUAGE plpgsql AS $$
DECLARE
  by_window bigint; by_aggregate bigint; by_state bigint; by_push bigint;
BEGIN
  PERFORM set_config('dp_stream.seed', 'forms', false);
  SELECT c INTO by_window FROM (SELECT day, dp_count(n, m) OVER (ORDER BY day) AS c FROM events) x WHERE day = 30;
  PERFORM set_config('dp_stream.seed', 'forms', false);
  SELECT dp_count(n, m ORDER BY day) INTO by_aggregate FROM events;
  PERFORM set_config('dp_stream.seed', 'forms', false);
  SELECT dp_estimate(dp_count_state(n, m ORDER BY day)) INTO by_state FROM events;
  -- stored after 29 steps (sealed, through text) and continued with the last value
  PERFORM set_config('dp_stream.seed', 'forms', false);
  SELECT dp_estimate(dp_push(s::text::dp_counter, (SELECT n FROM events WHERE day = 30)))
    INTO by_push
    FROM (SELECT dp_count_state(n, m ORDER BY day) AS s FROM events WHERE day < 30) x;
  RETURN by_window = by_aggregate AND by_aggregate = by_state AND by_state = by_push;
END $$;
SELECT name, forms_agree(m) FROM (VALUES
  ('binary', dp_binary(1, 30, 2)), ('simple_i', dp_simple_i(1, 30, 2)),
  ('simple_ii', dp_simple_ii(1, 2)), ('two_level', dp_two_level(1, 30, 2, block => 4)),
  ('hybrid', dp_hybrid(1, 2)), ('ppcum', dp_ppcum(1, 30, 2)),
  ('binary pan-private', dp_pan_private(dp_binary(1, 30, 2))),
  ('two_level pan-private consistent', dp_consistent(dp_pan_private(dp_two_level(1, 30, 2, block => 4)))),
  ('hybrid pan-private', dp_pan_private(dp_hybrid(1, 2))),
  ('simple_ii consistent', dp_consistent(dp_simple_ii(1, 2))),
  ('kary', dp_kary(1, 30, 2, arity => 4)),
  ('kary pan-private consistent', dp_consistent(dp_pan_private(dp_kary(1, 30, 2, arity => 3)))),
  ('balanced', dp_balanced(1, 30, 2, arity => 5)),
  ('balanced consistent', dp_consistent(dp_balanced(1, 30, 2, arity => 3))),
  ('balanced_unbounded', dp_balanced_unbounded(1, 2, 3)),
  ('balanced_unbounded consistent', dp_consistent(dp_balanced_unbounded(1, 2))),
  ('honaker', dp_honaker(1, 30, 2, arity => 3)),
  ('honaker pan-private consistent', dp_consistent(dp_pan_private(dp_honaker(1, 30, 2, arity => 2))))) v(name, m);

-- the k-ary tree (0.8.0): the arity with the least mean variance by default,
-- its text form, its bounds against Binary's, and its refusals
SELECT dp_kary(1, 365, 1), dp_kary(1, 65536, 1), dp_kary(1, 1048576, 1), dp_kary(1, 1000, 1, arity => 10);
SELECT 'kary(epsilon=1,horizon=100,arity=5)'::dp_mechanism;
SELECT t, dp_error_bound(dp_binary(1, 65536, 1), t) AS binary, dp_error_bound(dp_kary(1, 65536, 1), t) AS kary
FROM (VALUES (1000), (30000), (65535)) v(t);
SELECT dp_kary(1, 100, 1, arity => 1);
SELECT dp_kary(1, 100, 1, arity => 65);
SELECT dp_kary(1, 4611686018427387904, 1, arity => 64);
SELECT 'kary(epsilon=1,horizon=100,block=5)'::dp_mechanism;
SELECT 'two_level(epsilon=1,horizon=100,arity=5)'::dp_mechanism;

-- balanced digits (0.8.0): odd arity, chosen for the horizon; over 400
-- independent streams the release at a step is the true running count on
-- average (the signed contents telescope to the prefix sum), within 5
-- standard errors
SELECT dp_balanced(1, 1024, 1), dp_balanced(1, 65536, 1), dp_balanced(1, 1048576, 1);
SELECT t, dp_error_bound(dp_binary(1, 65536, 1), t) AS binary, dp_error_bound(dp_kary(1, 65536, 1), t) AS kary,
       dp_error_bound(dp_balanced(1, 65536, 1), t) AS balanced
FROM (VALUES (1000), (30000), (65535)) v(t);
SELECT count(*) AS streams,
       abs(avg(c - truth)) < 5 * dp_error_sd(dp_balanced(1, 100, 2, arity => 7), 77) / sqrt(400) AS unbiased
FROM (SELECT t, sum(x) OVER w AS truth, dp_count(x, dp_balanced(1, 100, 2, arity => 7)) OVER w AS c
      FROM (SELECT k, t, (k + t) % 3 AS x FROM generate_series(1, 400) k, generate_series(1, 100) t) s
      WINDOW w AS (PARTITION BY k ORDER BY t)) q
WHERE t = 77;
-- the default: balanced digits for a horizon, and on growing blocks without one
SELECT dp_auto(1.0, 365, 1) AS with_horizon, dp_auto(0.5, NULL, 10) AS without_horizon;
SELECT dp_auto(0, 365, 1);
SELECT dp_auto(1.0, 0, 1);
SELECT dp_auto(NULL, 365, 1) IS NULL AS null_epsilon_gives_null;
SELECT dp_balanced(1, 100, 1, arity => 4);
SELECT dp_balanced(1, 100, 1, arity => 1);
SELECT dp_pan_private(dp_balanced(1, 100, 1));
SELECT dp_keyed(dp_balanced(1, 100, 1), 'k');

-- unbounded balanced digits (0.9.0): a tree per block of 4 * 21^b steps;
-- no horizon, the releases stay unbiased across block ends (4, 88, 1852),
-- and the error is within 1.4x of the best bounded tree's
SELECT dp_balanced_unbounded(1, 1), dp_balanced_unbounded(0.5, 10, 7), dp_auto(1.0, max_per_step => 1)::text = dp_balanced_unbounded(1, 1)::text AS is_default;
SELECT 'balanced_unbounded(epsilon=1,max_per_step=2)'::dp_mechanism,
       'balanced_unbounded(epsilon=1,arity=5)'::dp_mechanism;
SELECT t, round(dp_error_sd(dp_balanced_unbounded(1, 1), t)::numeric, 2) AS unbounded,
       round(dp_error_sd(dp_balanced(1, 1048576, 1), t)::numeric, 2) AS bounded,
       round(dp_error_sd(dp_hybrid(1, 1), t)::numeric, 2) AS hybrid,
       dp_error_bound(dp_balanced_unbounded(1, 1), t) AS unbounded_bound
FROM (VALUES (1), (4), (5), (88), (1852), (1853), (100000), (1000000)) v(t);
SELECT count(*) AS streams,
       abs(avg(c - truth)) < 5 * dp_error_sd(dp_balanced_unbounded(1, 2, 3), 77) / sqrt(400) AS unbiased
FROM (SELECT t, sum(x) OVER w AS truth, dp_count(x, dp_balanced_unbounded(1, 2, 3)) OVER w AS c
      FROM (SELECT k, t, (k + t) % 3 AS x FROM generate_series(1, 400) k, generate_series(1, 100) t) s
      WINDOW w AS (PARTITION BY k ORDER BY t)) q
WHERE t = 77;
SELECT dp_balanced_unbounded(1, 1, 4);
SELECT dp_balanced_unbounded(1, 1, 63);
SELECT dp_balanced_unbounded(0, 1);
SELECT dp_balanced_unbounded(1, 0);
SELECT dp_pan_private(dp_balanced_unbounded(1, 1));
SELECT 'balanced_unbounded(epsilon=1,horizon=100)'::dp_mechanism;
-- Honaker's estimator on a k-ary tree (0.9.0): arity 2 is Binary with the
-- estimator, about 0.58x Binary's variance; unbiased; integer releases
SELECT dp_honaker(1, 1024, 1), dp_honaker(1, 1024, 1, arity => 2), dp_pan_private(dp_honaker(1, 100, 1, arity => 3));
SELECT t, round(dp_error_sd(dp_honaker(1, 1024, 1, arity => 2), t)::numeric, 2) AS honaker,
       round(dp_error_sd(dp_binary(1, 1024, 1), t)::numeric, 2) AS binary,
       dp_error_bound(dp_honaker(1, 1024, 1, arity => 2), t) AS honaker_bound
FROM (VALUES (1), (511), (1000)) v(t);
SELECT count(*) AS streams,
       abs(avg(c - truth)) < 5 * dp_error_sd(dp_honaker(1, 100, 2, arity => 3), 77) / sqrt(400) AS unbiased,
       bool_and(c = round(c)) AS integers
FROM (SELECT t, sum(x) OVER w AS truth, dp_count(x, dp_honaker(1, 100, 2, arity => 3)) OVER w AS c
      FROM (SELECT k, t, (k + t) % 3 AS x FROM generate_series(1, 400) k, generate_series(1, 100) t) s
      WINDOW w AS (PARTITION BY k ORDER BY t)) q
WHERE t = 77;
SELECT dp_honaker(1, 100, 1, arity => 1);
SELECT dp_honaker(1, 4611686018427387904, 1, arity => 2);
SELECT dp_zcdp_mechanism_of('honaker', 0.5, 100, 1);

-- any mechanism by name (0.9.0)
SELECT dp_mechanism_of('binary', 1, 100, 1), dp_mechanism_of('kary', 1, 100, 2, parameter => 3),
       dp_mechanism_of('hybrid', 0.5, max_per_step => 1), dp_mechanism_of('two_level', 1, 100, 1);
SELECT dp_mechanism_of('binary', NULL, 100, 1) IS NULL AS null_epsilon_gives_null;
SELECT dp_mechanism_of('no_such', 1, 100, 1);
SELECT dp_mechanism_of('hybrid', 1, 100, 1);
SELECT dp_mechanism_of('binary', 1, 100, 1, parameter => 3);

-- consistent output never decreases and grows by at most max_per_step
SELECT count(*) FILTER (WHERE c < prev OR c > prev + 2) AS broken, count(*) AS releases
FROM (SELECT c, coalesce(lag(c) OVER (PARTITION BY k ORDER BY day), 0) AS prev
      FROM (SELECT k, day, dp_count(n, dp_consistent(dp_hybrid(0.5, 2))) OVER (PARTITION BY k ORDER BY day) AS c
            FROM events, generate_series(1, 50) k) x) y;

-- stored states are sealed: their text shows nothing but the sealed bytes,
-- and the options travel inside; 0.1.0 (v1) text still reads on the
-- superuser's upgrade path
SET dp_stream.seed = 'states';
SELECT left(s::text, 7) AS text_form, dp_steps(s), dp_mechanism(s)
FROM (SELECT dp_count_state(n, dp_consistent(dp_pan_private(dp_two_level(1, 30, 2, block => 4))) ORDER BY day) AS s
      FROM events) x;
SELECT left(s::text, 7) AS text_form, dp_steps(s), dp_mechanism(s)
FROM (SELECT dp_count_state(n, dp_ppcum(1, 30, 2) ORDER BY day) AS s FROM events) x;
SET dp_stream.read_unsealed = on;
SELECT dp_steps(s), dp_estimate(s), dp_mechanism(s), left(s::text, 7) AS now_sealed
FROM (SELECT 'v1 binary(epsilon=1,horizon=4,max_per_step=1) steps=3 nodes=[10,20,-5]'::dp_counter AS s) x;
SELECT dp_estimate(dp_push('v1 binary(epsilon=1,horizon=4,max_per_step=1) steps=3 nodes=[10,20,-5]'::dp_counter, 1)) IS NOT NULL AS v1_state_continues;
RESET dp_stream.read_unsealed;

-- error bounds from the mechanism alone (no noise drawn)
SELECT name, round(dp_error_bound(m, s)::numeric, 1) AS bound_95
FROM (VALUES ('simple_i T=1000 at 500', dp_simple_i(1, 1000, 1), 500),
             ('simple_ii at 100', dp_simple_ii(1, 1), 100),
             ('simple_ii at 1000000', dp_simple_ii(1, 1), 1000000),
             ('two_level T=10000 at 9999', dp_two_level(1, 10000, 1), 9999),
             ('binary T=10000 at 8191', dp_binary(1, 10000, 1), 8191),
             ('binary pan-private at 8191', dp_pan_private(dp_binary(1, 10000, 1)), 8191),
             ('hybrid at 8191 (closes block 12)', dp_hybrid(1, 1), 8191),
             ('hybrid at 8000', dp_hybrid(1, 1), 8000),
             ('hybrid at 10^12', dp_hybrid(1, 1), 1000000000000),
             ('ppcum T=10000 at 1', dp_ppcum(1, 10000, 1), 1)) v(name, m, s);

-- horizons: step T + 1 is refused by every bounded mechanism
SELECT dp_count(1, dp_simple_i(1, 3, 1)) FROM generate_series(1, 4);
SELECT dp_count(1, dp_two_level(1, 3, 1)) FROM generate_series(1, 4);
SELECT dp_count(1, dp_ppcum(1, 3, 1)) FROM generate_series(1, 4);
SELECT dp_error_bound(dp_ppcum(1, 3, 1), 4);
SELECT dp_error_bound(dp_hybrid(1, 1), -1);
SELECT dp_count(1, dp_hybrid(1, 1)) >= 0 AS hybrid_needs_no_horizon FROM generate_series(1, 5000);

-- the rolling window (0.17.0): no horizon, a width it needs, no consistent option
SELECT dp_rolling(1, 7, 1), dp_count(1, dp_rolling(1, 7, 1) ORDER BY generate_series) IS NOT NULL AS rolling_needs_no_horizon
FROM generate_series(1, 3) LIMIT 1;
SELECT dp_rolling(1, NULL, 1);
SELECT dp_rolling(1, 512, 1);
SELECT dp_consistent(dp_rolling(1, 7, 1));
