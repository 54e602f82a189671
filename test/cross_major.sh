#!/usr/bin/env bash
# Moving a database to a new PostgreSQL major (issue 26): a dump taken on the
# old server restored on the new one, and pg_upgrade from the old to the new,
# with the sealed states, managed streams, keyed releases, publications and
# the privacy-budget ledger continuing byte-identically.
#
#   DP_PG_OLD_BIN  bin directory of the old server (default: pg_config's, 15)
#   DP_PG_NEW_BIN  bin directory of the new server, e.g. a PostgreSQL 18
#                  build's bin; unset, or without dp_stream: skipped
#
# dp_stream must be installed in both.  Three throwaway clusters, run as
# postgres when started as root, on private sockets, stopped and deleted on
# exit (also on error and Ctrl-C): the old one (the source), a fresh new one
# (the restores) and the old one upgraded by the new pg_upgrade.
#
# The source database holds what users store: sealed states in a table
# (ordinary and repeatable, a counter and statistics), managed streams (a
# count and an average) advanced a few periods, a registered key with the
# keyed releases it published (a table and a materialized view), a
# person-level publication published a few periods, and a budget with its
# charges: rows in every configuration table of the extension.  It is
# moved four ways: pg_dump of the NEW major in custom format and pg_restore
# into a fresh database of the new cluster (what PostgreSQL recommends), a
# custom-format (compressed) dump of the OLD pg_dump restored by the new
# pg_restore, a plain dump of the OLD pg_dump replayed by psql, and
# pg_upgrade (copy mode, so the old cluster stays usable).
#
# Then every copy and the old database itself get exactly the same next
# inputs, and what each releases and stores is compared with the old one's.
# Which noise can be compared:
#   - keyed noise (registered keys, publications) and repeatable states
#     (managed streams, dp_counter_new(..., true)) derive their noise from
#     the stored secrets and the sealed state: the same on every side by
#     design, compared as they are;
#   - an ordinary state draws fresh noise at each push: the continuation
#     runs under SET dp_stream.seed (test-only, superuser), so its draws are
#     the same on every side;
#   - the nonce of each new seal is a fresh random draw, so a state sealed
#     anew is compared by what it opens to (estimates, steps, error bounds,
#     mechanism), never by its text; stored states are compared byte for
#     byte.
# Also: a state sealed on the old major opens on the new one; a keyed
# release computed again on the new major is the published one; the ledger
# refuses the same overspend with the same message; ALTER EXTENSION
# dp_stream UPDATE on the new side changes nothing.  Prints TAP.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1

old_bin=${DP_PG_OLD_BIN:-$(pg_config --bindir)}
new_bin=${DP_PG_NEW_BIN:-}

skip() { echo "ok 1 # SKIP $1"; echo "1..1"; exit 0; }
[ -n "$new_bin" ] || skip "DP_PG_NEW_BIN is not set (the bin directory of the new major)"
[ -x "$new_bin/pg_config" ] && [ -x "$new_bin/pg_upgrade" ] || skip "no pg_config or pg_upgrade in DP_PG_NEW_BIN ($new_bin)"
has_dp_stream() {
  [ -f "$("$1/pg_config" --sharedir)/extension/dp_stream.control" ] &&
    [ -f "$("$1/pg_config" --pkglibdir)/dp_stream.so" ]
}
has_dp_stream "$new_bin" || skip "dp_stream is not installed in $new_bin's PostgreSQL"
has_dp_stream "$old_bin" || { echo "Bail out! dp_stream is not installed in $old_bin's PostgreSQL"; exit 1; }
old_major=$("$old_bin/pg_config" --version | sed -E 's/^PostgreSQL ([0-9]+).*/\1/')
new_major=$("$new_bin/pg_config" --version | sed -E 's/^PostgreSQL ([0-9]+).*/\1/')

planned=30
run=0
failures=0
echo "1..$planned"
report() {
  run=$((run + 1))
  if [ "$1" -eq 0 ] && [[ "$2" == "# SKIP"* ]]; then
    echo "ok $run $2"
  elif [ "$1" -eq 0 ]; then
    echo "ok $run - $2"
  else
    echo "not ok $run - $2"
    failures=$((failures + 1))
  fi
}

# --- the clusters ------------------------------------------------------------
owner=""
if [ "$(id -u)" -eq 0 ]; then
  owner=postgres
  id postgres >/dev/null 2>&1 || useradd --system --home-dir /var/lib/postgresql postgres
fi
as_owner() {
  if [ -n "$owner" ]; then runuser -u "$owner" -- "$@"; else "$@"; fi
}

work=$(mktemp -d "${TMPDIR:-/tmp}/dp_stream_cross_major.XXXXXX")
chmod 755 "$work"
[ -n "$owner" ] && chown "$owner" "$work"
declare -A bin_of port_of
cleanup() {
  local name
  for name in "${!bin_of[@]}"; do
    if [ -f "$work/$name/data/postmaster.pid" ]; then
      as_owner "${bin_of[$name]}/pg_ctl" -D "$work/$name/data" -m immediate -w stop >/dev/null 2>&1
    fi
  done
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# init_cluster NAME BIN: initdb with the same encoding and locale for all
init_cluster() {
  local name=$1 bin=$2 options=()
  bin_of[$name]=$bin
  port_of[$name]=$(( 20000 + RANDOM % 20000 ))
  as_owner mkdir -p "$work/$name"
  # 18 checksums new clusters by default; pg_upgrade needs both alike
  if "$bin/initdb" --help | grep -q -- '--no-data-checksums'; then
    options+=(--no-data-checksums)
  fi
  as_owner "$bin/initdb" -D "$work/$name/data" -U postgres --auth=trust --encoding=UTF8 \
    --locale=C.UTF-8 "${options[@]}" >"$work/$name/initdb.log" 2>&1 || {
      sed 's/^/# /' "$work/$name/initdb.log"; return 1; }
  cat >>"$work/$name/data/postgresql.conf" <<CONF
listen_addresses = ''
port = ${port_of[$name]}
unix_socket_directories = '$work/$name'
fsync = off
full_page_writes = off
synchronous_commit = off
shared_buffers = 32MB
max_parallel_workers_per_gather = 0
CONF
}
start_cluster() {
  as_owner "${bin_of[$1]}/pg_ctl" -D "$work/$1/data" -l "$work/$1/server.log" -w -t 60 start \
    >/dev/null || { sed 's/^/# /' "$work/$1/server.log" | tail -20; return 1; }
}
stop_cluster() {
  as_owner "${bin_of[$1]}/pg_ctl" -D "$work/$1/data" -m fast -w stop >/dev/null
}
# sql CLUSTER DATABASE [psql options]: psql of the cluster's own major
sql() {
  local name=$1 db=$2
  shift 2
  "${bin_of[$name]}/psql" -X -q -At -v ON_ERROR_STOP=1 -h "$work/$name" -p "${port_of[$name]}" \
    -U postgres -d "$db" "$@"
}

init_cluster old "$old_bin" && start_cluster old || { echo "Bail out! the old cluster"; exit 1; }

# --- the source database on the old major -------------------------------------
# Periods and values are public constants, so every side can be given the same.
source_sql() {
  cat <<'SQL'
SET client_min_messages = warning;
CREATE EXTENSION dp_stream;
CREATE TABLE data (day int PRIMARY KEY, n int, kwh float8);
INSERT INTO data SELECT d, (d * 7) % 13, ((d * 37) % 101) / 5.0 FROM generate_series(1, 20) d;
SELECT dp_stream.create_budget('hospital', 9);

-- sealed stored states: ordinary (fresh noise at each push) and repeatable
CREATE TABLE states (name text PRIMARY KEY, c dp_counter, s dp_statistic);
INSERT INTO states (name, c)
  SELECT 'count', dp_count_state(n, dp_binary(1.0, 64, 20) ORDER BY day) FROM data;
INSERT INTO states (name, s)
  SELECT 'average', dp_avg_state(kwh, 0, 25, dp_hybrid(8.0) ORDER BY day) FROM data;
INSERT INTO states (name, s)
  SELECT 'variance', dp_variance_state(kwh, 0, 25, dp_binary(8.0, 64) ORDER BY day) FROM data;
INSERT INTO states (name, c)
  VALUES ('repeatable count', dp_push(dp_push(dp_counter_new(dp_binary(1.0, 64, 20), true), 3), 4));
INSERT INTO states (name, s)
  VALUES ('repeatable average',
          dp_push(dp_push(dp_statistic_new('average', 0, 25, dp_hybrid(8.0), true), 7.5), 12.0));
-- what they released when they were made
CREATE TABLE estimates AS
  SELECT name, coalesce(dp_estimate(c)::float8, dp_estimate(s)) AS estimate FROM states;

-- managed streams, charged to the budget
SELECT dp_stream.create_stream('admissions', 'count', dp_binary(1.0, 64, 20),
                               first_period => '2026-01-01', dataset => 'hospital');
SELECT dp_stream.create_stream('kwh', 'average', dp_hybrid(4.0), 0, 25,
                               first_period => '2026-01-01', dataset => 'hospital');
SELECT count(*) FROM data, LATERAL dp_stream.advance('admissions', date '2025-12-31' + day, n)
  WHERE day <= 5;
SELECT count(*) FROM data, LATERAL dp_stream.advance('kwh', date '2025-12-31' + day, kwh)
  WHERE day <= 5;

-- a registered key and what it published
SELECT dp_stream.create_key('k1', dp_binary(1.0, 64, 20), dataset => 'hospital');
SQL
  # the key draws only once its registration is committed: a new statement
  cat <<'SQL'
SET client_min_messages = warning;
CREATE TABLE keyed AS
  SELECT day, dp_count(n, dp_keyed(dp_binary(1.0, 64, 20), 'k1')) OVER (ORDER BY day) AS released
  FROM data;
CREATE MATERIALIZED VIEW keyed_view AS
  SELECT day, dp_count(n, dp_keyed(dp_binary(1.0, 64, 20), 'k1')) OVER (ORDER BY day) AS released
  FROM data;

-- a person-level publication: contributions are tracked per person
CREATE TABLE admitted (ward text, day date, patient int);
INSERT INTO admitted
  SELECT 'ward ' || (p % 3), date '2025-12-31' + (p * 5) % 6 + 1, p / 2 FROM generate_series(1, 60) p;
SELECT dp_stream.create_publication('wards', 'count', dp_binary(1.0, 64, 10),
         partition_by => 'ward', privacy_unit => 'person', contributions => 2,
         dataset => 'hospital', first_period => '2026-01-01') IS NOT NULL;
SQL
  cat <<'SQL'
SET client_min_messages = warning;
SELECT dp_stream.publish('wards', '2026-01-01',
         (SELECT array_agg(dp_stream.observation(ward, day, 1, patient::text))
          FROM admitted WHERE day <= '2026-01-03'),
         through => '2026-01-03');
SELECT dp_stream.charge('hospital', 0.5, 'quarterly report');
SQL
}

# --- what is compared ---------------------------------------------------------
# Stored, before anything continues: the rows as they are (sealed states
# byte for byte, releases with their times, every configuration table of the
# extension but the secrets).
stored_sql() {
  cat <<'SQL'
SELECT 'state ' || name || ' ' || md5(coalesce(c::text, s::text)) FROM states ORDER BY name;
SELECT 'release ' || md5(string_agg(r::text, ',' ORDER BY stream, step)) FROM dp_stream.releases r;
SELECT 'keyed ' || md5(string_agg(k::text, ',' ORDER BY day)) FROM keyed k;
SELECT 'keyed view ' || md5(string_agg(k::text, ',' ORDER BY day)) FROM keyed_view k;
SELECT 'charges sequence ' || last_value FROM dp_stream.charges_id_seq;
SQL
  # each configuration table of the extension, named by the catalog
  sql "$1" "$2" -c "
    SELECT format('SELECT %L || md5(coalesce(string_agg(t::text, %L ORDER BY t::text), %L)) FROM %s t;',
                  'table ' || c.relname || ' ', ',', '', c.oid::regclass)
    FROM pg_extension e, unnest(e.extconfig) AS x(oid) JOIN pg_class c ON c.oid = x.oid
    WHERE e.extname = 'dp_stream' AND c.relkind = 'r' AND c.relname <> 'secrets'
    ORDER BY c.relname"
}

# The states open: what they release now is what they released when made.
opens_sql() {
  cat <<'SQL'
SELECT format('%s %s %s %s %s', name, coalesce(dp_estimate(c)::float8, dp_estimate(s)),
              coalesce(dp_steps(c), dp_steps(s)),
              coalesce(dp_mechanism(c)::text, dp_mechanism(s)::text),
              coalesce(dp_estimate(c)::float8, dp_estimate(s)) IS NOT DISTINCT FROM e.estimate)
FROM states JOIN estimates e USING (name) ORDER BY name;
SELECT format('%s stream %s %s', name, steps,
              coalesce(dp_estimate(counter)::float8, dp_estimate(statistic_state)))
FROM dp_stream.streams ORDER BY name;
SQL
}

# Keyed releases computed again: "equal different" to the published ones.
keyed_again_sql() {
  cat <<'SQL'
SELECT count(*) FILTER (WHERE k.released = r.released) || ' ' ||
       count(*) FILTER (WHERE k.released IS DISTINCT FROM r.released)
FROM keyed k FULL JOIN (SELECT day, dp_count(n, dp_keyed(dp_binary(1.0, 64, 20), 'k1'))
                                      OVER (ORDER BY day) AS released FROM data) r USING (day);
SQL
}

# The next inputs, the same on every side.
continue_sql() {
  cat <<'SQL'
SET client_min_messages = warning;
-- ordinary states draw fresh noise at each push: seeded here (test-only),
-- so that every side draws the same
SET dp_stream.seed = 'cross-major';
SELECT format('pushed %s %s %s %s %s', name, coalesce(dp_estimate(c2)::float8, dp_estimate(s2)),
              coalesce(dp_steps(c2), dp_steps(s2)),
              coalesce(dp_error_bound(c2), CASE WHEN name <> 'variance' THEN dp_error_bound(s2) END),
              dp_summary(s2))
FROM (SELECT name, dp_push(dp_push(dp_push(c, 5), 0), 11) AS c2,
             dp_push(dp_push(dp_push(s, 3.25), NULL::float8), 19.5) AS s2
      FROM states WHERE name NOT LIKE 'repeatable%' ORDER BY name) p ORDER BY name;
RESET dp_stream.seed;
-- repeatable states and everything below: noise from the sealed state's own
-- key or the stored secrets, no seed
SELECT format('pushed %s %s %s %s', name, coalesce(dp_estimate(c2)::float8, dp_estimate(s2)),
              coalesce(dp_steps(c2), dp_steps(s2)), dp_summary(s2))
FROM (SELECT name, dp_push(dp_push(c, 5), 0) AS c2, dp_push(dp_push(s, 3.25), 19.5) AS s2
      FROM states WHERE name LIKE 'repeatable%' ORDER BY name) p ORDER BY name;
UPDATE states SET c = dp_push(c, 6) WHERE name = 'repeatable count';
SELECT format('stored again %s %s', dp_estimate(c), dp_steps(c))
FROM states WHERE name = 'repeatable count';

-- the managed streams, three more periods
SELECT format('advanced %s %s %s %s %s %s', r.stream, r.step, r.period, r.estimate,
              r.error_bound, r.summary)
FROM generate_series(6, 8) d,
     LATERAL (SELECT * FROM dp_stream.advance('admissions', date '2025-12-31' + d, d % 4)
              UNION ALL
              SELECT * FROM dp_stream.advance('kwh', date '2025-12-31' + d, d * 1.5)) r
ORDER BY r.stream, r.step;
-- a period advanced again returns its release, whatever the value
SELECT format('again %s %s', step, estimate) FROM dp_stream.advance('admissions', '2026-01-07', 19);
SELECT format('catalog %s %s %s', name, steps,
              coalesce(dp_estimate(counter)::float8, dp_estimate(statistic_state)))
FROM dp_stream.streams ORDER BY name;

-- keyed releases of the next steps
INSERT INTO data SELECT d, (d * 5) % 11, d / 2.0 FROM generate_series(21, 24) d;
SELECT format('keyed %s %s', day, dp_count(n, dp_keyed(dp_binary(1.0, 64, 20), 'k1'))
                                   OVER (ORDER BY day))
FROM data ORDER BY day;

-- the publication's next periods (patients 1 and 2 are over their 2
-- contributions: not counted)
SELECT 'published ' || dp_stream.publish('wards', '2026-01-04',
         ARRAY[dp_stream.observation('ward 0', '2026-01-04', 1, '1'),
               dp_stream.observation('ward 1', '2026-01-04', 1, '2'),
               dp_stream.observation('ward 1', '2026-01-05', 1, '77'),
               dp_stream.observation('ward 2', '2026-01-05', 1, '78')],
         through => '2026-01-05');
SELECT format('publication %s %s %s %s %s %s', partition, step, period, estimate,
              error_bound, filled_without_data)
FROM dp_stream.publication_releases WHERE publication = 'wards' ORDER BY partition, step;
SELECT 'contributions ' || md5(string_agg(c::text, ',' ORDER BY c::text)) FROM dp_stream.contributions c;

-- the ledger: a charge that fits, then one that does not
SELECT 'charge ' || dp_stream.charge('hospital', 0.25, 'next report');
CREATE TEMP TABLE refusal (text text);
DO $$
DECLARE
  state text;
  message text;
  detail text;
BEGIN
  PERFORM dp_stream.charge('hospital', 1.5, 'one too many');
  INSERT INTO refusal VALUES ('charged');
EXCEPTION WHEN OTHERS THEN
  GET STACKED DIAGNOSTICS state = RETURNED_SQLSTATE, message = MESSAGE_TEXT,
                          detail = PG_EXCEPTION_DETAIL;
  INSERT INTO refusal VALUES (state || ' ' || message || ' / ' || detail);
END $$;
SELECT 'overspend ' || text FROM refusal;
SELECT 'budget ' || b::text FROM dp_stream.budget('hospital') b;
SELECT 'charges ' || string_agg(id || ' ' || dataset || ' ' || epsilon || ' ' || purpose || ' ' || charged_by,
                                ', ' ORDER BY id)
FROM dp_stream.charges;
SQL
}

# --- the old database, and the ways to the new major ---------------------------
sql old postgres -c 'CREATE DATABASE source' || exit 1
if ! source_sql | sql old source >"$work/source.out" 2>&1; then
  echo "Bail out! the source database"; sed 's/^/# /' "$work/source.out"; exit 1
fi
probe() {                       # probe CLUSTER DATABASE SQL-FUNCTION OUTPUT
  "$3" "$1" "$2" | sql "$1" "$2" >"$work/$4" 2>&1
}
probe old source stored_sql old.stored
probe old source opens_sql old.opens
probe old source keyed_again_sql old.keyed

init_cluster new "$new_bin" && start_cluster new || { echo "Bail out! the new cluster"; exit 1; }
sql new postgres -c 'CREATE DATABASE restored' -c 'CREATE DATABASE plain' \
  -c 'CREATE DATABASE oldcustom' -c 'CREATE DATABASE stamped' || exit 1

# (a) a plain dump of the old pg_dump, and one of the new pg_dump in custom
# format (what PostgreSQL recommends; the new major's pg_restore reads it
# whether or not it was built with compression)
"$old_bin/pg_dump" -h "$work/old" -p "${port_of[old]}" -U postgres -d source \
  -f "$work/source.sql" 2>"$work/dump_plain.err"
dumped=$?
# the old pg_dump in its default custom format, compressed: what a user's
# nightly backup on the old server is
"$old_bin/pg_dump" -h "$work/old" -p "${port_of[old]}" -U postgres -Fc -d source \
  -f "$work/source_old.dump" 2>"$work/dump_old_custom.err"
dumped_custom=$?

# Debian's PostgreSQL 15.20 (15.20-0+deb12u1) stamps every column it creates
# with an attribute option pg_attver=<n>; its pg_dump reads the option and
# leaves it out of dumps, but pg_dump of another major (and so pg_upgrade)
# copies it as an ordinary option, which PostgreSQL 17.11 and 18.6 reject:
# 'unrecognized parameter "pg_attver"'.  pg_restore then skips each such
# ALTER COLUMN ... SET, and pg_upgrade stops at "Restoring database
# schemas".  Every table has it, dp_stream's or not.  The documented step
# (docs/threat_model.md, "Moving to a new PostgreSQL major") removes it from
# pg_attribute in every database of the old cluster before the move; here
# the new pg_dump's dump is taken before and after, to show both.
stamped_sql="SELECT count(*) FROM pg_catalog.pg_attribute a, unnest(a.attoptions) o
             WHERE a.attrelid >= 16384 AND o LIKE 'pg\_attver=%'"
unstamp_sql="UPDATE pg_catalog.pg_attribute
             SET attoptions = nullif(ARRAY(SELECT o FROM unnest(attoptions) o
                                           WHERE o NOT LIKE 'pg\_attver=%'), '{}')
             WHERE attrelid >= 16384 AND attoptions::text LIKE '%pg\_attver=%'"
databases=$(sql old postgres -c "SELECT datname FROM pg_database WHERE datallowconn ORDER BY 1")
stamped=$(sql old source -c "$stamped_sql")
if [ "$stamped" -gt 0 ]; then
  "$new_bin/pg_dump" -h "$work/old" -p "${port_of[old]}" -U postgres -Fc -d source \
    -f "$work/stamped.dump" 2>"$work/dump.err"
  "$new_bin/pg_restore" -h "$work/new" -p "${port_of[new]}" -U postgres -d stamped \
    "$work/stamped.dump" >"$work/stamped.out" 2>&1
  # pg_dump 18 writes the option into the entry that creates the table:
  # the whole entry fails, so the table is missing and its data and
  # everything on it fail after it ("does not exist")
  errors=$(grep -c '^pg_restore: error:' "$work/stamped.out")
  attver=$(grep -c 'unrecognized parameter "pg_attver"' "$work/stamped.out")
  others=$(grep '^pg_restore: error:' "$work/stamped.out" |
           grep -v 'unrecognized parameter "pg_attver"' | grep -c -v 'does not exist')
  if [ "$attver" -gt 0 ] && [ "$others" -eq 0 ]; then
    report 0 "the old server stamps pg_attver on $stamped columns of the source database: pg_restore $new_major refuses $attver table definitions for it ($errors errors with their consequences), nothing else"
  else
    report 1 "the old server stamps pg_attver on $stamped columns: pg_restore $new_major failed $errors times, $attver of them on pg_attver, $others for other reasons"
    grep -A2 '^pg_restore: error:' "$work/stamped.out" | grep -v pg_attver | head -10 | sed 's/^/# /'
  fi
  status=0
  for db in $databases; do
    sql old "$db" -c "$unstamp_sql" >/dev/null || status=1
    [ "$(sql old "$db" -c "$stamped_sql")" = 0 ] || status=1
  done
  report "$status" "pg_attver removed from pg_attribute in every database of the old cluster ($(echo $databases))"
else
  report 0 "# SKIP the old server stamps no pg_attver option"
  report 0 "# SKIP nothing to remove"
fi
"$new_bin/pg_dump" -h "$work/old" -p "${port_of[old]}" -U postgres -Fc -d source \
  -f "$work/source.dump" 2>"$work/dump.err"
report $? "pg_dump $new_major dumps the $old_major database in custom format"

# (b) pg_upgrade of the new major from a copy of the stopped old cluster:
# the old cluster itself is needed again, to continue the original
stop_cluster old
as_owner cp -a "$work/old" "$work/upgraded_from"
start_cluster old || { echo "Bail out! the old cluster did not start again"; exit 1; }
bin_of[upgraded_from]=$old_bin
port_of[upgraded_from]=$(( 20000 + RANDOM % 20000 ))
init_cluster upgraded "$new_bin" || { echo "Bail out! initdb of the new cluster"; exit 1; }
as_owner mkdir -p "$work/pg_upgrade"
start=$(date +%s)
(cd "$work/pg_upgrade" &&
 as_owner "$new_bin/pg_upgrade" -b "$old_bin" -B "$new_bin" \
   -d "$work/upgraded_from/data" -D "$work/upgraded/data" \
   -p "${port_of[upgraded_from]}" -P "${port_of[upgraded]}" -s "$work/pg_upgrade" -U postgres \
   >"$work/pg_upgrade.out" 2>&1)
upgraded=$?
if [ "$upgraded" -eq 0 ] && start_cluster upgraded; then
  report 0 "pg_upgrade $old_major -> $new_major of a cluster with dp_stream ($(( $(date +%s) - start ))s)"
else
  report 1 "pg_upgrade $old_major -> $new_major of a cluster with dp_stream"
  tail -30 "$work/pg_upgrade.out" | sed 's/^/# /'
  find "$work/upgraded/data" -name '*.txt' -path '*pg_upgrade_output*' -exec cat {} + 2>/dev/null |
    head -20 | sed 's/^/# /'
fi
# pg_upgrade writes update_extensions.sql when an extension's version differs
extensions_script=$(find "$work/pg_upgrade" "$work/upgraded/data" -name 'update_extensions.sql' 2>/dev/null)
report "$([ -z "$extensions_script" ] && echo 0 || echo 1)" \
  "pg_upgrade asks for no extension update (the same dp_stream version on both majors)"

"$new_bin/pg_restore" -h "$work/new" -p "${port_of[new]}" -U postgres -d restored \
  "$work/source.dump" >"$work/restore.out" 2>&1
restored=$?
report "$restored" "pg_restore $new_major restores the dump into a fresh database of a fresh $new_major cluster"
[ "$restored" -eq 0 ] || sed 's/^/# /' "$work/restore.out" | head -10
plain=1
if [ "$dumped" -eq 0 ]; then
  sql new plain -f "$work/source.sql" >"$work/plain.out" 2>&1
  plain=$?
fi
report "$plain" "the plain dump of pg_dump $old_major replays through psql on $new_major"
[ "$plain" -eq 0 ] || sed 's/^/# /' "$work/plain.out" "$work/dump_plain.err" | head -10
oldcustom=1
if [ "$dumped_custom" -eq 0 ]; then
  "$new_bin/pg_restore" -h "$work/new" -p "${port_of[new]}" -U postgres -d oldcustom \
    "$work/source_old.dump" >"$work/oldcustom.out" 2>&1
  oldcustom=$?
  # a pg_restore built without zlib skips the compressed data with a warning
  grep -q 'no data will be available' "$work/oldcustom.out" && oldcustom=1
fi
report "$oldcustom" "the compressed custom dump of pg_dump $old_major restores with pg_restore $new_major"
[ "$oldcustom" -eq 0 ] || sed 's/^/# /' "$work/oldcustom.out" "$work/dump_old_custom.err" | head -10

sides=("new restored" "new oldcustom" "new plain" "upgraded source")
label() {
  case "$1" in
    "new restored") echo "dump/restore" ;;
    "new plain") echo "plain dump" ;;
    "new oldcustom") echo "old custom dump" ;;
    *) echo "pg_upgrade" ;;
  esac
}
# same WHAT FILE...: the old side's output and each side's, compared
same() {
  local what=$1 side file=$2 status=0 differs=""
  for side in "${sides[@]}"; do
    # shellcheck disable=SC2086
    if ! cmp -s "$work/old.$file" "$work/${side// /_}.$file"; then
      status=1
      differs="$differs $(label "$side")"
    fi
  done
  if [ "$status" -eq 0 ] && [ -s "$work/old.$file" ] && ! grep -q 'ERROR' "$work/old.$file"; then
    report 0 "$what: byte-identical after dump/restore, old custom dump, plain dump and pg_upgrade"
  else
    report 1 "$what: differs after:${differs:- (the old side failed)}"
    for side in "${sides[@]}"; do
      diff "$work/old.$file" "$work/${side// /_}.$file" | head -8 | sed "s|^|# $(label "$side"): |"
    done
  fi
}

for side in "${sides[@]}"; do
  # shellcheck disable=SC2086
  probe $side stored_sql "${side// /_}.stored"
  # shellcheck disable=SC2086
  probe $side opens_sql "${side// /_}.opens"
  # shellcheck disable=SC2086
  probe $side keyed_again_sql "${side// /_}.keyed"
done
same "stored states, releases, keyed releases and every configuration table but the secrets" stored
same "states sealed on $old_major open on $new_major with their estimates, steps and mechanisms" opens
# the old estimates column says true for each: opened to what they released
report "$([ "$(grep -c ' t$' "$work/old.opens")" -eq 5 ] && echo 0 || echo 1)" \
  "on $old_major itself every stored state releases what it did when made"
same "keyed releases computed again on $new_major are the published ones" keyed
if [ "$(cat "$work/old.keyed")" = "20 0" ]; then
  report 0 "... and they are all 20 of the published ones (none drawn anew)"
else
  report 1 "keyed releases computed again: $(cat "$work/old.keyed") (want 20 0)"
fi

# The secrets: every dumped secret arrives byte-identical (a restore adds
# them next to the fresh database's own, which are never used for them; an
# upgrade has exactly the old ones).
secrets() { sql "$1" "$2" -c "SELECT id || ' ' || purpose || ' ' || md5(secret) FROM dp_stream.secrets" | LC_ALL=C sort; }
secrets old source >"$work/old.secrets"
status=0
for side in "new restored" "new oldcustom" "new plain"; do
  # shellcheck disable=SC2086
  secrets $side >"$work/secrets"
  [ -s "$work/old.secrets" ] && [ -z "$(LC_ALL=C comm -23 "$work/old.secrets" "$work/secrets")" ] || status=1
done
secrets upgraded source >"$work/secrets"
cmp -s "$work/old.secrets" "$work/secrets" || status=1
report "$status" "the secrets arrive byte-identical (restores: alongside the target's own; pg_upgrade: exactly)"

# The binary forms (send/recv) across majors: the stored states copied in
# COPY's binary format from the old server into the restored database open
# there byte-identical to the restored ones.
sql old source -c 'COPY (SELECT name, c, s FROM states) TO STDOUT (FORMAT binary)' \
  >"$work/states.bin" 2>"$work/copy.err"
binary=$(sql new restored -c 'CREATE TABLE states_binary (LIKE states)' \
  -c '\copy states_binary FROM '"'$work/states.bin'"' (FORMAT binary)' \
  -c "SELECT count(*) FILTER (WHERE b.c::text IS NOT DISTINCT FROM s.c::text
                                AND b.s::text IS NOT DISTINCT FROM s.s::text
                                AND coalesce(dp_estimate(b.c)::float8, dp_estimate(b.s))
                                    IS NOT DISTINCT FROM coalesce(dp_estimate(s.c)::float8, dp_estimate(s.s)))
      FROM states_binary b JOIN states s USING (name)" 2>&1)
if [ "$binary" = 5 ]; then
  report 0 "states copied in binary from $old_major into $new_major are byte-identical and open"
else
  report 1 "states copied in binary from $old_major into $new_major: '$binary' of 5"
fi

# ALTER EXTENSION UPDATE on the new side: nothing to do, nothing changed
status=0
for side in "${sides[@]}"; do
  # shellcheck disable=SC2086
  before=$(sql $side -c "SELECT extversion FROM pg_extension WHERE extname = 'dp_stream'" 2>&1)
  # shellcheck disable=SC2086
  update=$(sql $side -c 'ALTER EXTENSION dp_stream UPDATE' 2>&1)
  # shellcheck disable=SC2086
  after=$(sql $side -c "SELECT extversion FROM pg_extension WHERE extname = 'dp_stream'" 2>&1)
  # shellcheck disable=SC2086
  probe $side stored_sql "${side// /_}.stored_after_update"
  if [ "$before" != "$after" ] || [[ "$update" != *"is already installed"* ]] ||
     ! cmp -s "$work/${side// /_}.stored" "$work/${side// /_}.stored_after_update"; then
    status=1
    echo "# $(label "$side"): '$before' -> '$after': $update"
  fi
done
report "$status" "ALTER EXTENSION dp_stream UPDATE on $new_major is a no-op (version $after, stored rows unchanged)"

# --- the same next inputs on every side -----------------------------------------
continue_sql | sql old source >"$work/old.continued" 2>&1
for side in "${sides[@]}"; do
  # shellcheck disable=SC2086
  continue_sql | sql $side >"$work/${side// /_}.continued" 2>&1
done
for part in pushed "stored again" advanced again catalog keyed published publication \
            contributions charge overspend budget charges; do
  for side in old "${sides[@]}"; do
    grep "^$part " "$work/${side// /_}.continued" >"$work/${side// /_}.part"
  done
  case "$part" in
    pushed) what="the stored states pushed the same values (ordinary: seeded; repeatable: unseeded)" ;;
    "stored again") what="a repeatable state pushed and stored again" ;;
    advanced) what="the managed streams advanced three more periods" ;;
    again) what="a period advanced again returns its release" ;;
    catalog) what="the stream catalog's states after the periods" ;;
    keyed) what="keyed releases of the next steps" ;;
    published) what="the publication's next periods published" ;;
    publication) what="the publication's releases" ;;
    contributions) what="the contributions per person after publishing" ;;
    charge) what="a charge that fits leaves the same remainder" ;;
    overspend) what="the ledger refuses the same overspend with the same message" ;;
    budget) what="the budget afterwards" ;;
    charges) what="the ledger's charges afterwards" ;;
  esac
  same "$what" part
done
# the refusal is the ledger's: 53000 and nothing charged
if grep -q '^overspend 53000 ' "$work/old.continued"; then
  report 0 "the overspend is refused with 53000"
else
  report 1 "the overspend: $(grep '^overspend' "$work/old.continued")"
  grep ERROR "$work/old.continued" | head -5 | sed 's/^/# /'
fi

if [ "$run" -ne "$planned" ]; then
  echo "# You planned $planned tests but ran $run"
  exit 1
fi
[ "$failures" -eq 0 ]
