-- A person across partitions (issue 24, item 3; 0.13.0).
--
-- A hospital publishes a running count of admissions per ward, protecting
-- each PATIENT (k = 3 admissions in the whole publication), not each ward's
-- day.  A patient admitted to several wards is in several partitions: the
-- ward streams compose in parallel only if the patient is truncated to k
-- contributions across all wards together.  Checked here:
--   1. create_publication refuses truncation per partition unless told how
--      many partitions a person reaches (22023), and then charges m times
--      epsilon, once;
--   2. publish truncates each patient to their first 3 admissions across all
--      wards (and across calls), deterministically: the releases are those of
--      the view form with the truncation written in SQL, whatever the order
--      of the observations;
--   3. the 95% bands cover: over 400 independent streams (40 publications x
--      10 wards), the releases of the last day fall inside their band at
--      least as often as a binomial(400, 0.95) does, except with probability
--      1e-6.
-- A database of its own: publications are committed (a key draws nothing in
-- the transaction that registers it) and stay in the ledger.  The noise
-- secret is fixed for the part that draws (rolled back), so every figure is
-- reproducible; each assertion also holds for any secret, except with the
-- probability stated next to it.
\set regress_database :DBNAME
CREATE DATABASE dp_publication_persons;
\c dp_publication_persons
SET client_min_messages = warning;
CREATE EXTENSION dp_stream;
RESET client_min_messages;

CREATE FUNCTION refusal(query text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
  EXECUTE query;
  RETURN 'accepted';
EXCEPTION WHEN others THEN
  RETURN SQLSTATE || ': ' || SQLERRM;
END $$;

-- The data of docs/publications.md (test/fixtures/hospital.sql).
\i test/fixtures/hospital.sql
SELECT (SELECT count(*) FROM admissions) AS admissions,
       (SELECT count(*) FROM kept_admissions) AS kept,
       (SELECT count(*) FROM (SELECT patient_id FROM admissions GROUP BY 1
                              HAVING count(DISTINCT ward) > 1) p) AS patients_in_several_wards,
       (SELECT max(n) FROM (SELECT count(*) AS n FROM admissions GROUP BY ward, admitted) d)
         AS busiest_ward_day;
-- Truncating per ward instead would keep up to 3 in EACH ward: patients
-- whose kept admissions exceed 3 in total are protected at more than k.
SELECT count(*) AS patients_over_k_if_truncated_per_ward, max(kept) AS most_kept_for_one_patient
FROM (SELECT patient_id, sum(least(n, 3)) AS kept
      FROM (SELECT patient_id, ward, count(*) AS n FROM admissions GROUP BY 1, 2) x
      GROUP BY 1 HAVING sum(least(n, 3)) > 3) y;

-- 1. Truncation per partition: refused without partitions_per_person,
-- charged m x epsilon (one charge) with it.
SELECT dp_stream.create_budget('hospital', 100);
SELECT refusal($$SELECT dp_stream.create_publication('per_ward', 'count',
                   dp_binary(epsilon => 0.5, horizon => 365, max_per_step => 100),
                   partition_by => 'ward', privacy_unit => 'person', contributions => 3,
                   truncation => 'per_partition', dataset => 'hospital')$$);
SELECT count(*) AS charges_after_refusal FROM dp_stream.charges WHERE dataset = 'hospital';
SELECT count(*) AS publications_after_refusal FROM dp_stream.publications;
SELECT dp_stream.create_publication('per_ward', 'count',
         dp_binary(epsilon => 0.5, horizon => 365, max_per_step => 100),
         partition_by => 'ward', privacy_unit => 'person', contributions => 3,
         truncation => 'per_partition', partitions_per_person => 4, dataset => 'hospital');
-- across partitions: one epsilon for every ward
SELECT dp_stream.create_publication('ward_admissions', 'count',
         dp_binary(epsilon => 1.0, horizon => 365, max_per_step => 100),
         partition_by => 'ward', privacy_unit => 'person', contributions => 3,
         dataset => 'hospital', first_period => '2026-01-01');
-- the ledger: exactly one charge per publication, m x epsilon = 4 x 0.5 for
-- per_ward (ledger amounts are rounded up at the ninth decimal)
SELECT publication, privacy_unit, epsilon, purpose, remaining_after
FROM dp_stream.spending WHERE dataset = 'hospital' ORDER BY charged_at, epsilon;
SELECT p.name, p.truncation, p.partitions_per_person, p.epsilon,
       p.epsilon = dp_stream.ledger_amount(dp_epsilon(p.mechanism) * coalesce(p.partitions_per_person, 1), 'up')
         AS charged_m_times_epsilon,
       (SELECT count(*) FROM dp_stream.charges AS c WHERE c.id = p.charge) AS its_charges
FROM dp_stream.publications AS p ORDER BY p.name;
SELECT count(*) AS charges FROM dp_stream.charges WHERE dataset = 'hospital';

-- 3's publications, one key each: independent noise for (publication, ward)
SELECT count(dp_stream.create_publication(format('coverage_%s', lpad(i::text, 2, '0')), 'count',
                                          dp_binary(epsilon => 1.0, horizon => 365, max_per_step => 100),
                                          partition_by => 'ward', privacy_unit => 'person',
                                          contributions => 3, first_period => '2026-01-01'))
         AS coverage_publications
FROM generate_series(1, 40) i;

\set ON_ERROR_ROLLBACK on
BEGIN;
-- a fixed noise secret (the oldest 'noise' secret is the one used)
INSERT INTO dp_stream.secrets (id, purpose, secret, created_at)
VALUES (101, 'noise', decode(repeat('c3', 32), 'hex'), '2000-01-01');
-- keys record the noise secret they draw under (0.15.0): the fixed one
ALTER TABLE dp_stream.keys DISABLE TRIGGER keys_append_only;
UPDATE dp_stream.keys SET noise_secret = dp_stream.keyed_noise_secret();
ALTER TABLE dp_stream.keys ENABLE TRIGGER keys_append_only;

-- 2. The view form: wards x days (a public axis) left join the truncated
-- counts, one keyed stream per ward.
CREATE TEMP TABLE view_releases AS
SELECT w.ward, d.day,
       dp_count(a.n, dp_publication('ward_admissions', w.ward))
         OVER (PARTITION BY w.ward ORDER BY d.day) AS estimate,
       dp_error_bound(dp_publication('ward_admissions', w.ward),
                      (d.day - date '2026-01-01' + 1)::bigint, 0.95) AS error_bound
FROM wards w
CROSS JOIN (SELECT g::date AS day
            FROM generate_series(date '2026-01-01', date '2026-12-31', interval '1 day') g) d
LEFT JOIN (SELECT ward, admitted AS day, count(*) AS n FROM kept_admissions GROUP BY 1, 2) a
  USING (ward, day);
-- a publication's releases against the view form's
CREATE TEMP VIEW against_view AS
SELECT count(*) AS releases,
       count(*) FILTER (WHERE r.estimate = v.estimate AND r.error_bound = v.error_bound) AS as_view_form,
       md5(string_agg(r.partition || r.period || r.estimate, ',' ORDER BY r.partition, r.period))
         AS digest
FROM dp_stream.publication_releases AS r
JOIN view_releases AS v ON v.ward = r.partition AND v.day = r.period
WHERE r.publication = 'ward_admissions';
-- what publish kept per patient (dp_stream.contributions holds keyed tags)
CREATE TEMP VIEW kept_per_patient AS
SELECT count(*) AS patients,
       count(*) FILTER (WHERE c.used = least(n.n, 3)) AS kept_min_of_n_and_k,
       max(c.used) AS most_used,
       sum(c.used) AS kept_in_all
FROM (SELECT patient_id, count(*) AS n FROM admissions GROUP BY 1) n
JOIN dp_stream.contributions AS c
  ON c.publication = 'ward_admissions' AND c.person = dp_stream.person_tag('ward_admissions', n.patient_id::text);

-- (a) the year in one call, observations in a shuffled order
SAVEPOINT shuffled;
SELECT dp_stream.publish('ward_admissions', '2026-01-01',
         (SELECT array_agg(dp_stream.observation(ward, admitted, 1, patient_id::text)
                           ORDER BY hashint4(patient_id * 7919 + (admitted - date '2026-01-01')), ward)
          FROM admissions),
         through => '2026-12-31');
SELECT releases, as_view_form FROM against_view;
SELECT digest AS shuffled_digest FROM against_view \gset
SELECT * FROM kept_per_patient;
ROLLBACK TO SAVEPOINT shuffled;
-- (b) the same year, observations in the reverse order: the same releases
SAVEPOINT reversed;
SELECT dp_stream.publish('ward_admissions', '2026-01-01',
         (SELECT array_agg(dp_stream.observation(ward, admitted, 1, patient_id::text)
                           ORDER BY admitted DESC, ward DESC, patient_id DESC)
          FROM admissions),
         through => '2026-12-31');
SELECT releases, as_view_form, digest = :'shuffled_digest' AS same_as_shuffled FROM against_view;
ROLLBACK TO SAVEPOINT reversed;
-- (c) in two calls, half a year each: a patient's admissions counted in the
-- first call count against k in the second
SAVEPOINT halves;
SELECT dp_stream.publish('ward_admissions', '2026-01-01',
         (SELECT array_agg(dp_stream.observation(ward, admitted, 1, patient_id::text))
          FROM admissions WHERE admitted < '2026-07-01'),
         through => '2026-06-30');
SELECT dp_stream.publish('ward_admissions', '2026-07-01',
         (SELECT array_agg(dp_stream.observation(ward, admitted, 1, patient_id::text))
          FROM admissions WHERE admitted >= '2026-07-01'),
         through => '2026-12-31');
SELECT releases, as_view_form, digest = :'shuffled_digest' AS same_as_shuffled FROM against_view;
SELECT * FROM kept_per_patient;
ROLLBACK TO SAVEPOINT halves;

-- 3. Coverage of the 95% band.  The releases of one stream share noise, so
-- one release per stream is taken: the last day's, of 40 publications x 10
-- wards = 400 streams whose noise is independent (keyed by publication and
-- ward).  Each falls inside its band with probability >= 0.95, so the count
-- inside is at least binomial(400, 0.95); the test's threshold is the least
-- c with P(binomial(400, 0.95) < c) <= 1e-6, computed from the binomial
-- distribution below.
CREATE TEMP TABLE last_day AS
SELECT x.name, x.ward, x.truth,
       dp_count(x.n, dp_publication(x.name, x.ward) ORDER BY x.day) AS estimate,
       dp_error_bound(dp_publication(x.name, x.ward), 365::bigint, 0.95) AS error_bound
FROM (SELECT p.name, w.ward, d.day, a.n,
             t.truth
      FROM dp_stream.publications AS p
      CROSS JOIN wards AS w
      JOIN (SELECT ward, count(*) AS truth FROM kept_admissions GROUP BY 1) t USING (ward)
      CROSS JOIN (SELECT g::date AS day
                  FROM generate_series(date '2026-01-01', date '2026-12-31', interval '1 day') g) d
      LEFT JOIN (SELECT ward, admitted AS day, count(*) AS n FROM kept_admissions GROUP BY 1, 2) a
        USING (ward, day)
      WHERE p.name LIKE 'coverage\_%') x
GROUP BY x.name, x.ward, x.truth;
CREATE TEMP TABLE binomial_threshold AS
WITH RECURSIVE params AS (SELECT 400 AS n, 0.95::float8 AS p),
terms AS (
  -- log P(X = i), from log C(n, i) built up one factor at a time
  SELECT 0 AS i, (SELECT n * ln(1 - p) FROM params) AS log_pmf
  UNION ALL
  SELECT t.i + 1, t.log_pmf + ln((pa.n - t.i)::float8 / (t.i + 1)) + ln(pa.p / (1 - pa.p))
  FROM terms AS t, params AS pa WHERE t.i < pa.n
), cdf AS (
  SELECT i, sum(CASE WHEN log_pmf > -700 THEN exp(log_pmf) ELSE 0 END) OVER (ORDER BY i) AS below_or_at FROM terms
)
SELECT min(i) AS threshold FROM cdf WHERE below_or_at > 1e-6;
SELECT threshold FROM binomial_threshold;
SELECT count(*) AS streams, count(DISTINCT name) AS publications,
       count(*) FILTER (WHERE abs(estimate - truth) <= error_bound) >= (SELECT threshold FROM binomial_threshold)
         AS covered_at_least_threshold,
       count(DISTINCT estimate - truth) > 100 AS noise_differs_between_streams
FROM last_day;
ROLLBACK;

\c :regress_database
DROP DATABASE dp_publication_persons;
