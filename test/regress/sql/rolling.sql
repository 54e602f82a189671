-- Rolling windows (issue 30; 0.17.0, docs/rolling.md): the rolling kind's
-- constructor and its refusals, dp_rolling_of, the rolling forms of every
-- aggregate (window, ordered aggregate, _state and the stored state), the
-- mechanism in the running forms, the moving frame's hint, keyed noise,
-- a managed stream and a partitioned publication with a rolling mechanism.
-- Runs in a database of its own: its budgets, keys, stream and publication
-- stay out of the catalogs later tests list.
\set regress_database :DBNAME
CREATE DATABASE dp_rolling;
\c dp_rolling
SET client_min_messages = warning;
CREATE EXTENSION dp_stream;
RESET client_min_messages;
SET extra_float_digits = 0;
SET dp_stream.seed = 'rolling';
\set SHOW_CONTEXT never

-- ===== the constructor =====
SELECT dp_rolling(1.0, 7, 50), dp_rolling(0.5, width => 28), dp_rolling(1, 511, 1);
SELECT dp_rolling(1.0, 7, 50)::text::dp_mechanism::text = dp_rolling(1.0, 7, 50)::text AS text_round_trips;
SELECT dp_pan_private(dp_rolling(1, 7, 1)), dp_person_level(dp_rolling(1, 7, 1), 3);
SELECT dp_zcdp_mechanism_of('rolling', 0.5, NULL, 1, parameter => 7);
-- the error depends on the width only: the same bound after 7, 1000 and 10^9 steps
SELECT dp_error_bound(dp_rolling(1, 7, 1), 7) AS at_7,
       dp_error_bound(dp_rolling(1, 7, 1), 1000) AS at_1000,
       dp_error_bound(dp_rolling(1, 7, 1), 1000000000) AS at_10_9,
       dp_error_bound(dp_rolling(1, 7, 1), 3) AS at_3;
SELECT dp_error_bound_max(dp_rolling(1, 7, 1), 100000) = dp_error_bound_max(dp_rolling(1, 7, 1), 100)
         AS max_flat_in_t;
SELECT kind, constructor, bounded, epsilon, rho, options, parameters, parameter_ranges, auto_rank
FROM dp_mechanisms() WHERE kind = 'rolling';
-- refusals
\set VERBOSITY default
SELECT dp_rolling(1, NULL, 1);
SELECT dp_rolling(1, 0, 1);
SELECT dp_rolling(1, 512, 1);
SELECT dp_rolling(0, 7, 1);
SELECT dp_rolling(1, 7, 0);
SELECT dp_consistent(dp_rolling(1, 7, 1));
SELECT 'rolling(epsilon=1,width=7,horizon=100)'::dp_mechanism;
SELECT 'rolling(epsilon=1,width=900)'::dp_mechanism;
SELECT dp_mechanism_of('rolling', 1, NULL, 1);
SELECT 'rolling(epsilon=1,max_per_step=1)'::dp_mechanism;
SELECT dp_rolling(NULL, 7, 1) IS NULL AS null_epsilon_gives_null;
-- levels: 1 .. floor(log2 W) + 1, whole numbers; refused out of range (22023)
SELECT dp_rolling(1, 7, 1, levels => 4);
SELECT dp_rolling(1, 7, 1, levels => 0);
SELECT 'rolling(epsilon=1,width=7,levels=2.5)'::dp_mechanism;
SELECT 'rolling(epsilon=1,width=7,levels=4)'::dp_mechanism;

-- ===== levels: the default is the count of least mean variance =====
-- a chosen count is kept, in the text form and through dp_rolling_of's
-- options; the text form without levels reads as the default
SELECT dp_rolling(1, 7, 1, levels => 3), dp_rolling(1, 28, 1, levels => 2),
       'rolling(epsilon=1,width=365,max_per_step=1)'::dp_mechanism AS default_from_text,
       dp_pan_private(dp_rolling(1, 7, 1, levels => 3)) AS option_keeps_levels;
-- each levels value at W = 7, 28, 365 against the default (chosen by exact
-- mean variance): the 95% half-width of dp_error_bound, from the same noise
-- description, averaged over 256 steps once the window is full, is least at
-- the default, for epsilon (one level at every width the kind accepts) and
-- for rho, where a deeper tree wins (its L2 sensitivity grows as sqrt(levels))
WITH widths (w) AS (VALUES (7), (28), (365)),
     forms (budget, m) AS (VALUES ('epsilon', 'epsilon'), ('rho', 'rho')),
     candidates AS (
       SELECT f.budget, w.w, k,
              (SELECT avg(dp_error_bound(CASE f.budget WHEN 'epsilon' THEN dp_rolling(1, w.w, 1, levels => k)
                                                       ELSE format('rolling(rho=0.5,width=%s,levels=%s,max_per_step=1)', w.w, k)::dp_mechanism END,
                                         t, 0.95))
               FROM generate_series(w.w, w.w + 255) t) AS mean_bound
       FROM widths w, forms f, generate_series(1, 9) k
       WHERE k <= floor(log(2, w.w)) + 1)
SELECT budget, w,
       (SELECT k FROM candidates c2 WHERE c2.budget = c.budget AND c2.w = c.w ORDER BY mean_bound, k LIMIT 1) AS least_bound,
       substring(CASE budget WHEN 'epsilon' THEN dp_rolling(1, w, 1)::text
                 ELSE dp_rolling_of(dp_zcdp_mechanism_of('binary', 0.5, 100, 1), w)::text END
                 FROM 'levels=([0-9]+)')::int AS default_levels,
       string_agg(k || ':' || round(mean_bound::numeric, 1), ' ' ORDER BY k) AS mean_bound_by_levels
FROM candidates c
GROUP BY budget, w
ORDER BY budget, w;

-- ===== dp_rolling_of: what is taken from the running mechanism =====
SELECT dp_rolling_of(dp_auto(1.0, 365, 50), 7),
       dp_rolling_of(dp_binary(0.5, 1000, 3), 28),
       dp_rolling_of(dp_person_level(dp_binary(1, 100, 1), 4), 7),
       dp_rolling_of(dp_pan_private(dp_hybrid(2, 5)), 3),
       dp_rolling_of(dp_zcdp_mechanism_of('binary', 0.5, 100, 1), 7);
SELECT dp_rolling_of(dp_consistent(dp_binary(1, 100, 1)), 7);
SELECT dp_rolling_of(dp_binary(1, 100, 1), 0);
SELECT dp_rolling_of(NULL, 7) IS NULL AND dp_rolling_of(dp_binary(1, 100, 1), NULL) IS NULL AS strict;

-- ===== the window form =====
CREATE TABLE rolling_admissions_data AS
  SELECT w AS ward, d AS day, ((d * 7 + w * 3) % 11)::bigint AS n
  FROM generate_series(1, 2) w, generate_series(1, 20) d;
-- each release is near the exact sum of the last 7 days, with the error of a
-- tree over 7 steps whatever the day: every release within 10 bounds of its
-- 95% half-width (a sure check: noise that far out has probability < 10^-30)
SELECT count(*) AS rows,
       count(*) FILTER (WHERE abs(rolling - exact) <= 10 * bound) AS within_ten_bounds,
       count(DISTINCT bound) AS bounds_after_day_7
FROM (SELECT day, sum(n) OVER w7 AS exact,
             dp_rolling_count(n, width => 7, mechanism => dp_auto(1.0, 365, 11)) OVER w AS rolling,
             dp_error_bound(dp_rolling_of(dp_auto(1.0, 365, 11), 7), 1000) AS bound
      FROM rolling_admissions_data
      WINDOW w AS (PARTITION BY ward ORDER BY day),
             w7 AS (PARTITION BY ward ORDER BY day ROWS BETWEEN 6 PRECEDING AND CURRENT ROW)) x
WHERE day >= 7;
-- the same releases as dp_count with the rolling mechanism it names (one
-- seeded statement each)
SET dp_stream.seed = 'rolling form';
CREATE TEMP TABLE rolling_form AS
SELECT day, dp_rolling_count(n, 7, dp_binary(1, 100, 11)) OVER (ORDER BY day) AS r
FROM rolling_admissions_data WHERE ward = 1;
SET dp_stream.seed = 'rolling form';
CREATE TEMP TABLE count_form AS
SELECT day, dp_count(n, dp_rolling_of(dp_binary(1, 100, 11), 7)) OVER (ORDER BY day) AS r
FROM rolling_admissions_data WHERE ward = 1;
SET dp_stream.seed = 'rolling';
SELECT count(*) AS rows, bool_and(a.r = b.r) AS same_as_dp_count_of_dp_rolling_of
FROM rolling_form a JOIN count_form b USING (day);
-- a keyed mechanism: repeatable, the same in the rolling form and in dp_count
SELECT dp_stream.create_budget('rolling_budget', 5.0);
SELECT dp_stream.create_key('ward_rolling', dp_rolling(1.0, 7, 11), dataset => 'rolling_budget') IS NOT NULL AS key;
CREATE TEMP TABLE keyed_runs AS
SELECT run, day,
       dp_rolling_count(n, 7, dp_keyed(dp_rolling(1.0, 7, 11), 'ward_rolling')) OVER w AS rolling_form,
       dp_count(n, dp_keyed(dp_rolling(1.0, 7, 11), 'ward_rolling')) OVER w AS count_form
FROM rolling_admissions_data, generate_series(1, 2) run WHERE ward = 1
WINDOW w AS (PARTITION BY run ORDER BY day);
SELECT count(*) AS rows, bool_and(rolling_form = count_form) AS forms_agree,
       (SELECT bool_and(a.rolling_form = b.rolling_form) FROM keyed_runs a JOIN keyed_runs b
          ON a.day = b.day AND a.run = 1 AND b.run = 2) AS repeatable
FROM keyed_runs;
-- sums, averages, variances and summaries of the last 3 steps
CREATE TABLE rolling_readings AS
  SELECT d AS day, CASE WHEN d % 5 = 0 THEN NULL ELSE (d % 4) * 2.5 END::float8 AS kwh
  FROM generate_series(1, 10) d;
SELECT day, kwh,
       round(dp_rolling_sum(kwh, 0, 10, width => 3, mechanism => dp_hybrid(1.0)) OVER w ::numeric, 3) AS sum,
       round(dp_rolling_avg(kwh, 0, 10, width => 3, mechanism => dp_hybrid(1.0)) OVER w ::numeric, 3) AS avg,
       round(dp_rolling_variance(kwh, 0, 10, width => 3, mechanism => dp_hybrid(1.0)) OVER w ::numeric, 3) AS variance,
       (dp_rolling_summary(kwh, 0, 10, width => 3, mechanism => dp_hybrid(1.0)) OVER w).count AS summary_count,
       dp_rolling_sum(kwh::int, 0, 10, width => 3, mechanism => dp_hybrid(1.0)) OVER w AS int_sum,
       dp_rolling_sum(kwh::bigint, 0::bigint, 10::bigint, width => 3, mechanism => dp_hybrid(1.0)) OVER w AS bigint_sum
FROM rolling_readings WINDOW w AS (ORDER BY day) ORDER BY day;

-- ===== the ordered aggregate and the stored state =====
SELECT dp_rolling_count(n, 7, dp_auto(1.0, 365, 11) ORDER BY day) IS NOT NULL AS aggregate
FROM rolling_admissions_data WHERE ward = 1;
CREATE TABLE stored AS
SELECT dp_rolling_count_state(n, 7, dp_auto(1.0, 365, 11) ORDER BY day) AS c,
       dp_rolling_sum_state(kwh, 0.0, 10.0, 3, dp_hybrid(1.0) ORDER BY day) AS s,
       dp_rolling_avg_state(kwh, 0.0, 10.0, 3, dp_hybrid(1.0) ORDER BY day) AS a,
       dp_rolling_variance_state(kwh, 0.0, 10.0, 3, dp_hybrid(1.0) ORDER BY day) AS v
FROM rolling_admissions_data JOIN rolling_readings USING (day) WHERE ward = 1;
SELECT dp_mechanism(c), dp_steps(c), dp_error_bound(c) = dp_error_bound(dp_mechanism(c), 20) AS bound_of_window,
       dp_estimate(dp_push(c, 5)) IS NOT NULL AS continues,
       dp_steps(dp_push(dp_push(c, 5), 5)) AS steps_after_two
FROM stored;
SELECT dp_mechanism(s) AS sum_mechanism, dp_steps(dp_push(s, 2.5)) AS sum_steps,
       dp_steps(dp_push(a, 2.5)) AS avg_steps,
       (dp_summary(dp_push(v, 2.5))).count IS NOT NULL AS variance_summary,
       dp_error_bound(dp_push(dp_push(s, 1.0), 1.0)) = dp_error_bound(dp_push(s, 1.0)) AS sum_bound_flat
FROM stored;
-- groups of one query share the computed default levels while the mechanism
-- and width stay the same, and compute it again when either changes: each
-- group's mechanism is dp_rolling_of's (levels 1, 4, 8 for these)
WITH v(g, w, m) AS (VALUES (1, 7, dp_auto(1.0, 365, 1)), (2, 28, dp_zcdp_mechanism_of('binary', 0.5, 100, 1)),
    (3, 28, dp_zcdp_mechanism_of('binary', 0.5, 100, 1)), (4, 365, dp_zcdp_mechanism_of('binary', 0.5, 100, 1)),
    (5, 365, dp_auto(1.0, 365, 1)), (6, 28, dp_zcdp_mechanism_of('binary', 0.5, 100, 1))),
states AS (SELECT g, dp_mechanism(dp_rolling_count_state(1, w, m ORDER BY t)) AS used
           FROM v, generate_series(1, 3) t GROUP BY g)
SELECT g, used::text AS mechanism, used::text = dp_rolling_of(m, w)::text AS as_rolling_of
FROM states JOIN v USING (g) ORDER BY g;
-- a state aggregate is refused as a window function
SELECT dp_rolling_count_state(n, 7, dp_auto(1.0, 365, 11)) OVER (ORDER BY day) FROM rolling_admissions_data WHERE ward = 1;
SELECT dp_rolling_sum_state(kwh, 0, 10, 3, dp_hybrid(1.0)) OVER (ORDER BY day) FROM rolling_readings;

-- ===== what the rolling forms refuse =====
SELECT dp_rolling_count(n, NULL, dp_auto(1.0, 365, 11)) OVER (ORDER BY day) FROM rolling_admissions_data WHERE ward = 1;
SELECT dp_rolling_count(n, 7, NULL) OVER (ORDER BY day) FROM rolling_admissions_data WHERE ward = 1;
SELECT dp_rolling_count(n, 1000, dp_auto(1.0, 365, 11)) OVER (ORDER BY day) FROM rolling_admissions_data WHERE ward = 1;
SELECT dp_rolling_count(n, day, dp_auto(1.0, 365, 11)) OVER (ORDER BY day) FROM rolling_admissions_data WHERE ward = 1;
SELECT dp_rolling_count(n, 7, dp_consistent(dp_binary(1, 100, 11))) OVER (ORDER BY day) FROM rolling_admissions_data WHERE ward = 1;
SELECT dp_rolling_count(n, 7, dp_auto(1.0, 365)) OVER (ORDER BY day) FROM rolling_admissions_data WHERE ward = 1;
SELECT dp_rolling_count(n, 7, dp_auto(1.0, 365, 11)) OVER () FROM rolling_admissions_data WHERE ward = 1;
SELECT dp_rolling_sum(kwh, 10, 0, 3, dp_hybrid(1.0)) OVER (ORDER BY day) FROM rolling_readings;
SELECT dp_rolling_count(n, 7, dp_auto(1.0, 365, 11))
         OVER (ORDER BY day ROWS BETWEEN 6 PRECEDING AND CURRENT ROW) FROM rolling_admissions_data WHERE ward = 1;
-- the moving frame of the running forms: refused, the hint names the rolling form with its width
SELECT dp_count(n, dp_auto(1.0, 365, 11))
         OVER (ORDER BY day ROWS BETWEEN 6 PRECEDING AND CURRENT ROW) FROM rolling_admissions_data WHERE ward = 1;
SELECT dp_sum(kwh, 0, 10, dp_hybrid(1.0)) OVER (ORDER BY day ROWS 27 PRECEDING) FROM rolling_readings;
SELECT dp_count(n, dp_auto(1.0, 365, 11))
         OVER (ORDER BY day RANGE BETWEEN 6 PRECEDING AND CURRENT ROW) FROM rolling_admissions_data WHERE ward = 1;

-- the SQLSTATE of every refusal above
CREATE FUNCTION rolling_sqlstate(statement text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
  EXECUTE statement;
  RETURN 'accepted';
EXCEPTION WHEN others THEN
  RETURN SQLSTATE;
END $$;
SELECT rolling_sqlstate(s) AS sqlstate, s AS statement
FROM unnest(ARRAY[
  'SELECT dp_rolling(1, NULL, 1)',
  'SELECT dp_rolling(1, 0, 1)',
  'SELECT dp_rolling(1, 512, 1)',
  'SELECT dp_rolling(0, 7, 1)',
  'SELECT dp_mechanism_of_before_0_14(''rolling'', 1, NULL)',
  'SELECT dp_consistent(dp_rolling(1, 7, 1))',
  $q$SELECT 'rolling(epsilon=1,width=7,horizon=100)'::dp_mechanism$q$,
  $q$SELECT 'rolling(epsilon=1,max_per_step=1)'::dp_mechanism$q$,
  'SELECT dp_rolling_of(dp_consistent(dp_binary(1, 100, 1)), 7)',
  'SELECT dp_rolling_count(n, NULL, dp_auto(1.0, 365, 11)) OVER (ORDER BY day) FROM rolling_admissions_data',
  'SELECT dp_rolling_count(n, 7, NULL) OVER (ORDER BY day) FROM rolling_admissions_data',
  'SELECT dp_rolling_count(n, 1000, dp_auto(1.0, 365, 11)) OVER (ORDER BY day) FROM rolling_admissions_data',
  'SELECT dp_rolling_count(n, day, dp_auto(1.0, 365, 11)) OVER (ORDER BY day) FROM rolling_admissions_data',
  'SELECT dp_rolling_count(n, 7, dp_auto(1.0, 365)) OVER (ORDER BY day) FROM rolling_admissions_data',
  'SELECT dp_rolling_count(n, 7, dp_auto(1.0, 365, 11)) OVER () FROM rolling_admissions_data',
  'SELECT dp_rolling_count(n, 7, dp_auto(1.0, 365, 11)) FILTER (WHERE n > 0) OVER (ORDER BY day) FROM rolling_admissions_data',
  'SELECT dp_rolling_count_state(n, 7, dp_auto(1.0, 365, 11)) OVER (ORDER BY day) FROM rolling_admissions_data',
  'SELECT dp_count(n, dp_auto(1.0, 365, 11)) OVER (ORDER BY day ROWS 6 PRECEDING) FROM rolling_admissions_data',
  'SELECT dp_rolling_sum(kwh, 10, 0, 3, dp_hybrid(1.0)) OVER (ORDER BY day) FROM rolling_readings'
]) s;
DROP FUNCTION rolling_sqlstate(text);

-- ===== a managed stream with a rolling mechanism =====
SELECT dp_stream.create_stream('rolling_admissions', 'count', dp_rolling(1.0, 7, 50),
                               first_period => '2026-01-01');
SELECT count(*) AS releases, count(DISTINCT error_bound) FILTER (WHERE step >= 7) AS bounds_from_step_7,
       bool_and(estimate IS NOT NULL) AS estimates
FROM (SELECT r.* FROM generate_series(0, 11) i,
      LATERAL dp_stream.advance('rolling_admissions', date '2026-01-01' + i, 10) r) x;
SELECT mechanism FROM dp_stream.streams WHERE name = 'rolling_admissions';
SELECT estimate IS NOT NULL AS released_once_more
FROM dp_stream.advance('rolling_admissions', '2026-01-13', 10);

-- ===== a partitioned publication with a rolling mechanism =====
SELECT dp_stream.create_budget('rolling_wards', 2.0);
SELECT dp_stream.create_publication('ward_week', 'count', dp_rolling(1.0, 7, 11),
                                    partition_by => 'ward', dataset => 'rolling_wards',
                                    first_period => '2026-01-01') IS NOT NULL AS registered;
SELECT name, statistic, epsilon FROM dp_stream.publication_list WHERE name = 'ward_week';
-- the window form per ward: the rolling form and dp_count agree, wards differ
CREATE TEMP TABLE ward_week AS
SELECT ward, day,
       dp_count(n, dp_publication('ward_week', ward)) OVER w AS count_form,
       dp_rolling_count(n, 7, dp_publication('ward_week', ward)) OVER w AS rolling_form
FROM rolling_admissions_data WINDOW w AS (PARTITION BY ward ORDER BY day);
SELECT count(*) AS rows, bool_and(count_form = rolling_form) AS forms_agree,
       (SELECT count(*) FILTER (WHERE a.count_form <> b.count_form) > 10
          FROM ward_week a JOIN ward_week b ON a.day = b.day AND a.ward = 1 AND b.ward = 2)
         AS wards_differ
FROM ward_week;
-- another width than the publication's is another mechanism: refused
SELECT dp_rolling_count(n, 28, dp_publication('ward_week', ward)) OVER (PARTITION BY ward ORDER BY day)
FROM rolling_admissions_data;
-- the managed form: publish three days of every ward
SELECT periods, partitions, releases
FROM dp_stream.publish('ward_week', '2026-01-01',
    ARRAY(SELECT dp_stream.observation(ward::text, date '2026-01-01' + day - 1, n)
          FROM rolling_admissions_data WHERE day <= 3),
    through => '2026-01-03');

\c :regress_database
DROP DATABASE dp_rolling;
