-- Attacks on partitioned publications (issue 24; 0.13.0).
--
-- A hospital publishes the daily admissions of its wards as one
-- publication, in a materialized view and as managed streams, and a second
-- one protecting patients (person level, k = 2).  Real non-superuser LOGIN
-- roles attack it, each switched to with SET SESSION AUTHORIZATION (which
-- sets session_user, as a login would):
--   pa_publisher  the publications' role (used_by) and an administrator;
--   pa_analyst    LOGIN, no grants but SELECT on the raw table;
--   pa_reader     member of dp_stream_reader, SELECT on the published view;
--   pa_admin2     member of dp_stream_admin, not of pa_publisher;
--   pa_owner      owner of the database, not a superuser.
-- No noisy figure is printed: each line is a comparison, a count or the
-- SQLSTATE and message of a refusal, so the output holds for any noise
-- secret.  Where a broken implementation would pass unnoticed, the comment
-- above the query names it.
\set regress_database :DBNAME
CREATE DATABASE dp_publication_attacks;
\c dp_publication_attacks
SET client_min_messages = warning;
CREATE EXTENSION dp_stream;
-- a database upgraded from 0.10.0 with keys has no table_noise secret
-- until a superuser switches (section 13)
DELETE FROM dp_stream.secrets WHERE purpose = 'table_noise';
DROP ROLE IF EXISTS pa_publisher;
DROP ROLE IF EXISTS pa_analyst;
DROP ROLE IF EXISTS pa_reader;
DROP ROLE IF EXISTS pa_admin2;
DROP ROLE IF EXISTS pa_owner;
RESET client_min_messages;
CREATE ROLE pa_publisher LOGIN IN ROLE dp_stream_admin;
CREATE ROLE pa_analyst LOGIN;
CREATE ROLE pa_reader LOGIN IN ROLE dp_stream_reader;
CREATE ROLE pa_admin2 LOGIN IN ROLE dp_stream_admin;
CREATE ROLE pa_owner LOGIN;
ALTER DATABASE dp_publication_attacks OWNER TO pa_owner;

-- what a statement does: 'accepted', or its SQLSTATE and message
CREATE FUNCTION public.pa_try(query text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
  EXECUTE query;
  RETURN 'accepted';
EXCEPTION WHEN others THEN
  RETURN SQLSTATE || ': ' || SQLERRM;
END $$;

-- The raw data: 3 wards x 10 days; wards A and B have equal data.
CREATE SCHEMA pa_raw;
CREATE TABLE pa_raw.admissions (ward text, day timestamp, n int);
INSERT INTO pa_raw.admissions
SELECT w, '2026-01-01'::timestamp + d * interval '1 day',
       CASE WHEN w = 'C' THEN (d * 5) % 4 ELSE (d * 7) % 5 END
FROM unnest(ARRAY['A', 'B', 'C']) w, generate_series(0, 9) d;
-- patients: p1 is admitted 6 times, in three wards; the others once or twice
CREATE TABLE pa_raw.visits (ward text, day timestamp, patient text);
INSERT INTO pa_raw.visits VALUES
  ('A', '2026-01-01', 'p1'), ('B', '2026-01-01', 'p1'), ('C', '2026-01-02', 'p1'),
  ('A', '2026-01-03', 'p1'), ('B', '2026-01-04', 'p1'), ('C', '2026-01-05', 'p1'),
  ('A', '2026-01-01', 'p2'), ('A', '2026-01-02', 'p2'), ('B', '2026-01-02', 'p3'),
  ('C', '2026-01-03', 'p4'), ('C', '2026-01-05', 'p5');
GRANT USAGE ON SCHEMA pa_raw TO pa_publisher, pa_analyst;
GRANT SELECT ON ALL TABLES IN SCHEMA pa_raw TO pa_publisher, pa_analyst;
CREATE SCHEMA pa_pub AUTHORIZATION pa_publisher;
GRANT USAGE ON SCHEMA pa_pub TO pa_reader;

-- The publisher registers both publications (committed before any use),
-- 2.5 of budget, one charge of 1.0 each.
SET SESSION AUTHORIZATION pa_publisher;
SELECT dp_stream.create_budget('hospital', 2.5);
SELECT dp_stream.create_publication('ward_admissions', 'count', dp_binary(1.0, 64, 10),
                                    partition_by => 'ward', dataset => 'hospital',
                                    first_period => '2026-01-01') IS NOT NULL AS registered;
SELECT dp_stream.create_publication('ward_patients', 'count', dp_binary(1.0, 64, 10),
                                    partition_by => 'ward', privacy_unit => 'person',
                                    contributions => 2, dataset => 'hospital',
                                    first_period => '2026-01-01') IS NOT NULL AS registered;
-- the published view
CREATE MATERIALIZED VIEW pa_pub.ward_view AS
SELECT ward, day,
       dp_count(n, dp_publication('ward_admissions', ward)) OVER (PARTITION BY ward ORDER BY day)
         AS admissions
FROM pa_raw.admissions;
GRANT SELECT ON pa_pub.ward_view TO pa_reader;
RESET SESSION AUTHORIZATION;

-- 1. Reading a raw value through dp_publication.  Any role but the
-- publication's (and its members) gets 42704, with the message a
-- publication that does not exist gets: keyed noise repeats for the same
-- data, so whoever may draw it over data of their choosing tests guesses
-- of the data behind the published view (one guess of a day's count per
-- query).  Broken: a dp_publication that checked nothing, or only the
-- registry's existence.
CREATE FUNCTION public.pa_guess() RETURNS TABLE (publication text, result text)
LANGUAGE sql AS $$
  SELECT p, pa_try(format($q$SELECT dp_count(n, dp_publication(%L, ward)) OVER (PARTITION BY ward ORDER BY day)
                              FROM (VALUES ('A', '2026-01-01'::timestamp, 0), ('A', '2026-01-02', 2)) g(ward, day, n)$q$, p))
  FROM unnest(ARRAY['ward_admissions', 'no_such_publication']) p ORDER BY 1
$$;
SET SESSION AUTHORIZATION pa_analyst;
SELECT * FROM pa_guess();
SET SESSION AUTHORIZATION pa_reader;
SELECT * FROM pa_guess();
SET SESSION AUTHORIZATION pa_admin2;
SELECT * FROM pa_guess();
SET SESSION AUTHORIZATION pa_owner;
SELECT * FROM pa_guess();
RESET SESSION AUTHORIZATION;
-- ... the same through the key itself (the publication's key is a key)
SET SESSION AUTHORIZATION pa_analyst;
SELECT pa_try($$SELECT dp_count(n, dp_keyed(dp_binary(1.0, 64, 10), 'ward_admissions', partition => ward))
                OVER (PARTITION BY ward ORDER BY day) FROM pa_raw.admissions$$) AS analyst_key;
RESET SESSION AUTHORIZATION;
-- the publication's own role draws (one release per row; counting the
-- column, so that the planner cannot leave the window out)
SET SESSION AUTHORIZATION pa_publisher;
SELECT count(released) AS publisher_releases FROM (
  SELECT dp_count(n, dp_publication('ward_admissions', ward)) OVER (PARTITION BY ward ORDER BY day)
           AS released
  FROM pa_raw.admissions) s;
RESET SESSION AUTHORIZATION;

-- 2. Matching partitions.  Wards A and B have equal data: their releases
-- differ (noise keyed per partition).  Broken: one noise for every
-- partition of a key (0.11.0), where equal data give equal releases and a
-- reader who knows the other wards' data decodes one ward.  Each of the
-- 10 releases agrees by chance with probability below 1/2.
SET SESSION AUTHORIZATION pa_reader;
SELECT count(*) AS days, count(*) FILTER (WHERE a.admissions = b.admissions) < 10 AS a_and_b_differ
FROM pa_pub.ward_view a JOIN pa_pub.ward_view b USING (day)
WHERE a.ward = 'A' AND b.ward = 'B';
RESET SESSION AUTHORIZATION;
-- a view over the publication's key that does not name the partition is
-- refused (0A000): its wards would share one noise
SET SESSION AUTHORIZATION pa_publisher;
SELECT pa_try($$SELECT dp_count(n, dp_keyed(dp_binary(1.0, 64, 10), 'ward_admissions'))
                OVER (PARTITION BY ward ORDER BY day) FROM pa_raw.admissions$$) AS no_partition;
-- ... and so is one that splits a ward into two streams (ward and shift)
-- under the ward's partition: the two would share the ward's noise
SELECT pa_try($$SELECT dp_count(n, dp_publication('ward_admissions', ward))
                OVER (PARTITION BY ward, shift ORDER BY day)
                FROM pa_raw.admissions, (VALUES ('day'), ('night')) s(shift)
                WHERE shift = 'day' OR n > 1$$) AS two_streams_one_partition;
RESET SESSION AUTHORIZATION;

-- 3. Averaging the noise away.  Refreshing the view repeats every release
-- (broken: fresh noise per refresh, whose average converges to the data).
CREATE TABLE public.pa_seen (round int, digest text);
GRANT INSERT ON public.pa_seen TO pa_publisher;
SET SESSION AUTHORIZATION pa_publisher;
INSERT INTO pa_seen SELECT 0, md5(string_agg(admissions::text, ',' ORDER BY ward, day)) FROM pa_pub.ward_view;
REFRESH MATERIALIZED VIEW pa_pub.ward_view;
INSERT INTO pa_seen SELECT 1, md5(string_agg(admissions::text, ',' ORDER BY ward, day)) FROM pa_pub.ward_view;
REFRESH MATERIALIZED VIEW pa_pub.ward_view;
INSERT INTO pa_seen SELECT 2, md5(string_agg(admissions::text, ',' ORDER BY ward, day)) FROM pa_pub.ward_view;
RESET SESSION AUTHORIZATION;
SELECT count(*) AS refreshes, count(DISTINCT digest) AS distinct_views FROM pa_seen;
-- The nightly job publishes the same data as managed streams: its releases
-- are the view's (the same keyed noise), every (ward, day) once.
CREATE VIEW public.pa_all_observations AS
SELECT ARRAY(SELECT dp_stream.observation(ward, day, n) FROM pa_raw.admissions ORDER BY day, ward)
  AS observations;
GRANT SELECT ON public.pa_all_observations TO pa_publisher;
SET SESSION AUTHORIZATION pa_publisher;
SELECT * FROM dp_stream.publish('ward_admissions', '2026-01-01',
                                (SELECT observations FROM pa_all_observations), through => '2026-01-10');
RESET SESSION AUTHORIZATION;
CREATE TEMP TABLE pa_managed AS
SELECT md5(string_agg(estimate::text || '@' || released_at, ',' ORDER BY partition, period)) AS digest,
       count(*) AS releases, count(DISTINCT (partition, period)) AS partition_periods
FROM dp_stream.publication_releases WHERE publication = 'ward_admissions';
SELECT releases, partition_periods FROM pa_managed;
SELECT bool_and(r.estimate = v.admissions) AS managed_equals_view, count(*) AS compared
FROM dp_stream.publication_releases r
JOIN pa_pub.ward_view v ON v.ward = r.partition AND v.day = r.period
WHERE r.publication = 'ward_admissions';
-- Re-running the job, or running it with other values for those days,
-- releases nothing: every observation is late, every release is the one
-- stored (same estimate, same released_at).  Broken: a second draw.
SET SESSION AUTHORIZATION pa_publisher;
SELECT * FROM dp_stream.publish('ward_admissions', '2026-01-01',
                                (SELECT observations FROM pa_all_observations), through => '2026-01-10');
SELECT * FROM dp_stream.publish('ward_admissions', '2026-01-05',
                                ARRAY[dp_stream.observation('A', '2026-01-05', 9),
                                      dp_stream.observation('B', '2026-01-06', 0)],
                                through => '2026-01-10');
RESET SESSION AUTHORIZATION;
SELECT m.digest = n.digest AS releases_unchanged, n.releases
FROM pa_managed m,
     (SELECT md5(string_agg(estimate::text || '@' || released_at, ',' ORDER BY partition, period)) AS digest,
             count(*) AS releases
      FROM dp_stream.publication_releases WHERE publication = 'ward_admissions') n;

-- 4. A second administrator, outside the publication's role, may not draw
-- its noise through publish either: publish runs as the extension's owner,
-- and a partition's releases are the view's for the same data.  With
-- 135547e pa_admin2 published its guess of ward C's days in a transaction
-- it rolled back, and read releases equal to the view's exactly when the
-- guess was right.  Now 42501, for a new partition and for the next day
-- of an existing one alike.
SET SESSION AUTHORIZATION pa_admin2;
SELECT pa_try($$SELECT dp_stream.publish('ward_admissions', '2026-01-11',
                  ARRAY[dp_stream.observation('D', '2026-01-11', 3)])$$) AS new_partition;
SELECT pa_try($$SELECT dp_stream.publish('ward_admissions', '2026-01-11',
                  ARRAY[dp_stream.observation('C', '2026-01-11', 3)])$$) AS next_day;
-- ... nor register one for that role (a key is registered only for a role
-- one is a member of)
SELECT pa_try($$SELECT dp_stream.create_publication('ward_copy', 'count', dp_binary(1.0, 64, 10),
                  used_by => 'pa_publisher', first_period => '2026-01-01')$$) AS for_another_role;
RESET SESSION AUTHORIZATION;
SELECT count(*) AS releases_after_admin2 FROM dp_stream.publication_releases
WHERE publication = 'ward_admissions';

-- 5. Overspending.  One charge per publication, whatever its partitions;
-- a third publication over the dataset does not fit (53000) and leaves
-- nothing behind.  Broken: a charge per partition (issue 24's 1,000 keys),
-- or a publication registered past the budget.
SELECT publication, privacy_unit, partitions, epsilon, remaining_after
FROM dp_stream.spending WHERE dataset = 'hospital' ORDER BY charged_at;
SET SESSION AUTHORIZATION pa_publisher;
SELECT pa_try($$SELECT dp_stream.create_publication('ward_stays', 'count', dp_binary(1.0, 64, 10),
                  dataset => 'hospital', first_period => '2026-01-01')$$) AS over_budget;
-- truncation per partition is charged per partition: 0.25 x 3 does not
-- fit in the 0.5 left (broken: charged 0.25 once, and accepted)
SELECT pa_try($$SELECT dp_stream.create_publication('ward_stays', 'count', dp_binary(0.25, 64, 10),
                  privacy_unit => 'person', contributions => 2, truncation => 'per_partition',
                  partitions_per_person => 3, dataset => 'hospital', first_period => '2026-01-01')$$)
  AS per_partition_over_budget;
-- publishing in the transaction that registers: 55000 (broken: the
-- releases are seen, then the registration and its charge roll back,
-- and the ledger never shows them)
SELECT pa_try($$SELECT dp_stream.create_publication('ward_trial', 'count', dp_binary(0.25, 64, 10),
                  dataset => 'hospital', first_period => '2026-01-01');
                SELECT dp_stream.publish('ward_trial', '2026-01-01',
                  ARRAY[dp_stream.observation('A', '2026-01-01', 2)])$$) AS publish_uncommitted;
-- a new partition later: no new charge (its stream starts with the others',
-- no data before it appeared: 10 releases of E and one of each other ward)
SELECT new_partitions, releases FROM dp_stream.publish('ward_admissions', '2026-01-11',
       ARRAY[dp_stream.observation('A', '2026-01-11', 2), dp_stream.observation('E', '2026-01-11', 1)]);
RESET SESSION AUTHORIZATION;
SELECT (SELECT count(*) FROM dp_stream.charges) AS charges,
       (SELECT count(*) FROM dp_stream.publications) AS publications,
       (SELECT count(*) FROM dp_stream.keys WHERE key IN ('ward_stays', 'ward_trial')) AS stray_keys;
SELECT publication, partitions, epsilon, remaining_after
FROM dp_stream.spending WHERE dataset = 'hospital' ORDER BY charged_at;

-- 6. Reading the catalog behind the releases: the states, the person
-- tags, the registry.  Readers read releases only.
CREATE FUNCTION public.pa_read_catalog() RETURNS TABLE (name text, result text)
LANGUAGE sql AS $$
  SELECT t, pa_try(format('SELECT count(*) FROM %s', t))
  FROM unnest(ARRAY['dp_stream.streams', 'dp_stream.contributions', 'dp_stream.publications',
                    'dp_stream.keys', 'dp_stream.publication_releases']) t ORDER BY 1
$$;
SET SESSION AUTHORIZATION pa_reader;
SELECT * FROM pa_read_catalog();
SET SESSION AUTHORIZATION pa_analyst;
SELECT * FROM pa_read_catalog();
SET SESSION AUTHORIZATION pa_owner;
SELECT * FROM pa_read_catalog();
RESET SESSION AUTHORIZATION;
-- ... and as the second administrator: the registry yes, states and tags no
SET SESSION AUTHORIZATION pa_admin2;
SELECT pa_try('SELECT count(*) FROM dp_stream.streams') AS streams,
       pa_try('SELECT count(*) FROM dp_stream.contributions') AS contributions,
       pa_try('SELECT count(*) FROM dp_stream.publications') AS publications;
-- a person's tag is the extension's: administrators may not compute one
-- (they would match tags to people)
SELECT pa_try($$SELECT dp_stream.person_tag('ward_patients', 'p1')$$) AS person_tag;
RESET SESSION AUTHORIZATION;

-- 7. Advancing one partition alone (it would release a day the others
-- have not): 42809, both forms of advance, even for the publication's role.
SET SESSION AUTHORIZATION pa_publisher;
SELECT pa_try($$SELECT dp_stream.advance('ward_admissions/A', '2026-01-12', 1)$$) AS advance_one;
SELECT pa_try($$SELECT dp_stream.advance('ward_admissions/A',
                  ARRAY[dp_stream.observation(NULL, '2026-01-12', 1)])$$) AS advance_catch_up;
RESET SESSION AUTHORIZATION;

-- 8. Publishing without the right: readers, the analyst and the database
-- owner may not execute publish (42501).
SET SESSION AUTHORIZATION pa_reader;
SELECT pa_try($$SELECT dp_stream.publish('ward_admissions', '2026-01-12', '{}')$$) AS reader;
SET SESSION AUTHORIZATION pa_analyst;
SELECT pa_try($$SELECT dp_stream.publish('ward_admissions', '2026-01-12', '{}')$$) AS analyst;
SET SESSION AUTHORIZATION pa_owner;
SELECT pa_try($$SELECT dp_stream.publish('ward_admissions', '2026-01-12', '{}')$$) AS database_owner;
RESET SESSION AUTHORIZATION;

-- 9. Forged observations, refused before anything is written: no
-- partition, a time off the daily grid, a person at event level, none at
-- person level, a day past `through`, a day before the publication, a
-- NULL flag.  Broken: an observation silently dropped or put in the
-- wrong period (a 12:00 row landing in the day's release).
SET SESSION AUTHORIZATION pa_publisher;
SELECT f.forgery, pa_try(format('SELECT dp_stream.publish(%L, %L, %s%s)', f.publication, '2026-01-12',
                                f.observations, f.extra)) AS result
FROM (VALUES
  ('null partition', 'ward_admissions', $$ARRAY[dp_stream.observation(NULL, '2026-01-12')]$$, ''),
  ('off the grid', 'ward_admissions', $$ARRAY[dp_stream.observation('A', '2026-01-12 12:00')]$$, ''),
  ('person at event level', 'ward_admissions', $$ARRAY[dp_stream.observation('A', '2026-01-12', 1, 'p1')]$$, ''),
  ('no person at person level', 'ward_patients', $$ARRAY[dp_stream.observation('A', '2026-01-12')]$$, ''),
  ('past through', 'ward_admissions', $$ARRAY[dp_stream.observation('A', '2026-01-14')]$$,
   $$, through => '2026-01-13'$$),
  ('before the publication', 'ward_admissions', $$ARRAY[dp_stream.observation('A', '2025-12-31')]$$, ''),
  ('null period', 'ward_admissions', $$ARRAY[dp_stream.observation('A', NULL)]$$, ''),
  ('null fill_missing', 'ward_admissions', $$'{}'$$, ', fill_missing => NULL')) f(forgery, publication, observations, extra)
ORDER BY 1;
-- a NULL partition in the view form
SELECT pa_try($$SELECT dp_publication('ward_admissions', NULL::text)$$) AS null_partition;
RESET SESSION AUTHORIZATION;
SELECT count(*) AS releases_after_forgeries FROM dp_stream.publication_releases
WHERE publication = 'ward_admissions';

-- 10. Person level: p1's six admissions in three wards, published in two
-- calls, count twice at most (k = 2, across partitions and calls); two
-- other patients' keep theirs.  The table holds 16-byte keyed tags, never
-- an identifier.  Broken: truncation per partition (p1 would count 2 per
-- ward, 6 in all) or per call.
SET SESSION AUTHORIZATION pa_publisher;
SELECT periods, partitions, releases FROM dp_stream.publish('ward_patients', '2026-01-01',
       ARRAY(SELECT dp_stream.observation(ward, day, 1, patient) FROM pa_raw.visits
             WHERE day <= '2026-01-02' ORDER BY patient DESC), through => '2026-01-02');
SELECT periods, partitions, releases FROM dp_stream.publish('ward_patients', '2026-01-03',
       ARRAY(SELECT dp_stream.observation(ward, day, 1, patient) FROM pa_raw.visits
             WHERE day > '2026-01-02'), through => '2026-01-05');
RESET SESSION AUTHORIZATION;
SELECT used, count(*) AS persons, sum(used) AS contributions_used, bool_and(octet_length(person) = 16) AS tags_only,
       bool_and(person NOT IN (convert_to('p1', 'UTF8'), convert_to('p2', 'UTF8'))) AS no_identifier
FROM dp_stream.contributions WHERE publication = 'ward_patients' GROUP BY used ORDER BY used;

-- 11. register_publication, which administrators may execute (it is how
-- create_publication writes), called directly with a plain mechanism for a
-- person-level publication.  135547e registered it, charged 1.0, while its
-- releases are 50 times that for a person; now refused (22023).
SET SESSION AUTHORIZATION pa_publisher;
SELECT pa_try($$SELECT dp_stream.register_publication('ward_forged', dp_binary(0.1, 64, 10),
                  'pa_publisher', 'count', NULL, NULL, false, dp_stream.key_computes('count'),
                  'ward', 'person', 50, 'across_partitions', NULL, '2026-01-01', '1 day', 'hospital')$$)
  AS plain_for_persons,
       pa_try($$SELECT dp_stream.register_publication('ward_forged', dp_person_level(dp_binary(0.1, 64, 10), 1),
                  'pa_publisher', 'count', NULL, NULL, false, dp_stream.key_computes('count'),
                  'ward', 'person', 50, 'across_partitions', NULL, '2026-01-01', '1 day', 'hospital')$$)
  AS fewer_contributions;
RESET SESSION AUTHORIZATION;
SELECT count(*) AS forged_publications FROM dp_stream.publications WHERE name = 'ward_forged';

-- 12. The database owner plants an overload of dp_publication in public,
-- which it owns (pg_database_owner).  With 135547e, publish (running as
-- the extension's owner, a superuser) called public.dp_publication(text,
-- text), the exact match for its text partitions, with a superuser's
-- rights: the plant below records who ran it and returns a mechanism that
-- lets the publish succeed (one noise for all partitions, too).  The
-- extension now owns that signature: the plant is refused; a VARIADIC
-- lookalike loses to the exact signature, and one with a default argument
-- makes the call ambiguous (an error) rather than run.  Each publish runs
-- in a new session, whose plans have not been cached yet.
\c dp_publication_attacks
SET SESSION AUTHORIZATION pa_owner;
CREATE TABLE public.pa_ran (who name, superuser boolean);
GRANT INSERT ON public.pa_ran TO PUBLIC;
SELECT pa_try($$CREATE FUNCTION public.dp_publication(name text, partition text)
                RETURNS dp_mechanism LANGUAGE sql AS
                'INSERT INTO public.pa_ran SELECT current_user, rolsuper FROM pg_roles WHERE rolname = current_user;
                 SELECT mechanism FROM dp_stream.publications WHERE name = $1'$$)
  AS exact_plant;
CREATE FUNCTION public.dp_publication(name text, VARIADIC partition text[])
RETURNS dp_mechanism LANGUAGE sql AS
'INSERT INTO public.pa_ran SELECT current_user, rolsuper FROM pg_roles WHERE rolname = current_user;
 SELECT mechanism FROM dp_stream.publications WHERE name = $1';
RESET SESSION AUTHORIZATION;
SET SESSION AUTHORIZATION pa_publisher;
SELECT pa_try($$SELECT dp_stream.publish('ward_admissions', '2026-01-12',
                  ARRAY[dp_stream.observation('F', '2026-01-12', 1)])$$) AS publish;
RESET SESSION AUTHORIZATION;
\c dp_publication_attacks
SET SESSION AUTHORIZATION pa_owner;
CREATE FUNCTION public.dp_publication(name text, partition text, spare int DEFAULT 0)
RETURNS dp_mechanism LANGUAGE sql AS
'INSERT INTO public.pa_ran SELECT current_user, rolsuper FROM pg_roles WHERE rolname = current_user;
 SELECT mechanism FROM dp_stream.publications WHERE name = $1';
RESET SESSION AUTHORIZATION;
SET SESSION AUTHORIZATION pa_publisher;
SELECT pa_try($$SELECT dp_stream.publish('ward_admissions', '2026-01-13',
                  ARRAY[dp_stream.observation('G', '2026-01-13', 1)])$$) AS publish;
RESET SESSION AUTHORIZATION;
SELECT count(*) AS planted_runs, bool_or(superuser) AS as_superuser FROM public.pa_ran;
DROP FUNCTION public.dp_publication(text, VARIADIC text[]), public.dp_publication(text, text, int);

-- 13. A superuser switches keyed noise to the table sampler
-- (dp_stream.use_table_sampler_for_keyed_noise, which warns of a second
-- epsilon for what is computed again).  Person tags must not change with
-- it: with 135547e they were keyed with the table_noise secret when there
-- was one, so every person's count started again at 0 and p1, at k = 2
-- already, had 2 more contributions kept (two tags of 2 each).
SELECT dp_stream.use_table_sampler_for_keyed_noise() > 0 AS switched;
SET SESSION AUTHORIZATION pa_publisher;
SELECT periods, releases FROM dp_stream.publish('ward_patients', '2026-01-06',
       ARRAY[dp_stream.observation('A', '2026-01-06', 1, 'p1'),
             dp_stream.observation('B', '2026-01-06', 1, 'p1'),
             dp_stream.observation('C', '2026-01-06', 1, 'p6')]);
RESET SESSION AUTHORIZATION;
SELECT used, count(*) AS persons, sum(used) AS contributions_used
FROM dp_stream.contributions WHERE publication = 'ward_patients' GROUP BY used ORDER BY used;

\c :regress_database
DROP DATABASE dp_publication_attacks;
DROP ROLE pa_publisher;
DROP ROLE pa_analyst;
DROP ROLE pa_reader;
DROP ROLE pa_admin2;
DROP ROLE pa_owner;
