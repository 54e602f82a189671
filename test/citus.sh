#!/usr/bin/env bash
# dp_stream on a Citus cluster (issue 27): Citus is built once from its
# source tarball in DP_PG_SOURCES (scripts/citus.sh; cached under
# DP_PG_CACHE, default /var/cache/dp_stream) and installed into the
# PostgreSQL that pg_config names, next to dp_stream (which must be
# installed, as for the other shell tests).  A coordinator and two workers
# (later a third) run on private sockets with log_statement = 'all' and
# citus.log_remote_commands = on, and are stopped and deleted on exit.
# Checks: one set of secrets for the cluster (dp_stream.citus_sync_secrets),
# a state sealed on one node opens on another, keyed windows pushed down to
# the workers release what one node releases, and the same after
# citus_move_shard_placement and after citus_add_node + rebalance; keys and
# states a node made under its own secrets stop the sync; a keyed draw
# under another noise secret is refused; rotate_secret reaches every node;
# stored states advance on a distributed table; docs/citus.md runs as
# written; DROP EXTENSION and an update from 0.14.0 work on the cluster;
# no secret appears in any node's log; four non-superuser roles (an analyst,
# the reader of a published view, a dp_stream_admin, the database's owner)
# are refused every attack on the coordinator and on a worker; budgets,
# keys, managed streams and publications are refused early on a worker
# and a managed stream on the coordinator is fed from a distributed table;
# a seeded run propagated to the workers repeats.  Where Citus cannot be built, one
# "ok 1 # SKIP" line.  Prints TAP.  15 to 30 s with Citus cached.
set -uo pipefail
cd "$(dirname "$0")/.."
. scripts/citus.sh

dp_citus_build >/dev/null
status=$?
citus_dir=$DP_CITUS_BUILT
if [ "$status" -ne 0 ]; then
  echo "ok 1 # SKIP Citus: ${DP_CITUS_WHY:-it does not build}"
  echo "1..1"
  exit 0
fi
if ! dp_citus_install "$citus_dir"; then
  echo "ok 1 # SKIP Citus: cannot install it into $(pg_config --pkglibdir)"
  echo "1..1"
  exit 0
fi

planned=50
echo "1..$planned"
. test/tap.sh
check() {  # check STATUS DESCRIPTION OUTPUT: the output as comments on failure
  report "$1" "$2"
  [ "$1" -eq 0 ] || echo "$3" | sed 's/^/# /'
}

DP_CITUS_CONF="log_statement = 'all'
citus.log_remote_commands = on
log_min_messages = notice
citus.shard_count = 8"
export PGOPTIONS='-c client_min_messages=warning'
dp_citus_start 2 >/dev/null 2>&1 || { echo "Bail out! the Citus cluster did not start"; exit 1; }

q() {  # q NODE SQL: one value (or rows joined by |), errors included
  psql -X -At -v ON_ERROR_STOP=1 -p "${DP_CITUS_PORTS[$1]}" -c "$2" 2>&1
}
fingerprint() {  # fingerprint NODE SQL: md5 of the query's rows
  q "$1" "SELECT md5(string_agg(x::text, ',' ORDER BY x::text)) FROM ($2) x"
}
secrets_of() {  # secrets_of NODE: the node's secrets, as digests
  q "$1" "SELECT string_agg(purpose || ':' || id || ':' || md5(secret), ' ' ORDER BY id) FROM dp_stream.secrets"
}
same_secrets() {  # same_secrets N: every node 0..N holds the coordinator's secrets
  local i reference
  reference=$(secrets_of 0)
  for ((i = 1; i <= $1; i++)); do
    [ "$(secrets_of "$i")" = "$reference" ] || return 1
  done
  [ -n "$reference" ]
}
hexes=$(mktemp)
collect_secrets() {  # every secret any node holds, hex and base64, for the log check
  local i
  for ((i = 0; i < ${#DP_CITUS_PORTS[@]}; i++)); do
    q "$i" "SELECT encode(secret, 'hex') || E'\n' || encode(secret, 'base64') FROM dp_stream.secrets" >>"$hexes"
  done
}
trap 'rm -f "$hexes"; dp_citus_stop' EXIT

mech="dp_binary(epsilon => 1.0, horizon => 64, max_per_step => 4)"
keyed="dp_keyed($mech, 'meters', partition => meter)"
release() {  # the keyed per-meter running counts of table $1
  echo "SELECT meter, day, dp_count(v, $keyed) OVER (PARTITION BY meter ORDER BY day) AS released FROM $1"
}

# the extension on every node, and one set of secrets
q 0 "CREATE EXTENSION dp_stream" >/dev/null
versions=$(for i in 0 1 2; do q "$i" "SELECT extversion FROM pg_extension WHERE extname = 'dp_stream'"; done | sort -u | tr '\n' ' ')
is "CREATE EXTENSION dp_stream on the coordinator reaches both workers" "$versions" "$(q 0 "SELECT default_version FROM pg_available_extensions WHERE name = 'dp_stream'") "
collect_secrets
synced=$(q 0 "SELECT dp_stream.citus_sync_secrets()")
if [ "$synced" = 2 ] && same_secrets 2; then
  report 0 "dp_stream.citus_sync_secrets() gives both workers the coordinator's secrets"
else
  report 1 "dp_stream.citus_sync_secrets() gives both workers the coordinator's secrets"
  echo "# $synced"; for i in 0 1 2; do echo "# node $i: $(secrets_of "$i")"; done
fi

# a state sealed on the coordinator opens on a worker
q 0 "CREATE TABLE readings (meter int NOT NULL, day int NOT NULL, v int NOT NULL);
     INSERT INTO readings SELECT m, d, (m * 7 + d * 3) % 5 FROM generate_series(1, 40) m, generate_series(1, 30) d;
     CREATE TABLE readings_local AS SELECT * FROM readings;
     SELECT create_distributed_table('readings', 'meter');" >/dev/null
state=$(q 0 "SELECT dp_count_state(v, $mech ORDER BY day) FROM readings_local WHERE meter = 1")
here=$(q 0 "SELECT dp_estimate('$state'::dp_counter)")
there=$(q 1 "SELECT dp_estimate('$state'::dp_counter)")
is "a state sealed on the coordinator opens on a worker, with the same estimate" "$there" "$here"

# keyed per-meter windows pushed down release what one node releases
q 0 "SELECT dp_stream.create_key('meters', $mech) IS NOT NULL" >/dev/null
keys=$(for i in 1 2; do q "$i" "SELECT key || ' ' || (noise_secret = dp_stream.keyed_noise_secret()) || ' ' || derivation FROM dp_stream.keys"; done | tr '\n' ' ')
is "create_key on the coordinator registers the key on both workers, under the cluster's noise secret, with its derivation (2)" "$keys" "meters true 2 meters true 2 "
plan=$(q 0 "EXPLAIN (COSTS OFF) $(release readings)")
echo "$plan" | grep -q 'Task Count: 8' && echo "$plan" | grep -q 'WindowAgg'
check $? "the keyed per-meter window is pushed down to the workers (EXPLAIN: 8 tasks, each with its WindowAgg)" "$plan"
single=$(fingerprint 0 "$(release readings_local)")
distributed=$(fingerprint 0 "$(release readings)")
if [ -n "$single" ] && [ "$distributed" = "$single" ]; then
  report 0 "on the workers the keyed releases are those of one node (1200 rows)"
else
  report 1 "on the workers the keyed releases are those of one node (1200 rows)"; echo "# $distributed / $single"
fi

# states sealed on the workers, in a colocated distributed table
q 0 "CREATE TABLE stored_states (meter int NOT NULL, s dp_counter);
     SELECT create_distributed_table('stored_states', 'meter', colocate_with => 'readings');
     INSERT INTO stored_states SELECT meter, dp_count_state(v, $mech ORDER BY day) FROM readings GROUP BY meter;" >/dev/null
estimates="SELECT meter, dp_estimate(s) FROM stored_states"
states_before=$(fingerprint 0 "$estimates")
on_coordinator=$(q 0 "SELECT md5(string_agg(meter || ':' || dp_estimate(s::text::dp_counter), ',' ORDER BY meter)) FROM (SELECT meter, s FROM stored_states ORDER BY meter OFFSET 0) x")
state_rows=$(q 0 "SELECT count(*) FROM stored_states")
if [ "$state_rows" = 40 ] && [ -n "$states_before" ] && [ "$on_coordinator" = "$(q 0 "SELECT md5(string_agg(meter || ':' || e, ',' ORDER BY meter)) FROM ($estimates) x(meter, e)")" ]; then
  report 0 "states sealed on the workers open on the coordinator (40 meters)"
else
  report 1 "states sealed on the workers open on the coordinator (40 meters)"; echo "# $state_rows $on_coordinator $states_before"
fi

# a shard moved to the other worker keeps its keyed releases and states
shard=$(q 0 "SELECT shardid FROM pg_dist_shard_placement JOIN pg_dist_shard USING (shardid)
             WHERE logicalrelid = 'readings'::regclass AND nodeport = ${DP_CITUS_PORTS[1]} ORDER BY shardid LIMIT 1")
moved=$(q 0 "SELECT citus_move_shard_placement($shard, '$DP_CITUS_DIR', ${DP_CITUS_PORTS[1]}, '$DP_CITUS_DIR', ${DP_CITUS_PORTS[2]}, shard_transfer_mode => 'block_writes');
             SELECT nodeport FROM pg_dist_shard_placement WHERE shardid = $shard" | tail -1)
after_move=$(fingerprint 0 "$(release readings)")
if [ "$moved" = "${DP_CITUS_PORTS[2]}" ] && [ "$after_move" = "$single" ]; then
  report 0 "after citus_move_shard_placement the keyed releases are identical"
else
  report 1 "after citus_move_shard_placement the keyed releases are identical"; echo "# $moved $after_move"
fi
is "after citus_move_shard_placement the moved states open, with the same estimates" "$(fingerprint 0 "$estimates")" "$states_before"

# seeded runs on the cluster: dp_stream.seed reaches the workers with
# SET LOCAL and citus.propagate_set_commands = 'local', each statement
# sent on its own (Citus forwards a SET with the text of the query that
# carried it: in one query string with the SELECT, each worker would run
# the SELECT too, and Citus refuses that); with one connection per shard
# (citus.force_max_query_parallelization) every shard's task starts the
# seeded stream afresh, so the releases repeat whatever the timing
seeded_run() {  # seeded_run SEED [POOL-SETTING]: md5 of the seeded per-meter window, pushed down
  psql -X -At -v ON_ERROR_STOP=1 -p "${DP_CITUS_PORTS[0]}" 2>&1 <<SQL | grep -v -E '^(BEGIN|SET|COMMIT)$'
BEGIN;
SET LOCAL citus.propagate_set_commands = 'local';
SET LOCAL ${2:-citus.force_max_query_parallelization = on};
SET LOCAL dp_stream.seed = '$1';
SELECT md5(string_agg(x::text, ',' ORDER BY x::text))
FROM (SELECT meter, day, dp_count(v, $mech) OVER (PARTITION BY meter ORDER BY day) FROM readings) x;
COMMIT;
SQL
}
first=$(seeded_run one); second=$(seeded_run one); other=$(seeded_run two)
if echo "$first" | grep -qxE '[0-9a-f]{32}' && [ "$second" = "$first" ] && [ "$other" != "$first" ]; then
  report 0 "a seeded window pushed down to the workers (SET LOCAL, citus.propagate_set_commands = 'local', one connection per shard) releases the same twice, and otherwise under another seed"
else
  report 1 "a seeded window pushed down to the workers releases the same twice"; echo "# $first / $second / $other"
fi
unseeded=$(fingerprint 0 "SELECT meter, day, dp_count(v, $mech) OVER (PARTITION BY meter ORDER BY day) FROM readings")
again=$(fingerprint 0 "SELECT meter, day, dp_count(v, $mech) OVER (PARTITION BY meter ORDER BY day) FROM readings")
[ -n "$unseeded" ] && [ "$unseeded" != "$again" ] && [ "$unseeded" != "$first" ]
report $? "... while without the propagated seed the same window releases new noise at each run"
keyed_again=$(fingerprint 0 "$(release readings)")
is "keyed releases pushed down are identical run after run and equal one node's: what repeats on Citus without a seed" "$keyed_again" "$single"

# a keyed draw under another noise secret is refused, never redrawn
refused=$(q 2 "BEGIN;
  INSERT INTO dp_stream.secrets (id, purpose, secret, created_at)
  VALUES (1, 'table_noise', dp_stream.random_secret(), '2000-01-01');
  SELECT dp_count(1, dp_keyed($mech, 'meters', partition => 1)) OVER (ORDER BY t) FROM generate_series(1, 3) t;
  ROLLBACK;")
echo "$refused" | grep -q 'keyed noise refused: key "meters" draws under a noise secret this database does not use'
report $? "a keyed draw on a node whose noise secret differs from the key's is refused"
code=$(psql -X -At -v VERBOSITY=verbose -p "${DP_CITUS_PORTS[2]}" -c "BEGIN;
  INSERT INTO dp_stream.secrets (id, purpose, secret, created_at)
  VALUES (1, 'table_noise', dp_stream.random_secret(), '2000-01-01');
  SELECT dp_count(1, dp_keyed($mech, 'meters', partition => 1)) OVER (ORDER BY t) FROM generate_series(1, 3) t;" 2>&1 | grep -o 'ERROR: *[0-9A-Z]*' | head -1)
is "... with SQLSTATE 55000" "$code" "ERROR:  55000"

# keys are registered on the coordinator; a key a worker has of its
# own (say, from before it joined) stops the sync, until removed
refused=$(q 1 "SELECT dp_stream.create_key('worker_only', $mech) IS NOT NULL")
echo "$refused" | grep -q 'ERROR:  dp_stream.create_key runs on the coordinator of a Citus cluster' &&
  [ "$(q 1 "SELECT count(*) FROM dp_stream.keys WHERE key = 'worker_only'")" = 0 ]
check $? "create_key on a worker is refused (keys are registered on the coordinator)" "$refused"
q 1 "INSERT INTO dp_stream.keys (key, mechanism, used_by, computes, noise_secret)
     VALUES ('worker_only', dp_keyed($mech, 'worker_only'), 'postgres', 'count', dp_stream.keyed_noise_secret())" >/dev/null
refused=$(psql -X -At -v VERBOSITY=verbose -c "SELECT dp_stream.citus_sync_secrets()" 2>&1)
echo "$refused" | grep -q "ERROR:  55000: dp_stream's secrets cannot be synced onto node ${DP_CITUS_PORTS[1]}: it has released keyed noise" &&
  echo "$refused" | grep -q "DETAIL:  Keys 'worker_only' were registered on this node" &&
  echo "$refused" | grep -q "HINT:  Register keys on the coordinator only"
check $? "the sync is refused onto a worker with a key of its own (55000, message, detail, hint)" "$refused"
q 1 "ALTER TABLE dp_stream.keys DISABLE TRIGGER USER; DELETE FROM dp_stream.keys WHERE key = 'worker_only';
     ALTER TABLE dp_stream.keys ENABLE TRIGGER USER;" >/dev/null
is "... and goes through once the key is removed" "$(q 0 "SELECT dp_stream.citus_sync_secrets()")" 2

# a third worker; its own sealed state stops the sync; then it gets
# the cluster's secrets and keys and half the shards, releases unchanged
dp_citus_add_worker 3 >/dev/null 2>&1
is "citus_add_node: the third worker gets the extension" \
  "$(q 3 "SELECT extversion FROM pg_extension WHERE extname = 'dp_stream'")" "$(q 0 "SELECT extversion FROM pg_extension WHERE extname = 'dp_stream'")"
collect_secrets
q 3 "CREATE TABLE own_states AS SELECT dp_count_state(d % 3, $mech ORDER BY d) AS s FROM generate_series(1, 5) d" >/dev/null
refused=$(q 0 "SELECT dp_stream.citus_sync_secrets()")
echo "$refused" | grep -q "secrets cannot be synced onto node ${DP_CITUS_PORTS[3]}: it holds states sealed under its own secret" &&
  echo "$refused" | grep -q "DETAIL:  Column s of public.own_states holds states sealed under secret" &&
  echo "$refused" | grep -q "HINT:  Drop those states on that node, or first give the coordinator that node's sealing secret"
check $? "the sync is refused onto a node holding states sealed under its own secret (message, detail, hint)" "$refused"
refused=$(q 0 "SELECT dp_stream.create_key('meters_two', $mech) IS NOT NULL")
counts=$(for i in 0 1 2 3; do q "$i" "SELECT count(*) FROM dp_stream.keys WHERE key = 'meters_two'"; done | tr '\n' ' ')
echo "$refused" | grep -q "it holds states sealed under its own secret" && [ "$counts" = "0 0 0 0 " ] && same_secrets 2
check $? "... in one transaction: a create_key whose sync that node refuses leaves the key on no node" \
  "$refused
keys per node: $counts
$(for i in 0 1 2; do echo "node $i: $(secrets_of "$i")"; done)"
q 3 "DROP TABLE own_states" >/dev/null
synced=$(q 0 "SELECT dp_stream.citus_sync_secrets()")
if [ "$synced" = 3 ] && same_secrets 3 && [ "$(q 3 "SELECT string_agg(key, ',') FROM dp_stream.keys")" = meters ]; then
  report 0 "the third worker then gets the cluster's secrets and keys"
else
  report 1 "the third worker then gets the cluster's secrets and keys"; echo "# $synced $(secrets_of 3)"
fi
q 0 "SELECT rebalance_table_shards(shard_transfer_mode => 'block_writes')" >/dev/null 2>&1
on_third=$(q 0 "SELECT count(*) FROM pg_dist_shard_placement JOIN pg_dist_shard USING (shardid)
                WHERE logicalrelid = 'readings'::regclass AND nodeport = ${DP_CITUS_PORTS[3]}")
after_rebalance=$(fingerprint 0 "$(release readings)")
if [ "${on_third:-0}" -gt 0 ] && [ "$after_rebalance" = "$single" ]; then
  report 0 "after the rebalance ($on_third shards on the third worker) the keyed releases are identical"
else
  report 1 "after the rebalance the keyed releases are identical"; echo "# $on_third $after_rebalance"
fi
is "after the rebalance the states open, with the same estimates" "$(fingerprint 0 "$estimates")" "$states_before"

# attacks as real roles (no superusers) on the coordinator and connected
# directly to a worker: an analyst who reads the distributed table, the
# reader of a published view, an administrator of dp_stream and the
# database's owner; every attempt must be refused
q 0 "CREATE ROLE att_analyst LOGIN; GRANT SELECT ON readings, stored_states TO att_analyst;
     CREATE ROLE att_reader LOGIN;
     CREATE VIEW att_published AS $(release readings); GRANT SELECT ON att_published TO att_reader;
     CREATE ROLE att_admin LOGIN; GRANT dp_stream_admin TO att_admin;
     CREATE ROLE att_owner LOGIN; ALTER DATABASE postgres OWNER TO att_owner;
     SELECT dp_stream.create_budget('att_budget', 1.0);" >/dev/null
attempts=(
  "SELECT count(*) FROM dp_stream.secrets"
  "SELECT count(*) FROM dp_stream.citus_transfer"
  "SET citus.override_table_visibility = off; SELECT count(*) FROM dp_stream.citus_transfer_$(q 0 "SELECT shardid FROM pg_dist_shard WHERE logicalrelid = 'dp_stream.citus_transfer'::regclass")"
  "SELECT string_agg(result, ' ') FROM run_command_on_workers('SELECT string_agg(encode(secret, ''hex''), '','') FROM dp_stream.secrets')"
  "SELECT dp_stream.citus_sync(false)"
  "SELECT dp_stream.citus_absorb()"
  "SELECT dp_stream.charges_on_coordinator()"
  "SELECT dp_stream.catalog_on_coordinator()"
  "INSERT INTO dp_stream.secrets (id, purpose, secret) VALUES (7, 'table_noise', '\\x00')"
  "INSERT INTO dp_stream.keys (key, mechanism, used_by, computes, noise_secret) SELECT 'planted', mechanism, used_by, computes, noise_secret FROM dp_stream.keys LIMIT 1"
  "INSERT INTO dp_stream.citus_transfer VALUES (1, 'key', 'x')"
  "SET session_replication_role = replica"
  "ALTER TABLE dp_stream.keys DISABLE TRIGGER USER"
  "SELECT dp_stream.use_table_sampler_for_keyed_noise()"
  "SELECT dp_stream.rotate_secret()"
  "SELECT dp_stream.citus_sync_secrets()"
  "SELECT dp_stream.create_key('planted', $mech) IS NOT NULL"
  "SELECT * FROM pg_dist_authinfo"
  "SELECT pg_read_file('$DP_CITUS_DIR/node0/server.log')"
  "UPDATE stored_states SET s = '$(q 0 "SELECT s FROM stored_states WHERE meter = 2")' WHERE meter = 1"
  "SET ROLE postgres"
)
for role in att_analyst att_reader att_admin att_owner; do
  for node in 0 1; do
    let_through=""
    for attempt in "${attempts[@]}"; do
      # the administrator syncs, on the coordinator: that is its job
      [ "$role/$node" = att_admin/0 ] && case "$attempt" in *citus_sync_secrets*|*create_key*) true ;; *) false ;; esac && continue
      out=$(psql -X -At -v ON_ERROR_STOP=1 -U "$role" -p "${DP_CITUS_PORTS[$node]}" -c "$attempt" 2>&1)
      # refused: permission denied (also as run_command_on_workers' result),
      # not the owner, coordinator only, or no such shard here; and no hex
      # of 32 bytes anywhere
      { echo "$out" | grep -qE '(permission denied|must be owner|runs on the coordinator of a Citus cluster|relation "dp_stream.citus_transfer_[0-9]+" does not exist)' &&
        ! echo "$out" | grep -qE '[0-9a-f]{64}'; } ||
        let_through+="[$attempt] -> $(echo "$out" | head -2 | tr '\n' ' '); "
    done
    check "$([ -z "$let_through" ]; echo $?)" \
      "$role on the $([ "$node" = 0 ] && echo coordinator || echo worker) is refused all ${#attempts[@]} attacks (secrets, transfer table and shard, run_command_on_workers, logs, internal functions, planted key or secret, a state swapped between shards, triggers off, SET ROLE)" "$let_through"
  done
done
planted=$(for i in 0 1 2 3; do q "$i" "SELECT count(*) FROM dp_stream.keys WHERE key = 'planted'"; q "$i" "SELECT count(*) FROM dp_stream.secrets WHERE id = 7"; done | tr '\n' ' ')
is "... and no node holds a planted key or secret" "$planted" "0 0 0 0 0 0 0 0 "
# the reader of a view over a distributed table: Citus runs the shard
# queries as the reader, who may not read the shards; on a worker too
for node in 0 1; do
  out=$(psql -X -At -U att_reader -p "${DP_CITUS_PORTS[$node]}" -c "SELECT count(*) FROM att_published" 2>&1)
  echo "$out" | grep -q 'ERROR:  permission denied for table readings_[0-9]*'
  check $? "the reader of a keyed view over a distributed table gets no release on node $node (Citus checks the shards as the reader)" "$out"
done

# budgets, managed streams and publications live on the coordinator: on a
# worker their functions are refused before they do anything (55000, hint)
worker_calls=(
  "SELECT dp_stream.create_budget('on_worker', 1.0)"
  "SELECT dp_stream.charge('att_budget', 0.6, 'on a worker')"
  "SELECT dp_stream.create_stream('on_worker', 'count', $mech)"
  "SELECT dp_stream.advance('coordinator_stream', '2026-01-01', 1)"
  "SELECT dp_stream.advance('coordinator_stream', ARRAY[dp_stream.observation(NULL, '2026-01-01', 1)])"
  "SELECT dp_stream.create_publication('on_worker', 'count', $mech)"
  "SELECT dp_stream.register_publication('on_worker', $mech, 'postgres', 'count', NULL, NULL, false, 'count', 'partition', 'event', NULL, NULL, NULL, '2026-01-01', '1 day', NULL)"
  "SELECT dp_stream.publish('coordinator_publication', '2026-01-01', ARRAY[dp_stream.observation('1', '2026-01-01', 1)])"
  "SELECT dp_stream.create_key('on_worker', $mech)"
)
not_refused=""
for call in "${worker_calls[@]}"; do
  name=$(echo "$call" | sed -E 's/^SELECT (dp_stream\.[a-z_]+)\(.*/\1/')
  out=$(psql -X -At -v VERBOSITY=verbose -U att_admin -p "${DP_CITUS_PORTS[1]}" -c "$call" 2>&1)
  echo "$out" | grep -q "^ERROR:  55000: $name runs on the coordinator of a Citus cluster" &&
    echo "$out" | grep -q '^HINT:  Connect to the coordinator and run it there' || not_refused+="$name: $(echo "$out" | head -2 | tr '\n' ' '); "
done
check "$([ -z "$not_refused" ]; echo $?)" "an administrator on a worker is refused early (55000, hint) create_budget, charge, create_stream, advance (both), create_publication, register_publication, publish, create_key" "$not_refused"
refused=$(q 1 "SELECT dp_stream_private.create_stream('on_worker', 'count', $mech);" ; q 1 "SELECT dp_stream_private.create_budget('on_worker', 1.0)"
         q 1 "INSERT INTO dp_stream.charges (dataset, epsilon, purpose) VALUES ('att_budget', 0.6, 'on a worker')")
[ "$(echo "$refused" | grep -c -E 'ERROR:  (dp_stream\.(streams|budgets) is written|epsilon is charged) on the coordinator of a Citus cluster')" = 3 ] &&
  [ "$(q 1 "SELECT (SELECT count(*) FROM dp_stream.streams) + (SELECT count(*) FROM dp_stream.charges) + (SELECT count(*) FROM dp_stream.budgets WHERE dataset = 'on_worker')")" = 0 ]
check $? "... and a superuser calling dp_stream_private directly on a worker is refused by the catalogs (streams, budgets, charges)" "$refused"
# a charge is global: what the coordinator charged cannot be charged again on a worker
spent=$(psql -X -At -U att_admin -c "SELECT dp_stream.charge('att_budget', 0.6, 'on the coordinator')" 2>&1
        psql -X -At -U att_admin -p "${DP_CITUS_PORTS[2]}" -c "SELECT dp_stream.charge('att_budget', 0.6, 'on a worker')" 2>&1 | head -1
        q 0 "SELECT remaining_epsilon FROM dp_stream.budget('att_budget')")
is "a charge is global: 0.6 of 1.0 on the coordinator, the second 0.6 refused on a worker" "$(echo $spent)" \
  "0.4 ERROR: dp_stream.charge runs on the coordinator of a Citus cluster 0.4"

# a managed stream on the coordinator fed by a query over a distributed
# table, charged in the coordinator's ledger
fed=$(psql -X -At -U att_admin -v ON_ERROR_STOP=1 <<'SQL' 2>&1
SELECT dp_stream.create_budget('stream_budget', 2.0);
SELECT dp_stream.create_stream('coordinator_stream', 'count', dp_binary(epsilon => 1.0, horizon => 64, max_per_step => 200), first_period => '2026-01-01', dataset => 'stream_budget');
SQL
q 0 "GRANT SELECT ON readings TO att_admin" 2>&1
psql -X -At -U att_admin -v ON_ERROR_STOP=1 -c "SELECT periods || ' ' || releases FROM dp_stream.advance('coordinator_stream',
  (SELECT array_agg(dp_stream.observation(NULL, timestamp '2026-01-01' + (day - 1) * interval '1 day', v) ORDER BY day, meter) FROM readings))" 2>&1)
on_workers=$(for i in 1 2 3; do q "$i" "SELECT count(*) FROM dp_stream.streams"; done | tr '\n' ' ')
ledger=$(q 0 "SELECT remaining_epsilon = 1.0 FROM dp_stream.budget('stream_budget')")
if echo "$fed" | grep -qx '30 30' && [ "$on_workers" = "0 0 0 " ] && [ "$ledger" = t ] &&
   [ "$(q 0 "SELECT count(*) FROM dp_stream.releases WHERE stream = 'coordinator_stream'")" = 30 ]; then
  report 0 "a managed stream on the coordinator fed by a query over the distributed table: 30 periods released, charged in the coordinator's ledger, no stream on any worker"
else
  report 1 "a managed stream on the coordinator fed by a query over the distributed table"; echo "$fed / $on_workers / $ledger" | sed 's/^/# /'
fi

# stored states advanced on a distributed table: Citus refuses dp_push
# (volatile) in UPDATE, so the new states go into a colocated table with
# INSERT ... SELECT (pushed down) and replace the old ones; under keyed
# noise they equal one node's UPDATE ... SET s = dp_push(s, v)
q 0 "CREATE TABLE kstates_local AS
       SELECT meter, dp_count_state(v, $keyed ORDER BY day) AS s FROM readings_local WHERE day <= 20 GROUP BY meter;
     UPDATE kstates_local k SET s = dp_push(k.s, r.v) FROM readings_local r WHERE r.meter = k.meter AND r.day = 21;
     CREATE TABLE kstates (meter int NOT NULL, s dp_counter);
     CREATE TABLE kstates_next (meter int NOT NULL, s dp_counter);
     SELECT create_distributed_table('kstates', 'meter', colocate_with => 'readings');
     SELECT create_distributed_table('kstates_next', 'meter', colocate_with => 'readings');
     INSERT INTO kstates SELECT meter, dp_count_state(v, $keyed ORDER BY day) FROM readings WHERE day <= 20 GROUP BY meter;" >/dev/null
advance="INSERT INTO kstates_next SELECT k.meter, dp_push(k.s, r.v) FROM kstates k JOIN readings r ON r.meter = k.meter AND r.day = 21"
plan=$(q 0 "EXPLAIN (COSTS OFF) $advance")
advanced=$(q 0 "BEGIN;
  $advance;
  TRUNCATE kstates;
  INSERT INTO kstates SELECT * FROM kstates_next;
  TRUNCATE kstates_next;
  COMMIT;")
kstate_estimates="SELECT meter, dp_steps(s), dp_estimate(s) FROM"
local_states=$(fingerprint 0 "$kstate_estimates kstates_local")
if echo "$plan" | grep -q 'Task Count: 8' && [ "$(q 0 "SELECT count(*) || ' ' || min(dp_steps(s)) FROM kstates")" = "40 21" ] &&
   [ "$(fingerprint 0 "$kstate_estimates kstates")" = "$local_states" ]; then
  report 0 "a distributed table of keyed states advanced with INSERT ... SELECT (8 tasks) and swapped equals one node's UPDATE ... SET s = dp_push(s, v)"
else
  report 1 "a distributed table of keyed states advanced with INSERT ... SELECT (8 tasks) and swapped equals one node's UPDATE ... SET s = dp_push(s, v)"
  echo "$plan $advanced" | sed 's/^/# /'
fi

# rotate_secret reaches every node; dropping the old secret is
# refused while the workers hold states sealed under it
old_seal=$(q 0 "SELECT id FROM dp_stream.secrets WHERE purpose = 'seal'")
q 0 "SELECT dp_stream.rotate_secret()" >/dev/null
[ "$(q 0 "SELECT count(*) FROM dp_stream.secrets WHERE purpose = 'seal'")" = 2 ] && same_secrets 3
report $? "rotate_secret on the coordinator reaches every node in its transaction"
refused=$(q 0 "SELECT dp_stream.drop_secret($old_seal)")
echo "$refused" | grep -q "it holds states sealed under its own secret"
check $? "drop_secret is refused while a worker holds states sealed under the old secret" "$refused"
is "... and the old secret stays on every node" "$(for i in 0 1 2 3; do q "$i" "SELECT count(*) FROM dp_stream.secrets WHERE id = $old_seal"; done | tr '\n' ' ')" "1 1 1 1 "

# a worker refuses to be the source
refused=$(q 1 "SELECT dp_stream.citus_sync_secrets()")
echo "$refused" | grep -q 'ERROR:  dp_stream.citus_sync_secrets() runs on the coordinator of a Citus cluster'
check $? "dp_stream.citus_sync_secrets() on a worker says it runs on the coordinator" "$refused"


# administrators only
q 0 "CREATE ROLE citus_ops LOGIN; GRANT dp_stream_admin TO citus_ops; CREATE ROLE citus_analyst LOGIN" >/dev/null
is "a dp_stream_admin who is no superuser syncs" "$(psql -X -At -U citus_ops -c "SELECT dp_stream.citus_sync_secrets()" 2>&1)" 3
refused=$(psql -X -At -U citus_analyst -c "SELECT dp_stream.citus_sync_secrets()" 2>&1)
echo "$refused" | grep -q 'ERROR:  permission denied for function citus_sync_secrets' &&
  echo "$refused" | grep -q 'HINT:  dp_stream.citus_sync_secrets is for the administrators of dp_stream: a superuser grants it with GRANT dp_stream_admin TO citus_analyst.'
check $? "another role is refused, with the hint naming dp_stream_admin" "$refused"

# DROP EXTENSION takes the reference table with it on every node; a
# cluster created at 0.14.0 and updated syncs
collect_secrets
q 0 "DROP EXTENSION dp_stream CASCADE" >/dev/null
left=$(for i in 0 1 2 3; do q "$i" "SELECT count(*) FROM pg_extension WHERE extname = 'dp_stream'"; q "$i" "SELECT count(*) FROM pg_class WHERE relname LIKE 'citus_transfer%'"; done | tr '\n' ' ')
is "DROP EXTENSION dp_stream on the coordinator leaves nothing of it (reference table included) on any node" "$left" "0 0 0 0 0 0 0 0 "
# docs/citus.md as written, as a user pastes it: the extension is not
# there yet (dropped just above), and the page's first block creates it on
# every node and syncs; then it is dropped again for the update test.
# The attacks above made att_owner the database's owner (so public is
# theirs, and CREATE EXTENSION rightly warns): the page runs as README.md
# says to install, in a database a superuser owns.
for ((i = 0; i < ${#DP_CITUS_PORTS[@]}; i++)); do
  q "$i" "ALTER DATABASE postgres OWNER TO postgres" >/dev/null 2>&1
done
# docs/citus.md as written: its sql blocks in one psql session on the
# coordinator (at the default client_min_messages, without the remote
# commands in the messages), each block's output
# the text block after it, no other block printing an error or a warning
page=$(mktemp -d)
awk -v dir="$page" '
  BEGIN { n = 0; kind = ""; last_sql = 0 }
  kind == "" && /^```sql[[:space:]]*$/ { n++; kind = "sql"; last_sql = n; print "\\echo @@block " n > (dir "/script.sql"); next }
  kind == "" && /^```text[[:space:]]*$/ { if (last_sql) { kind = "text"; out = dir "/stated." last_sql; printf "" > out } else kind = "other"; next }
  kind == "" && /^```/ { kind = "other"; last_sql = 0; next }
  kind != "" && /^```[[:space:]]*$/ { if (kind == "text") last_sql = 0; kind = ""; next }
  kind == "sql" { print > (dir "/script.sql"); next }
  kind == "text" { print > out; next }
  kind == "" && NF > 0 { last_sql = 0 }
  END { print "\\echo @@end" > (dir "/script.sql"); print n > (dir "/blocks") }' docs/citus.md
(cd "$page" && PGOPTIONS='-c citus.log_remote_commands=off' psql -X -q -v ON_ERROR_STOP=0 -p "${DP_CITUS_PORTS[0]}" -f script.sql) 2>&1 |
  sed -E 's/^psql:script\.sql:[0-9]+: //' |
  awk -v dir="$page" '/^@@block [0-9]+$/ { out = dir "/actual." $2; printf "" > out; next }
                      /^@@end$/ { out = dir "/actual.end"; next }
                      { print > (out == "" ? dir "/actual.0" : out) }'
trim() {  # the lines of a file without leading and trailing blank lines
  awk 'NF { for (i = 0; i < blank; i++) print ""; blank = 0; started = 1; print; next } started { blank++ }' "$1"
}
blocks=$(cat "$page/blocks")
page_problems=""
stated=0
for ((b = 1; b <= blocks; b++)); do
  if [ ! -f "$page/actual.$b" ]; then
    page_problems+="block $b did not run; "
  elif [ -f "$page/stated.$b" ]; then
    stated=$((stated + 1))
    diff -u <(trim "$page/stated.$b") <(trim "$page/actual.$b") >"$page/diff.$b" ||
      page_problems+="block $b: $(tail -n +3 "$page/diff.$b" | grep '^[-+]' | head -6 | tr '\n' ' '); "
  elif grep -qE '^(ERROR|WARNING|FATAL|PANIC):' "$page/actual.$b"; then
    page_problems+="block $b: $(grep -m1 -E '^(ERROR|WARNING|FATAL|PANIC):' "$page/actual.$b"); "
  fi
done
[ "$blocks" -gt 0 ] && [ -z "$page_problems" ]
check $? "docs/citus.md runs as written on the cluster ($blocks blocks, $stated stated outputs printed)" "$page_problems"
rm -rf "$page"
collect_secrets       # the page's secrets too, for the log check below
q 0 "DROP EXTENSION dp_stream CASCADE" >/dev/null 2>&1
q 0 "CREATE EXTENSION dp_stream VERSION '0.14.0'" >/dev/null
updated=$(q 0 "ALTER EXTENSION dp_stream UPDATE"; q 0 "SELECT dp_stream.citus_sync_secrets()")
versions=$(for i in 0 1 2 3; do q "$i" "SELECT extversion FROM pg_extension WHERE extname = 'dp_stream'"; done | sort -u)
if [ "$(echo $updated)" = "ALTER EXTENSION 3" ] && [ "$versions" = "$(q 0 "SELECT default_version FROM pg_available_extensions WHERE name = 'dp_stream'")" ] && same_secrets 3; then
  report 0 "created at 0.14.0 and updated on the coordinator, every node is at $versions and syncs"
else
  report 1 "created at 0.14.0 and updated on the coordinator, every node is at the new version and syncs"; echo "# $updated / $versions"
fi

# no secret in any node's log, which has every statement
collect_secrets
logs=("$DP_CITUS_DIR"/node*/server.log)
grep -q 'statement: SELECT dp_stream.citus_sync_secrets()' "${logs[0]}" &&
  grep -q 'issuing COPY dp_stream.citus_transfer_[0-9]* .*FROM STDIN' "${logs[0]}" &&
  grep -q 'COPY dp_stream.citus_transfer_[0-9]* .*FROM STDIN' "${logs[1]}"
check $? "the logs have every statement (log_statement = all) and every remote command (citus.log_remote_commands)" \
  "$(grep -c 'citus_sync_secrets' "${logs[0]}") $(grep -c 'COPY dp_stream.citus_transfer' "${logs[0]}") $(grep -m3 'citus_transfer' "${logs[1]}")"
sort -u "$hexes" | grep -v '^$' >"$hexes.u"
leaked=$(cat "${logs[@]}" | grep -c -F -f "$hexes.u")
is "no secret ($(wc -l <"$hexes.u") values, hex and base64) appears in the logs of the 4 nodes ($(cat "${logs[@]}" | wc -l) lines)" "$leaked" 0
rm -f "$hexes.u"

finish
