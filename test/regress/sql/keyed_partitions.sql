-- One key over several partitions (issue 23, hole 2; 0.12.0).
--
-- A publisher publishes, as a materialized view, the running admissions of
-- 30 wards under one registered key.  Up to 0.11.0 every ward drew the same
-- keyed noise wherever its data equalled another ward's, so a reader of the
-- view who knows the other wards' data (the standard adversary) decoded
-- ward 1 from one SELECT.  Now a key that starts a second stream with other
-- data in one query is refused, and dp_keyed(..., partition => ward) gives
-- each partition noise of its own.  The roles are real LOGIN roles; the
-- noise secret is fixed for the test (everything is rolled back), so every
-- figure is reproducible, and each assertion holds for any secret except
-- with the probability stated next to it.
-- A database of its own: the keys, budgets and roles are committed (a key
-- draws nothing in the transaction that registers it), and the other files
-- list the ledger of theirs.
\set regress_database :DBNAME
CREATE DATABASE dp_keyed_partitions;
\c dp_keyed_partitions
SET client_min_messages = warning;
CREATE EXTENSION dp_stream;
RESET client_min_messages;
SET dp_stream.seed = 'keyed_partitions';
-- The roles and the keys are committed before the test's transaction: a key
-- draws no noise in the transaction that registers it (0.12.0).
DROP ROLE IF EXISTS kp_admin;
DROP ROLE IF EXISTS kp_publisher;
DROP ROLE IF EXISTS kp_reader;
CREATE ROLE kp_admin LOGIN IN ROLE dp_stream_admin;
CREATE ROLE kp_publisher LOGIN;
CREATE ROLE kp_reader LOGIN;
SELECT dp_stream.create_budget('pin_budget', 10);
SELECT dp_stream.create_key('pin_count', dp_binary(epsilon => 1.0, horizon => 20, max_per_step => 5),
                            'pin_budget') IS NOT NULL AS registered;
SELECT dp_stream.create_key('pin_avg', dp_hybrid(epsilon => 1.0, max_per_step => 1), 'pin_budget',
                            statistic => 'average', lower => 0, upper => 5) IS NOT NULL AS registered;
SELECT dp_stream.create_key('pin_sum', dp_two_level(1.0, 20, 1), 'pin_budget', statistic => 'sum',
                            lower => 0, upper => 5, integer_values => true) IS NOT NULL AS registered;
SET ROLE kp_admin;
SELECT dp_stream.create_budget('wards', 10);
SELECT dp_stream.create_key('ward_admissions',
                            dp_binary(epsilon => 1.0, horizon => 50, max_per_step => 50),
                            'wards', used_by => 'kp_publisher') IS NOT NULL AS registered;
SELECT dp_stream.create_key('ward_average', dp_hybrid(epsilon => 1.0, max_per_step => 1), 'wards',
                            used_by => 'kp_publisher', statistic => 'average',
                            lower => 0, upper => 3) IS NOT NULL AS registered;
SELECT dp_stream.create_key('ward_variance', dp_hybrid(epsilon => 1.0, max_per_step => 1), 'wards',
                            used_by => 'kp_publisher', statistic => 'variance',
                            lower => 0, upper => 3) IS NOT NULL AS registered;
SELECT dp_stream.create_key('ward_sum', dp_hybrid(epsilon => 1.0, max_per_step => 1), 'wards',
                            used_by => 'kp_publisher', statistic => 'sum',
                            lower => 0, upper => 3, integer_values => true) IS NOT NULL AS registered;
RESET ROLE;

\set ON_ERROR_ROLLBACK on
BEGIN;
INSERT INTO dp_stream.secrets (id, purpose, secret, created_at)
VALUES (101, 'table_noise', decode(repeat('5a', 32), 'hex'), '2000-01-01'),
       (102, 'noise', decode(repeat('3c', 32), 'hex'), '2000-01-01');
-- keys record the noise secret they draw under (0.15.0): the fixed one;
-- and, for the values of 0.11.0 below, derivation 1 (keys registered before
-- 0.17.0 keep it)
ALTER TABLE dp_stream.keys DISABLE TRIGGER keys_append_only;
UPDATE dp_stream.keys SET noise_secret = dp_stream.keyed_noise_secret(), derivation = 1;
ALTER TABLE dp_stream.keys ENABLE TRIGGER keys_append_only;

-- what a refusal says: its SQLSTATE and message
CREATE FUNCTION public.kp_refusal(query text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
  EXECUTE query;
  RETURN 'accepted';
EXCEPTION WHEN others THEN
  RETURN SQLSTATE || ': ' || SQLERRM;
END $$;

-- 1. Keyed releases without a partition are those of 0.11.0: these values
-- were computed with 0.11.0 under the same fixed secrets.
CREATE TEMP TABLE pin_data AS SELECT t, (t * 7) % 6 AS n FROM generate_series(1, 20) t;
CREATE TEMP VIEW pinned AS
SELECT string_agg(c::text, ' ' ORDER BY t) AS count_window,
       (SELECT dp_count(n, dp_keyed(dp_binary(epsilon => 1.0, horizon => 20, max_per_step => 5),
                                    'pin_count') ORDER BY t) FROM pin_data) AS count_plain,
       (SELECT round(dp_avg(n, 0, 5, dp_keyed(dp_hybrid(epsilon => 1.0, max_per_step => 1), 'pin_avg')
                            ORDER BY t)::numeric, 9) FROM pin_data) AS avg_plain,
       (SELECT dp_sum(n, 0, 5, dp_keyed(dp_two_level(1.0, 20, 1), 'pin_sum') ORDER BY t)
        FROM pin_data) AS sum_plain,
       (SELECT dp_estimate(dp_count_state(n, dp_keyed(dp_binary(epsilon => 1.0, horizon => 20, max_per_step => 5), 'pin_count')
                                          ORDER BY t)) FROM pin_data) AS count_state
FROM (SELECT t, dp_count(n, dp_keyed(dp_binary(epsilon => 1.0, horizon => 20, max_per_step => 5),
                                     'pin_count')) OVER (ORDER BY t) AS c
      FROM pin_data) w;
\x on
SELECT 'table' AS sampler, * FROM pinned;
SAVEPOINT reference_sampler;
DELETE FROM dp_stream.secrets WHERE purpose = 'table_noise';
-- keys record the noise secret they draw under (0.15.0): now the noise secret
ALTER TABLE dp_stream.keys DISABLE TRIGGER keys_append_only;
UPDATE dp_stream.keys SET noise_secret = dp_stream.keyed_noise_secret();
ALTER TABLE dp_stream.keys ENABLE TRIGGER keys_append_only;
SELECT 'reference' AS sampler, * FROM pinned;
ROLLBACK TO reference_sampler;
\x off
-- the rest with the derivation of keys registered since 0.17.0
ALTER TABLE dp_stream.keys DISABLE TRIGGER keys_append_only;
UPDATE dp_stream.keys SET derivation = 2;
ALTER TABLE dp_stream.keys ENABLE TRIGGER keys_append_only;
-- the text of a keyed mechanism without a partition is unchanged too
SELECT dp_keyed(dp_binary(1.0, 20, 5), 'pin_count');

-- 2. The roles: an administrator registers the key for the publisher; the
-- publisher reads the raw data and publishes; the reader may SELECT the
-- published view only, and knows every ward's data but ward 1's (a table
-- of its own: what it learnt elsewhere).
CREATE SCHEMA kp_raw;
CREATE SCHEMA kp AUTHORIZATION kp_publisher;
CREATE SCHEMA kp_known AUTHORIZATION kp_reader;
GRANT USAGE ON SCHEMA kp_raw TO kp_publisher;
-- admissions per ward and day, 0 to 3
CREATE TABLE kp_raw.admissions AS
  SELECT w AS ward, d AS day, abs(hashint4(w * 1000 + d)) % 4 AS n
  FROM generate_series(1, 30) w, generate_series(1, 50) d;
GRANT SELECT ON kp_raw.admissions TO kp_publisher;
CREATE TABLE kp_known.other_wards AS SELECT * FROM kp_raw.admissions WHERE ward <> 1;
ALTER TABLE kp_known.other_wards OWNER TO kp_reader;


-- 3. The view of 0.11.0, one key over 30 PARTITION BY partitions, is refused.
SET ROLE kp_publisher;
SELECT kp_refusal($q$
  CREATE MATERIALIZED VIEW kp.ward_counts AS
  SELECT ward, day,
         dp_count(n, dp_keyed(dp_binary(epsilon => 1.0, horizon => 50, max_per_step => 50),
                              'ward_admissions'))
           OVER (PARTITION BY ward ORDER BY day) AS released
  FROM kp_raw.admissions $q$);
-- with its detail and hint
CREATE MATERIALIZED VIEW kp.ward_counts AS
SELECT ward, day,
       dp_count(n, dp_keyed(dp_binary(epsilon => 1.0, horizon => 50, max_per_step => 50),
                            'ward_admissions'))
         OVER (PARTITION BY ward ORDER BY day) AS released
FROM kp_raw.admissions;
-- with the partition named, it is published
CREATE MATERIALIZED VIEW kp.ward_counts AS
SELECT ward, day,
       dp_count(n, dp_keyed(dp_binary(epsilon => 1.0, horizon => 50, max_per_step => 50),
                            'ward_admissions', partition => ward))
         OVER (PARTITION BY ward ORDER BY day) AS released
FROM kp_raw.admissions;
GRANT USAGE ON SCHEMA kp TO kp_reader;
GRANT SELECT ON kp.ward_counts TO kp_reader;
RESET ROLE;

-- 4. The reader's attack.  Under a key, the noise of a node of the binary
-- tree is its opening term (a function of its position) plus its closing
-- term (a function of its position and content), so two wards whose node
-- holds the same data get the same noisy node.  The node ending at day t
-- covers the days after t - lowbit(t); its noisy value is the difference of
-- the releases at t and at t - lowbit(t).  For each node of ward 1, the
-- reader looks for another ward with the same noisy node and takes its
-- data; the day's value is then the difference of two decoded running
-- counts.
SET ROLE kp_reader;
SELECT count(*) AS raw_rows_readable FROM kp_raw.admissions;
CREATE TEMP TABLE guesses AS
WITH RECURSIVE
noisy AS (
  SELECT v.ward, v.day, v.released - coalesce(p.released, 0) AS noisy
  FROM kp.ward_counts v
  LEFT JOIN kp.ward_counts p ON p.ward = v.ward AND p.day = v.day - (v.day & -v.day)),
known AS (
  SELECT o.ward, d.day, sum(o.n) AS data
  FROM kp_known.other_wards o
  JOIN generate_series(1, 50) d(day) ON o.day > d.day - (d.day & -d.day) AND o.day <= d.day
  GROUP BY o.ward, d.day),
node AS (           -- ward 1's node ending at each day, decoded where a ward matches
  SELECT a.day, mode() WITHIN GROUP (ORDER BY k.data) AS data
  FROM noisy a
  LEFT JOIN noisy b ON b.day = a.day AND b.ward <> 1 AND b.noisy = a.noisy
  LEFT JOIN known k ON k.ward = b.ward AND k.day = b.day
  WHERE a.ward = 1
  GROUP BY a.day),
chain AS (          -- the nodes whose sum is the running count at each day
  SELECT day AS upto, day AS node FROM generate_series(1, 50) day
  UNION ALL
  SELECT upto, node - (node & -node) FROM chain WHERE node - (node & -node) > 0),
running AS (
  SELECT c.upto AS day, CASE WHEN bool_and(n.data IS NOT NULL) THEN sum(n.data) END AS total
  FROM chain c JOIN node n ON n.day = c.node
  GROUP BY c.upto
  UNION ALL SELECT 0, 0)
SELECT r.day, r.total - p.total AS guess
FROM running r JOIN running p ON p.day = r.day - 1;
-- on day 1, wards with equal data no longer get equal releases: the number
-- of distinct releases is about the number of wards (30).  Two wards'
-- releases are equal with probability at most max P(X = k) = 1/600 for one
-- closing term X of scale 300 (dp_error_sd = 600 for two terms), so fewer
-- than 8 of the 435 pairs collide except with probability ~1e-6.  0.11.0
-- gave as many distinct releases as distinct day-1 counts (at most 4).
SELECT count(*) AS wards, count(DISTINCT released) >= 22 AS distinct_releases_day_1
FROM kp.ward_counts WHERE day = 1;
RESET ROLE;
SELECT count(DISTINCT n) AS distinct_counts_day_1 FROM kp_raw.admissions WHERE day = 1;
-- what the attack recovered of ward 1: on 0.11.0, 45 of 50 days exactly and
-- none wrong (the same for any secret: equal data, equal noise).
-- Now a day gets a guess only where a node of ward 1 matches another ward
-- by chance (probability at most 29/600 per node, independently): more
-- than 12 such nodes among 50 has probability below 1e-6.
SELECT count(*) FILTER (WHERE g.guess = a.n) <= 12 AS at_most_chance,
       count(*) FILTER (WHERE g.guess IS NOT NULL) <= 12 AS few_guesses
FROM guesses g JOIN kp_raw.admissions a ON a.ward = 1 AND a.day = g.day;

-- 5. The same data under one key and partition is still accepted and gives
-- the same releases: a refresh, a self-join, LATERAL, and streams of
-- identical data in several window partitions.
SET ROLE kp_publisher;
CREATE TABLE kp.before_refresh AS SELECT * FROM kp.ward_counts;
REFRESH MATERIALIZED VIEW kp.ward_counts;
SELECT count(*) AS changed_by_refresh
FROM ((TABLE kp.ward_counts EXCEPT TABLE kp.before_refresh)
      UNION ALL (TABLE kp.before_refresh EXCEPT TABLE kp.ward_counts)) d;
CREATE VIEW kp.ward_counts_live AS
SELECT ward, day,
       dp_count(n, dp_keyed(dp_binary(epsilon => 1.0, horizon => 50, max_per_step => 50),
                            'ward_admissions', partition => ward))
         OVER (PARTITION BY ward ORDER BY day) AS released
FROM kp_raw.admissions;
SELECT count(*) AS rows, bool_and(a.released = b.released) AS self_join_equal,
       bool_and(a.released = m.released) AS equal_to_view
FROM kp.ward_counts_live a JOIN kp.ward_counts_live b USING (ward, day)
JOIN kp.ward_counts m USING (ward, day);
SELECT count(*) AS runs, count(DISTINCT r) AS distinct_results
FROM generate_series(1, 3) k,
     LATERAL (SELECT dp_count(n, dp_keyed(dp_binary(1.0, 50, 50), 'ward_admissions',
                                          partition => 1) ORDER BY day) + k * 0 AS r
              FROM kp_raw.admissions WHERE ward = 1) s;
-- ward 1's data copied into three window partitions, without a partition
SELECT count(DISTINCT released) AS distinct_copies
FROM (SELECT k, day, dp_count(n, dp_keyed(dp_binary(1.0, 50, 50), 'ward_admissions'))
                       OVER (PARTITION BY k ORDER BY day) AS released
      FROM kp_raw.admissions, generate_series(1, 3) k WHERE ward = 1) s
WHERE day = 50;
-- a prefix of the same stream is the same stream
SELECT count(*) AS prefixes
FROM generate_series(10, 50, 10) upto,
     LATERAL (SELECT dp_count(n, dp_keyed(dp_binary(1.0, 50, 50), 'ward_admissions')
                              ORDER BY day) AS r
              FROM kp_raw.admissions WHERE ward = 1 AND day <= upto) s;

-- 6. Every other way to start a second stream with other data under one
-- key and partition is refused (0A000).
-- GROUP BY, sorted and hashed (the groups interleave)
SELECT kp_refusal($q$
  SELECT ward, dp_count(n, dp_keyed(dp_binary(1.0, 50, 50), 'ward_admissions') ORDER BY day)
  FROM kp_raw.admissions GROUP BY ward $q$);
SET enable_sort = off;
EXPLAIN (COSTS OFF)
SELECT ward, dp_count(n, dp_keyed(dp_binary(1.0, 50, 50), 'ward_admissions'))
FROM kp_raw.admissions GROUP BY ward;
SELECT kp_refusal($q$
  SELECT ward, dp_count(n, dp_keyed(dp_binary(1.0, 50, 50), 'ward_admissions'))
  FROM kp_raw.admissions GROUP BY ward $q$);
SELECT count(*) AS hashed_groups_with_partition
FROM (SELECT ward, dp_count(n, dp_keyed(dp_binary(1.0, 50, 50), 'ward_admissions',
                                        partition => ward))
      FROM kp_raw.admissions GROUP BY ward) s;
RESET enable_sort;
-- two aggregate calls of one query over different columns
SELECT kp_refusal($q$
  SELECT day, dp_count(n, dp_keyed(dp_binary(1.0, 50, 50), 'ward_admissions')) OVER w,
              dp_count(3 - n, dp_keyed(dp_binary(1.0, 50, 50), 'ward_admissions')) OVER w
  FROM kp_raw.admissions WHERE ward = 1 WINDOW w AS (ORDER BY day) $q$);
-- a subquery against the outer query
SELECT kp_refusal($q$
  SELECT dp_count(n, dp_keyed(dp_binary(1.0, 50, 50), 'ward_admissions') ORDER BY day),
         (SELECT dp_count(n, dp_keyed(dp_binary(1.0, 50, 50), 'ward_admissions') ORDER BY day)
          FROM kp_raw.admissions WHERE ward = 2)
  FROM kp_raw.admissions WHERE ward = 1 $q$);
-- a partition named, but the same for every ward
SELECT kp_refusal($q$
  SELECT ward, dp_count(n, dp_keyed(dp_binary(1.0, 50, 50), 'ward_admissions',
                                    partition => 'all')) OVER (PARTITION BY ward ORDER BY day)
  FROM kp_raw.admissions $q$);
-- statistics: windows, dp_summary and the state aggregates
SELECT kp_refusal($q$
  SELECT dp_avg(n, 0, 3, dp_keyed(dp_hybrid(1.0, 1), 'ward_average'))
           OVER (PARTITION BY ward ORDER BY day)
  FROM kp_raw.admissions $q$);
SELECT kp_refusal($q$
  SELECT dp_summary(n, 0, 3, dp_keyed(dp_hybrid(1.0, 1), 'ward_variance'))
           OVER (PARTITION BY ward ORDER BY day)
  FROM kp_raw.admissions $q$);
SELECT kp_refusal($q$
  SELECT dp_variance(n, 0, 3, dp_keyed(dp_hybrid(1.0, 1), 'ward_variance'))
           OVER (PARTITION BY ward ORDER BY day)
  FROM kp_raw.admissions $q$);
SELECT kp_refusal($q$
  SELECT ward, dp_sum(n, 0, 3, dp_keyed(dp_hybrid(1.0, 1), 'ward_sum') ORDER BY day)
  FROM kp_raw.admissions GROUP BY ward $q$);
SELECT kp_refusal($q$
  SELECT ward, dp_avg_state(n, 0, 3, dp_keyed(dp_hybrid(1.0, 1), 'ward_average') ORDER BY day)
  FROM kp_raw.admissions GROUP BY ward $q$);
SELECT kp_refusal($q$
  SELECT ward, dp_count_state(n, dp_keyed(dp_binary(1.0, 50, 50), 'ward_admissions')
                              ORDER BY day)
  FROM kp_raw.admissions GROUP BY ward $q$);
-- with the partition, each is accepted; the noisy sums of day 50 differ
-- between wards (real-valued noise: equal ones have probability 0)
SELECT count(*) AS rows, count(w.a) > 0 AS averages,
       count(DISTINCT (w.s).sum) >= 22 AS distinct_sums_day_50,
       count(w.i) AS integer_sums
FROM (SELECT ward, day,
             dp_avg(n, 0, 3, dp_keyed(dp_hybrid(1.0, 1), 'ward_average', partition => ward))
               OVER (PARTITION BY ward ORDER BY day) AS a,
             dp_sum(n, 0, 3, dp_keyed(dp_hybrid(1.0, 1), 'ward_sum', partition => ward))
               OVER (PARTITION BY ward ORDER BY day) AS i,
             dp_summary(n, 0, 3, dp_keyed(dp_hybrid(1.0, 1), 'ward_variance', partition => ward))
               OVER (PARTITION BY ward ORDER BY day) AS s
      FROM kp_raw.admissions) w
WHERE day = 50;
CREATE TABLE kp.ward_states AS
SELECT ward, dp_count_state(n, dp_keyed(dp_binary(1.0, 50, 50), 'ward_admissions',
                                        partition => ward) ORDER BY day) AS c,
       dp_avg_state(n, 0, 3, dp_keyed(dp_hybrid(1.0, 1), 'ward_average', partition => ward)
                    ORDER BY day) AS a
FROM kp_raw.admissions WHERE day <= 40 GROUP BY ward;
-- a state carries its noise key, not its partition; its key's role may push it
SELECT count(*) AS states, count(DISTINCT dp_mechanism(c)::text) AS mechanisms,
       bool_and(dp_mechanism(c)::text NOT LIKE '%partition%') AS no_partition_in_state,
       count(DISTINCT dp_estimate(c)) >= 22 AS distinct_releases,
       bool_and(dp_steps(dp_push(c, 1)) = 41) AS pushed,
       bool_and(dp_steps(dp_push(a, 1.5)) = 41) AS pushed_average
FROM kp.ward_states;
RESET ROLE;

-- 7. The partition: its type, its text form, its registration.
SELECT dp_keyed(dp_binary(1.0, 50, 50), 'ward_admissions', partition => 7);
-- the text names the partition: 7 and '7' are one partition
SELECT dp_keyed(dp_binary(1.0, 50, 50), 'ward_admissions', partition => 7)::text =
       dp_keyed(dp_binary(1.0, 50, 50), 'ward_admissions', partition => '7')::text AS same,
       dp_keyed(dp_binary(1.0, 50, 50), 'ward_admissions', partition => 7)::text =
       dp_keyed(dp_binary(1.0, 50, 50), 'ward_admissions', partition => 8)::text AS other;
-- the text form round-trips (the binary forms: test/unit/test_codec.c); dp_key_of is the key
SELECT m::text::dp_mechanism::text = m::text AS text_round_trip, dp_key_of(m)
FROM (SELECT dp_keyed(dp_hybrid(1.0, 1), 'ward_average', partition => 'north') AS m) s;
SELECT dp_keyed(dp_binary(1.0, 50, 50), 'ward_admissions', partition => NULL::int);
SELECT dp_keyed(dp_binary(1.0, 50, 50), 'ward_admissions', partition => now());
SELECT dp_keyed(dp_binary(1.0, 50, 50), 'ward_admissions', partition => 1.5::float8);
-- the partition is not part of the registration: another mechanism is
-- still refused, and a role other than the key's still may not draw
SET ROLE kp_publisher;
SELECT dp_count(n, dp_keyed(dp_binary(2.0, 50, 50), 'ward_admissions', partition => 1))
FROM kp_raw.admissions WHERE ward = 1;
RESET ROLE;
SET ROLE kp_reader;
SELECT dp_count(n, dp_keyed(dp_binary(1.0, 50, 50), 'ward_admissions', partition => 1))
FROM generate_series(1, 3) n;
RESET ROLE;
-- a partition is for a keyed mechanism only
SELECT 'binary(epsilon=1,horizon=50,max_per_step=50,partition=0123456789abcdef0123456789abcdef)'::dp_mechanism;
SELECT 'binary(epsilon=1,horizon=50,max_per_step=50,pan_private=true,key=k,partition=00000000000000000000000000000000)'::dp_mechanism;
ROLLBACK;
-- the roles go; their keys stay registered (dp_stream.keys is append-only)
DROP ROLE kp_admin;
DROP ROLE kp_publisher;
DROP ROLE kp_reader;
\c :regress_database
DROP DATABASE dp_keyed_partitions;
