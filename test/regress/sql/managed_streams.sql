-- Managed streams: a named stream whose state stays in a catalog only the
-- extension's owner reads, advanced one period at a time, each period
-- released exactly once into an append-only table.
\set SHOW_CONTEXT never
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS dp_stream;
RESET client_min_messages;
SET dp_stream.seed = 'managed streams';

SELECT dp_stream.create_stream('admissions', 'count', dp_hybrid(1.0, max_per_step => 50),
                               first_period => '2026-01-01');
SELECT dp_stream.create_stream('meter_kwh', 'summary', dp_hybrid(1.0, 1), 0, 20,
                               first_period => '2026-01-01', period_length => interval '1 hour');
SELECT dp_stream.create_stream('meter_avg', 'average', dp_binary(1.0, 1000, 1), 0, 20,
                               first_period => '2026-01-01');
SELECT name, statistic, mechanism, lower, upper, first_period, period_length, steps
FROM dp_stream.streams ORDER BY name;

-- one period: its release
SELECT stream, step, period, estimate IS NOT NULL AS has_estimate, error_bound > 0 AS has_bound
FROM dp_stream.advance('admissions', '2026-01-01', 12);
-- exactly once: the same period again returns the stored release, whatever
-- the value, and draws no noise
CREATE TEMP TABLE first_release AS SELECT * FROM dp_stream.releases WHERE stream = 'admissions';
SELECT r = f AS same_release
FROM dp_stream.advance('admissions', '2026-01-01', 999) r, first_release f;
SELECT count(*) AS releases FROM dp_stream.releases WHERE stream = 'admissions';
-- a gap is filled with periods without data, each released once
SELECT step, period FROM dp_stream.advance('admissions', '2026-01-05', 7);
SELECT step, period FROM dp_stream.releases WHERE stream = 'admissions' ORDER BY step;
SELECT steps, dp_steps(counter) AS state_steps FROM dp_stream.streams WHERE name = 'admissions';
-- an earlier period that was released is still answered from the table
SELECT step, period FROM dp_stream.advance('admissions', '2026-01-03', 100);
-- a period between the stream's periods is refused (and fills nothing)
SELECT * FROM dp_stream.advance('admissions', '2026-01-06 12:00', 7);
SELECT steps FROM dp_stream.streams WHERE name = 'admissions';

-- a rolled-back advance leaves no release and no state change; a job that
-- saw its release, rolled back and retries gets the same release (the
-- state's noise is keyed: no fresh noise to average)
BEGIN;
SELECT estimate AS seen_before_rollback FROM dp_stream.advance('admissions', '2026-01-06', 3) \gset
ROLLBACK;
SELECT steps, (SELECT count(*) FROM dp_stream.releases WHERE stream = 'admissions') AS releases
FROM dp_stream.streams WHERE name = 'admissions';
SELECT estimate = :seen_before_rollback AS retry_releases_the_same
FROM dp_stream.advance('admissions', '2026-01-06', 3);

-- statistics: a summary gives every field, an average its error bound
SELECT step, (summary).count IS NOT NULL AS count, (summary).sum IS NOT NULL AS sum,
       estimate = (summary).count AS estimate_is_count
FROM dp_stream.advance('meter_kwh', '2026-01-01 00:00', 3.5);
SELECT step, period FROM dp_stream.advance('meter_kwh', '2026-01-01 03:00', NULL);
SELECT step, estimate BETWEEN 0 AND 20 AS average_in_bounds, error_bound >= 0 AS bounded
FROM dp_stream.advance('meter_avg', '2026-01-01', 4.5);

-- releases are append-only
UPDATE dp_stream.releases SET estimate = 0 WHERE stream = 'admissions';
DELETE FROM dp_stream.releases WHERE stream = 'admissions';
TRUNCATE dp_stream.releases;

-- bad input
SELECT dp_stream.create_stream('admissions', 'count', dp_hybrid(1.0, 1));
SELECT dp_stream.create_stream('x', 'median', dp_hybrid(1.0, 1));
SELECT dp_stream.create_stream('x', 'count', dp_hybrid(1.0, 1), 0, 10);
SELECT dp_stream.create_stream('x', 'sum', dp_hybrid(1.0, 1));
SELECT dp_stream.create_stream('x', 'sum', dp_hybrid(1.0, 5), 0, 10);
SELECT dp_stream.create_stream('x', 'count', dp_hybrid(1.0, 1), period_length => interval '-1 day');
SELECT dp_stream.create_stream(NULL, 'count', dp_hybrid(1.0, 1));
SELECT * FROM dp_stream.advance('nope', '2026-01-01', 1);
SELECT * FROM dp_stream.advance('admissions', NULL, 1);
SELECT * FROM dp_stream.advance('admissions', '2400-01-01', 1);
SELECT dp_stream.create_stream('short', 'count', dp_binary(1.0, 2, 1), first_period => '2026-01-01');
SELECT step FROM dp_stream.advance('short', '2026-01-02', 1);
SELECT step FROM dp_stream.advance('short', '2026-01-03', 1);

-- who may do what: a role without grants reads nothing and advances
-- nothing; a reader granted SELECT on the releases reads them, not states
CREATE ROLE dp_managed_reader;
GRANT SELECT ON dp_stream.releases TO dp_managed_reader;
SET ROLE dp_managed_reader;
SELECT count(*) > 0 AS reads_releases FROM dp_stream.releases;
SELECT counter FROM dp_stream.streams;
SELECT * FROM dp_stream.advance('admissions', '2026-01-06', 1);
SELECT dp_stream.create_stream('mine', 'count', dp_hybrid(1.0, 1));
RESET ROLE;
DROP OWNED BY dp_managed_reader;
DROP ROLE dp_managed_reader;

-- the privacy-budget ledger: a stream charges its epsilon once, at creation
SELECT dp_stream.create_budget('hospital', 2.5);
SELECT dp_stream.create_stream('ward_a', 'count', dp_binary(1.0, 365, 1), dataset => 'hospital');
SELECT dp_stream.charge('hospital', 0.5, 'a one-off report');
SELECT * FROM dp_stream.budget('hospital');
-- beyond the budget: refused, and nothing is created or charged
SELECT dp_stream.create_stream('ward_b', 'count', dp_binary(1.5, 365, 1), dataset => 'hospital');
SELECT count(*) AS ward_b FROM dp_stream.streams WHERE name = 'ward_b';
SELECT * FROM dp_stream.budget('hospital');
SELECT dp_stream.charge('hospital', 1.0, 'exactly what is left');
SELECT dp_stream.charge('hospital', 1e-9, 'one more');
SELECT dataset, epsilon, purpose FROM dp_stream.charges ORDER BY id;
SELECT dp_stream.charge('nowhere', 1, 'x');
SELECT dp_stream.charge('hospital', -1, 'x');
SELECT dp_stream.charge('hospital', 'NaN', 'x');
SELECT dp_stream.create_budget('hospital', 1);
SELECT dp_stream.create_budget('other', 0);
DELETE FROM dp_stream.charges;
SELECT dp_epsilon(dp_two_level(0.25, 100, 1)) AS epsilon;

-- the constructors of step-0 states
SELECT dp_steps(dp_counter_new(dp_binary(1, 10, 1))) AS counter_steps,
       dp_steps(dp_statistic_new('variance', 0, 1, dp_binary(1, 10, 1))) AS statistic_steps;
SELECT dp_statistic_new('median', 0, 1, dp_binary(1, 10, 1));
