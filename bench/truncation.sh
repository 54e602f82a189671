#!/usr/bin/env bash
# Person-level truncation against noise, on the hospital of
# docs/publications.md (test/fixtures/hospital.sql: 10 wards, 3,000
# patients with 1 to 6 admissions in 2026).  For k = 1, 3, 6 and 10, each
# patient keeps the first k admissions across all wards (what
# dp_stream.publish and the view form of docs/publications.md do), and the
# ward's running count is released with Binary, epsilon 1, horizon 365, at
# person level with k contributions, pan-private as a publication's keyed
# mechanism is (twice the noise terms).  Per ward, at the end of the year:
#   - dropped: admissions beyond each patient's k-th (a bias no band covers);
#   - sd and band: dp_error_sd and the 95% dp_error_bound of the release
#     (public: the same for every ward);
#   - RMSE against all admissions: sqrt(dropped^2 + sd^2), exact (the noise
#     has mean 0 and does not depend on the data).
# Nothing here is drawn: every figure is exact for these data.  The
# dropped counts are statistics of the patients, so they are printed for
# the benchmark only; a data owner computes them privately and publishes
# them, if at all, noisily (docs/publications.md).
#   bench/truncation.sh      (a few seconds)
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p bench/out

scripts/setup.sh
make -s
. scripts/cluster.sh
dp_install_extension
dp_cluster_start

psql -X -q -v ON_ERROR_STOP=1 <<'SQL' | tee bench/out/truncation.txt
SET client_min_messages = warning;
CREATE EXTENSION dp_stream;
\i test/fixtures/hospital.sql
CREATE TEMP TABLE ranked AS
SELECT ward, row_number() OVER (PARTITION BY patient_id ORDER BY admitted, ward) AS nth
FROM admissions;
CREATE TEMP TABLE ks AS
SELECT k, dp_error_sd(m, 365) AS sd, dp_error_bound(m, 365, 0.95) AS band
FROM (SELECT k, dp_person_level('binary(epsilon=1,horizon=365,max_per_step=100,pan_private=true)'::dp_mechanism, k) AS m
      FROM unnest(ARRAY[1, 3, 6, 10]::bigint[]) k) x;
CREATE TEMP TABLE per_ward AS
SELECT ks.k, r.ward, count(*) AS admissions, count(*) FILTER (WHERE r.nth > ks.k) AS dropped,
       max(ks.sd) AS sd, max(ks.band) AS band
FROM ks CROSS JOIN ranked r
GROUP BY ks.k, r.ward;
\pset footer off
\echo 'Truncation across wards against noise, Binary, epsilon 1, horizon 365, day 365 (exact):'
\echo
SELECT k, sum(admissions) AS admissions, sum(dropped) AS dropped,
       round(100.0 * sum(dropped) / sum(admissions), 1) AS dropped_pct,
       round(min(100.0 * dropped / admissions), 1) AS least_ward_pct,
       round(max(100.0 * dropped / admissions), 1) AS most_ward_pct,
       round(max(sd)::numeric, 1) AS sd, round(max(band)::numeric) AS band_95
FROM per_ward GROUP BY k ORDER BY k;
\echo
\echo 'Per ward: dropped admissions / RMSE against all admissions (sqrt(dropped^2 + sd^2)):'
\echo
SELECT ward, max(admissions) AS admissions,
       max(dropped) FILTER (WHERE k = 1) || ' / ' ||
         round(sqrt(max(dropped ^ 2 + sd ^ 2) FILTER (WHERE k = 1))::numeric) AS "k = 1",
       max(dropped) FILTER (WHERE k = 3) || ' / ' ||
         round(sqrt(max(dropped ^ 2 + sd ^ 2) FILTER (WHERE k = 3))::numeric) AS "k = 3",
       max(dropped) FILTER (WHERE k = 6) || ' / ' ||
         round(sqrt(max(dropped ^ 2 + sd ^ 2) FILTER (WHERE k = 6))::numeric) AS "k = 6",
       max(dropped) FILTER (WHERE k = 10) || ' / ' ||
         round(sqrt(max(dropped ^ 2 + sd ^ 2) FILTER (WHERE k = 10))::numeric) AS "k = 10"
FROM per_ward GROUP BY ward ORDER BY max(admissions) DESC;
SQL
