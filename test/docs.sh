#!/usr/bin/env bash
# Every SQL example of README.md and docs/ runs (docs/testing.md).  Each
# page's ```sql blocks run in order, in a database of their own, in the
# cluster of scripts/test.sh (PGHOST, PGPORT set), as a superuser.  The
# test sets dp_stream.seed first, so that noise is the same on every run (a
# page may set its own).  A page with an expected output in
# test/docs/expected/ must print exactly that; the pages without one print
# what depends on the date (managed_streams, publishing) and must run
# without an error.  A block right after the line
# <!-- docs-test: skip (why) --> is not run (pg_cron, for one, needs a
# preloaded library: test/cron.sh runs that page's walkthrough).  Prints TAP.
#
#   test/docs.sh            check every page
#   test/docs.sh --update   rewrite the expected outputs that exist
set -uo pipefail
cd "$(dirname "$0")/.."

update=false
[ "${1:-}" = "--update" ] && update=true
work=$(mktemp -d "${TMPDIR:-/tmp}/dp_stream_docs.XXXXXX")
trap 'rm -rf "$work"' EXIT

pages=(README.md docs/*.md)
planned=0
for page in "${pages[@]}"; do
  grep -q '^```sql' "$page" && planned=$((planned + 1))
done
echo "1..$planned"

run=0
failed=0
for page in "${pages[@]}"; do
  grep -q '^```sql' "$page" || continue
  run=$((run + 1))
  name=$(basename "$page" .md)
  sql="$work/$name.sql"
  # the blocks, in order, each numbered (not by line: prose may change
  # without changing output)
  awk -v page="$page" '
    /^<!-- docs-test: skip/ { skip = 1; next }
    /^```sql[[:space:]]*$/ { if (skip) { skipping = 1 } else { inside = 1; print "-- " page ", example " ++n }; skip = 0; next }
    /^```/ { inside = 0; skipping = 0; next }
    NF > 0 && !inside && !skipping { skip = 0 }
    inside { print }
  ' "$page" >"$work/$name.blocks"
  # before them the extension, unless the page creates it itself (README.md
  # installs it into a schema of its own: the install it documents)
  if grep -qiE '^CREATE EXTENSION( IF NOT EXISTS)? dp_stream' "$work/$name.blocks"; then
    printf '%s\n' "SET dp_stream.seed = 'docs';" >"$sql"
  else
    printf '%s\n' "SET client_min_messages = warning;" "CREATE EXTENSION IF NOT EXISTS dp_stream;" \
      "RESET client_min_messages;" "SET dp_stream.seed = 'docs';" >"$sql"
  fi
  cat "$work/$name.blocks" >>"$sql"
  db="docs_$(echo "$name" | tr -c 'a-z0-9_\n' '_')"
  dropdb --if-exists "$db" >/dev/null 2>&1
  createdb "$db" >/dev/null 2>&1
  out="$work/$name.out"
  psql -X -a -q -v ON_ERROR_STOP=0 -d "$db" -f "$sql" >"$out" 2>&1
  # psql names the temporary file in its messages: name the page instead
  sed -i "s|^psql:$sql:|psql:$page.sql:|" "$out"
  expected="test/docs/expected/$name.out"
  if [ -f "$expected" ]; then
    if $update; then cp "$out" "$expected"; fi
    if diff -u "$expected" "$out" >"$work/$name.diff"; then
      echo "ok $run - $page: every example runs and prints what it printed before"
    else
      failed=$((failed + 1))
      echo "not ok $run - $page: the output of its examples changed"
      head -40 "$work/$name.diff" | sed 's/^/# /'
    fi
  elif grep -qE '^(psql:.*)?ERROR:' "$out"; then
    failed=$((failed + 1))
    echo "not ok $run - $page: an example fails"
    grep -E -B3 '^(psql:.*)?ERROR:' "$out" | head -20 | sed 's/^/# /'
  else
    echo "ok $run - $page: every example runs without an error"
  fi
  dropdb --if-exists "$db" >/dev/null 2>&1
done
[ "$failed" -eq 0 ]
