#!/usr/bin/env bash
# Throughput of issue 29's table: every private window query against its
# plain twin, in the same run, interleaved, median of $BENCH_REPS (5), plain
# query timing (psql's \timing, no EXPLAIN ANALYZE), the ratio and its target.
#
#   bench/throughput.sh            the table; exits 1 when a ratio exceeds its
#                                  target by more than the run's own noise
#   bench/throughput.sh --quick    small sizes, no timing assertion: every
#                                  query runs and the private one returns as
#                                  many rows as its twin (TAP, a smoke check of
#                                  make test)
#   bench/throughput.sh --profile  also `perf record -g` of the backend running
#                                  each private query once; the top symbols
#                                  (self time) go to bench/out/profile_<row>.txt
#   BENCH_ONLY=keyed bench/throughput.sh   only the rows whose label contains
#                                  the text (here the keyed view under keys of
#                                  derivation 2 and 1); BENCH_ROWS,
#                                  BENCH_PARTITIONS, BENCH_METERS, BENCH_REPS
#                                  set the sizes
#
# The floor of a row (the "floor" column, bench/floor.c): the plain
# query's time plus one exact draw per channel per step at the channel's
# own scale, over the plain time.  Every mechanism that releases at every
# step draws at least that many terms (were a release's noise a combination
# of the earlier releases' noise, a combination of the releases would give
# an exact function of the step's value: bench/floor.c).  A row whose
# target is below its floor says so: this design cannot meet it with its
# exact sampler.
#
# The noise of a row: half the relative range (max - min) / median of the
# plain query's repetitions plus the same of the private query's.  A row
# fails when ratio > target * (1 + noise): a ratio above its target by less
# than the timings move between repetitions of the same query is not
# counted as a miss.  Runs in a throwaway cluster.
set -euo pipefail
cd "$(dirname "$0")/.."
quick=${BENCH_QUICK:-}
profile=""
for arg in "$@"; do
  case $arg in
    --quick) quick=1 ;;
    --profile) profile=1 ;;
    *) echo "usage: $0 [--quick] [--profile]" >&2; exit 2 ;;
  esac
done
mkdir -p bench/out
scripts/setup.sh >/dev/null
make -s
. scripts/cluster.sh
dp_install_extension
dp_cluster_start

n=${BENCH_ROWS:-2000000}         # rows of the single stream
parts=${BENCH_PARTITIONS:-10000} # streams of 365 rows
meters=${BENCH_METERS:-1000}     # meters of 301 days, the keyed view
reps=${BENCH_REPS:-5}
if [ -n "$quick" ]; then n=20000; parts=100; meters=20; reps=1; fi

psql -X -q -v ON_ERROR_STOP=1 >/dev/null <<SQL
SET client_min_messages = warning;
CREATE EXTENSION dp_stream;
-- x: a 0/1 count; v: a value in [0, 10]
CREATE TABLE one_stream AS
  SELECT g::bigint AS t, (hashint8(g) & 1)::bigint AS x, (abs(hashint8(-g)) % 1001) / 100.0::float8 AS v
  FROM generate_series(1, $n) g ORDER BY g;
CREATE INDEX ON one_stream (t);
CREATE TABLE many_streams AS
  SELECT k, t, (hashint8(k * 1000 + t) & 1)::bigint AS x,
         (abs(hashint8(-(k * 1000 + t))) % 1001) / 100.0::float8 AS v
  FROM generate_series(1, $parts) k, generate_series(1, 365) t ORDER BY k, t;
CREATE INDEX ON many_streams (k, t);
CREATE TABLE readings AS
  SELECT meter, day, (abs(hashint4(meter * 1000 + day)) % 1001) / 100.0::float8 AS kwh
  FROM generate_series(1, $meters) meter, generate_series(1, 301) day ORDER BY meter, day;
CREATE INDEX ON readings (meter, day);
VACUUM ANALYZE;
-- the keyed view's key (committed before it draws)
SELECT dp_stream.create_budget('bench_meters', 10);
SELECT dp_stream.create_key('bench_meter_kwh', dp_binary(1.0, 301), 'bench_meters',
                            statistic => 'variance', lower => 0, upper => 10) IS NOT NULL;
-- and a key of derivation 1, as every key registered before 0.17.0 keeps
-- (docs/keyed_noise.md): the same view under it, for comparison
SELECT dp_stream.create_key('bench_meter_kwh_v1', dp_binary(1.0, 301), 'bench_meters',
                            statistic => 'variance', lower => 0, upper => 10) IS NOT NULL;
ALTER TABLE dp_stream.keys DISABLE TRIGGER keys_append_only;
UPDATE dp_stream.keys SET derivation = 1 WHERE key = 'bench_meter_kwh_v1';
ALTER TABLE dp_stream.keys ENABLE TRIGGER keys_append_only;
SQL

. bench/timing.sh
settings=("max_parallel_workers_per_gather = 0" "enable_sort = off" "work_mem = '64MB'")
run_ms_plan() { run_ms "$1" "${settings[@]}"; }
spread() { sort -n | awk '{a[NR]=$1} END {m=(NR%2)?a[(NR+1)/2]:(a[NR/2]+a[NR/2+1])/2; print (a[NR]-a[1])/(2*m)}'; }

failures=0
row=0
: >bench/out/throughput.dat
# The floor of a row (bench/floor.c): one exact draw per channel per step
# at the channel's own scale, the least noise any mechanism that releases
# at every step draws, timed in nanoseconds per step; the row's floor ratio
# is (plain + rows x that) / plain.  A target below its floor cannot be met
# while each term is an exact draw at the channel's scale by this sampler.
cc -std=c11 -O2 $(make -s core-flags) -o bench/out/floor bench/floor.c -lsodium -lm
# floor_ms STATISTIC MECHANISM_SQL ROWS [keyed]: the floor of ROWS steps
floor_ms() {
  if [ -n "$quick" ]; then echo 0; return; fi
  local text ns
  text=$(psql -X -At -v ON_ERROR_STOP=1 -c "SELECT ($2)::text")
  ns=$(bench/out/floor "$1" "$text" 1000000 ${4:-})
  printf '%-9s %-52s %6s %8.1f\n' "$1" "$text" "${4:--}" "$ns" >>bench/out/floor.txt
  echo "$ns * $3 / 1000000" | bc -l
}
: >bench/out/floor.txt

# bench_pair LABEL TARGET PLAIN PRIVATE [FLOOR_MS]: FLOOR_MS, the floor's
# milliseconds for the row's steps (0: none measured)
bench_pair() {
  local label=$1 target=$2 plain=$3 private=$4 floor_ms=${5:-0} p d r f noise verdict
  row=$((row + 1))
  # BENCH_ONLY=pattern: only the rows whose label contains it
  case $label in *"${BENCH_ONLY:-}"*) ;; *) return ;; esac
  if [ -n "$quick" ]; then
    local pc dc
    pc=$(psql -X -At -v ON_ERROR_STOP=1 -c "$plain" 2>&1 | tail -1) || true
    dc=$(psql -X -At -v ON_ERROR_STOP=1 -c "$private" 2>&1 | tail -1) || true
    if [ -n "$pc" ] && [ "${pc%%|*}" = "${dc%%|*}" ]; then
      echo "# $label: ${pc%%|*} rows both"
    else
      echo "# $label: plain '$pc', private '$dc'"
      failures=$((failures + 1))
    fi
    return
  fi
  : >bench/out/plain.ms; : >bench/out/private.ms
  run_ms_plan "$plain" >/dev/null; run_ms_plan "$private" >/dev/null   # warm the cache
  for _ in $(seq "$reps"); do
    run_ms_plan "$plain" >>bench/out/plain.ms
    run_ms_plan "$private" >>bench/out/private.ms
  done
  p=$(median <bench/out/plain.ms); d=$(median <bench/out/private.ms)
  r=$(echo "$d / $p" | bc -l)
  f=$(echo "($p + $floor_ms) / $p" | bc -l)
  noise=$(echo "$(spread <bench/out/plain.ms) + $(spread <bench/out/private.ms)" | bc -l)
  if [ "$(echo "$r > $target * (1 + $noise)" | bc -l)" = 1 ]; then
    verdict="MISSED"; failures=$((failures + 1))
  elif [ "$(echo "$r > $target" | bc -l)" = 1 ]; then
    verdict="within noise"
  else
    verdict="met"
  fi
  if [ "$(echo "$f > $target" | bc -l)" = 1 ]; then verdict="$verdict (target below the floor)"; fi
  printf '%-58s %8.0f %8.0f %6.2f %6.2f %6.2f %6.3f  %s\n' "$label" "$p" "$d" "$r" "$target" "$f" "$noise" "$verdict"
  printf '"%s" %s %s\n' "$label" "$p" "$d" >>bench/out/throughput.dat
  if [ -n "$profile" ]; then profile_query "$row" "$private"; fi
}

# perf record -g of the backend that runs QUERY once; top symbols by self time
profile_query() {
  local row=$1 query=$2 pidfile=bench/out/backend.pid
  rm -f "$pidfile"
  { printf 'SELECT pg_backend_pid() \\g %s\nSELECT pg_sleep(1);\n' "$pidfile"
    for s in "${settings[@]}"; do printf 'SET %s;\n' "$s"; done
    printf '%s;\n' "$query"; } | psql -X -q -At >/dev/null &
  local client=$!
  while [ ! -s "$pidfile" ]; do sleep 0.1; done
  perf record -q -g -o "bench/out/profile_$row.data" -p "$(cat "$pidfile")" >/dev/null 2>&1 || true
  wait "$client"
  perf report -i "bench/out/profile_$row.data" --no-children --sort symbol --stdio 2>/dev/null |
    grep -E '^ +[0-9.]+%' | head -15 >"bench/out/profile_$row.txt" || true
}

w="ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW"
one="ORDER BY t $w"
many="PARTITION BY k ORDER BY t $w"
{
  if [ -n "$quick" ]; then
    echo "# throughput --quick: $n rows, $parts x 365, $meters x 301 (no timing assertion)"
  else
    echo "Throughput, median of $reps interleaved runs (ms, plain query time), same server, same plan"
    printf '%-58s %8s %8s %6s %6s %6s %6s  %s\n' "query (private vs plain)" "plain" "private" "ratio" "target" "floor" "noise" "verdict"
  fi
  bench_pair "dp_count binary, $n rows (sum)" 1.10 \
    "SELECT count(*), sum(c) FROM (SELECT sum(x) OVER ($one) c FROM one_stream) s" \
    "SELECT count(*), sum(c) FROM (SELECT dp_count(x, dp_binary(1.0, $n, 1)) OVER ($one) c FROM one_stream) s" \
    "$(floor_ms count "dp_binary(1.0, $n, 1)" "$n")"
  bench_pair "dp_count auto, $n rows (sum)" 1.15 \
    "SELECT count(*), sum(c) FROM (SELECT sum(x) OVER ($one) c FROM one_stream) s" \
    "SELECT count(*), sum(c) FROM (SELECT dp_count(x, dp_auto(1.0, $n, 1)) OVER ($one) c FROM one_stream) s" \
    "$(floor_ms count "dp_auto(1.0, $n, 1)" "$n")"
  bench_pair "dp_sum auto, $n rows (sum)" 1.20 \
    "SELECT count(*), sum(c) FROM (SELECT sum(v) OVER ($one) c FROM one_stream) s" \
    "SELECT count(*), sum(c) FROM (SELECT dp_sum(v, 0, 10, dp_auto(1.0, $n)) OVER ($one) c FROM one_stream) s" \
    "$(floor_ms sum "dp_auto(1.0, $n)" "$n")"
  bench_pair "dp_avg auto, $n rows (avg)" 1.30 \
    "SELECT count(*), sum(c) FROM (SELECT avg(v) OVER ($one) c FROM one_stream) s" \
    "SELECT count(*), sum(c) FROM (SELECT dp_avg(v, 0, 10, dp_auto(1.0, $n)) OVER ($one) c FROM one_stream) s" \
    "$(floor_ms avg "dp_auto(1.0, $n)" "$n")"
  bench_pair "dp_variance auto, $n rows (var_samp)" 1.40 \
    "SELECT count(*), sum(c) FROM (SELECT var_samp(v) OVER ($one) c FROM one_stream) s" \
    "SELECT count(*), sum(c) FROM (SELECT dp_variance(v, 0, 10, dp_auto(1.0, $n)) OVER ($one) c FROM one_stream) s" \
    "$(floor_ms variance "dp_auto(1.0, $n)" "$n")"
  bench_pair "dp_count auto, $parts x 365 (sum)" 1.15 \
    "SELECT count(*), sum(c) FROM (SELECT sum(x) OVER ($many) c FROM many_streams) s" \
    "SELECT count(*), sum(c) FROM (SELECT dp_count(x, dp_auto(1.0, 365, 1)) OVER ($many) c FROM many_streams) s" \
    "$(floor_ms count "dp_auto(1.0, 365, 1)" "$((parts * 365))")"
  bench_pair "dp_avg auto, $parts x 365 (avg)" 1.30 \
    "SELECT count(*), sum(c) FROM (SELECT avg(v) OVER ($many) c FROM many_streams) s" \
    "SELECT count(*), sum(c) FROM (SELECT dp_avg(v, 0, 10, dp_auto(1.0, 365)) OVER ($many) c FROM many_streams) s" \
    "$(floor_ms avg "dp_auto(1.0, 365)" "$((parts * 365))")"
  # the keyed view: REFRESH of a materialized view, each meter its partition
  psql -X -q -v ON_ERROR_STOP=1 <<SQL
CREATE MATERIALIZED VIEW plain_view AS
  SELECT meter, day, avg(kwh) OVER m AS average, var_samp(kwh) OVER m AS variance
  FROM readings WINDOW m AS (PARTITION BY meter ORDER BY day $w) WITH NO DATA;
CREATE MATERIALIZED VIEW keyed_view AS
  SELECT meter, day, dp_summary(kwh, 0, 10, dp_keyed(dp_binary(1.0, 301), 'bench_meter_kwh',
                                                     partition => meter)) OVER m AS summary
  FROM readings WINDOW m AS (PARTITION BY meter ORDER BY day $w) WITH NO DATA;
CREATE MATERIALIZED VIEW keyed_view_v1 AS
  SELECT meter, day, dp_summary(kwh, 0, 10, dp_keyed(dp_binary(1.0, 301), 'bench_meter_kwh_v1',
                                                     partition => meter)) OVER m AS summary
  FROM readings WINDOW m AS (PARTITION BY meter ORDER BY day $w) WITH NO DATA;
SQL
  if [ -n "$quick" ]; then
    bench_pair "keyed dp_summary view, $meters x 301" 1.5 \
      "REFRESH MATERIALIZED VIEW plain_view; SELECT count(*) FROM plain_view" \
      "REFRESH MATERIALIZED VIEW keyed_view; SELECT count(*) FROM keyed_view"
    bench_pair "keyed dp_summary view, derivation 1, $meters x 301" 1.5 \
      "REFRESH MATERIALIZED VIEW plain_view; SELECT count(*) FROM plain_view" \
      "REFRESH MATERIALIZED VIEW keyed_view_v1; SELECT count(*) FROM keyed_view_v1"
  else
    # a key registered since 0.17.0 (derivation 2), the row of the table
    bench_pair "keyed dp_summary view refresh, $meters x 301 (avg, var_samp)" 1.5 \
      "REFRESH MATERIALIZED VIEW plain_view" "REFRESH MATERIALIZED VIEW keyed_view" \
      "$(floor_ms variance "dp_binary(1.0, 301)" "$((meters * 301))" keyed)"
    # a key registered before (derivation 1, kept for good): no target
    bench_pair "keyed view, derivation 1 (a key made before 0.17.0)" 99 \
      "REFRESH MATERIALIZED VIEW plain_view" "REFRESH MATERIALIZED VIEW keyed_view_v1"
  fi
  if [ -z "$quick" ]; then
    echo
    echo "The floors' draws, ns per step (bench/floor.c, best of 5 runs of 10^6 steps)"
    cat bench/out/floor.txt
    echo
    echo "Stored size of a dp_counter (pg_column_size, bytes)"
    psql -X -At -F ' ' -c "SELECT 'T = 2^20', pg_column_size(dp_count_state(1, dp_binary(1, 1048576, 1)))
                           UNION ALL SELECT 'T = 2^40', pg_column_size(dp_count_state(1, dp_binary(1, 1099511627776, 1)))
                           UNION ALL SELECT 'T = 2^62', pg_column_size(dp_count_state(1, dp_binary(1, 4611686018427387904, 1)))"
  fi
} | tee bench/out/throughput.txt
# the failures of the block above were counted in a subshell (the pipe)
failures=$(grep -cE 'MISSED$|^# .*: plain ' bench/out/throughput.txt || true)

if [ -n "$quick" ]; then
  echo "1..1"
  if [ "$failures" -eq 0 ]; then
    echo "ok 1 - bench/throughput.sh --quick: every private query of issue 29's table runs, as many rows as its plain twin"
  else
    echo "not ok 1 - bench/throughput.sh --quick: $failures queries failed or disagreed with their plain twin"
  fi
  [ "$failures" -eq 0 ]
  exit
fi

if [ -n "$profile" ]; then
  for f in bench/out/profile_*.txt; do echo "== $f"; cat "$f"; done
fi

if command -v gnuplot >/dev/null; then
  gnuplot <<'PLOT'
set terminal pngcairo size 900,450 noenhanced
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
fi
if [ "$failures" -gt 0 ]; then
  echo "throughput: $failures ratios above their target by more than the run's noise"
  exit 1
fi
