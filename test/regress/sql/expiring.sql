-- privacy expiration (0.10.0): an item d steps old loses epsilon g(d);
-- the window baseline; the guaranteed loss curve
CREATE EXTENSION IF NOT EXISTS dp_stream;
SET dp_stream.seed = 'expiring';
-- the calls below are written in 0.14.0's order; its warning about calls
-- that meant another mechanism before is tested in argument_order.sql
SET dp_stream.argument_order_warning = off;
SELECT dp_expiring(1, 1, lambda => 2) AS expiring, dp_expiring(0.5, 2, lambda => 1.5, delay => 3) AS with_delay,
       dp_expiring_baseline(1, 100000, 1, epsilon_past => 0.25, window_size => 127) AS baseline;
SELECT 'expiring(epsilon=1,lambda=3,delay=2,pan_private=true)'::dp_mechanism,
       'expiring_baseline(epsilon=2,horizon=10,window=3,past_ratio=0.5)'::dp_mechanism;
-- the binary protocol carries lambda (send/recv through a binary COPY)
CREATE TABLE kept_mechanisms (m dp_mechanism);
INSERT INTO kept_mechanisms VALUES (dp_expiring(0.7, 1, lambda => 2.5, delay => 4)), (dp_binary(1, 10, 1)),
  (dp_expiring_baseline(1, 1000, 1, epsilon_past => 0.1, window_size => 31));
COPY kept_mechanisms TO '/tmp/dp_stream_expiring.bin' WITH (FORMAT binary);
CREATE TABLE read_mechanisms (m dp_mechanism);
COPY read_mechanisms FROM '/tmp/dp_stream_expiring.bin' WITH (FORMAT binary);
SELECT m FROM read_mechanisms;
SELECT (SELECT array_agg(m::text) FROM kept_mechanisms) = (SELECT array_agg(m::text) FROM read_mechanisms) AS same;

-- the guaranteed loss: epsilon at age 0; then epsilon (l + 1)^(lambda - 1)
-- more for each level l with 2^l <= age - delay + 1
SELECT age, loss FROM dp_privacy_loss_curve(dp_expiring(1, 1, lambda => 2), 8);
SELECT dp_privacy_loss(dp_expiring(1, 1, lambda => 2, delay => 5), 5) AS delay_5_at_5, dp_privacy_loss(dp_expiring(1, 1, lambda => 2, delay => 5), 6) AS at_6,
       dp_privacy_loss(dp_expiring(1, 1, lambda => 1), 1023) AS lambda_1_at_1023,
       round(dp_privacy_loss(dp_expiring(1, 1, lambda => 0.5), 1000000)::numeric, 4) AS lambda_half_at_1e6;
-- the baseline: epsilon_current inside the window, + epsilon_past after it
SELECT dp_privacy_loss(m, 126) AS at_126, dp_privacy_loss(m, 127) AS at_127, dp_epsilon(m) AS total
FROM (SELECT dp_expiring_baseline(1, 100000, 1, epsilon_past => 0.25, window_size => 127) AS m) x;
-- a ledger charges the loss at any age: all 62 levels (1 + 2 + ... + 62)
SELECT dp_epsilon(dp_expiring(1, 1, lambda => 2)) AS ledger_charge, dp_privacy_loss(dp_binary(0.5, 10, 1), 9) AS binary_any_age;
SELECT dp_privacy_loss(dp_expiring(1, 1, lambda => 2), -1);
SELECT dp_privacy_loss(dp_blt(0.5, 100, 1), 3);

-- every form from SQL: window, aggregate, state, stored and continued
CREATE TABLE expiring_events AS SELECT day, (day * 7) % 3 AS n FROM generate_series(1, 30) day;
CREATE FUNCTION expiring_forms_agree(m dp_mechanism) RETURNS boolean LANGUAGE plpgsql AS $$
DECLARE
  by_window bigint; by_aggregate bigint; by_state bigint; by_push bigint;
BEGIN
  PERFORM set_config('dp_stream.seed', 'forms', false);
  SELECT c INTO by_window FROM (SELECT day, dp_count(n, m) OVER (ORDER BY day) AS c FROM expiring_events) x WHERE day = 30;
  PERFORM set_config('dp_stream.seed', 'forms', false);
  SELECT dp_count(n, m ORDER BY day) INTO by_aggregate FROM expiring_events;
  PERFORM set_config('dp_stream.seed', 'forms', false);
  SELECT dp_estimate(dp_count_state(n, m ORDER BY day)) INTO by_state FROM expiring_events;
  PERFORM set_config('dp_stream.seed', 'forms', false);
  SELECT dp_estimate(dp_push(s::text::dp_counter, (SELECT n FROM expiring_events WHERE day = 30)))
    INTO by_push
    FROM (SELECT dp_count_state(n, m ORDER BY day) AS s FROM expiring_events WHERE day < 30) x;
  RETURN by_window = by_aggregate AND by_aggregate = by_state AND by_state = by_push;
END $$;
SELECT name, expiring_forms_agree(m) FROM (VALUES
  ('expiring', dp_expiring(1, 2, lambda => 2, delay => 0)),
  ('expiring delay', dp_expiring(1, 2, lambda => 1, delay => 4)),
  ('expiring pan-private consistent', dp_consistent(dp_pan_private(dp_expiring(1, 2, lambda => 3, delay => 1)))),
  ('expiring person level', dp_person_level(dp_expiring(1, 2, lambda => 2, delay => 0), 3)),
  ('baseline', dp_expiring_baseline(1, 30, 2, epsilon_past => 0.1, window_size => 7)),
  ('baseline pan-private', dp_pan_private(dp_expiring_baseline(1, 30, 2, epsilon_past => 0.5, window_size => 3)))) v(name, m);

-- statistics over an expiring mechanism
-- (one statement each: under a seed, several ordered aggregates of one
-- statement take their noise in the order the executor runs them, which
-- PostgreSQL 17 changed)
SELECT round(dp_sum(n::float8, 0, 2, dp_expiring(1, 1, lambda => 2) ORDER BY day)::numeric, 3) AS sum
FROM expiring_events;
SELECT round(dp_avg(n::float8, 0, 2, dp_expiring(1, 1, lambda => 2) ORDER BY day)::numeric, 3) AS avg
FROM expiring_events;
SELECT round(dp_variance(n::float8, 0, 2, dp_expiring(1, 1, lambda => 2) ORDER BY day)::numeric, 3) AS variance
FROM expiring_events;

-- the error: its standard deviation is the cover's, and the releases are
-- unbiased over 400 seeded streams (5 standard errors)
SELECT t, round(dp_error_sd(dp_expiring(1, 1, lambda => 2), t)::numeric, 4) AS sd,
       round(dp_error_bound(dp_expiring(1, 1, lambda => 1), t, 0.95)::numeric, 4) AS lambda_1_bound_95
FROM (VALUES (1), (2), (3), (100), (1000000)) v(t);
SELECT count(*) AS streams,
       abs(avg(c - truth)) < 5 * dp_error_sd(dp_expiring(1, 2, lambda => 2, delay => 0), 77) / sqrt(400) AS unbiased,
       abs(stddev_samp(c - truth) / dp_error_sd(dp_expiring(1, 2, lambda => 2, delay => 0), 77) - 1) < 0.25 AS sd_matches
FROM (SELECT t, sum(x) OVER w AS truth, dp_count(x, dp_expiring(1, 2, lambda => 2, delay => 0)) OVER w AS c
      FROM (SELECT k, t, (k + t) % 3 AS x FROM generate_series(1, 400) k, generate_series(1, 100) t) s
      WINDOW w AS (PARTITION BY k ORDER BY t)) q
WHERE t = 77;
-- the running maximum of the error bound is the largest bound so far
-- (levels that share a scale are one kind of term, not several)
SELECT label, round(dp_error_bound_max(m::text::dp_mechanism, 2000)::numeric, 6) = round(max(dp_error_bound(m, t))::numeric, 6) AS running_max_exact
FROM (VALUES ('lambda 1', dp_expiring(1, 1, lambda => 1)), ('lambda 2', dp_expiring(1, 1, lambda => 2, delay => 3)),
             ('lambda 3, capped levels', dp_expiring(60, 1000, lambda => 3, delay => 0)),
             ('baseline', dp_expiring_baseline(1, 2000, 1, epsilon_past => 0.5, window_size => 31))) v(label, m),
     generate_series(1, 2000) t
GROUP BY label, m::text ORDER BY label;
-- with the same epsilon for a new item, lambda = 2's error stays flat while
-- Binary's grows with log T (its items never lose more than epsilon; an
-- item of lambda = 2 loses 153 epsilon after 2^16 steps); the baseline with
-- epsilon_past = 0.1 pays for its small old-item budget with noise
SELECT round(dp_error_sd(dp_expiring(1, 1, lambda => 2), 65536)::numeric, 2) AS expiring_lambda_2,
       round(dp_error_sd(dp_expiring_baseline(1, 65536, 1, epsilon_past => 0.1, window_size => 127), 65536)::numeric, 2) AS baseline,
       round(dp_error_sd(dp_binary(1, 65536, 1), 65536)::numeric, 2) AS binary_at_2_16;

-- review findings: the baseline's tree has at most 62 levels (a horizon of
-- 2^62 is refused, 2^62 - 1 works in every form); a release of many steps
-- of delay and capped levels has a finite bound; the curve counts a capped
-- level at its nominal budget, which also bounds a statistic's counters
SELECT dp_count_state(1, dp_expiring_baseline(1, 4611686018427387903, 1, epsilon_past => 0.5, window_size => 127)) IS NOT NULL AS largest_horizon_state
FROM generate_series(1, 3);
SELECT round(dp_error_bound(dp_expiring(1, 1, lambda => 16, delay => 200), 1000, 0.95)::numeric, 2) AS bound,
       round(dp_error_sd(dp_expiring(1, 1, lambda => 16, delay => 200), 1000)::numeric, 2) AS sd,
       dp_epsilon_for(dp_expiring(1, 1, lambda => 16, delay => 200), 60, 1000) < 1 AS epsilon_for_found;
SELECT dp_privacy_loss(dp_expiring(1, 1, lambda => 3), 1048576) AS nominal_at_2_20,
       dp_privacy_loss(dp_expiring(1, 1, lambda => 3), 1048576) >= 2 * dp_privacy_loss(dp_expiring(0.5, 1, lambda => 3), 1048576) AS bounds_two_counters;
\set VERBOSITY terse
SELECT dp_expiring_baseline(1, 4611686018427387904, 1, epsilon_past => 0.5, window_size => 127);
SELECT dp_error_bound_max(dp_expiring(1, 1, lambda => 2), 1000000);
SELECT dp_expiring(150, 1, lambda => 2);
SELECT dp_expiring(1, 1, lambda => 16.000000000000004);
\set VERBOSITY default

-- refusals, with SQLSTATEs
\set VERBOSITY sqlstate
SELECT dp_expiring(1, 1, lambda => 0);
SELECT dp_expiring(1, 1, lambda => 'nan');
SELECT dp_expiring(1, 1, lambda => 2, delay => -1);
SELECT dp_expiring(1, 1, lambda => 2, delay => 257);
SELECT dp_expiring(1e-12, 1, lambda => 0.01);
SELECT dp_expiring(0, 1, lambda => 2);
SELECT dp_expiring_baseline(1, 1000, 1, epsilon_past => 0, window_size => 127);
SELECT dp_expiring_baseline(1, 1000, 1, epsilon_past => 1000, window_size => 127);
SELECT dp_expiring_baseline(1, 1000, 1, epsilon_past => 0.1, window_size => 0);
SELECT dp_expiring_baseline(1, 0, 1, epsilon_past => 0.1, window_size => 127);
SELECT 'expiring(epsilon=1)'::dp_mechanism;
SELECT 'expiring(epsilon=1,lambda=2,arity=3)'::dp_mechanism;
SELECT 'binary(epsilon=1,horizon=3,lambda=2)'::dp_mechanism;
SELECT dp_zcdp_mechanism_of('expiring', 1, max_per_step => 1);
SELECT dp_count_state(n, dp_expiring(1, 1, lambda => 2)) OVER (ORDER BY day) FROM expiring_events;
\set VERBOSITY default
SELECT dp_expiring(1, 1, lambda => 17);
SELECT dp_expiring_baseline(1, 10, 1, epsilon_past => 0.1, window_size => 127) IS NOT NULL AS window_beyond_horizon_is_one_tree;
DROP TABLE kept_mechanisms, read_mechanisms, expiring_events;
DROP FUNCTION expiring_forms_agree(dp_mechanism);
