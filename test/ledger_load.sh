#!/usr/bin/env bash
# The privacy-budget ledger under load, at every isolation level (0.12.0,
# docs/managed_streams.md, "What serializes").  For READ COMMITTED,
# REPEATABLE READ and SERIALIZABLE: a budget of 1.0, and pgbench with 8
# clients x 200 transactions, each charging 0.001 as a LOGIN role that is a
# member of dp_stream_admin (pgbench retries serialization failures, up to
# 1000 times).  0.001 is charged 0.001000000001 (rounded up), so exactly 999
# charges fit; every transaction past them is refused and charges nothing.
# 0.11.0 under REPEATABLE READ charged 1004: 1.004 of 1.0, -0.004 left.
#
# Runs in the cluster of scripts/test.sh (PGHOST, PGPORT and PGUSER set, the
# extension installed), in a database of its own.  Prints TAP.
set -uo pipefail
cd "$(dirname "$0")/.."

DP_PG_BIN=${DP_PG_BIN:-$(pg_config --bindir)}
db=dp_stream_ledger_load
role=ledger_load_admin
clients=8
per_client=200
levels=("READ COMMITTED" "REPEATABLE READ" "SERIALIZABLE")
planned=$((3 * ${#levels[@]}))
run=0
echo "1..$planned"

is() {
  run=$((run + 1))
  if [ "$2" = "$3" ]; then
    echo "ok $run - $1"
  else
    echo "not ok $run - $1"
    echo "#   got:      $2"
    echo "#   expected: $3"
  fi
}
q() { "$DP_PG_BIN/psql" -X -A -t -q -d "$db" -c "$1" 2>&1; }
work=$(mktemp -d "${TMPDIR:-/tmp}/dp_stream_ledger_load.XXXXXX")
cleanup() {
  "$DP_PG_BIN/dropdb" --if-exists "$db" >/dev/null 2>&1
  "$DP_PG_BIN/psql" -X -q -d postgres -c "DROP ROLE IF EXISTS $role" >/dev/null 2>&1
  rm -rf "$work"
}
trap cleanup EXIT

"$DP_PG_BIN/dropdb" --if-exists "$db" >/dev/null 2>&1
"$DP_PG_BIN/createdb" "$db" || { echo "Bail out! createdb $db failed"; exit 1; }
"$DP_PG_BIN/psql" -X -q -v ON_ERROR_STOP=1 -d "$db" >"$work/setup.log" 2>&1 <<SQL || { echo "Bail out! setup failed"; sed 's/^/# /' "$work/setup.log"; exit 1; }
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS dp_stream;
DROP ROLE IF EXISTS $role;
CREATE ROLE $role LOGIN IN ROLE dp_stream_admin;
-- a charge that ends quietly once the budget is spent; a serialization
-- failure (40001) is not caught, so pgbench retries the transaction
CREATE FUNCTION try_charge(dataset text) RETURNS void LANGUAGE plpgsql AS \$\$
BEGIN
  PERFORM dp_stream.charge(dataset, 0.001, 'load');
EXCEPTION WHEN insufficient_resources THEN
  NULL;
END \$\$;
GRANT EXECUTE ON FUNCTION try_charge(text) TO $role;
SQL

for level in "${levels[@]}"; do
  dataset="load_$(echo "$level" | tr 'A-Z ' 'a-z_')"
  q "SELECT dp_stream.create_budget('$dataset', 1.0)" >/dev/null
  printf '%s\n' "BEGIN ISOLATION LEVEL $level;" "SELECT try_charge('$dataset');" "COMMIT;" \
    >"$work/$dataset.sql"
  out=$("$DP_PG_BIN/pgbench" -n -U "$role" -c "$clients" -j 2 -t "$per_client" --max-tries=1000 \
        -f "$work/$dataset.sql" "$db" 2>&1)
  is "$level: $clients clients x $per_client charges as $role, every transaction committed (retried after 40001 where needed)" \
    "$(grep -E '^number of (transactions actually processed|failed transactions)' <<<"$out" | tr '\n' ' ')" \
    "number of transactions actually processed: $((clients * per_client))/$((clients * per_client)) number of failed transactions: 0 (0.000%) "
  echo "# $level: $(sed -nE 's/^number of transactions retried: ([0-9]+).*/\1/p' <<<"$out") transactions retried"
  is "$level: exactly 999 charges of 0.001000000001 fit a budget of 1.0 (spent, remaining, charges)" \
    "$(q "SELECT spent_epsilon || ' ' || remaining_epsilon || ' ' || charges FROM dp_stream.budget('$dataset')")" \
    "0.999000000999 0.000999999001 999"
  is "$level: no charge left the budget below zero, and every charge was made by $role" \
    "$(q "SELECT count(*) FILTER (WHERE remaining_after < 0) || ' ' || count(*) FILTER (WHERE charged_by <> '$role')
          FROM dp_stream.spending WHERE dataset = '$dataset'")" \
    "0 0"
done

if [ "$run" -ne "$planned" ]; then
  echo "# You planned $planned tests but ran $run"
  exit 1
fi
