#!/usr/bin/env bash
# Managed streams (0.5.0) under load and across a crash.  The interleavings
# of two sessions are in test/isolation/specs/managed_streams.spec; this
# script needs pgbench and kill -9, so it runs a throwaway cluster of its own
# (scripts/cluster.sh; stopped and deleted on exit) and never touches the one
# scripts/test.sh runs.  The extension must be installed.  Prints TAP; the
# advances per second of the load tests are in the "# " lines.  About 15 s.
#
# load:  pgbench, 8 clients x 1000 advances (one transaction each) on one
#        stream (every client advances periods 1..1000 in order, so each
#        period is released once whatever the interleaving), on one stream
#        whose periods come from a shared sequence (8000 periods), and on 8
#        streams (one per client).  Every advance logs what it returned in
#        the table "returned", in its own transaction.
# crash: an advance whose transaction then sleeps is killed with SIGKILL
#        (the postmaster then kills every backend and runs crash recovery);
#        once the server is back, the stream is at its last committed step
#        with the committed state, the killed advance left no release, and
#        the next advance gets the next step.  Then the same after an advance
#        the killed backend had committed: the committed release survives.
set -uo pipefail
cd "$(dirname "$0")/.."
. scripts/cluster.sh

planned=28
echo "1..$planned"
. test/tap.sh
q() {  # q SQL: one value (or rows joined by |), errors included
  psql -X -At -v ON_ERROR_STOP=1 -d managed_streams -c "$1" 2>&1
}

victim=""  # the background psql of the crash test
cleanup() {
  [ -n "$victim" ] && kill "$victim" 2>/dev/null
  dp_cluster_stop
}

dp_cluster_start || { echo "Bail out! the cluster did not start"; exit 1; }
trap cleanup EXIT
createdb managed_streams || { echo "Bail out! createdb failed"; exit 1; }
psql -X -q -v ON_ERROR_STOP=1 -d managed_streams >/dev/null <<'SQL' || { echo "Bail out! setup failed"; exit 1; }
CREATE EXTENSION dp_stream;
-- what every advance of the load tests returned, with the start of its
-- transaction (a release made by the call itself has released_at = called_at)
CREATE TABLE returned (load text, client int, stream text, step bigint, period timestamp,
                       estimate float8, released_at timestamptz, called_at timestamptz);
CREATE SEQUENCE next_period;
SELECT dp_stream.create_stream('in_order', 'count', dp_hybrid(1.0, 1), first_period => '2026-01-01');
SELECT dp_stream.create_stream('shared_seq', 'count', dp_hybrid(1.0, 1), first_period => '2026-01-01');
SELECT dp_stream.create_stream('client_' || c, 'sum', dp_hybrid(1.0), 0, 10, first_period => '2026-01-01')
FROM generate_series(0, 7) AS c;
SQL

# ---- load ----
pgbench_dir=$(mktemp -d "$DP_CLUSTER_DIR/pgbench.XXXXXX")
cat >"$pgbench_dir/in_order.sql" <<'SQL'
\set k :k + 1
INSERT INTO returned
SELECT 'in_order', :client_id, r.stream, r.step, r.period, r.estimate, r.released_at, now()
FROM dp_stream.advance('in_order', timestamp '2026-01-01' + (:k - 1) * interval '1 day', 1) AS r;
SQL
cat >"$pgbench_dir/shared_seq.sql" <<'SQL'
INSERT INTO returned
SELECT 'shared_seq', :client_id, r.stream, r.step, r.period, r.estimate, r.released_at, now()
FROM dp_stream.advance('shared_seq', timestamp '2026-01-01' + (nextval('next_period') - 1) * interval '1 day', 1) AS r;
SQL
cat >"$pgbench_dir/per_client.sql" <<'SQL'
\set k :k + 1
\set v random(0, 10)
INSERT INTO returned
SELECT 'per_client', :client_id, r.stream, r.step, r.period, r.estimate, r.released_at, now()
FROM dp_stream.advance('client_' || :client_id, timestamp '2026-01-01' + (:k - 1) * interval '1 day', :v) AS r;
SQL

# load NAME STREAM_PATTERN RELEASES_PER_STREAM STREAMS CALLS_PER_RELEASE DESCRIPTION
# (pgbench -D k=0: k is a per-client variable that lives across the
# client's transactions, so each client counts its own periods 1..1000)
load() {
  local name=$1 pattern=$2 per_stream=$3 streams=$4 calls=$5 description=$6 out tps
  out=$("$DP_PG_BIN/pgbench" -n -c 8 -j 2 -t 1000 -D k=0 -f "$pgbench_dir/$name.sql" managed_streams 2>&1)
  is "load $name: pgbench ran 8 x 1000 advances without an error ($description)" \
    "$(grep -E '^number of (transactions actually processed|failed transactions)' <<<"$out" | tr '\n' ' ')" \
    "number of transactions actually processed: 8000/8000 number of failed transactions: 0 (0.000%) "
  tps=$(sed -nE 's/^tps = ([0-9.]+) .*/\1/p' <<<"$out")
  echo "# load $name ($description): $(printf '%.0f' "${tps:-0}") advances/s," \
       "$((per_stream * streams)) releases, $(sed -nE 's/^latency average = (.*)/\1/p' <<<"$out") per advance"
  is "load $name: steps 1..$per_stream contiguous, each period the step's period, none twice" \
    "$(q "SELECT count(*) FILTER (WHERE n = $per_stream AND lo = 1 AND hi = n AND steps = n AND periods = n AND aligned)
          || ' of ' || count(*)
          FROM (SELECT stream, count(*) AS n, min(step) AS lo, max(step) AS hi,
                       count(DISTINCT step) AS steps, count(DISTINCT period) AS periods,
                       bool_and(period = timestamp '2026-01-01' + (step - 1) * interval '1 day') AS aligned
                FROM dp_stream.releases WHERE stream LIKE '$pattern' GROUP BY stream) AS s")" \
    "$streams of $streams"
  is "load $name: every advance returned a stored release, and each release went to $calls call(s) (no lost release)" \
    "$(q "SELECT (SELECT count(*) FROM returned AS g LEFT JOIN dp_stream.releases AS r USING (stream, step)
                  WHERE g.load = '$name' AND r.period = g.period AND r.estimate = g.estimate
                    AND r.released_at = g.released_at)
              || ' ' || (SELECT count(*) FROM dp_stream.releases AS r
                  JOIN (SELECT stream, step, count(*) AS calls FROM returned WHERE load = '$name'
                        GROUP BY stream, step) AS g USING (stream, step)
                  WHERE r.stream LIKE '$pattern' AND g.calls = $calls)")" \
    "8000 $((per_stream * streams))"
  is "load $name: steps in the catalog = dp_steps of the stored state = number of releases" \
    "$(q "SELECT count(*) FROM dp_stream.streams AS s
          WHERE s.name LIKE '$pattern' AND s.steps = $per_stream
            AND coalesce(dp_steps(s.counter), dp_steps(s.statistic_state)) = s.steps
            AND s.steps = (SELECT count(*) FROM dp_stream.releases AS r WHERE r.stream = s.name)")" \
    "$streams"
}

load in_order in_order 1000 1 8 "one stream, every client advances periods 1..1000 in order"
# (two transactions can start in the same microsecond, so "made by this
# call" is: the call's transaction started when the release was made)
is "load in_order: every release was made by a call, and all 8 calls of a period returned that one release" \
  "$(q "SELECT count(DISTINCT step) FILTER (WHERE released_at = called_at) || ' ' ||
               count(DISTINCT (step, released_at, estimate)) || ' ' || count(*)
        FROM returned WHERE load = 'in_order'")" \
  "1000 1000 8000"
load shared_seq shared_seq 8000 1 1 "one stream, the next period from a shared sequence"
echo "# load shared_seq: $(q "SELECT count(*) FROM returned WHERE load = 'shared_seq' AND released_at <> called_at") of 8000 periods" \
     "had been filled with no data by a client holding a later period (their value was not counted)"
load per_client 'client\__' 1000 8 1 "8 streams, one per client"

# ---- crash ----
# cluster.sh sets synchronous_commit = off: a commit reported to the client
# can then be lost by a crash (the WAL still in shared memory is not
# replayed).  A release must survive once returned, so run the crash tests
# with synchronous_commit = on.
psql -X -q -d managed_streams -c 'ALTER SYSTEM SET synchronous_commit = on' -c 'SELECT pg_reload_conf()' >/dev/null
psql -X -q -v ON_ERROR_STOP=1 -d managed_streams >/dev/null <<'SQL' || { echo "Bail out! crash setup failed"; exit 1; }
SELECT dp_stream.create_stream('crash_count', 'count', dp_binary(1.0, 64, 1), first_period => '2026-01-01');
SELECT dp_stream.create_stream('crash_avg', 'average', dp_hybrid(1.0), 0, 10, first_period => '2026-01-01');
SELECT dp_stream.advance(s, timestamp '2026-01-01' + (p - 1) * interval '1 day', 1)
FROM unnest(ARRAY['crash_count', 'crash_avg']) AS s, generate_series(1, 3) AS p;
SQL
log=$DP_CLUSTER_DIR/server.log
# the catalog row of both streams, states included, and the releases
stream_rows="SELECT string_agg(format('%s %s %s %s', name, steps, counter, statistic_state), ' / ' ORDER BY name)
             FROM dp_stream.streams WHERE name LIKE 'crash%'"
release_rows="SELECT string_agg(format('%s %s %s %s %s', stream, step, period, estimate, released_at), ' / '
                                ORDER BY stream, step)
              FROM dp_stream.releases WHERE stream LIKE 'crash%'"

# crash VICTIM_SQL: runs it in a background psql until it sleeps, kills its
# backend with SIGKILL and waits for crash recovery; the psql output is in
# $DP_CLUSTER_DIR/victim.out, the server log lines of the crash are printed
crash() {
  local sql=$1 pid="" ready lines i
  ready=$(grep -c 'database system is ready to accept connections' "$log")
  lines=$(wc -l <"$log")
  PGAPPNAME=dp_crash_victim psql -X -At -v ON_ERROR_STOP=1 -d managed_streams \
    >"$DP_CLUSTER_DIR/victim.out" 2>&1 <<<"$sql" &
  victim=$!
  for i in $(seq 1 100); do
    pid=$(q "SELECT pid FROM pg_stat_activity WHERE application_name = 'dp_crash_victim' AND wait_event = 'PgSleep'")
    [ -n "$pid" ] && break
    sleep 0.1
  done
  [ -n "$pid" ] || return 1
  echo "# kill -9 $pid (the backend of the sleeping transaction)"
  kill -9 "$pid"
  wait "$victim"
  victim=""
  for i in $(seq 1 300); do
    if [ "$(grep -c 'database system is ready to accept connections' "$log")" -gt "$ready" ] &&
       "$DP_PG_BIN/pg_isready" -q && q 'SELECT 1' >/dev/null; then
      tail -n +"$((lines + 1))" "$log" | grep -E 'terminated by signal|terminating any other|all server processes terminated|not properly shut down|automatic recovery|redo (starts|done)|ready to accept' |
        sed -E 's/^[-0-9]+ [0-9:.]+ [A-Z]+ \[[0-9]+\] /# server: /'
      return 0
    fi
    sleep 0.1
  done
  return 1
}

committed_streams=$(q "$stream_rows")
committed_releases=$(q "$release_rows")
crash "BEGIN;
SELECT 'victim got step ' || step FROM dp_stream.advance('crash_count', '2026-01-04', 1);
SELECT 'victim got step ' || step FROM dp_stream.advance('crash_avg', '2026-01-04', 5);
SELECT pg_sleep(60);
COMMIT;"
report $? "crash 1: an advance in a sleeping transaction was killed with SIGKILL; the server recovered and accepts connections"
is "crash 1: the killed advances had made step 4 of both streams before the kill" \
  "$(grep -c '^victim got step 4$' "$DP_CLUSTER_DIR/victim.out")" 2
is "crash 1: both streams are at their last committed step (3 in the catalog, in dp_steps of the state and in the releases)" \
  "$(q "SELECT string_agg(name || ':' || steps || ':' || coalesce(dp_steps(counter), dp_steps(statistic_state)) || ':'
                          || (SELECT count(*) || ':' || max(step) FROM dp_stream.releases WHERE stream = name), ' ' ORDER BY name)
        FROM dp_stream.streams WHERE name LIKE 'crash%'")" \
  "crash_avg:3:3:3:3 crash_count:3:3:3:3"
is "crash 1: the catalog rows, states included, are the committed ones, and their states read back (text round trip)" \
  "$(q "$stream_rows") $(q "SELECT count(*) FROM dp_stream.streams WHERE name LIKE 'crash%'
                             AND counter::text::dp_counter::text IS NOT DISTINCT FROM counter::text
                             AND statistic_state::text::dp_statistic::text IS NOT DISTINCT FROM statistic_state::text")" \
  "$committed_streams 2"
is "crash 1: no release exists for the killed advances; the committed ones are unchanged" \
  "$(q "SELECT count(*) FROM dp_stream.releases WHERE stream LIKE 'crash%' AND period = '2026-01-04'") $(q "$release_rows")" \
  "0 $committed_releases"
is "crash 1: the next advance works and gets step 4" \
  "$(q "SELECT string_agg(step || ':' || period, ' ') FROM (VALUES ('crash_count'), ('crash_avg')) AS v(s),
        dp_stream.advance(s, '2026-01-04', 5)")" \
  "4:2026-01-04 00:00:00 4:2026-01-04 00:00:00"

# crash 2: the killed backend had committed the advance of period 5 first
crash "SELECT format('committed %s %s %s', step, estimate, released_at) FROM dp_stream.advance('crash_count', '2026-01-05', 1);
BEGIN;
SELECT 'victim got step ' || step FROM dp_stream.advance('crash_count', '2026-01-06', 1);
SELECT pg_sleep(60);
COMMIT;"
report $? "crash 2: a backend committed an advance, began the next one and was killed with SIGKILL; the server recovered"
committed=$(sed -n 's/^committed //p' "$DP_CLUSTER_DIR/victim.out")
is "crash 2: the killed backend had committed step 5 and made step 6" \
  "$(cut -d' ' -f1 <<<"$committed") $(grep -c '^victim got step 6$' "$DP_CLUSTER_DIR/victim.out")" "5 1"
is "crash 2: the committed release survives as returned (same step, estimate, released_at), and advance returns it again" \
  "$(q "SELECT format('%s %s %s', step, estimate, released_at) FROM dp_stream.releases
        WHERE stream = 'crash_count' AND period = '2026-01-05'") / $(q "SELECT format('%s %s %s', step, estimate, released_at)
        FROM dp_stream.advance('crash_count', '2026-01-05', 1)")" \
  "$committed / $committed"
is "crash 2: the stream is at step 5 (catalog, dp_steps of the state, releases); no release for period 6" \
  "$(q "SELECT steps || ':' || dp_steps(counter) || ':' || (SELECT count(*) || ':' || max(step) || ':' ||
                 count(*) FILTER (WHERE period = '2026-01-06') FROM dp_stream.releases WHERE stream = name)
        FROM dp_stream.streams WHERE name = 'crash_count'")" \
  "5:5:5:5:0"
is "crash 2: the next advance works and gets step 6" \
  "$(q "SELECT step || ':' || period FROM dp_stream.advance('crash_count', '2026-01-06', 1)")" \
  "6:2026-01-06 00:00:00"
is "the server logged no ERROR or PANIC" "$(grep -E ' (ERROR|PANIC): ' "$log" | head -3)" ""

# pg_dump carries the catalog, the releases and the ledger: a restored
# database continues its streams instead of releasing every period again
keyed_sql="SELECT string_agg(r::text, ',' ORDER BY d) FROM (SELECT d, dp_count(1, dp_keyed(dp_binary(1, 64, 1), 'restored_key')) OVER (ORDER BY d) AS r FROM generate_series(1, 20) d) x"
q "SELECT dp_stream.create_key('restored_key', dp_binary(1, 64, 1))" >/dev/null
keyed_before=$(q "$keyed_sql")
createdb restored
pg_dump -d managed_streams | psql -X -q -d restored >/dev/null 2>&1
is "pg_dump/restore: streams, releases and states arrive; the restored stream continues at the next step" \
  "$(psql -X -At -d restored -c "SELECT (SELECT count(*) FROM dp_stream.releases WHERE stream = 'crash_count') || ':' ||
        (SELECT dp_steps(counter) FROM dp_stream.streams WHERE name = 'crash_count') || ':' ||
        (SELECT step FROM dp_stream.advance('crash_count', '2026-01-07', 1))" 2>&1)" \
  "6:6:7"
is "pg_dump/restore: a released period is answered from the restored table" \
  "$(psql -X -At -d restored -c "SELECT r.estimate = o.estimate FROM dp_stream.advance('crash_count', '2026-01-05', 9) r,
        dp_stream.releases o WHERE o.stream = 'crash_count' AND o.period = '2026-01-05'" 2>&1)" "t"

is "pg_dump/restore: keyed releases are the same in the restored database (its noise secret came along)" \
  "$(psql -X -At -d restored -c "$keyed_sql" 2>&1)" "$keyed_before"

dp_cluster_stop
finish
