#!/usr/bin/env bash
# Every page of README.md and docs/ runs as a reader would run it
# (docs/testing.md).  Each page's ```sql blocks run in
# order, exactly as written (nothing added: the page creates the extension
# and sets the seed itself), in one psql session (`psql -X -q`) connected as
# a superuser to a fresh database of their own, in a throwaway cluster that
# this script starts with pg_cron preloaded.  A page switches roles or
# connections only as it says (SET ROLE, \c).
#
# A ```text block that follows a ```sql block (only blank lines between) is
# that block's stated output: what psql prints for the block must be exactly
# that (leading and trailing blank lines aside, and without the
# "psql:FILE:LINE: " prefix psql gives messages of a script).  A block
# without a stated output must print no ERROR, WARNING or FATAL: a refusal
# shown to the reader is shown with its message.  A block right after the
# line <!-- docs-test: skip (why) --> is not run.  A page of docs/ must
# begin its first block with CREATE EXTENSION IF NOT EXISTS dp_stream;
#
# After each page, its database and the roles and databases it created are
# dropped.  The page's lists that come from the mechanism registry are
# compared with dp_mechanism_kinds(): a markdown table right after
#   <!-- docs-test: table QUERY -->
# must have exactly the rows QUERY returns (cells joined by " | "), in order.
#
# A page marked <!-- docs-test: citus --> (docs/citus.md) needs a Citus
# cluster: it is reported as skipped here and run by test/citus.sh.
#
# Prints TAP: one test per page, naming the page and its failing blocks.
#
#   test/docs.sh                  every page
#   test/docs.sh docs/zcdp.md     the pages named
#   test/docs.sh --show PAGE      print what each block of PAGE prints and
#                                 the rows of its registry tables (to write
#                                 them into the page), check nothing
set -uo pipefail
cd "$(dirname "$0")/.."
. scripts/cluster.sh

show=false
if [ "${1:-}" = "--show" ]; then
  show=true
  shift
fi
if [ "$#" -gt 0 ]; then
  pages=("$@")
else
  pages=(README.md docs/*.md)
fi

# Every page runs in a database of this name, dropped and created again for
# each page: pg_cron lives in one database, cron.database_name, so a page
# that schedules jobs runs as written only there.
page_db=dp_docs

bail() {
  echo "Bail out! $*"
  exit 1
}

pkglib=$("$DP_PG_BIN/pg_config" --pkglibdir)
sharedir=$("$DP_PG_BIN/pg_config" --sharedir)
major=$("$DP_PG_BIN/pg_config" --version | sed -E 's/^PostgreSQL ([0-9]+).*/\1/')
# Debian 12 packages pg_cron for 15 only: on another major the pages that
# use it are skipped (and say so), the others run without it
with_cron=true
if [ ! -f "$pkglib/pg_cron.so" ] || [ ! -f "$sharedir/extension/pg_cron.control" ]; then
  [ "$major" = 15 ] &&
    bail "pg_cron is not installed (Debian package postgresql-15-cron): run scripts/setup.sh"
  with_cron=false
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/dp_stream_docs.XXXXXX")
cleanup() {
  dp_cluster_stop
  rm -rf "$work"
}
dp_cluster_start || bail "the cluster did not start"
trap cleanup EXIT
trap 'cleanup; exit 130' INT TERM

# pg_cron must be preloaded; its jobs run in background workers (no libpq
# connection, so no pg_hba.conf entry for the job roles).
if $with_cron; then
  cat >>"$DP_CLUSTER_DIR/data/postgresql.conf" <<CONF
shared_preload_libraries = 'pg_cron'
cron.database_name = '$page_db'
cron.use_background_workers = on
max_worker_processes = 16
CONF
  dp_run_as_owner "$DP_PG_BIN/pg_ctl" -D "$DP_CLUSTER_DIR/data" -l "$DP_CLUSTER_DIR/server.log" \
    -w -t 60 restart >/dev/null || bail "the restart with pg_cron failed"
fi

q() { psql -X -q -At -v ON_ERROR_STOP=1 -d postgres -c "$1"; }

# the registry tables' queries run in a database of their own, where the
# extension is installed once
createdb dp_docs_registry &&
  psql -X -q -v ON_ERROR_STOP=1 -d dp_docs_registry -c "CREATE EXTENSION dp_stream" ||
  bail "the extension could not be created"

# ---- parse a page ----
# Writes $dir/script.sql (the blocks, each after an \echo marker),
# $dir/blocks (one line per block run: number, line in the page),
# $dir/stated.N (the stated output of block N) and $dir/tables (one line
# per registry table: its line, then the query; its rows in table.LINE).
parse_page() {
  local page=$1 dir=$2
  awk -v dir="$dir" '
    function close_block() {
      if (kind == "sql") { last_sql = n; print "" > (dir "/script.sql") }
      if (kind == "text") { last_sql = 0 }
      kind = ""
    }
    BEGIN { n = 0; kind = ""; last_sql = 0; skip = 0; table_line = 0 }
    kind == "" && /^<!-- docs-test: skip/ { skip = 1; last_sql = 0; next }
    kind == "" && /^<!-- docs-test: table / {
      q = $0; sub(/^<!-- docs-test: table /, "", q); sub(/ *-->[[:space:]]*$/, "", q)
      table_line = NR; in_table = 0
      print NR "\t" q > (dir "/tables"); next
    }
    kind == "" && table_line && /^\|/ {
      in_table = 1
      row = $0
      if (row ~ /^\|[-:| ]+\|[[:space:]]*$/) next      # the separator
      if (!header_seen[table_line]++) next               # the header
      gsub(/^\| */, "", row); gsub(/ *\|[[:space:]]*$/, "", row); gsub(/ *\| */, " | ", row)
      print row > (dir "/table." table_line); next
    }
    kind == "" && table_line && in_table && !/^\|/ { table_line = 0; in_table = 0 }
    kind == "" && /^```sql[[:space:]]*$/ {
      if (skip) { kind = "skipped"; skip = 0; next }
      n++; kind = "sql"
      print n "\t" NR > (dir "/blocks")
      print "\\echo @@docs-block " n > (dir "/script.sql")
      next
    }
    kind == "" && /^```text[[:space:]]*$/ {
      if (last_sql) { kind = "text"; stated = dir "/stated." last_sql; printf "" > stated }
      else kind = "other"
      next
    }
    kind == "" && /^```/ { kind = "other"; last_sql = 0; next }
    kind != "" && /^```[[:space:]]*$/ { close_block(); next }
    kind == "sql" { print > (dir "/script.sql"); next }
    kind == "text" { print > stated; next }
    kind == "" && NF > 0 { last_sql = 0; skip = 0 }
    END { print "\\echo @@docs-end" > (dir "/script.sql") }
  ' "$page"
  touch "$dir/blocks" "$dir/tables"
}

# the lines of a file without leading and trailing blank lines
trim() {
  awk 'NF { for (i = 0; i < blank; i++) print ""; blank = 0; started = 1; print; next }
       started { blank++ }' "$1"
}

# ---- run the pages ----
planned=0
for page in "${pages[@]}"; do
  grep -q '^```sql' "$page" && planned=$((planned + 1))
done
$show || echo "1..$planned"

run=0
failed=0
for page in "${pages[@]}"; do
  grep -q '^```sql' "$page" || continue
  run=$((run + 1))
  # a page for a Citus cluster runs on one, in test/citus.sh
  if grep -q '^<!-- docs-test: citus -->' "$page"; then
    $show || echo "ok $run # SKIP $page: runs on a Citus cluster, in test/citus.sh"
    continue
  fi
  dir="$work/$run"
  mkdir -p "$dir"
  parse_page "$page" "$dir"
  if ! $with_cron && grep -qi 'pg_cron' "$dir/script.sql"; then
    echo "ok $run # SKIP $page: its blocks use pg_cron, which is not installed for PostgreSQL $major here (Debian 12 packages it for 15 only)"
    continue
  fi

  roles_before=$(q "SELECT rolname FROM pg_roles ORDER BY 1")
  dbs_before=$(q "SELECT datname FROM pg_database ORDER BY 1")
  dropdb --force --if-exists "$page_db" >/dev/null 2>&1
  createdb "$page_db" || bail "createdb failed before $page"

  # as written: the page's blocks in one session, the markers aside
  (cd "$dir" && psql -X -q -v ON_ERROR_STOP=0 -d "$page_db" -f script.sql) >"$dir/raw" 2>&1
  sed -E 's/^psql:script\.sql:[0-9]+: //' "$dir/raw" |
    awk -v dir="$dir" '
      /^@@docs-block [0-9]+$/ { out = dir "/actual." $2; printf "" > out; next }
      /^@@docs-end$/ { out = dir "/actual.end"; printf "" > out; next }
      { print > (out == "" ? dir "/actual.0" : out) }'

  problems=()
  diagnostics="$dir/diagnostics"
  : >"$diagnostics"
  if $show; then
    echo "==== $page"
  fi
  while IFS=$'\t' read -r n line; do
    actual="$dir/actual.$n"
    if $show; then
      echo "---- block $n (line $line)"
      [ -f "$actual" ] && trim "$actual"
      continue
    fi
    if [ ! -f "$actual" ]; then
      problems+=("block $n (line $line) did not run")
    elif [ -f "$dir/stated.$n" ]; then
      if ! diff -u --label "stated (line $line)" --label "printed" \
             <(trim "$dir/stated.$n") <(trim "$actual") >"$dir/diff.$n"; then
        problems+=("block $n (line $line) does not print its stated output")
        head -30 "$dir/diff.$n" >>"$diagnostics"
      fi
    elif grep -qE '^(ERROR|WARNING|FATAL|PANIC):|^error: |^\\connect: ' "$actual"; then
      problems+=("block $n (line $line) prints an unstated $(grep -oE '^(ERROR|WARNING|FATAL|PANIC|error|\\connect)' "$actual" | head -1)")
      { echo "block $n (line $line) printed:"; head -12 "$actual"; } >>"$diagnostics"
    fi
  done <"$dir/blocks"
  if ! $show; then
    # a page of docs/ installs the extension first, in a form that does
    # nothing where it is installed (README.md shows the hardened install)
    case $page in
      docs/*)
        [ "$(sed -n 2p "$dir/script.sql")" = "CREATE EXTENSION IF NOT EXISTS dp_stream;" ] ||
          problems+=("its first block does not begin with CREATE EXTENSION IF NOT EXISTS dp_stream;")
        ;;
    esac
    [ -s "$dir/actual.0" ] && { problems+=("psql printed before the first block");
                               head -5 "$dir/actual.0" >>"$diagnostics"; }
    [ -f "$dir/actual.end" ] || problems+=("the session ended before the last block")
  fi

  # the tables of registry facts, against their query
  while IFS=$'\t' read -r line query; do
    [ -n "$line" ] || continue
    if $show; then
      echo "---- table (line $line)"
      psql -X -q -At -F ' | ' -d dp_docs_registry -c "$query" 2>&1 | sed 's/^/| /; s/$/ |/'
      continue
    fi
    if ! psql -X -q -At -F ' | ' -v ON_ERROR_STOP=1 -d dp_docs_registry -c "$query" \
           >"$dir/query.$line" 2>&1; then
      problems+=("the query of the table at line $line fails")
      head -5 "$dir/query.$line" >>"$diagnostics"
    elif ! diff -u --label "table (line $line)" --label "registry" \
              "$dir/table.$line" "$dir/query.$line" >"$dir/tdiff.$line" 2>&1; then
      problems+=("the table at line $line differs from the registry")
      head -30 "$dir/tdiff.$line" >>"$diagnostics"
    fi
  done <"$dir/tables"

  # leave the cluster as it was: the page's database, and the roles and
  # databases it created (a role goes once the databases holding its
  # objects are gone)
  dropdb --force --if-exists "$page_db" >/dev/null 2>&1
  for db in $(comm -13 <(echo "$dbs_before") <(q "SELECT datname FROM pg_database ORDER BY 1")); do
    dropdb --force "$db" >/dev/null 2>&1 || problems+=("its database $db could not be dropped")
  done
  for role in $(comm -13 <(echo "$roles_before") <(q "SELECT rolname FROM pg_roles ORDER BY 1")); do
    q "DROP ROLE \"$role\"" >>"$diagnostics" 2>&1 || problems+=("its role $role could not be dropped")
  done

  $show && continue
  blocks=$(wc -l <"$dir/blocks")
  stated=$(ls "$dir"/stated.* 2>/dev/null | wc -l)
  if [ "${#problems[@]}" -eq 0 ]; then
    echo "ok $run - $page: $blocks blocks run as written, $stated stated outputs printed"
  else
    failed=$((failed + 1))
    summary=$(printf '%s; ' "${problems[@]}")
    echo "not ok $run - $page: ${summary%; }"
    sed 's/^/# /' "$diagnostics"
  fi
done
[ "$failed" -eq 0 ]
