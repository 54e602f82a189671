-- the exponentially decayed sum (issue 30): the mechanism kind "decayed",
-- dp_decayed_count and dp_decayed_sum as window functions and ordered
-- aggregates, and their refusals with SQLSTATEs
SET client_min_messages = warning;  -- an earlier test may have left the extension
CREATE EXTENSION IF NOT EXISTS dp_stream;
RESET client_min_messages;
SET dp_stream.seed = 'decayed';
\set VERBOSITY sqlstate

-- the constructor: (epsilon, max_per_step, gamma => x); the text form round-trips
SELECT dp_decayed(1.0, 3, gamma => 0.9) AS k0, dp_decayed(0.5, gamma => 0.999) AS k7;
SELECT 'decayed(epsilon=1,gamma=0.5,max_per_step=2,pan_private=true)'::dp_mechanism;
SELECT dp_decayed(NULL, 3, gamma => 0.9) IS NULL AS null_epsilon;
SELECT kind, bounded, parameters, epsilon, rho, pan_private, consistent, keyed, person_level
FROM dp_mechanism_kinds() WHERE kind = 'decayed';

-- refusals: gamma missing or out of (0, 0.999999], NaN, epsilon, options
SELECT dp_decayed(1.0, 3);
SELECT dp_decayed(1.0, 3, gamma => 0);
SELECT dp_decayed(1.0, 3, gamma => 1);
SELECT dp_decayed(1.0, 3, gamma => 'NaN');
SELECT dp_decayed(1.0, 3, gamma => '-Infinity');
SELECT dp_decayed(0, 3, gamma => 0.9);
SELECT dp_consistent(dp_decayed(1.0, 3, gamma => 0.9));
SELECT 'decayed(epsilon=1,gamma=0.9,horizon=10)'::dp_mechanism;
SELECT 'decayed(epsilon=1,max_per_step=3)'::dp_mechanism;

-- window form: the release at every row, from an ordinary running mechanism
-- (epsilon and max_per_step carry over) or a dp_decayed one
SELECT t, x,
       round(dp_decayed_count(x, gamma => 0.9, mechanism => dp_hybrid(1.0, 3)) OVER w::numeric, 4) AS decayed_count,
       round(dp_decayed_sum(x, 0, 3, 0.9, dp_hybrid(1.0)) OVER w::numeric, 4) AS decayed_sum,
       round(dp_decayed_count(x, NULL, dp_decayed(1.0, 3, gamma => 0.999)) OVER w::numeric, 4) AS tree
FROM (SELECT t, (t * 7) % 4 AS x FROM generate_series(1, 10) t) s
WINDOW w AS (ORDER BY t) ORDER BY t;

-- ordered aggregate: one release after the last row
SELECT round(dp_decayed_count(x, 0.99, dp_hybrid(2.0, 6) ORDER BY t)::numeric, 3) AS ordered,
       round(sum(x * power(0.99, 300 - t))::numeric, 3) AS exact
FROM (SELECT t, (t * 5) % 7 AS x FROM generate_series(1, 300) t) s;

-- the error does not grow with t: over 20,000 steps (gamma 0.999, epsilon 1,
-- bound 1: K = 7, mean noise variance 2 * 470.4 = 940.8, sd 30.7), the root
-- mean square error of the first and the second half (test_decayed.c checks
-- the variance against its formula at every step)
WITH s AS (SELECT t, (t % 3 = 0)::int AS x FROM generate_series(1, 20000) t),
     r AS (SELECT t, x, dp_decayed_count(x, 0.999, dp_hybrid(1.0, 1)) OVER (ORDER BY t) AS release FROM s),
     exact AS (SELECT t, release, sum(x * power(0.999, 20000 - t)) OVER (ORDER BY t) * power(0.999, t - 20000) AS truth FROM r)
SELECT t > 10000 AS second_half, count(*) AS steps, round(sqrt(avg((release - truth) ^ 2))::numeric, 1) AS rms_error
FROM exact GROUP BY 1 ORDER BY 1;

-- a sum: values clamped into [lower, upper], NULL as 0 (clamped too)
SELECT t, v, round(dp_decayed_sum(v, -1, 1, 0.5, dp_hybrid(50.0)) OVER (ORDER BY t)::numeric, 2) AS s
FROM (VALUES (1, 0.5::float8), (2, NULL), (3, 7), (4, -7), (5, 'NaN')) AS d(t, v) ORDER BY t;

-- person level carries over
SELECT round(dp_decayed_count(1, 0.9, dp_person_level(dp_hybrid(1.0, 3), 2)) OVER (ORDER BY t)::numeric, 3) AS person
FROM generate_series(1, 3) t;

-- stored state: dp_decayed_count_state (plain aggregate only), continued with
-- dp_push, read with dp_decayed_estimate; dp_error_bound in the values' units
CREATE TEMP TABLE decayed_states AS
SELECT dp_decayed_count_state(x, 0.999, dp_hybrid(1.0, 3) ORDER BY t) AS s
FROM (SELECT t, (t * 7) % 4 AS x FROM generate_series(1, 200) t) d;
SELECT dp_steps(s) AS steps, dp_mechanism(s) AS mechanism,
       round(dp_decayed_estimate(s)::numeric, 3) AS estimate,
       round(dp_error_bound(s, 0.95)::numeric, 3) AS bound_95
FROM decayed_states;
SELECT dp_steps(dp_push(s, 2)) AS steps, round(dp_decayed_estimate(dp_push(s, 2))::numeric, 3) AS pushed
FROM decayed_states;
SELECT dp_estimate(s) FROM decayed_states;
SELECT dp_decayed_estimate(dp_counter_new(dp_hybrid(1.0, 3)));
SELECT dp_decayed_count_state(1, 0.9, dp_hybrid(1.0, 3)) OVER (ORDER BY t) FROM generate_series(1, 2) t;
-- a plain or state call needs an ORDER BY of its own (42P20): a decayed
-- release weighs each step by its distance from the last, and without one
-- the last rows are whatever rows the plan reads last (review2)
SELECT dp_decayed_count(1, 0.9, dp_hybrid(1.0, 3)) FROM generate_series(1, 2) t;
SELECT dp_decayed_sum(1, 0, 3, 0.9, dp_hybrid(1.0)) FROM generate_series(1, 2) t;
SELECT dp_decayed_count_state(1, 0.9, dp_hybrid(1.0, 3) ORDER BY 'constant') FROM generate_series(1, 2) t;
SELECT dp_decayed_count(1, 0.9, dp_hybrid(1.0, 3) ORDER BY t) IS NOT NULL FROM generate_series(1, 2) t;
-- the bound is the mechanism's, from its noise description (planning too)
SELECT round(dp_error_bound(dp_decayed(1.0, 3, gamma => 0.999), 200, 0.95)::numeric, 3) AS planned_bound_95;

-- refusals of the aggregates
SELECT dp_decayed_count(1, NULL, dp_hybrid(1.0, 3)) OVER (ORDER BY t) FROM generate_series(1, 2) t;
SELECT dp_decayed_count(1, 0.8, dp_decayed(1.0, 3, gamma => 0.9)) OVER (ORDER BY t) FROM generate_series(1, 2) t;
SELECT dp_decayed_count(1, 1.5, dp_hybrid(1.0, 3)) OVER (ORDER BY t) FROM generate_series(1, 2) t;
SELECT dp_decayed_count(1, 0.9, dp_hybrid(1.0)) OVER (ORDER BY t) FROM generate_series(1, 2) t;
SELECT dp_decayed_count(1, 0.9, dp_consistent(dp_hybrid(1.0, 3))) OVER (ORDER BY t) FROM generate_series(1, 2) t;
SELECT dp_decayed_count(1, 0.9, dp_gaussian_binary(0.5, 10, 3)) OVER (ORDER BY t) FROM generate_series(1, 2) t;
SELECT dp_decayed_count(1, 0.9, NULL) OVER (ORDER BY t) FROM generate_series(1, 2) t;
SELECT dp_decayed_sum(1, 3, 0, 0.9, dp_hybrid(1.0)) OVER (ORDER BY t) FROM generate_series(1, 2) t;
SELECT dp_decayed_sum(1, 0, 'Infinity', 0.9, dp_hybrid(1.0)) OVER (ORDER BY t) FROM generate_series(1, 2) t;
SELECT dp_decayed_sum(1, NULL, 1, 0.9, dp_hybrid(1.0)) OVER (ORDER BY t) FROM generate_series(1, 2) t;
SELECT dp_decayed_sum(1, 0, 1e-300, 0.9, dp_hybrid(1.0)) OVER (ORDER BY t) FROM generate_series(1, 2) t;
-- a keyed sum is refused (0A000) before its key is looked up: the key's
-- "count" computation does not bind the bounds, so the same data under
-- bounds of the same width would share the opening noise (review1)
SELECT dp_decayed_sum(1, 0, 10, NULL, dp_keyed(dp_decayed(1.0, 687194767360, gamma => 0.9), 'no_such_key')) OVER (ORDER BY t) FROM generate_series(1, 2) t;
SELECT dp_decayed_sum(1, 0, 10, 0.9, dp_keyed(dp_hybrid(1.0), 'no_such_key')) FROM generate_series(1, 2) t;
-- a managed stream refuses a decayed mechanism (0A000): advance could
-- never release it, yet the stream was registered and charged (review1)
BEGIN;
SELECT dp_stream.create_budget('decayed_review', 10);
SELECT dp_stream.create_stream('decayed_stream', 'count', dp_decayed(1.0, 5, gamma => 0.9), dataset => 'decayed_review');
ROLLBACK;
-- and so does a publication (0A000), for the same reason
BEGIN;
SELECT dp_stream.create_budget('decayed_review', 10);
SELECT dp_stream.create_publication('decayed_pub', 'count', dp_decayed(1.0, 5, gamma => 0.9), dataset => 'decayed_review');
ROLLBACK;
SELECT dp_decayed_count(1, t / 10.0, dp_hybrid(1.0, 3)) OVER (ORDER BY t) FROM generate_series(1, 2) t;
SELECT dp_decayed_count(1, 0.9, dp_hybrid(1.0, 3)) OVER (ORDER BY t ROWS BETWEEN 2 PRECEDING AND CURRENT ROW) FROM generate_series(1, 3) t;
SELECT dp_decayed_count(1, 0.9, dp_hybrid(1.0, 3)) OVER () FROM generate_series(1, 3) t;
-- a decayed mechanism in the running aggregates and statistics is refused:
-- its release is in fixed point
SELECT dp_count(1, dp_decayed(1.0, 3, gamma => 0.9)) OVER (ORDER BY t) FROM generate_series(1, 2) t;
SELECT dp_sum(1, 0, 3, dp_decayed(1.0, gamma => 0.9)) OVER (ORDER BY t) FROM generate_series(1, 2) t;
