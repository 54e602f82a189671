#!/usr/bin/env bash
# Restoring a dump into a database whose dp_stream is older than the dump's
# (issue 23; docs/threat_model.md, "Backups, dumps and restores"), and into
# a fresh database.  The library is the new one throughout; the database's
# extension is created at an older version first (CREATE EXTENSION
# dp_stream VERSION '0.9.0'), as a server that got the new library keeps
# its databases' versions until ALTER EXTENSION UPDATE.
#
# The dump holds sealed states (a table of them and a managed stream), a
# registered key and the keyed releases it published (a table and a
# materialized view, which pg_restore refreshes).  For each older version
# that has secrets (0.6.0 .. 0.11.0):
#   - right after pg_restore, a keyed release computed again is either
#     refused or the published one: never new noise (before 0.12.0, where
#     the copy of dp_stream.secrets failed on the version's check
#     constraint, every keyed release came out with the target's noise);
#   - after ALTER EXTENSION dp_stream UPDATE and, for each of
#     dp_stream.secrets, keys (0.15.0 added a column), streams and releases
#     whose copy pg_restore reported failed, the documented pg_restore --data-only --table=..., then the
#     refresh of the materialized views that
#     pg_restore could not refresh: every state opens with its estimate, the stream
#     continues, every keyed release and the materialized view are the
#     published ones.
# Into 0.5.0 (no secrets yet): sealed states are refused as they are
# restored, with a message that says to update first, and ALTER EXTENSION
# UPDATE then succeeds (it used to fail on them).  Into a fresh database:
# a dump of a database that was upgraded from 0.10.0 with keys (so without
# a table_noise secret) keeps its keyed noise, restored plainly and with
# --single-transaction (before 0.12.0 the fresh install's own table_noise
# secret replaced it); a dump made without dp_stream.secrets gets keyed
# noise refused, not new.
#
# A throwaway cluster of its own (scripts/cluster.sh); the extension must be
# installed.  Prints TAP.
set -uo pipefail
cd "$(dirname "$0")/.."
. scripts/cluster.sh

versions=(0.6.0 0.7.0 0.8.0 0.9.0 0.10.0 0.11.0)
planned=$((2 * ${#versions[@]} + 5))
run=0
echo "1..$planned"
report() {
  run=$((run + 1))
  if [ "$1" -eq 0 ]; then echo "ok $run - $2"; else echo "not ok $run - $2"; fi
}

dp_cluster_start >/dev/null || { echo "Bail out! no cluster"; exit 1; }
work=$(mktemp -d "${TMPDIR:-/tmp}/dp_stream_restore.XXXXXX")
chmod 755 "$work"
trap 'dp_cluster_stop; rm -rf "$work"' EXIT

q() { psql -X -q -At -v ON_ERROR_STOP=1 "$@"; }

# The source: states, a managed stream, a key and its releases.
source_sql() {
  cat <<'SQL'
SET client_min_messages = warning;
CREATE TABLE data (day int, n int);
INSERT INTO data SELECT d, (d * 7) % 13 FROM generate_series(1, 20) d;
SELECT dp_stream.create_key('k1', dp_binary(1, 64, 1));
CREATE TABLE states AS
  SELECT dp_count_state(n, dp_binary(1.0, 64, 20) ORDER BY day) AS c FROM data;
CREATE TABLE estimates AS SELECT dp_estimate(c) AS estimate FROM states;
CREATE TABLE keyed AS
  SELECT day, dp_count(n, dp_keyed(dp_binary(1, 64, 1), 'k1')) OVER (ORDER BY day) AS released
  FROM data;
CREATE MATERIALIZED VIEW keyed_view AS
  SELECT day, dp_count(n, dp_keyed(dp_binary(1, 64, 1), 'k1')) OVER (ORDER BY day) AS released
  FROM data;
SELECT dp_stream.create_stream('s1', 'count', dp_binary(1, 64, 1), first_period => '2026-01-01');
SELECT count(*) FROM dp_stream.advance('s1', '2026-01-03', 4);
SQL
}

# keyed releases computed again that equal / differ from the published
# ones, "refused" if computing them fails
keyed_again() {
  psql -X -q -At -d "$1" -c "
    SELECT count(*) FILTER (WHERE k.released = r.released) || ' ' ||
           count(*) FILTER (WHERE k.released <> r.released)
    FROM keyed k JOIN (SELECT day, dp_count(n, dp_keyed(dp_binary(1, 64, 1), 'k1'))
                                     OVER (ORDER BY day) AS released FROM data) r USING (day)" \
    2>/dev/null || echo refused
}

# everything as published: "states estimates keyed view stream"
all_as_published() {
  psql -X -q -At -d "$1" -c "
    SELECT (SELECT count(*) FROM states s, estimates e
            WHERE dp_steps(s.c) = 20 AND dp_estimate(s.c) = e.estimate) || ' ' ||
           (SELECT count(*) FROM keyed k
            JOIN (SELECT day, dp_count(n, dp_keyed(dp_binary(1, 64, 1), 'k1'))
                                OVER (ORDER BY day) AS released FROM data) r
              ON r.day = k.day AND r.released = k.released) || ' ' ||
           (SELECT count(*) FROM keyed k JOIN keyed_view v
              ON v.day = k.day AND v.released = k.released) || ' ' ||
           (SELECT step FROM dp_stream.advance('s1', '2026-01-04', 2))" 2>&1
}

createdb source || exit 1
q -d source -c 'CREATE EXTENSION dp_stream' || exit 1
source_sql | q -d source >/dev/null || { echo "Bail out! the source database"; exit 1; }
pg_dump -Fc -d source -f "$work/source.dump" || exit 1
pg_dump -Fc -d source --exclude-table-data=dp_stream.secrets -f "$work/no_secrets.dump" || exit 1

for version in "${versions[@]}"; do
  db="target_${version//./_}"
  createdb "$db"
  q -d "$db" -c "CREATE EXTENSION dp_stream VERSION '$version'"
  pg_restore -d "$db" "$work/source.dump" >"$work/$db.restore" 2>&1
  keyed=$(keyed_again "$db")
  if [ "$keyed" = refused ] || [ "$keyed" = "20 0" ]; then
    report 0 "$version: after the restore, keyed releases computed again are ${keyed/20 0/the published ones}"
  else
    report 1 "$version: after the restore, keyed releases computed again: $keyed (equal, different)"
  fi
  update=$(q -d "$db" -c 'ALTER EXTENSION dp_stream UPDATE' 2>&1)
  # the documented finish: each of the extension's tables whose copy
  # failed, again, in this order (a release needs its stream)
  again=0
  for table in secrets keys streams releases; do
    if grep -qE "COPY failed for table \"$table\"|Command was: COPY dp_stream\.$table " "$work/$db.restore"; then
      pg_restore -d "$db" --data-only --table=$table "$work/source.dump" >>"$work/$db.restore" 2>&1
      again=1
    fi
  done
  if [ "$again" -eq 1 ]; then
    q -d "$db" -c 'REFRESH MATERIALIZED VIEW keyed_view' >>"$work/$db.restore" 2>&1
  fi
  result=$(all_as_published "$db")
  if [ -z "$update" ] && [ "$result" = "1 20 20 4" ]; then
    report 0 "$version: after the update (and the tables whose copy failed restored again), states open, keyed releases and the view are the published ones, the stream continues"
  else
    report 1 "$version: after the update: '$update' '$result' (want '1 20 20 4')"
    sed 's/^/# /' "$work/$db.restore" | head -10
  fi
done

# 0.5.0: no secrets table
createdb target_0_5_0
q -d target_0_5_0 -c "CREATE EXTENSION dp_stream VERSION '0.5.0'"
pg_restore -d target_0_5_0 "$work/source.dump" >"$work/0.5.0.restore" 2>&1
update=$(q -d target_0_5_0 -c 'ALTER EXTENSION dp_stream UPDATE' 2>&1)
if grep -q 'sealed dp_counter value refused: dp_stream in this database predates sealing' \
     "$work/0.5.0.restore" && [ -z "$update" ]; then
  report 0 "0.5.0: sealed states refused as they are restored (update first), and the update succeeds"
else
  report 1 "0.5.0: update: '$update'"
  grep ERROR "$work/0.5.0.restore" | head -5 | sed 's/^/# /'
fi

# a database upgraded from 0.10.0 with a key: no table_noise secret
createdb old_source
q -d old_source -c "CREATE EXTENSION dp_stream VERSION '0.10.0'"
source_sql | q -d old_source >/dev/null
q -d old_source -c 'ALTER EXTENSION dp_stream UPDATE'
pg_dump -Fc -d old_source -f "$work/old_source.dump"
for mode in plain single; do
  db="fresh_$mode"
  createdb "$db"
  if [ "$mode" = single ]; then
    pg_restore -d "$db" --single-transaction "$work/old_source.dump" >"$work/$db.restore" 2>&1
  else
    pg_restore -d "$db" "$work/old_source.dump" >"$work/$db.restore" 2>&1
  fi
  result=$(all_as_published "$db")
  if [ "$result" = "1 20 20 4" ]; then
    report 0 "fresh database, $mode restore of a database upgraded from 0.10.0 with keys: everything as published"
  else
    report 1 "fresh database, $mode restore of a database upgraded from 0.10.0 with keys: '$result' (want '1 20 20 4')"
    sed 's/^/# /' "$work/$db.restore" | head -10
  fi
done

# the same database dumped without its secrets
createdb fresh_no_secrets
pg_restore -d fresh_no_secrets "$work/no_secrets.dump" >"$work/no_secrets.restore" 2>&1
keyed=$(keyed_again fresh_no_secrets)
refusal=$(psql -X -q -At -d fresh_no_secrets -c "SELECT dp_count(n, dp_keyed(dp_binary(1, 64, 1), 'k1')) OVER (ORDER BY day) FROM data" 2>&1 | head -1)
if [ "$keyed" = refused ] && [[ "$refusal" == *"keyed noise refused"* ]]; then
  report 0 "fresh database, dump without dp_stream.secrets: keyed noise refused (55000), not drawn anew"
else
  report 1 "fresh database, dump without dp_stream.secrets: keyed releases '$keyed', '$refusal'"
fi

# the materialized view could not be refreshed there either: still empty
populated=$(q -d fresh_no_secrets -c "SELECT relispopulated FROM pg_class WHERE relname = 'keyed_view'")
if [ "$populated" = f ] && grep -q 'keyed noise refused' "$work/no_secrets.restore"; then
  report 0 "fresh database, dump without dp_stream.secrets: pg_restore's refresh of the keyed view is refused"
else
  report 1 "fresh database, dump without dp_stream.secrets: the keyed view was refreshed ($populated)"
fi

if [ "$run" -ne "$planned" ]; then
  echo "# You planned $planned tests but ran $run"
  exit 1
fi
