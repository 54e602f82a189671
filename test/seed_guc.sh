#!/usr/bin/env bash
# dp_stream.seed from postgresql.conf, the server command line, connection
# options and shared_preload_libraries (docs/reference.md, "Settings").  The
# SQL-reachable cases are in test/regress/sql/seed_setting.sql; these need edits to
# postgresql.conf and server restarts, so this script runs a throwaway cluster
# of its own (scripts/cluster.sh; stopped and deleted on exit) and never
# touches the one scripts/test.sh runs.  The extension must be installed.
# Prints TAP.
set -uo pipefail
cd "$(dirname "$0")/.."
. scripts/cluster.sh

planned=17
run=0
echo "1..$planned"

# ok CONDITION_STATUS DESCRIPTION
report() {
  run=$((run + 1))
  if [ "$1" -eq 0 ]; then echo "ok $run - $2"; else echo "not ok $run - $2"; fi
}
# check DESCRIPTION COMMAND...: ok when the command succeeds
check() {
  local description=$1
  shift
  "$@"
  report $? "$description"
}
finish() {
  if [ "$run" -ne "$planned" ]; then
    echo "# You planned $planned tests but ran $run"
    exit 1
  fi
  exit 0
}

# psql as ROLE in a new session; stdout and stderr together
sql() {
  local role=$1
  shift
  psql -X -At -v ON_ERROR_STOP=0 -U "$role" -d seed_guc "$@" 2>&1
}
server() {  # server ACTION [OPTIONS]: pg_ctl stop or start with these options
  if [ "$1" = stop ]; then
    dp_run_as_owner "$DP_PG_BIN/pg_ctl" -D "$DP_CLUSTER_DIR/data" -w stop >/dev/null
  else
    dp_run_as_owner "$DP_PG_BIN/pg_ctl" -D "$DP_CLUSTER_DIR/data" \
      -l "$DP_CLUSTER_DIR/server.log" -w -t 60 -o "$2" start >/dev/null
  fi
}
reload() {
  psql -X -Atq -d seed_guc -c 'SELECT pg_reload_conf()' >/dev/null
  sleep 1
}
contains() { grep -qF -- "$2" <<<"$1"; }
lacks() { ! grep -qF -- "$2" <<<"$1"; }
# PostgreSQL's own refusal to SHOW a superuser-only setting: 15 says "must
# be superuser or have privileges of pg_read_all_settings to examine", 16
# and later "permission denied to examine"; both name the setting
refused_to_examine() {
  grep -qE 'ERROR: .* to examine "dp_stream\.seed"' <<<"$1"
}

refused='parameter "dp_stream.seed" can only be set with SET in the session'
release='SELECT dp_count(1, dp_binary(1e-9, 4, 1))'
# noise scale 1e9: an unseeded release equals the seeded one with
# probability far below 1e-9
source_query="SELECT source || ':' || setting FROM pg_settings WHERE name = 'dp_stream.seed'"

dp_cluster_start || { echo "Bail out! the cluster did not start"; exit 1; }
createdb seed_guc || { echo "Bail out! createdb failed"; exit 1; }
psql -X -q -d seed_guc -c 'CREATE EXTENSION dp_stream' -c 'CREATE ROLE seed_reader LOGIN' ||
  { echo "Bail out! setup failed"; exit 1; }

# the release the seed would give: the first draw of a freshly keyed stream
reference=$(psql -X -At -d seed_guc -c "SET dp_stream.seed = 'from-config'" -c "$release" | tail -1)
check "a session SET gives a reproducible release" \
  test "$(psql -X -At -d seed_guc -c "SET dp_stream.seed = 'from-config'" -c "$release" | tail -1)" = "$reference"

# --- postgresql.conf (the same path as ALTER SYSTEM's postgresql.auto.conf)
echo "dp_stream.seed = 'from-config'" >>"$DP_CLUSTER_DIR/data/postgresql.conf"
reload
out=$(sql seed_reader -c 'SHOW dp_stream.seed')
check "postgresql.conf: the value is visible to every role through SHOW before the library loads (documented)" \
  contains "$out" from-config
out=$(sql seed_reader -c "$release" -c 'SHOW dp_stream.seed')
check "postgresql.conf: loading the library discards the value with a WARNING" \
  contains "$out" "WARNING:  $refused"
check "postgresql.conf: the seed never takes effect" lacks "$out" "$reference"
check "postgresql.conf: once loaded, a non-superuser cannot SHOW it" \
  refused_to_examine "$out"
out=$(sql postgres -c "$release" -c "$source_query" -c 'SELECT pg_reload_conf()' \
  -c 'SELECT pg_sleep(1)' -c "$source_query")
check "postgresql.conf: the superuser's session has the default, also after a reload with the library loaded" \
  test "$(grep -c '^default:$' <<<"$out")" -eq 2
sed -i "/^dp_stream.seed = 'from-config'/d" "$DP_CLUSTER_DIR/data/postgresql.conf"
reload

# --- -c on the server command line
server stop
server start "-c dp_stream.seed=from-config"
out=$(sql seed_reader -c "$release")
check "-c: loading the library discards the value with a WARNING" \
  contains "$out" "WARNING:  $refused"
check "-c: the seed never takes effect" lacks "$out" "$reference"

# --- shared_preload_libraries: the postmaster discards file and command-line
# values before any session starts
server stop
echo "dp_stream.seed = 'from-config'" >>"$DP_CLUSTER_DIR/data/postgresql.conf"
server start "-c shared_preload_libraries=dp_stream -c dp_stream.seed=from-config"
check "preloaded: the postmaster logs the WARNING" \
  grep -qF "WARNING:  $refused" "$DP_CLUSTER_DIR/server.log"
out=$(sql seed_reader -c 'SHOW dp_stream.seed')
check "preloaded: a non-superuser cannot SHOW it" \
  refused_to_examine "$out"
out=$(sql postgres -c "$source_query" -c "$release")
check "preloaded: the value in force is the default" contains "$out" 'default:'
check "preloaded: the seed never takes effect" lacks "$out" "$reference"
out=$(PGOPTIONS='-c dp_stream.seed=from-config' sql postgres -c 'SELECT 1')
check "preloaded: PGOPTIONS with the seed makes the connection fail" \
  contains "$out" "FATAL:  $refused"
out=$(sql postgres -c "ALTER ROLE seed_reader SET dp_stream.seed = 'stored'")
check "preloaded: ALTER ROLE SET is refused in every session" contains "$out" "ERROR:  $refused"
out=$(sql postgres -c "CREATE FUNCTION seed_clause() RETURNS int LANGUAGE sql SET dp_stream.seed = 'stored' AS 'SELECT 1'")
check "preloaded: CREATE FUNCTION ... SET is refused in every session" contains "$out" "ERROR:  $refused"
# (the extension's own functions carry SET search_path: count seed entries only)
out=$(psql -X -At -d seed_guc \
  -c "SELECT count(*) FROM pg_db_role_setting WHERE array_to_string(setconfig, ',') LIKE '%dp_stream.seed%'" \
  -c "SELECT count(*) FROM pg_proc WHERE array_to_string(proconfig, ',') LIKE '%dp_stream.seed%'" 2>&1 | tr '\n' ' ')
check "preloaded: nothing was stored" test "$out" = "0 0 "
out=$(sql postgres -c "SET dp_stream.seed = 'from-config'" -c "$release")
check "preloaded: a session SET still gives the seeded release" contains "$out" "$reference"

dp_cluster_stop
finish
