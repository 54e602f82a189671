#!/usr/bin/env bash
# dp_stream on Citus (issue 27), measured on a throwaway coordinator and two
# workers (scripts/citus.sh; Citus built once from DP_PG_SOURCES):
#   - CPU per row of a keyed per-meter window pushed down to the workers,
#     against the same query over a plain table on one node, same data,
#     same run, interleaved: the CPU of every server process of the three
#     nodes (from /proc: postmasters, their live children, and the children
#     they reaped), and the wall time; the sums of the releases must agree;
#   - a nightly publication of BENCH_CITUS_PARTITIONS partitions (meters) on
#     the cluster: a table of keyed stored states, one per meter, advanced by
#     one day with INSERT ... SELECT into a colocated table, the day's
#     releases written, the states swapped, in one transaction
#     (docs/citus.md, "Stored states"); wall time.
# Writes bench/out/citus.txt.  BENCH_CITUS_METERS (default 2000) x
# BENCH_CITUS_DAYS (365) rows for the first, BENCH_CITUS_REPS (7),
# BENCH_CITUS_SHARDS (32) shards, BENCH_CITUS_PARTITIONS (100000) with BENCH_CITUS_HISTORY (30) days of
# history for the second; BENCH_QUICK=1 for a small run.  The extension
# must be installed (make install).
set -uo pipefail
cd "$(dirname "$0")/.."
mkdir -p bench/out
. scripts/citus.sh

if ! dp_citus_build >/dev/null; then
  echo "bench/citus.sh: skipped: ${DP_CITUS_WHY:-Citus does not build}"
  exit 0
fi
dp_citus_install "$DP_CITUS_BUILT" || { echo "bench/citus.sh: cannot install Citus"; exit 1; }

meters=${BENCH_CITUS_METERS:-2000}
days=${BENCH_CITUS_DAYS:-365}
reps=${BENCH_CITUS_REPS:-7}
partitions=${BENCH_CITUS_PARTITIONS:-100000}
history=${BENCH_CITUS_HISTORY:-30}
if [ -n "${BENCH_QUICK:-}" ]; then meters=200; days=60; reps=2; partitions=5000; history=10; fi

export PGOPTIONS='-c client_min_messages=warning'
DP_CITUS_CONF="autovacuum = off
citus.shard_count = ${BENCH_CITUS_SHARDS:-32}"
dp_citus_start 2 >/dev/null 2>&1 || { echo "bench/citus.sh: the cluster did not start"; exit 1; }
hz=$(getconf CLK_TCK)
out=bench/out/citus.txt

cpu_ticks() {  # user + system ticks of every server process of the cluster
  local total=0 d pm pid
  for d in "$DP_CITUS_DIR"/node*; do
    pm=$(head -1 "$d/data/postmaster.pid")
    for pid in $pm $(cat /proc/"$pm"/task/*/children 2>/dev/null); do
      # fields after the command: 12 utime, 13 stime, 14 cutime, 15 cstime
      set -- $(sed -E 's/^[0-9]+ \(.*\) //' /proc/"$pid"/stat 2>/dev/null)
      [ $# -gt 14 ] || continue
      total=$((total + ${12} + ${13}))
      [ "$pid" = "$pm" ] && total=$((total + ${14} + ${15}))
    done
  done
  echo "$total"
}

sql() { psql -X -q -v ON_ERROR_STOP=1 "$@"; }
key="dp_binary(epsilon => 1.0, horizon => 366, max_per_step => 4)"
sql -c "CREATE EXTENSION dp_stream" -c "SELECT dp_stream.citus_sync_secrets()" >/dev/null
sql -c "SELECT dp_stream.create_key('bench_meters', $key)" >/dev/null
sql <<SQL >/dev/null
CREATE TABLE readings (meter int NOT NULL, day int NOT NULL, v int NOT NULL);
INSERT INTO readings SELECT m, d, (m * 7 + d * 3) % 5 FROM generate_series(1, $meters) m, generate_series(1, $days) d;
CREATE TABLE readings_local AS SELECT * FROM readings;
SELECT create_distributed_table('readings', 'meter');
SQL
sql -c "VACUUM ANALYZE readings_local" -c "VACUUM ANALYZE readings"

window="dp_count(v, dp_keyed($key, 'bench_meters', partition => meter)) OVER (PARTITION BY meter ORDER BY day)"
plain="count(v) OVER (PARTITION BY meter ORDER BY day)"
rows=$((meters * days))
ticks_script=$(mktemp)  # cpu_ticks and the time, for psql's \!
{ declare -f cpu_ticks; echo 'cpu_ticks; date +%s.%N'; } >"$ticks_script"
measure() {  # measure WHERE WHAT REP TABLE EXPRESSION [warm]: one line of the table
  local before after start end sum ticks_file
  sleep 1
  if [ "${6:-}" = warm ]; then
    # the same query twice in one session: only the second is measured,
    # its connections to the workers already open
    ticks_file=$(mktemp)
    sum=$(psql -X -At <<SQL
\o /dev/null
SELECT sum(r) FROM (SELECT $5 AS r FROM $4) x;
\o
\! DP_CITUS_DIR=$DP_CITUS_DIR bash $ticks_script >$ticks_file
SELECT sum(r) FROM (SELECT $5 AS r FROM $4) x;
\! sleep 1; DP_CITUS_DIR=$DP_CITUS_DIR bash $ticks_script >>$ticks_file
SQL
)
    before=$(sed -n 1p "$ticks_file"); start=$(sed -n 2p "$ticks_file")
    after=$(sed -n 3p "$ticks_file"); end=$(sed -n 4p "$ticks_file")
    end=$(echo "$end - 1" | bc -l)
    rm -f "$ticks_file"
  else
    before=$(cpu_ticks)
    start=$(date +%s.%N)
    sum=$(psql -X -At -c "SELECT sum(r) FROM (SELECT $5 AS r FROM $4) x")
    end=$(date +%s.%N)
    sleep 1
    after=$(cpu_ticks)
  fi
  printf "%-10s %-11s %4d %10.2f %10.2f %12.2f %s\n" "$1" "$2" "$3" \
    "$(echo "($after - $before) / $hz" | bc -l)" "$(echo "$end - $start" | bc -l)" \
    "$(echo "($after - $before) / $hz * 1000000 / $rows" | bc -l)" "$sum" | tee -a "$out"
}
{
  echo "# dp_stream on Citus: $(pg_config --version), Citus $(dp_citus_version), coordinator + 2 workers, ${BENCH_CITUS_SHARDS:-32} shards, $(nproc) cores"
  echo "# per-meter windows, $meters meters x $days days = $rows rows; CPU of all server processes"
  echo "# keyed: dp_count keyed per meter; plain: count(v) over the same window (what Citus and PostgreSQL cost without dp_stream);"
  echo "# keyed_warm: the keyed query again in a session whose connections to the workers are open"
  printf "%-10s %-11s %4s %10s %10s %12s %s\n" where query rep cpu_s wall_s cpu_us_row sum
} | tee "$out"
for ((rep = 1; rep <= reps; rep++)); do
  measure one_node keyed "$rep" readings_local "$window"
  measure citus keyed "$rep" readings "$window"
  measure one_node plain "$rep" readings_local "$plain"
  measure citus plain "$rep" readings "$plain"
  measure citus keyed_warm "$rep" readings "$window" warm
done
rm -f "$ticks_script"

# the nightly publication of $partitions partitions
sql <<SQL >/dev/null
CREATE TABLE night (meter int NOT NULL, day int NOT NULL, v int NOT NULL);
SELECT create_distributed_table('night', 'meter');
INSERT INTO night SELECT m, d, (m * 7 + d * 3) % 5 FROM generate_series(1, $partitions) m, generate_series(1, $((history + 1))) d;
CREATE TABLE states (meter int NOT NULL, s dp_counter);
CREATE TABLE states_next (meter int NOT NULL, s dp_counter);
CREATE TABLE releases (meter int NOT NULL, day int NOT NULL, released bigint);
SELECT create_distributed_table('states', 'meter', colocate_with => 'night');
SELECT create_distributed_table('states_next', 'meter', colocate_with => 'night');
SELECT create_distributed_table('releases', 'meter', colocate_with => 'night');
INSERT INTO states
SELECT meter, dp_count_state(v, dp_keyed($key, 'bench_meters', partition => meter) ORDER BY day)
FROM night WHERE day <= $history GROUP BY meter;
SQL
start=$(date +%s.%N)
sql <<SQL
BEGIN;
INSERT INTO states_next
SELECT s.meter, dp_push(s.s, n.v) FROM states s JOIN night n ON n.meter = s.meter AND n.day = $((history + 1));
INSERT INTO releases SELECT meter, $((history + 1)), dp_estimate(s) FROM states_next;
TRUNCATE states;
INSERT INTO states SELECT * FROM states_next;
TRUNCATE states_next;
COMMIT;
SQL
end=$(date +%s.%N)
published=$(psql -X -At -c "SELECT count(*) FROM releases")
printf "# nightly publication: %d partitions advanced by one day and released in %.2f s (%d releases)\n" \
  "$partitions" "$(echo "$end - $start" | bc -l)" "$published" | tee -a "$out"
