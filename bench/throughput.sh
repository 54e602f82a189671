#!/usr/bin/env bash
# Throughput: the same window query with dp_count and with sum(), in the same
# run, interleaved, several repetitions; ratio of medians.  Also the stored
# size of a dp_counter.  Runs in a throwaway cluster.
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p bench/out
scripts/setup.sh
make -s
. scripts/cluster.sh
dp_install_extension
dp_cluster_start

rows=${BENCH_ROWS:-10000000}
small_rows=${BENCH_SMALL_ROWS:-2000000}
partitions=${BENCH_PARTITIONS:-100000}
reps=${BENCH_REPS:-5}
if [ -n "${BENCH_QUICK:-}" ]; then rows=200000; small_rows=100000; partitions=2000; reps=3; fi

psql -X -q -v ON_ERROR_STOP=1 <<SQL
CREATE EXTENSION dp_stream;
CREATE TABLE one_stream AS SELECT g::bigint AS t, (hashint8(g) & 1)::bigint AS x
  FROM generate_series(1, $rows) g ORDER BY g;
CREATE INDEX ON one_stream (t);
CREATE TABLE small_stream AS SELECT * FROM one_stream WHERE t <= $small_rows;
CREATE INDEX ON small_stream (t);
CREATE TABLE many_streams AS SELECT k, t, (hashint8(k * 1000 + t) & 1)::bigint AS x
  FROM generate_series(1, $partitions) k, generate_series(1, 365) t ORDER BY k, t;
CREATE INDEX ON many_streams (k, t);
VACUUM ANALYZE;
SQL

. bench/timing.sh
# the plain query's wall time, with the same settings on both sides
run_ms_plan() { run_ms "$1" "max_parallel_workers_per_gather = 0" "enable_sort = off" "work_mem = '64MB'"; }

bench_pair() {
  local label=$1 plain=$2 private=$3 p d
  : >bench/out/plain.ms; : >bench/out/private.ms
  run_ms_plan "$plain" >/dev/null; run_ms_plan "$private" >/dev/null   # warm the cache
  for i in $(seq "$reps"); do
    run_ms_plan "$plain" >>bench/out/plain.ms
    run_ms_plan "$private" >>bench/out/private.ms
  done
  p=$(median <bench/out/plain.ms); d=$(median <bench/out/private.ms)
  printf '%-40s %12.0f %12.0f %8.3f\n' "$label" "$p" "$d" "$(echo "$d / $p" | bc -l)"
  printf '"%s" %s %s\n' "$label" "$p" "$d" >>bench/out/throughput.dat
}

: >bench/out/throughput.dat
{
  echo "Throughput, median of $reps interleaved runs (ms, plain query time), same server, same plan"
  printf '%-40s %12s %12s %8s\n' "query" "plain" "private" "ratio"
  w="ORDER BY t ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW"
  bench_pair "1 stream x $small_rows rows" \
    "SELECT count(c) FROM (SELECT sum(x) OVER ($w) c FROM small_stream) s" \
    "SELECT count(c) FROM (SELECT dp_count(x, dp_binary(1.0, $small_rows, 1)) OVER ($w) c FROM small_stream) s"
  bench_pair "1 stream x $rows rows" \
    "SELECT count(c) FROM (SELECT sum(x) OVER ($w) c FROM one_stream) s" \
    "SELECT count(c) FROM (SELECT dp_count(x, dp_binary(1.0, $rows, 1)) OVER ($w) c FROM one_stream) s"
  bench_pair "$partitions streams x 365 rows" \
    "SELECT count(c) FROM (SELECT sum(x) OVER (PARTITION BY k $w) c FROM many_streams) s" \
    "SELECT count(c) FROM (SELECT dp_count(x, dp_binary(1.0, 365, 1)) OVER (PARTITION BY k $w) c FROM many_streams) s"
  bench_pair "avg: 1 stream x $small_rows rows" \
    "SELECT count(c) FROM (SELECT avg(x::float8) OVER ($w) c FROM small_stream) s" \
    "SELECT count(c) FROM (SELECT dp_avg(x, 0, 1, dp_binary(1.0, $small_rows)) OVER ($w) c FROM small_stream) s"
  bench_pair "variance: 1 stream x $small_rows rows" \
    "SELECT count(c) FROM (SELECT var_samp(x::float8) OVER ($w) c FROM small_stream) s" \
    "SELECT count(c) FROM (SELECT dp_variance(x, 0, 1, dp_binary(1.0, $small_rows)) OVER ($w) c FROM small_stream) s"
  bench_pair "dp_auto: 1 stream x $small_rows rows" \
    "SELECT count(c) FROM (SELECT sum(x) OVER ($w) c FROM small_stream) s" \
    "SELECT count(c) FROM (SELECT dp_count(x, dp_auto(1.0, $small_rows, 1)) OVER ($w) c FROM small_stream) s"
  echo
  echo "Stored size of a dp_counter (pg_column_size, bytes)"
  psql -X -At -F ' ' -c "SELECT 'T = 2^20', pg_column_size(dp_count_state(1, dp_binary(1, 1048576, 1)))
                         UNION ALL SELECT 'T = 2^40', pg_column_size(dp_count_state(1, dp_binary(1, 1099511627776, 1)))
                         UNION ALL SELECT 'T = 2^62', pg_column_size(dp_count_state(1, dp_binary(1, 4611686018427387904, 1)))"
} | tee bench/out/throughput.txt

gnuplot <<'PLOT'
set terminal pngcairo size 800,450 noenhanced
set output 'bench/out/throughput.png'
set title 'Window query time: plain aggregate vs its private counterpart'
set ylabel 'milliseconds (median)'
set yrange [0:*]
set style data histograms
set xtics rotate by -20
set style fill solid 0.8
set boxwidth 0.9
set key top left
plot 'bench/out/throughput.dat' using 2:xtic(1) title 'plain', '' using 3 title 'private'
PLOT
echo "wrote bench/out/throughput.png"
