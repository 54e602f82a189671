-- One argument order (0.14.0, issue 25): every constructor takes
-- (epsilon or rho, horizon, max_per_step, then its own parameters by name),
-- or (epsilon, max_per_step, ...) without a horizon.  max_per_step defaults
-- to NULL, "not stated": a count refuses it, a statistic needs none.
CREATE EXTENSION IF NOT EXISTS dp_stream;
SET dp_stream.seed = 'argument order';

-- 1. The declared order of every constructor
SELECT p.proname, pg_get_function_arguments(p.oid) AS arguments
FROM pg_proc p JOIN pg_depend d ON d.objid = p.oid AND d.classid = 'pg_proc'::regclass
JOIN pg_extension e ON e.oid = d.refobjid AND e.extname = 'dp_stream'
WHERE p.proname IN ('dp_binary', 'dp_simple_i', 'dp_simple_ii', 'dp_hybrid', 'dp_ppcum', 'dp_kary',
                    'dp_balanced', 'dp_honaker', 'dp_two_level', 'dp_balanced_unbounded', 'dp_auto',
                    'dp_expiring', 'dp_expiring_baseline', 'dp_blt', 'dp_gaussian_binary',
                    'dp_smooth_binary', 'dp_mechanism_of', 'dp_zcdp_mechanism_of')
ORDER BY 1;

-- and what each builds from positional arguments in that order (the
-- warning of part 4 is off here: these calls are the new order on purpose)
SET dp_stream.argument_order_warning = off;
SELECT m FROM (VALUES
  (dp_binary(1.0, 365, 50)), (dp_simple_i(1.0, 365, 50)), (dp_ppcum(1.0, 365, 50)),
  (dp_kary(1.0, 365, 50, 4)), (dp_balanced(1.0, 365, 50, 5)), (dp_honaker(1.0, 365, 50, 4)),
  (dp_two_level(1.0, 365, 50, 20)), (dp_hybrid(1.0, 50)), (dp_simple_ii(1.0, 50)),
  (dp_balanced_unbounded(1.0, 50, 5)), (dp_auto(1.0, 365, 50)), (dp_auto(1.0, NULL, 50)),
  (dp_expiring(1.0, 50, 2, 3)), (dp_expiring_baseline(1.0, 365, 50, 0.5, 30)),
  (dp_blt(0.5, 365, 50)), (dp_gaussian_binary(0.5, 365, 50)), (dp_smooth_binary(0.5, 365, 50)),
  (dp_mechanism_of('kary', 1.0, 365, 50, 4)), (dp_zcdp_mechanism_of('kary', 0.5, 365, 50, 4))) AS v (m);
RESET dp_stream.argument_order_warning;

-- the kind's own parameters by name, max_per_step left out: not stated
-- (dp_kary and dp_two_level warn as in part 4: before 0.14.0 the same
-- values in these positions, dp_kary(1.0, 365, NULL, 4), meant max_per_step 4)
SELECT dp_kary(1.0, 365, arity => 4) AS kary, dp_two_level(1.0, 365, block => 20) AS two_level,
       dp_expiring(1.0, lambda => 1.5) AS expiring;
-- lambda, epsilon_past and window_size have no default
SELECT dp_expiring(1.0, 50);
SELECT dp_expiring_baseline(1.0, 365, 50, epsilon_past => 0.5);
-- a bound of 0 is not "not stated"
SELECT dp_binary(1.0, 365, 0);

-- 2. A count needs a stated bound: refused from the mechanism alone
-- (22023), whatever the values
CREATE TABLE daily (day int, n int);
INSERT INTO daily SELECT d, 60 + (d * 37) % 25 FROM generate_series(1, 365) d;
SELECT dp_count(n, dp_binary(1.0, 365)) OVER (ORDER BY day) FROM daily;
SELECT dp_count_state(n, dp_auto(1.0, 365) ORDER BY day) FROM daily;
SELECT dp_counter_new(dp_hybrid(1.0));
DO $$
BEGIN
  PERFORM dp_count(1, dp_kary(1.0, 10));
EXCEPTION WHEN invalid_parameter_value THEN
  RAISE NOTICE 'refused with SQLSTATE %', SQLSTATE;
END $$;
-- and at registration, before anything is registered or charged
SELECT dp_stream.create_budget('argument_order', 10);
SELECT dp_stream.create_key('argument_order_key', dp_binary(1.0, 365), 'argument_order');
SELECT dp_stream.create_stream('argument_order_stream', 'count', dp_hybrid(1.0), dataset => 'argument_order');
SELECT dp_stream.create_publication('argument_order_pub', 'count', dp_binary(1.0, 365), dataset => 'argument_order');
SELECT count(*) AS charges FROM dp_stream.charges WHERE dataset = 'argument_order';
-- dp_person_level, dp_pan_private, dp_consistent and dp_keyed keep the bound
-- stated or not, and a count still refuses the unstated one
SELECT dp_person_level(dp_binary(1.0, 365), 3) AS person_level,
       dp_consistent(dp_binary(1.0, 365, 50)) AS consistent,
       dp_pan_private(dp_hybrid(1.0)) AS pan_private;
SELECT dp_count(n, dp_person_level(dp_binary(1.0, 365), 3)) OVER (ORDER BY day) FROM daily;

-- 3. Sums, averages, variances and summaries take their bound from lower
-- and upper: no max_per_step needed, and a stated 1 (every mechanism of
-- 0.13.0 had one) means the same, noise included
SET dp_stream.seed = 'argument order: statistic';
SELECT dp_avg(n, 0, 100, dp_hybrid(1.0)) AS unstated FROM daily;
SET dp_stream.seed = 'argument order: statistic';
SELECT dp_avg(n, 0, 100, dp_hybrid(1.0, 1)) AS stated_one FROM daily;
SELECT dp_mechanism(dp_sum_state(n, 0, 100, dp_hybrid(1.0, 1))) AS a_statistic_states_none FROM daily;
SELECT dp_sum(n, 0, 100, dp_hybrid(1.0, 5)) FROM daily;
-- planning answers per unit of the bound when none is stated
SELECT dp_error_bound(dp_binary(1.0, 365), 365) = dp_error_bound(dp_binary(1.0, 365, 1), 365) AS per_unit,
       dp_error_sd(dp_binary(1.0, 365, 50), 365) / dp_error_sd(dp_binary(1.0, 365), 365) AS sd_ratio_at_50;
SELECT count(*) AS mechanisms_compared, bool_and(mechanism::text NOT LIKE '%max_per_step%') AS none_states_a_bound
FROM dp_compare_mechanisms(1.0, 365, 365);

-- 4. Constructors whose positions moved warn (01P01) when the arguments,
-- read in the order before 0.14.0, built another valid mechanism; named
-- arguments cannot be told from positional ones, so they warn too
SELECT dp_kary(1.0, 365, 50, arity => 4);
SELECT dp_expiring(1.0, 2, 3);
SELECT dp_expiring_baseline(1, 10, 7, 20, 3);
-- no warning where the old reading was invalid (arity 1) or the same
SELECT dp_kary(1.0, 365, 1) AS old_arity_1_was_invalid, dp_kary(1.0, 365, 4, 4) AS same_either_way;
-- the extension's own wrappers do not warn
SELECT dp_auto(1.0, 365, 50) AS auto, dp_balanced_unbounded(1.0, 50, 5) AS unbounded;
-- any role may silence it, for a session or a function
SET dp_stream.argument_order_warning = off;
SELECT dp_kary(1.0, 365, 50, arity => 4) AS silenced;
RESET dp_stream.argument_order_warning;
SHOW dp_stream.argument_order_warning;

-- 5. Stored values keep their meaning: text written by 0.13.0 and before
-- always names max_per_step, and reads as it did
SELECT 'binary(epsilon=1,horizon=365,max_per_step=1)'::dp_mechanism AS old_text,
       'kary(epsilon=1,horizon=365,arity=50,max_per_step=1)'::dp_mechanism::text
         = dp_kary(1.0, 365, 1, arity => 50)::text AS same_mechanism;
SELECT dp_steps(dp_count_state(n, 'binary(epsilon=1,horizon=365,max_per_step=1)'::dp_mechanism ORDER BY day)) FROM daily;
-- text that leaves max_per_step out states none (it read as 1 before)
SELECT 'binary(epsilon=1,horizon=365)'::dp_mechanism AS not_stated;
SELECT 'binary(epsilon=1,horizon=365,max_per_step=0)'::dp_mechanism;

-- 6. The issue's three silent cases, now loud or meaning what they say
-- (a) a count over daily totals of 60 to 84 with the old default of 1
--     released about 377 where the truth is 26,280: now refused
SELECT dp_count(n, dp_binary(1.0, 365)) OVER (ORDER BY day) FROM daily;
-- stated, the release is near the truth: within the 95% bound at the end
SELECT max(truth) AS truth, bool_and(abs(released - truth) <= dp_error_bound(dp_binary(1.0, 365, 100), 365))
       AS last_within_bound
FROM (SELECT day, sum(n) OVER w AS truth, dp_count(n, dp_binary(1.0, 365, 100)) OVER w AS released
      FROM daily WINDOW w AS (ORDER BY day)) x WHERE day = 365;
-- (b) dp_kary(1.0, 365, 50) built an arity-50 tree that clamped every day
--     to 1; it now builds max_per_step 50, with a warning that says so
SELECT dp_kary(1.0, 365, 50);
-- (c) dp_auto(1, 365, max_per_step => 3), meant as "3 events per person
--     and day", is a legitimate call: it states that one day's total is
--     at most 3, and a count clamps every day there (the issue released
--     1,040 against 10,221).  No check can see that without reading the
--     data.  A bound per person is what dp_person_level states
--     (contributions for the whole stream, docs/privacy_unit.md), with
--     max_per_step still the bound on a day's total.
SELECT dp_auto(1, 365, max_per_step => 3) AS says_a_day_totals_at_most_3,
       dp_person_level(dp_auto(1, 365, max_per_step => 100), 3) AS says_a_person_adds_at_most_3;

-- the registration functions' check itself: a count's mechanism with a
-- bound passes, one without is refused, NULL in, nothing raised
SELECT pg_typeof(dp_stream.check_count_mechanism(dp_binary(1.0, 365, 5))) AS bound_stated_returns;
SELECT pg_typeof(dp_stream.check_count_mechanism(dp_binary(1.0, 365))) AS no_bound_returns;
SELECT pg_typeof(dp_stream.check_count_mechanism(NULL)) AS null_returns;

DROP TABLE daily;
-- the next test (binary_mechanism) creates the extension itself
DROP EXTENSION dp_stream;
