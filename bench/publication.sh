#!/usr/bin/env bash
# A keyed publication of many meters (docs/publications.md), measured:
#   - one charge for the whole publication;
#   - the nightly refresh of a materialized view of dp_summary per meter
#     against the same view with plain avg/var_samp, interleaved, median of
#     the repetitions (REFRESH wall time from psql's \timing);
#   - every refresh reproduces every release (md5 of the view);
#   - meters with equal data get different releases;
#   - one set-based dp_stream.publish of a day of every meter (the first day,
#     which creates the partitions, and the median of the following days).
# Runs in a throwaway cluster.  BENCH_METERS, BENCH_DAYS, BENCH_REPS,
# BENCH_PUBLISH_DAYS, BENCH_MECHANISM (default dp_two_level(1.0, days + 1, 1));
# BENCH_QUICK=1 for a small run.
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p bench/out
scripts/setup.sh
make -s
. scripts/cluster.sh
dp_install_extension
dp_cluster_start

meters=${BENCH_METERS:-10000}
days=${BENCH_DAYS:-365}
reps=${BENCH_REPS:-3}
publish_days=${BENCH_PUBLISH_DAYS:-6}
if [ -n "${BENCH_QUICK:-}" ]; then meters=500; days=60; reps=3; publish_days=4; fi
mechanism=${BENCH_MECHANISM:-"dp_two_level(1.0, $((days + 1)), 1)"}

psql -X -q -v ON_ERROR_STOP=1 <<SQL
CREATE EXTENSION dp_stream;
CREATE TABLE readings AS
  SELECT m AS meter, date '2026-01-01' + d AS day,
         CASE WHEN m <= 2 THEN 12.5 ELSE (hashint4(m * 1000 + d) & 4095) / 100.0 END AS kwh
  FROM generate_series(1, $meters) m, generate_series(0, $days - 1) d ORDER BY m, d;
CREATE INDEX ON readings (meter, day);
CREATE INDEX ON readings (day);
VACUUM ANALYZE readings;
SELECT dp_stream.create_budget('meter_data', 2.0);
SELECT dp_stream.create_publication('meter_kwh', 'summary', $mechanism, 0, 50,
                                    partition_by => 'meter', dataset => 'meter_data',
                                    first_period => '2026-01-01');
SQL
psql -X -q -v ON_ERROR_STOP=1 <<SQL
CREATE MATERIALIZED VIEW private_view AS
SELECT meter, day, dp_summary(kwh, 0, 50, dp_publication('meter_kwh', meter))
                     OVER (PARTITION BY meter ORDER BY day) AS s
FROM readings;
CREATE MATERIALIZED VIEW plain_view AS
SELECT meter, day, avg(kwh) OVER w AS a, var_samp(kwh) OVER w AS v
FROM readings WINDOW w AS (PARTITION BY meter ORDER BY day);
SQL

. bench/timing.sh
digest() { psql -X -At -c "SELECT md5(string_agg(s::text, ',' ORDER BY meter, day)) FROM private_view"; }

first=$(digest)
: >bench/out/plain_refresh.ms; : >bench/out/private_refresh.ms
same=yes
for i in $(seq "$reps"); do
  run_ms "REFRESH MATERIALIZED VIEW plain_view" >>bench/out/plain_refresh.ms
  run_ms "REFRESH MATERIALIZED VIEW private_view" >>bench/out/private_refresh.ms
  [ "$(digest)" = "$first" ] || same=no
done
plain=$(median <bench/out/plain_refresh.ms)
private=$(median <bench/out/private_refresh.ms)
equal=$(psql -X -At -c "SELECT count(*) FILTER (WHERE a.s IS NOT DISTINCT FROM b.s) || ' of ' || count(*)
  FROM private_view a JOIN private_view b ON a.day = b.day AND a.meter = 1 AND b.meter = 2")
charges=$(psql -X -At -c "SELECT count(*) || ' charge(s), epsilon ' || sum(epsilon) FROM dp_stream.charges")

: >bench/out/publish.ms
first_publish=""
for d in $(seq 0 $((publish_days - 1))); do
  ms=$(run_ms "SELECT * FROM dp_stream.publish('meter_kwh', date '2026-01-01' + $d,
                 ARRAY(SELECT dp_stream.observation(meter::text, day, kwh)
                       FROM readings WHERE day = date '2026-01-01' + $d))")
  if [ -z "$first_publish" ]; then first_publish=$ms; else echo "$ms" >>bench/out/publish.ms; fi
done
steady=$(median <bench/out/publish.ms)
same_as_view=$(psql -X -At -c "SELECT count(*) FILTER (WHERE p.summary IS NOT DISTINCT FROM v.s) || ' of ' || count(*)
  FROM dp_stream.publication_releases p JOIN private_view v ON v.meter::text = p.partition AND v.day = p.period")

{
  echo "A keyed publication: $meters meters x $days days, dp_summary(kwh, 0, 50, dp_publication(...)), $mechanism"
  echo "(median of $reps interleaved refreshes; publish: $publish_days nights)"
  printf '%-52s %s\n' "charges for the publication" "$charges"
  printf '%-52s %12.0f ms\n' "REFRESH plain view (avg, var_samp)" "$plain"
  printf '%-52s %12.0f ms\n' "REFRESH private view (dp_summary, keyed)" "$private"
  printf '%-52s %12.2f\n' "ratio" "$(echo "$private / $plain" | bc -l)"
  printf '%-52s %s\n' "every refresh reproduces every release (md5)" "$same"
  printf '%-52s %s\n' "equal releases of meters 1 and 2 (equal data)" "$equal"
  printf '%-52s %12.0f ms\n' "publish, first night ($meters new partitions)" "$first_publish"
  printf '%-52s %12.0f ms\n' "publish, a later night (median)" "$steady"
  printf '%-52s %s\n' "managed releases equal to the view's" "$same_as_view"
} | tee bench/out/publication.txt
