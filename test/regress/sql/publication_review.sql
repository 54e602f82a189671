-- Review of partitioned publications (issue 24; 0.13.0), after the fixes
-- of test/regress/sql/publication_attacks.sql.  Each section is a problem found in the
-- review, shown by a query whose output changed with its fix.  A LOGIN
-- role that is an administrator and the publication's role publishes, as
-- a nightly job would (SET SESSION AUTHORIZATION sets session_user, as a
-- login does).  No noisy figure is printed: only comparisons, counts, and
-- the SQLSTATE and message of refusals, so the output holds for any noise
-- secret.
\set regress_database :DBNAME
CREATE DATABASE dp_publication_review;
\c dp_publication_review
SET client_min_messages = warning;
CREATE EXTENSION dp_stream;
DROP ROLE IF EXISTS pr_publisher;
DROP ROLE IF EXISTS pr_admin2;
RESET client_min_messages;
CREATE ROLE pr_publisher LOGIN IN ROLE dp_stream_admin;
CREATE ROLE pr_admin2 LOGIN IN ROLE dp_stream_admin;

-- what a statement does: 'accepted', or its SQLSTATE and message
CREATE FUNCTION public.pr_try(query text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
  EXECUTE query;
  RETURN 'accepted';
EXCEPTION WHEN others THEN
  RETURN SQLSTATE || ': ' || SQLERRM;
END $$;

-- Two wards; the data start on 3 January (nothing was admitted before).
CREATE TABLE public.pr_admissions (ward text, day timestamp, n int);
INSERT INTO public.pr_admissions
SELECT w, '2026-01-01'::timestamp + d * interval '1 day', (d * 7 + length(w)) % 5
FROM unnest(ARRAY['A', 'BB']) w, generate_series(2, 5) d;
GRANT SELECT ON public.pr_admissions TO pr_publisher;

SET SESSION AUTHORIZATION pr_publisher;
SELECT dp_stream.create_publication('pr_wards', 'count', dp_binary(1.0, 64, 10),
         partition_by => 'ward', first_period => '2026-01-01') IS NOT NULL AS registered;
RESET SESSION AUTHORIZATION;

-- 1. A publication's first publish after its first period.  The job's
-- first night is 3 January, two periods after the registered first one.
-- With 25624b5 the call was accepted without a word: every partition
-- started at 3 January (where "the publication's partitions started" was
-- the first call's period), 1 and 2 January were never released nor
-- marked, and the view form over the publication's axis, which starts at
-- first_period, drew other noise for every release (a partition's noise
-- depends on its steps): a reader of both forms held two independent
-- noisy versions of each release, which publish promises to be one.  Two
-- jobs making a publication's first publish at once, for different
-- periods, gave its partitions different starts the same way
-- (test/isolation/specs/publications.spec).  Now every partition starts at
-- the publication's first_period, and periods before the call's that no
-- partition released are missing: refused (55000), or released without
-- data and marked with fill_missing.
SET SESSION AUTHORIZATION pr_publisher;
SELECT pr_try($$SELECT dp_stream.publish('pr_wards', '2026-01-03',
                  ARRAY(SELECT dp_stream.observation(ward, day, n) FROM public.pr_admissions
                        WHERE day = '2026-01-03'))$$) AS first_night_later;
SELECT periods, partitions, new_partitions, releases, filled_without_data
FROM dp_stream.publish('pr_wards', '2026-01-03',
       ARRAY(SELECT dp_stream.observation(ward, day, n) FROM public.pr_admissions
             WHERE day = '2026-01-03'),
       fill_missing => true);
DO $$
DECLARE
  night timestamp;
BEGIN
  FOR night IN SELECT g FROM generate_series('2026-01-04'::timestamp, '2026-01-06', '1 day') g LOOP
    PERFORM dp_stream.publish('pr_wards', night,
              ARRAY(SELECT dp_stream.observation(ward, day, n) FROM public.pr_admissions
                    WHERE day = night));
  END LOOP;
END $$;
-- the managed releases against the view form over the publication's axis
SELECT count(*) AS releases,
       count(*) FILTER (WHERE r.estimate = v.estimate) AS same_as_view_form,
       count(*) FILTER (WHERE r.filled_without_data) AS marked_without_data
FROM dp_stream.publication_releases AS r
FULL JOIN (SELECT w.ward, d.day,
                  dp_count(a.n, dp_publication('pr_wards', w.ward))
                    OVER (PARTITION BY w.ward ORDER BY d.day) AS estimate
           FROM (VALUES ('A'), ('BB')) AS w(ward)
           CROSS JOIN generate_series('2026-01-01'::timestamp, '2026-01-06', '1 day') AS d(day)
           LEFT JOIN public.pr_admissions AS a ON a.ward = w.ward AND a.day = d.day) AS v
  ON v.ward = r.partition AND v.day = r.period
WHERE r.publication = 'pr_wards' OR r.publication IS NULL;
RESET SESSION AUTHORIZATION;
SELECT partition, min(period) AS first_release, count(*) AS releases
FROM dp_stream.publication_releases WHERE publication = 'pr_wards' GROUP BY 1 ORDER BY 1;

-- 2. Squatting a partition's name.  A partition of publication P is the
-- managed stream "P/partition".  With 25624b5, a second administrator
-- outside the publication's role could create a stream of that name
-- first, with create_stream (or as a partition of a publication named
-- "P/x"): publish then refused the partition for good (a stream is never
-- dropped), and since a publish is all or nothing, every night whose data
-- named it failed for every partition.  Now a publication's name has no
-- "/", so partitions' names never meet across publications; a stream
-- outside a publication may not be named "P/..." for a publication P, and
-- a publication may not be registered while such a stream exists.
SET SESSION AUTHORIZATION pr_admin2;
SELECT pr_try($$SELECT dp_stream.create_stream('pr_wards/C', 'count', dp_binary(1.0, 64, 10),
                  first_period => '2026-01-01')$$) AS squat_stream,
       pr_try($$SELECT dp_stream.create_publication('pr_wards/x', 'count', dp_binary(1.0, 64, 10),
                  first_period => '2026-01-01')$$) AS squat_publication,
       pr_try($$SELECT dp_stream.create_stream('pr_future/A', 'count', dp_binary(1.0, 64, 10),
                  first_period => '2026-01-01')$$) AS ordinary_stream;
RESET SESSION AUTHORIZATION;
SET SESSION AUTHORIZATION pr_publisher;
SELECT pr_try($$SELECT dp_stream.create_publication('pr_future', 'count', dp_binary(1.0, 64, 10),
                  first_period => '2026-01-01')$$) AS over_existing_stream;
SELECT new_partitions, partitions, releases
FROM dp_stream.publish('pr_wards', '2026-01-07',
       ARRAY[dp_stream.observation('A', '2026-01-07', 1), dp_stream.observation('C', '2026-01-07', 2)]);
RESET SESSION AUTHORIZATION;
SELECT name, publication, partition FROM dp_stream.streams
WHERE name LIKE 'pr\_%' ORDER BY name;

-- 3. What a person used, told to an administrator outside the
-- publication's role.  Since test/regress/sql/publication_attacks.sql section 8 only
-- members of used_by write partitions (a trigger on dp_stream.streams),
-- but publish ran its person-level work before the first write: the
-- truncation to k contributions, then, for an average, variance or
-- summary, the check of one observation per partition and period, which
-- sees only the observations kept.  Two observations of a person in one
-- partition and period were refused with 21000 when both were kept (the
-- person had used at most k - 2 contributions) and reached the trigger
-- (42501) otherwise; observations of the person in earlier periods shift
-- the threshold, so a few calls told how many admissions any named
-- patient had.  Now publish refuses a session outside used_by before
-- reading anything: the same 42501 for every person.
SET SESSION AUTHORIZATION pr_publisher;
SELECT dp_stream.create_publication('pr_stays', 'average', dp_binary(1.0, 64, 1), 0, 30,
         partition_by => 'ward', privacy_unit => 'person', contributions => 2,
         first_period => '2026-01-01') IS NOT NULL AS registered;
SELECT periods, releases
FROM dp_stream.publish('pr_stays', '2026-01-01',
       ARRAY[dp_stream.observation('A', '2026-01-01', 4, 'p1'),
             dp_stream.observation('BB', '2026-01-01', 6, 'p1')]);
RESET SESSION AUTHORIZATION;
SET SESSION AUTHORIZATION pr_admin2;
SELECT person,
       pr_try(format($$SELECT dp_stream.publish('pr_stays', '2026-01-02',
                         ARRAY[dp_stream.observation('A', '2026-01-02', 1, %1$L),
                               dp_stream.observation('A', '2026-01-02', 2, %1$L)])$$, person)) AS answer
FROM unnest(ARRAY['p1', 'p9']) AS person;
RESET SESSION AUTHORIZATION;

\c :regress_database
DROP DATABASE dp_publication_review;
DROP ROLE pr_publisher;
DROP ROLE pr_admin2;
