#!/usr/bin/env bash
# Runs every test: C unit tests (TAP), pg_regress and pgTAP (pg_prove) in a
# throwaway cluster.  Ends with "N passed, N failed"; exits non-zero on any
# failure.
set -uo pipefail
cd "$(dirname "$0")/.."

scripts/setup.sh || exit 1
. scripts/cluster.sh

passed=0
failed=0
skipped=0
log_dir=$(mktemp -d "${TMPDIR:-/tmp}/dp_stream_test_logs.XXXXXX")

# count TAP lines of one run; a non-zero exit with no "not ok" still fails
count_tap() {
  local output=$1 status=$2 name=$3 ok not_ok
  local skip
  ok=$(grep -cE '^[[:space:]]*ok [0-9]+' "$output")
  not_ok=$(grep -cE '^[[:space:]]*not ok [0-9]+' "$output")
  # "ok N # SKIP why": a part that could not run, counted as skipped
  skip=$(grep -cE '^[[:space:]]*ok [0-9]+.*# SKIP' "$output")
  passed=$((passed + ok - skip))
  skipped=$((skipped + skip))
  failed=$((failed + not_ok))
  # tests a plan announced but a crash or error kept from running
  local unrun
  unrun=$(sed -nE 's/.*You planned ([0-9]+) tests? but ran ([0-9]+).*/\1 \2/p' "$output" |
          awk '{ if ($1 > $2) s += $1 - $2 } END { print s + 0 }')
  if [ "$unrun" -gt 0 ]; then
    echo "FAILED: $name: $unrun planned tests did not run"
    failed=$((failed + unrun))
  fi
  if [ "$status" -ne 0 ] && [ "$not_ok" -eq 0 ]; then
    echo "FAILED: $name exited with status $status"
    failed=$((failed + 1))
  fi
  grep -E '^[[:space:]]*not ok' "$output" | sed "s|^|$name: |"
}

# One shell test of test/ that prints TAP: its counts, and on a failure
# the lines that say why.
run_tap_script() {
  local name=$1 title=$2 status
  echo "== $title (test/$name.sh)"
  "test/$name.sh" >"$log_dir/$name.tap" 2>&1
  status=$?
  count_tap "$log_dir/$name.tap" "$status" "$name"
  echo "$name: $(grep -cE '^ok' "$log_dir/$name.tap") ok, $(grep -cE '^not ok' "$log_dir/$name.tap") not ok"
  if [ "$status" -ne 0 ]; then
    grep -E '^(not ok|# |Bail)' "$log_dir/$name.tap" | head -20
  fi
  return 0
}

echo "== build"
make -s DP_WERROR=-Werror 2>&1 || { echo "0 passed, 1 failed"; exit 1; }

echo "== C unit tests (src/core)"
make -s unit || { echo "0 passed, 1 failed"; exit 1; }
for binary in test/unit/test_*.bin; do
  name=$(basename "$binary" .bin)
  "$binary" >"$log_dir/$name.tap" 2>&1
  status=$?
  count_tap "$log_dir/$name.tap" "$status" "$name"
  echo "$name: $(grep -cE '^ok' "$log_dir/$name.tap") ok, $(grep -cE '^not ok' "$log_dir/$name.tap") not ok"
done

# ---- fuzz corpus replay (test/fuzz/README.md) ----
# Every file of test/fuzz/corpus/ once through its libFuzzer harness under
# ASan + UBSan; one TAP line per harness.  No fuzzing: a few seconds.
echo "== fuzz corpus replay (src/core under ASan + UBSan)"
make -s fuzz-replay >"$log_dir/fuzz_replay.tap" 2>&1
fuzz_status=$?
count_tap "$log_dir/fuzz_replay.tap" "$fuzz_status" fuzz_replay
echo "fuzz_replay: $(grep -cE '^ok' "$log_dir/fuzz_replay.tap") ok, $(grep -cE '^not ok' "$log_dir/fuzz_replay.tap") not ok"
if [ "$fuzz_status" -ne 0 ]; then
  # the failing inputs with their sanitizer summaries, or the build error
  { grep -E '^# ' "$log_dir/fuzz_replay.tap" || tail -20 "$log_dir/fuzz_replay.tap"; } | head -20 | sed 's/^/  /'
fi
# ---- end of fuzz corpus replay ----

echo "== install into a throwaway cluster"
dp_install_extension
dp_cluster_start || { echo "$passed passed, $((failed + 1)) failed"; exit 1; }

echo "== pg_regress"
regress_tests=$(ls sql/*.sql | grep -v -- '--' | xargs -n1 basename | sed 's/\.sql$//' | sort)
pg_regress=$(dirname "$(pg_config --pgxs)")/../test/regress/pg_regress
rm -rf results regression.diffs regression.out
$pg_regress --inputdir=. --outputdir=. --bindir="$DP_PG_BIN" --host="$PGHOST" \
  --port="$PGPORT" --user=postgres --dbname=dp_stream_regress $regress_tests \
  >"$log_dir/regress.out" 2>&1
regress_status=$?
cat "$log_dir/regress.out" | grep -E '^(test| *[a-z_]+ +\.\.\.|ok|not ok|     )' | sed 's/^/  /'
r_ok=$(grep -cE '\.\.\. ok|^ok [0-9]+' "$log_dir/regress.out")
r_fail=$(grep -cE '\.\.\. FAILED|^not ok [0-9]+|\.\.\. failed' "$log_dir/regress.out")
passed=$((passed + r_ok))
failed=$((failed + r_fail))
if [ "$regress_status" -ne 0 ]; then
  [ "$r_fail" -eq 0 ] && failed=$((failed + 1))
  [ -f regression.diffs ] && head -100 regression.diffs
fi

# ---- the examples of the docs (test/docs.sh) ----
# Every page of README.md and docs/ runs as a reader would run it: its
# ```sql blocks exactly as written, in a fresh database, in a throwaway
# cluster of its own with pg_cron preloaded; the outputs the page states
# (a ```text block after a ```sql block) must be what psql prints, and no
# other block may print an ERROR or WARNING.  One test per page.
run_tap_script docs "docs pages, as written"
# ---- end of the examples of the docs ----

# ---- isolation tests (test/isolation/) ----
# Concurrent sessions with PostgreSQL's isolation tester (from
# postgresql-server-dev-15): each spec of test/isolation/specs/ interleaves
# the steps of several sessions (who waits for whom, what each gets) and its
# output must match test/isolation/expected/.  Runs in the cluster above, in
# its own database; pg_isolation_regress prints the same "... ok" /
# "... FAILED" lines as pg_regress: one test per spec.
echo "== isolation (pg_isolation_regress)"
isolation_tests=$(ls test/isolation/specs/*.spec | xargs -n1 basename | sed 's/\.spec$//' | sort)
pg_isolation_regress=$(dirname "$(pg_config --pgxs)")/../test/isolation/pg_isolation_regress
mkdir -p "$log_dir/isolation"
$pg_isolation_regress --inputdir=test/isolation --outputdir="$log_dir/isolation" \
  --bindir="$DP_PG_BIN" --host="$PGHOST" --port="$PGPORT" --user=postgres \
  --dbname=dp_stream_isolation --load-extension=dp_stream $isolation_tests \
  >"$log_dir/isolation.out" 2>&1
isolation_status=$?
grep -E '^(test| *[a-z_]+ +\.\.\.|ok|not ok|     )' "$log_dir/isolation.out" | sed 's/^/  /'
i_ok=$(grep -cE '\.\.\. ok|^ok [0-9]+' "$log_dir/isolation.out")
i_fail=$(grep -cE '\.\.\. FAILED|^not ok [0-9]+|\.\.\. failed' "$log_dir/isolation.out")
passed=$((passed + i_ok))
failed=$((failed + i_fail))
if [ "$isolation_status" -ne 0 ]; then
  # no test line at all: the run itself failed (missing binary, bad spec)
  [ "$i_fail" -eq 0 ] && { failed=$((failed + 1)); tail -20 "$log_dir/isolation.out"; }
  [ -f "$log_dir/isolation/regression.diffs" ] && head -100 "$log_dir/isolation/regression.diffs"
fi
# ---- end of isolation tests ----

# dp_stream.seed from postgresql.conf, -c, PGOPTIONS and
# shared_preload_libraries: these need config edits and server restarts, so
# test/seed_guc.sh starts a throwaway cluster of its own (the one above is
# left alone) and prints TAP.  The SQL-reachable seed cases are in
# sql/seed_setting.sql.
run_tap_script seed_guc "dp_stream.seed sources"

# Managed streams under load (pgbench, 8 clients) and across a crash (kill -9
# of a backend, crash recovery): test/managed_streams.sh starts a throwaway
# cluster of its own, since the crash restarts every backend, and prints TAP.
# The advances per second of the load tests are in its "# load" lines.
run_tap_script managed_streams "managed streams: load and crash"
grep -E '^# load [a-z_]+ \(' "$log_dir/managed_streams.tap" | sed 's/^# /  /'

# Publishing a daily statistic from scheduled jobs (docs/publishing.md):
# test/cron.sh runs a year of daily jobs, retries, concurrent duplicates and
# materialized views, then pg_cron's worker in a throwaway cluster of its own
# (pg_cron must be preloaded).  About 1 to 2 minutes: it waits for minute
# boundaries, pg_cron's smallest schedule.
run_tap_script cron "scheduled jobs: pg_cron end to end"

# ---- restore into older versions ----
# pg_dump of a database with states, a managed stream and keyed releases,
# restored into databases whose dp_stream was created at each older version
# that has secrets (0.6.0 .. 0.11.0), at 0.5.0, and fresh: keyed noise is
# refused or the published one, never new; after the documented steps
# everything opens and releases what it did (test/restore_versions.sh; a
# throwaway cluster of its own; prints TAP).
run_tap_script restore_versions "restore into older versions"
# ---- end of restore into older versions ----

# ---- safe install ----
# A database owner who is not a superuser plants overloads in public and in
# the superuser's "$user" schema; the superuser installs as README.md says
# and runs the docs' examples: none of the planted functions may run
# (test/safe_install.sh; runs in the cluster above, prints TAP).
run_tap_script safe_install "safe install"
# ---- end of safe install ----

# ---- ledger under load ----
# The privacy-budget ledger at every isolation level under pgbench (8
# clients as a LOGIN administrator, serialization failures retried): exactly
# the charges that fit, none past the budget.  Runs in the cluster above, in
# a database of its own (test/ledger_load.sh); prints TAP.
run_tap_script ledger_load "ledger under load"
# ---- end of ledger under load ----

# ---- NULL sweep ----
# Every function of the extension called with NULL in each argument, as a
# role with no grants and as a superuser (issue 23, hole 0): a crash
# restarts every backend, so test/null_sweep.sh starts a throwaway cluster
# of its own, and prints one TAP line per function.
run_tap_script null_sweep "NULL sweep"
# ---- end of NULL sweep ----

echo "== pgTAP"
createdb dp_stream_tap
psql -q -X -d dp_stream_tap -c 'CREATE EXTENSION pgtap; CREATE EXTENSION dp_stream;' >/dev/null
pg_prove --verbose -d dp_stream_tap test/pgtap/*.sql >"$log_dir/pgtap.out" 2>&1
pgtap_status=$?
count_tap "$log_dir/pgtap.out" $pgtap_status pgtap
grep -E '^test/|^Result' "$log_dir/pgtap.out" | sed 's/^/  /'
[ "$pgtap_status" -ne 0 ] && grep -E 'ERROR|Dubious|# ' "$log_dir/pgtap.out" | head -40

dp_cluster_stop

# ---- other PostgreSQL majors (issue 26) ----
# PostgreSQL 17 and 18 built once from their release tarballs (the folder
# DP_PG_SOURCES; .ci/run sets it) into /var/cache/dp_stream; dp_stream built
# against each with -Werror and the pg_regress suite and the isolation
# specs run in a throwaway cluster of each (test/majors.sh).  DP_PG_VERSIONS selects versions
# ("15" alone for a quick run).  What runs on 15 only so far, and a version
# without its tarball, is counted as skipped with the reason.
run_tap_script majors "other PostgreSQL majors"
grep -E '^ok [0-9]+ # SKIP' "$log_dir/majors.tap" | sed 's/^ok [0-9]* # SKIP /  skipped: /'
# ---- end of other PostgreSQL majors ----

rm -rf "$log_dir"
if [ "$skipped" -gt 0 ]; then
  echo "$passed passed, $failed failed, $skipped skipped"
else
  echo "$passed passed, $failed failed"
fi
[ "$failed" -eq 0 ]
