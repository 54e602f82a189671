-- Refusals of what cannot be meaningful (0.14.0), and messages that say
-- what to do.  Every refusal here depends on the query's shape only, never
-- on the data: a FILTER that keeps no row is refused like one that keeps
-- them all.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS dp_stream;
RESET client_min_messages;
SET dp_stream.seed = 'refusals';

\i test/fixtures/refusal_of.sql

-- two meters, ten days; mechanisms in their text form
CREATE TABLE readings AS
  SELECT meter, day, (day * meter) % 7 AS n, ((day * meter) % 5)::float8 AS kwh
  FROM generate_series(1, 2) meter, generate_series(1, 10) day;
CREATE TABLE no_readings AS SELECT * FROM readings WHERE false;
CREATE TABLE mechanisms (count_m dp_mechanism, statistic_m dp_mechanism);
INSERT INTO mechanisms VALUES ('binary(epsilon=1,horizon=20,max_per_step=10)',
                               'hybrid(epsilon=1,max_per_step=1)');

-- 1. FILTER on every form of every dp_ aggregate: 0A000, whether the
-- condition keeps some rows, none, or the input is empty.
SELECT form, filter, refusal_of(format(statement, condition, source)) AS result
FROM (VALUES
  ('window dp_count', 'SELECT dp_count(n, count_m) FILTER (WHERE %s) OVER (PARTITION BY meter ORDER BY day) FROM %s, mechanisms'),
  ('window dp_sum', 'SELECT dp_sum(kwh, 0, 5, statistic_m) FILTER (WHERE %s) OVER (PARTITION BY meter ORDER BY day) FROM %s, mechanisms'),
  ('window dp_avg', 'SELECT dp_avg(kwh, 0, 5, statistic_m) FILTER (WHERE %s) OVER (PARTITION BY meter ORDER BY day) FROM %s, mechanisms'),
  ('window dp_variance', 'SELECT dp_variance(kwh, 0, 5, statistic_m) FILTER (WHERE %s) OVER (PARTITION BY meter ORDER BY day) FROM %s, mechanisms'),
  ('window dp_summary', 'SELECT dp_summary(kwh, 0, 5, statistic_m) FILTER (WHERE %s) OVER (PARTITION BY meter ORDER BY day) FROM %s, mechanisms'),
  ('plain dp_count', 'SELECT dp_count(n, count_m) FILTER (WHERE %s) FROM %s, mechanisms'),
  ('plain dp_sum, grouped', 'SELECT dp_sum(n, 0, 7, statistic_m) FILTER (WHERE %s) FROM %s, mechanisms GROUP BY meter'),
  ('plain dp_stddev', 'SELECT dp_stddev(kwh, 0, 5, statistic_m) FILTER (WHERE %s) FROM %s, mechanisms'),
  ('ordered dp_count', 'SELECT dp_count(n, count_m ORDER BY day) FILTER (WHERE %s) FROM %s, mechanisms'),
  ('state dp_count_state', 'SELECT dp_count_state(n, count_m ORDER BY day) FILTER (WHERE %s) FROM %s, mechanisms'),
  ('state dp_sum_state', 'SELECT dp_sum_state(kwh, 0, 5, statistic_m ORDER BY day) FILTER (WHERE %s) FROM %s, mechanisms'),
  ('state dp_avg_state', 'SELECT dp_avg_state(kwh, 0, 5, statistic_m ORDER BY day) FILTER (WHERE %s) FROM %s, mechanisms'),
  ('state dp_variance_state', 'SELECT dp_variance_state(kwh, 0, 5, statistic_m ORDER BY day) FILTER (WHERE %s) FROM %s, mechanisms')
) AS forms(form, statement),
(VALUES ('keeps some', 'n > 2', 'readings'), ('keeps none', 'n > 100', 'readings'),
        ('empty input', 'n > 2', 'no_readings')) AS filters(filter, condition, source)
-- over no rows, a window or a GROUP BY computes nothing: no release, no
-- refusal (whether the time axis is empty is public, as the axis is)
WHERE NOT ((form LIKE 'window%' OR form LIKE '%grouped') AND source = 'no_readings')
ORDER BY form, filter;

-- a call without FILTER beside a filtered one of the same aggregate: the
-- query is refused (the filtered call is), the plain call alone is not,
-- nor beside a FILTER on an aggregate that is not dp_stream's
SELECT refusal_of('SELECT dp_count(n, count_m) OVER w, dp_count(n, count_m) FILTER (WHERE meter = 1) OVER w
                   FROM readings, mechanisms WINDOW w AS (PARTITION BY meter ORDER BY day)') AS beside_filtered,
       refusal_of('SELECT dp_count(n, count_m) OVER w, dp_sum(kwh, 0, 5, statistic_m) OVER w
                   FROM readings, mechanisms WINDOW w AS (PARTITION BY meter ORDER BY day)') AS without_filter,
       refusal_of('SELECT dp_count(n, count_m) OVER w, count(*) FILTER (WHERE n > 2) OVER w
                   FROM readings, mechanisms WINDOW w AS (PARTITION BY meter ORDER BY day)') AS beside_filtered_count,
       refusal_of('SELECT dp_count(n, count_m ORDER BY day), count(*) FILTER (WHERE n > 2)
                   FROM readings, mechanisms GROUP BY meter') AS grouped_beside_filtered_count;

-- what the refusal says
SELECT dp_count(n, count_m) FILTER (WHERE n > 2) OVER (ORDER BY day)
FROM readings, mechanisms WHERE meter = 1;
-- and what to write instead: the condition inside the value, every day a step
SELECT count(*) AS releases
FROM (SELECT dp_count(CASE WHEN n > 2 THEN n END, count_m) OVER (ORDER BY day) AS r
      FROM readings, mechanisms WHERE meter = 1) x
WHERE r IS NOT NULL;

-- 2. A dp_ window needs ORDER BY: 42P20 for OVER (), PARTITION BY alone,
-- and a ROWS frame without an order; with ORDER BY, accepted.
SELECT window_clause, refusal_of(format('SELECT dp_count(n, count_m) OVER (%s) FROM readings, mechanisms', window_clause)) AS dp_count,
       refusal_of(format('SELECT dp_avg(kwh, 0, 5, statistic_m) OVER (%s) FROM readings, mechanisms', window_clause)) AS dp_avg,
       refusal_of(format('SELECT dp_summary(kwh, 0, 5, statistic_m) OVER (%s) FROM readings, mechanisms', window_clause)) AS dp_summary
FROM (VALUES (''), ('PARTITION BY meter'), ('ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW'),
             ('PARTITION BY meter ORDER BY day'),
             ('PARTITION BY meter ORDER BY day ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW')) AS w(window_clause);
SELECT dp_sum(kwh, 0, 5, statistic_m) OVER (PARTITION BY meter) FROM readings, mechanisms;

-- Plain and state aggregates without ORDER BY in the call are accepted:
-- their one result, the release (or state) after the last step, is the
-- clamped total plus noise whose distribution depends on the number of
-- steps only, in whatever order the rows came.
SELECT refusal_of('SELECT dp_count(n, count_m) FROM readings, mechanisms') AS plain_count,
       refusal_of('SELECT dp_count_state(n, count_m) FROM readings, mechanisms') AS count_state,
       refusal_of('SELECT dp_avg(kwh, 0, 5, statistic_m) FROM readings, mechanisms GROUP BY meter') AS grouped_avg;

-- 3. Negative values in a count are clamped to 0, silently (a message
-- would depend on the data): the releases equal those of zeros, draw for
-- draw under one seed, and nothing is raised.
SET dp_stream.seed = 'negative values';
CREATE TABLE negative_releases AS
  SELECT day, dp_count(-day * 1000, count_m) OVER (ORDER BY day) AS r FROM readings, mechanisms WHERE meter = 1;
SET dp_stream.seed = 'negative values';
CREATE TABLE zero_releases AS
  SELECT day, dp_count(0, count_m) OVER (ORDER BY day) AS r FROM readings, mechanisms WHERE meter = 1;
SELECT count(*) AS days, count(*) FILTER (WHERE n.r = z.r) AS equal_releases
FROM negative_releases n JOIN zero_releases z USING (day);
SET dp_stream.seed = 'refusals';

-- 4. The hints that list kinds come from the registry.  Every kind in its
-- text form: the kinds dp_keyed, dp_person_level and rho accept must be
-- exactly the constructors a refusal's hint names, and each name must be
-- a function.  A hint written out by hand again, or a kind that accepts
-- one of these options and has no line here, fails this.
CREATE TABLE kinds (kind text PRIMARY KEY, epsilon_form text);
INSERT INTO kinds VALUES
  ('binary', 'binary(epsilon=1,horizon=10,max_per_step=1)'),
  ('simple_i', 'simple_i(epsilon=1,horizon=10,max_per_step=1)'),
  ('simple_ii', 'simple_ii(epsilon=1,max_per_step=1)'),
  ('two_level', 'two_level(epsilon=1,horizon=10,block=4,max_per_step=1)'),
  ('hybrid', 'hybrid(epsilon=1,max_per_step=1)'),
  ('ppcum', 'ppcum(epsilon=1,horizon=10,max_per_step=1)'),
  ('kary', 'kary(epsilon=1,horizon=10,arity=11,max_per_step=1)'),
  -- balanced with arities of their own: dp_auto's choice (the default arity)
  -- is chosen again under an option it refuses (registry.sql)
  ('balanced', 'balanced(epsilon=1,horizon=10,arity=5,max_per_step=1)'),
  ('balanced_unbounded', 'balanced_unbounded(epsilon=1,arity=5,max_per_step=1)'),
  ('blt', 'blt(rho=0.5,horizon=10,max_per_step=1)'),
  ('honaker', 'honaker(epsilon=1,horizon=10,arity=11,max_per_step=1)'),
  ('smooth_binary', 'smooth_binary(rho=0.5,horizon=10,max_per_step=1)'),
  ('expiring', 'expiring(epsilon=1,delay=0,lambda=2,max_per_step=1)'),
  ('expiring_baseline', 'expiring_baseline(epsilon=1,horizon=10,window=4,past_ratio=0.5,max_per_step=1)'),
  ('decayed', 'decayed(epsilon=1,gamma=0.9,max_per_step=1)'),
  ('rolling', 'rolling(epsilon=1,width=7,max_per_step=1)');

-- the hint of a refusal, or NULL when the statement is accepted
CREATE FUNCTION hint_of(statement text) RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
  hint text;
BEGIN
  EXECUTE statement;
  RETURN NULL;
EXCEPTION WHEN OTHERS THEN
  GET STACKED DIAGNOSTICS hint = PG_EXCEPTION_HINT;
  RETURN hint;
END $$;

-- the constructors a hint lists between its verb and "with ..." (or "for")
CREATE FUNCTION listed(hint text, pattern text) RETURNS SETOF text
LANGUAGE sql AS $$
  SELECT trim(x) FROM regexp_split_to_table(substring(hint FROM pattern), ',| or | and ') AS x
$$;

CREATE TABLE option_lists AS
SELECT 'keyed' AS option,
       (SELECT hint_of(format('SELECT dp_keyed(%L::dp_mechanism, %L)', epsilon_form, 'k'))
        FROM kinds WHERE kind = 'ppcum') AS hint,
       'Use (.*) with dp_keyed' AS pattern,
       ARRAY(SELECT 'dp_' || kind FROM kinds
             WHERE hint_of(format('SELECT dp_keyed(%L::dp_mechanism, %L)', epsilon_form, 'k')) IS NULL
             ORDER BY 1) AS accepting
UNION ALL
SELECT 'person_level',
       (SELECT hint_of(format('SELECT dp_person_level(%L::dp_mechanism, 3)', epsilon_form))
        FROM kinds WHERE kind = 'simple_i'),
       'use (.*) with dp_person_level',
       ARRAY(SELECT 'dp_' || kind FROM kinds
             WHERE hint_of(format('SELECT dp_person_level(%L::dp_mechanism, 3)', epsilon_form)) IS NULL
             ORDER BY 1)
UNION ALL
SELECT 'rho',
       hint_of($$SELECT dp_zcdp_mechanism_of('hybrid', 0.5, max_per_step => 1)$$),
       'available for (.*)\.$',
       ARRAY(SELECT 'dp_' || kind FROM kinds
             WHERE hint_of(format('SELECT %L::dp_mechanism',
                                  replace(epsilon_form, 'epsilon=', 'rho='))) IS NULL
             ORDER BY 1);

SELECT option, hint FROM option_lists ORDER BY option;
SELECT option,
       ARRAY(SELECT listed(hint, pattern) ORDER BY 1) = accepting AS hint_lists_exactly_the_accepting_kinds,
       cardinality(accepting) AS kinds,
       (SELECT bool_and(EXISTS (SELECT 1 FROM pg_proc WHERE proname = name))
        FROM listed(hint, pattern) AS name) AS every_name_is_a_function
FROM option_lists ORDER BY option;

-- 5. Managed streams: "an average stream", an off-grid period names the
-- stream's next period, and a permission error names the role to grant.
SELECT dp_stream.create_stream('refusals_average', 'average', statistic_m) FROM mechanisms;
SELECT dp_stream.create_stream('refusals_count', 'count', count_m, first_period => '2026-01-01')
FROM mechanisms;
SELECT step, period FROM dp_stream.advance('refusals_count', '2026-01-01', 3);
SELECT step, period FROM dp_stream.advance('refusals_count', '2026-01-04 12:00', 3);

-- a role outside dp_stream_admin is told which role to ask for
CREATE ROLE refusals_admin LOGIN;
CREATE ROLE refusals_job;
SET ROLE refusals_admin;
SELECT dp_stream.create_stream('refusals_other', 'count', 'hybrid(epsilon=1,max_per_step=1)');
SELECT * FROM dp_stream.advance('refusals_count', '2026-01-02', 3);
SELECT * FROM dp_stream.budget('refusals');
RESET ROLE;
-- a member of dp_stream_admin gets past the wrapper, and register_key's
-- own check names the key's role to grant
GRANT dp_stream_admin TO refusals_admin;
SET SESSION AUTHORIZATION refusals_admin;
SELECT dp_stream.register_key('refusals_key', 'hybrid(epsilon=1,max_per_step=1)', NULL, 'refusals_job', 'count');
RESET SESSION AUTHORIZATION;

DROP ROLE refusals_admin;
DROP ROLE refusals_job;
DROP FUNCTION refusal_of(text);
DROP FUNCTION hint_of(text);
DROP FUNCTION listed(text, text);
DROP TABLE readings, no_readings, mechanisms, negative_releases, zero_releases, kinds, option_lists;
