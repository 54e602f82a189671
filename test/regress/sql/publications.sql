-- Partitioned publications (issue 24; 0.13.0, docs/publications.md): one
-- registration, one key, one charge for every partition; the window, view,
-- stored-state and managed forms; publish with catch-up, late observations
-- and periods filled without data; the catch-up of a single stream.  The
-- noise secret is the database's own, so no release is printed: every
-- check compares releases with each other or with their inputs.
\set regress_database :DBNAME
CREATE DATABASE dp_publications;
\c dp_publications
SET client_min_messages = warning;
CREATE EXTENSION dp_stream;
RESET client_min_messages;
SET dp_stream.seed = 'publications';
\set SHOW_CONTEXT never
DROP ROLE IF EXISTS pub_job;
CREATE ROLE pub_job LOGIN IN ROLE dp_stream_admin;
-- the raw data, readable by the job
CREATE TABLE readings (meter int NOT NULL, day date NOT NULL, kwh float8);
-- meters 1 and 2 read the same every day: their releases must still differ
INSERT INTO readings
  SELECT m, date '2026-01-01' + d,
         CASE WHEN m <= 2 THEN (d % 7) * 3.5 ELSE (abs(hashint4(m * 1000 + d)) % 5000) / 100.0 END
  FROM generate_series(1, 20) m, generate_series(0, 59) d;
GRANT SELECT ON readings TO pub_job;
GRANT CREATE ON SCHEMA public TO pub_job;
SET ROLE pub_job;

-- ===== registration: one charge =====
SELECT dp_stream.create_budget('meters', 2.0);
SELECT dp_stream.create_publication('meter_kwh', 'summary', dp_binary(1.0, 400, 1), 0, 50,
                                    partition_by => 'meter', dataset => 'meters',
                                    first_period => '2026-01-01');
SELECT dp_stream.create_publication('meter_days', 'count', dp_binary(0.5, 400, 24),
                                    partition_by => 'meter', dataset => 'meters',
                                    first_period => '2026-01-01') IS NOT NULL AS registered;
SELECT name, statistic, partition_by, privacy_unit, truncation, dataset, epsilon, partitions
FROM dp_stream.publication_list ORDER BY name;
SELECT dataset, epsilon, purpose, remaining_after, publication, privacy_unit
FROM dp_stream.spending ORDER BY charged_at, epsilon;
-- the key is the publication's name, for its role, uncharged itself
SELECT key, used_by::text, computes, dataset FROM dp_stream.keys ORDER BY key;
-- beyond the budget: refused, nothing registered
SELECT dp_stream.create_publication('meter_more', 'count', dp_binary(1.0, 400, 1), dataset => 'meters');
SELECT count(*) AS publications FROM dp_stream.publications;

-- ===== what create_publication refuses =====
\set VERBOSITY terse
SELECT dp_stream.create_publication('p1', 'count', dp_keyed(dp_binary(1, 10, 1), 'meter_kwh'));
SELECT dp_stream.create_publication('p1', 'count', dp_person_level(dp_binary(1, 10, 1), 3));
SELECT dp_stream.create_publication('p1', 'median', dp_binary(1, 10, 1));
SELECT dp_stream.create_publication('p1', 'count', dp_binary(1, 10, 1), 0, 5);
SELECT dp_stream.create_publication('p1', 'sum', dp_binary(1, 10, 1));
SELECT dp_stream.create_publication('p1', 'sum', dp_binary(1, 10, 1), 5, 0);
SELECT dp_stream.create_publication('p1', 'count', dp_binary(1, 10, 1), period_length => '1 month');
SELECT dp_stream.create_publication('p1', 'count', dp_binary(1, 10, 1), period_length => '0 days');
SELECT dp_stream.create_publication('p1', 'count', dp_binary(1, 10, 1), contributions => 3);
SELECT dp_stream.create_publication('p1', 'count', dp_binary(1, 10, 1), privacy_unit => 'household');
SELECT dp_stream.create_publication('p1', 'count', dp_binary(1, 10, 1), privacy_unit => 'person');
SELECT dp_stream.create_publication('p1', 'count', dp_binary(1, 10, 1), privacy_unit => 'person',
                                    contributions => 3, truncation => 'per_partition');
SELECT dp_stream.create_publication('p1', 'count', dp_binary(1, 10, 1), privacy_unit => 'person',
                                    contributions => 3, partitions_per_person => 2);
SELECT dp_stream.create_publication('p1', 'count', dp_simple_i(1.0::float8));
SELECT dp_stream.create_publication('p1', 'count', dp_auto(1.0, 10, 1));
SELECT dp_stream.create_publication('bad name', 'count', dp_binary(1, 10, 1));
SELECT dp_stream.create_publication('meter_kwh', 'count', dp_binary(1, 10, 1));
SELECT dp_stream.create_publication('p1', NULL, dp_binary(1, 10, 1));
\set VERBOSITY default
SELECT count(*) AS publications, (SELECT count(*) FROM dp_stream.charges) AS charges
FROM dp_stream.publications;

-- ===== the window and view forms =====
CREATE MATERIALIZED VIEW meter_summary AS
SELECT meter, day, dp_summary(kwh, 0, 50, dp_publication('meter_kwh', meter))
                     OVER (PARTITION BY meter ORDER BY day) AS s
FROM readings;
CREATE TEMP TABLE first_refresh AS
  SELECT md5(string_agg(s::text, ',' ORDER BY meter, day)) AS h FROM meter_summary;
REFRESH MATERIALIZED VIEW meter_summary;
-- a refresh repeats every release
SELECT (SELECT h FROM first_refresh) = md5(string_agg(s::text, ',' ORDER BY meter, day))
         AS refresh_repeats
FROM meter_summary;
-- meters 1 and 2 have the same data and different noise on every day
SELECT count(*) AS days, count(*) FILTER (WHERE a.s::text = b.s::text) AS equal_releases
FROM meter_summary a JOIN meter_summary b ON a.day = b.day AND a.meter = 1 AND b.meter = 2;
-- dp_publication is dp_keyed with the publication's mechanism and partition
SELECT dp_publication('meter_kwh', 7)::text
         = dp_keyed(dp_binary(1.0, 400, 1), 'meter_kwh', partition => '7')::text AS same_as_dp_keyed,
       dp_publication('meter_kwh', 7)::text = dp_publication('meter_kwh', '7'::text)::text
         AS text_and_integer_agree;
-- the stored-state form continues the same stream with the same noise
SELECT dp_estimate(dp_push(dp_push(dp_counter_new(dp_publication('meter_days', 3), true), 5), 7))
         = (SELECT c FROM (SELECT i, dp_count(v, dp_publication('meter_days', 3))
                                       OVER (ORDER BY i) AS c
                           FROM (VALUES (1, 5), (2, 7)) AS x(i, v)) y
            ORDER BY i DESC LIMIT 1) AS state_matches_window;
\set VERBOSITY terse
SELECT dp_publication('meter_kwh', NULL::int);
SELECT dp_publication('no_such_publication', 1);
SELECT dp_publication('meter_kwh', 1.5::float8);
\set VERBOSITY default
SELECT dp_publication(NULL, 1) IS NULL AS null_name_gives_null;

-- ===== the managed form: publish =====
-- day 1: every meter starts, each with noise of its own, no new charge
SELECT * FROM dp_stream.publish('meter_kwh', '2026-01-01',
    ARRAY(SELECT dp_stream.observation(meter::text, day, kwh) FROM readings
          WHERE day = '2026-01-01'));
-- the same call again releases nothing and counts its observations as late
SELECT * FROM dp_stream.publish('meter_kwh', '2026-01-01',
    ARRAY(SELECT dp_stream.observation(meter::text, day, kwh) FROM readings
          WHERE day = '2026-01-01'));
-- days 2 and 3 in one call
SELECT * FROM dp_stream.publish('meter_kwh', '2026-01-02',
    ARRAY(SELECT dp_stream.observation(meter::text, day, kwh) FROM readings
          WHERE day BETWEEN '2026-01-02' AND '2026-01-03'), through => '2026-01-03');
-- a skipped day is refused, with the way to catch up ...
SELECT * FROM dp_stream.publish('meter_kwh', '2026-01-05',
    ARRAY(SELECT dp_stream.observation(meter::text, day, kwh) FROM readings
          WHERE day = '2026-01-05'));
-- ... which releases both days with their data, in order, in one call
SELECT * FROM dp_stream.publish('meter_kwh', '2026-01-04',
    ARRAY(SELECT dp_stream.observation(meter::text, day, kwh) FROM readings
          WHERE day BETWEEN '2026-01-04' AND '2026-01-05'), through => '2026-01-05');
-- the managed releases are the view's: the same data, the same keyed noise
SELECT count(*) AS releases,
       count(*) FILTER (WHERE r.summary::text = v.s::text) AS equal_to_the_view,
       count(*) FILTER (WHERE r.filled_without_data) AS without_data
FROM dp_stream.publication_releases r
JOIN meter_summary v ON v.meter::text = r.partition AND v.day = r.period
WHERE r.publication = 'meter_kwh';
-- fill_missing: day 6 skipped on purpose, released without data and marked
SELECT * FROM dp_stream.publish('meter_kwh', '2026-01-07',
    ARRAY(SELECT dp_stream.observation(meter::text, day, kwh) FROM readings
          WHERE day = '2026-01-07'), fill_missing => true);
SELECT period, count(*) AS partitions, bool_and(filled_without_data) AS all_filled,
       bool_or(filled_without_data) AS any_filled
FROM dp_stream.publication_releases WHERE publication = 'meter_kwh' AND period >= '2026-01-06'
GROUP BY period ORDER BY period;
-- a late reading for day 6 is counted, not used: day 6 stays as released
SELECT late_observations, releases FROM dp_stream.publish('meter_kwh', '2026-01-08',
    ARRAY[dp_stream.observation('1', '2026-01-06', 10), dp_stream.observation('1', '2026-01-08', 10)]);
-- a meter that appears later starts where the others started (with no data
-- before it appeared), with noise of its own and no charge
SELECT new_partitions, partitions, releases FROM dp_stream.publish('meter_kwh', '2026-01-09',
    ARRAY(SELECT dp_stream.observation(m::text, '2026-01-09', 12.5) FROM generate_series(1, 21) m));
SELECT partition, min(period) AS first_release, count(*) AS releases
FROM dp_stream.publication_releases WHERE partition IN ('20', '21') GROUP BY 1 ORDER BY 1;
SELECT partitions, (SELECT count(*) FROM dp_stream.charges) AS charges
FROM dp_stream.publication_list WHERE name = 'meter_kwh';
-- one release per partition and period, steps in order
SELECT count(*) = count(DISTINCT (partition, period)) AS once_each,
       bool_and(step = 1 + (period::date - (SELECT min(period) FROM dp_stream.publication_releases x
                                            WHERE x.partition = r.partition)::date)) AS steps_follow_periods
FROM dp_stream.publication_releases r WHERE publication = 'meter_kwh';

-- what publish refuses (nothing is released)
\set VERBOSITY terse
SELECT * FROM dp_stream.publish('no_such', '2026-01-10', '{}');
SELECT * FROM dp_stream.publish('meter_kwh', '2026-01-10 12:00', '{}');
SELECT * FROM dp_stream.publish('meter_kwh', '2025-12-31', '{}');
SELECT * FROM dp_stream.publish('meter_kwh', '2026-01-10', '{}', through => '2026-01-09');
SELECT * FROM dp_stream.publish('meter_kwh', '2026-01-10', '{}', through => '2029-01-01');
SELECT * FROM dp_stream.publish('meter_kwh', '2026-01-10',
    ARRAY[dp_stream.observation(NULL, '2026-01-10', 1)]);
SELECT * FROM dp_stream.publish('meter_kwh', '2026-01-10',
    ARRAY[dp_stream.observation('1', '2026-01-11', 1)]);
SELECT * FROM dp_stream.publish('meter_kwh', '2026-01-10',
    ARRAY[dp_stream.observation('1', '2026-01-10 06:00', 1)]);
SELECT * FROM dp_stream.publish('meter_kwh', '2026-01-10',
    ARRAY[dp_stream.observation('1', '2026-01-10', 1, 'patient 7')]);
SELECT * FROM dp_stream.publish('meter_kwh', '2026-01-10',
    ARRAY[dp_stream.observation('1', '2026-01-10', 1), dp_stream.observation('1', '2026-01-10', 2)]);
SELECT * FROM dp_stream.publish('meter_kwh', NULL, '{}');
SELECT dp_stream.advance('meter_kwh/1', '2026-01-10', 1);
SELECT dp_stream.create_budget('counts', 1.0);
SELECT dp_stream.create_publication('int_sums', 'sum', dp_binary(0.5, 100, 1), 0, 10,
                                    integer_values => true, dataset => 'counts') IS NOT NULL;
SELECT * FROM dp_stream.publish('int_sums', date_trunc('day', localtimestamp)::timestamp, '{}');
\set VERBOSITY default
SELECT max(period) AS last_released FROM dp_stream.publication_releases;

-- a count adds the observations of a partition and period (events)
SELECT * FROM dp_stream.publish('meter_days', '2026-01-01',
    ARRAY(SELECT dp_stream.observation(meter::text, day) FROM readings
          WHERE day = '2026-01-01' AND meter <= 5));
SELECT * FROM dp_stream.publish('meter_days', '2026-01-02',
    ARRAY(SELECT dp_stream.observation('1', '2026-01-02') FROM generate_series(1, 3)));
-- it equals the window over the same counts (1 event on day 1, 3 on day 2)
SELECT r.estimate = (SELECT c FROM (SELECT i, dp_count(v, dp_publication('meter_days', '1'))
                                                OVER (ORDER BY i) AS c
                                    FROM (VALUES (1, 1), (2, 3)) AS x(i, v)) y
                     ORDER BY i DESC LIMIT 1) AS counts_match
FROM dp_stream.publication_releases r
WHERE r.publication = 'meter_days' AND r.partition = '1' AND r.period = '2026-01-02';

-- ===== one managed stream: missed periods marked, caught up =====
SELECT dp_stream.create_stream('daily', 'count', dp_binary(1.0, 100, 50), first_period => '2026-01-01');
SELECT step, filled_without_data FROM dp_stream.advance('daily', '2026-01-01', 22);
-- the job skips 2026-01-02: advancing 2026-01-03 fills it, marked, with a warning
SELECT step, filled_without_data FROM dp_stream.advance('daily', '2026-01-03', 20);
SELECT step, period, filled_without_data FROM dp_stream.releases WHERE stream = 'daily' ORDER BY step;
-- the catch-up: every missing period with its data, in order, in one call;
-- observations of released periods are counted, not used
SELECT * FROM dp_stream.advance('daily', ARRAY[
    dp_stream.observation(NULL, '2026-01-02', 22),   -- late: released (without data)
    dp_stream.observation(NULL, '2026-01-04', 19),
    dp_stream.observation(NULL, '2026-01-05', 8),
    dp_stream.observation(NULL, '2026-01-05', 9),    -- a count adds a period's observations
    dp_stream.observation(NULL, '2026-01-06', 30)]);
SELECT step, period, filled_without_data FROM dp_stream.releases WHERE stream = 'daily' ORDER BY step;
\set VERBOSITY terse
SELECT * FROM dp_stream.advance('daily', ARRAY[dp_stream.observation('x', '2026-01-07', 1)]);
SELECT * FROM dp_stream.advance('daily', ARRAY[dp_stream.observation(NULL, '2026-01-07 01:00', 1)]);
SELECT * FROM dp_stream.advance('daily', ARRAY[dp_stream.observation(NULL, '2030-01-07', 1)]);
SELECT * FROM dp_stream.advance('meter_kwh/1', ARRAY[dp_stream.observation(NULL, '2026-01-10', 1)]);
\set VERBOSITY default

-- ===== who may do what =====
RESET ROLE;
DROP ROLE IF EXISTS pub_reader;
CREATE ROLE pub_reader LOGIN IN ROLE dp_stream_reader;
SET ROLE pub_reader;
SELECT count(*) > 0 AS reader_reads_releases FROM dp_stream.publication_releases;
\set VERBOSITY terse
SELECT * FROM dp_stream.publication_list;
SELECT * FROM dp_stream.publications;
SELECT * FROM dp_stream.contributions;
SELECT * FROM dp_stream.publish('meter_kwh', '2026-01-10', '{}');
SELECT dp_publication('meter_kwh', 1);
\set VERBOSITY default
RESET ROLE;

\c :regress_database
DROP DATABASE dp_publications;
DROP ROLE pub_job;
DROP ROLE pub_reader;
