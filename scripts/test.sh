#!/usr/bin/env bash
# Runs every test: C unit tests (TAP), pg_regress and pgTAP (pg_prove) in a
# throwaway cluster.  Ends with "N passed, N failed"; exits non-zero on any
# failure.
set -uo pipefail
cd "$(dirname "$0")/.."

scripts/setup.sh || exit 1
. scripts/cluster.sh
. scripts/postgres.sh

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
  local name=$1 title=$2 tag=${3:-} status out
  out="$log_dir/$tag$name.tap"
  echo "== $title (test/$name.sh)"
  "test/$name.sh" >"$out" 2>&1
  status=$?
  count_tap "$out" "$status" "$tag$name"
  echo "$tag$name: $(grep -cE '^ok' "$out") ok, $(grep -cE '^not ok' "$out") not ok"
  if [ "$status" -ne 0 ]; then
    grep -E '^(not ok|# |Bail)' "$out" | head -20
  fi
  # a part of the script that could not run here, with its reason
  grep -E '^ok [0-9]+ # SKIP' "$out" | sed 's/^ok [0-9]* # SKIP /  skipped: /'
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

# ---- throughput smoke (bench/throughput.sh --quick) ----
# Issue 29's table of window queries at small sizes in a throwaway cluster:
# every private query runs and returns as many rows as its plain twin.  No
# timing assertion here (bench/throughput.sh without --quick has it).
echo "== throughput smoke (bench/throughput.sh --quick)"
bench/throughput.sh --quick >"$log_dir/throughput_quick.tap" 2>&1
throughput_status=$?
count_tap "$log_dir/throughput_quick.tap" "$throughput_status" throughput_quick
echo "throughput_quick: $(grep -cE '^ok' "$log_dir/throughput_quick.tap") ok, $(grep -cE '^not ok' "$log_dir/throughput_quick.tap") not ok"
[ "$throughput_status" -eq 0 ] || grep -E '^(not ok|# )' "$log_dir/throughput_quick.tap" | head -20 | sed 's/^/  /'

# ---- layers (test/layers.sh): no cycle in src/, no PostgreSQL in src/core ----
echo "== layers (make layers)"
make -s layers >"$log_dir/layers.tap" 2>&1
layers_status=$?
count_tap "$log_dir/layers.tap" "$layers_status" layers
echo "layers: $(grep -cE '^ok' "$log_dir/layers.tap") ok, $(grep -cE '^not ok' "$log_dir/layers.tap") not ok"
[ "$layers_status" -eq 0 ] || grep -E '^(not ok|# )' "$log_dir/layers.tap" | head -30 | sed 's/^/  /'

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

# The version of the SQL is dp_stream.control's: the Makefile builds that
# version's full script, META.json states it, the update scripts reach it
# from 0.1.0 (test/version.sh; files only, no cluster).
run_tap_script version "the version in one place"

# The low part's acceptance threshold (fresh draws at large scales) in
# machine code without a conditional branch or a division, as built and
# with every compiler here (test/branch_free.sh; objects only, no cluster).
run_tap_script branch_free "the low part's threshold without branches"

# A part that cannot run here: counted as skipped, with the reason.
skip_part() {
  skipped=$((skipped + 1))
  echo "  skipped: $*"
}

# ---- work per step smoke (BENCH_QUICK=1 bench/step_work.sh) ----
# Every kind of the registry has an entry in bench/step_work.sh and runs
# under callgrind at small horizons; the growth of the work per step is
# judged by the full run only (make bench), as the throughput's timing is.
echo "== work per step smoke (BENCH_QUICK=1 bench/step_work.sh)"
if command -v valgrind >/dev/null 2>&1; then
  BENCH_QUICK=1 bench/step_work.sh >"$log_dir/step_work_quick.log" 2>&1
  step_work_status=$?
  if [ "$step_work_status" -eq 0 ]; then
    printf '1..1\nok 1 - bench/step_work.sh: every kind of the registry has an entry and runs\n'
  else
    printf '1..1\nnot ok 1 - bench/step_work.sh: a kind without an entry, or one that did not run\n'
  fi >"$log_dir/step_work_quick.tap"
  count_tap "$log_dir/step_work_quick.tap" 0 step_work_quick
  echo "step_work_quick: $(grep -cE '^ok' "$log_dir/step_work_quick.tap") ok, $(grep -cE '^not ok' "$log_dir/step_work_quick.tap") not ok"
  [ "$step_work_status" -eq 0 ] || grep -E 'step_work.sh:' "$log_dir/step_work_quick.log" | head -10 | sed 's/^/  /'
else
  skip_part "bench/step_work.sh smoke: valgrind is not installed"
fi

# pg_regress or pg_isolation_regress (PostgreSQL's, for the server PATH
# names) in the cluster started by run_cluster_suite:
#   run_regress NAME RUNNER INPUTDIR OUTPUTDIR DATABASE EXTRA-OPTION TESTS...
# One test per "... ok" line (15) or TAP line (16 and later); a run that
# fails with no failing test line (a missing binary, a bad spec) is one
# failure.  Uses $tag and $log_dir of the caller.
run_regress() {
  local name=$1 runner=$2 inputdir=$3 outputdir=$4 db=$5 extra=$6 out status n_ok n_fail
  shift 6
  out="$log_dir/$tag$name.out"
  runner="$(dirname "$(pg_config --pgxs)")/../$runner"
  # shellcheck disable=SC2086
  "$runner" --inputdir="$inputdir" --outputdir="$outputdir" --bindir="$DP_PG_BIN" \
    --host="$PGHOST" --port="$PGPORT" --user=postgres --dbname="$db" $extra "$@" >"$out" 2>&1
  status=$?
  grep -E '^(test| *[a-z_]+ +\.\.\.|ok|not ok|     )' "$out" | sed 's/^/  /'
  n_ok=$(grep -cE '\.\.\. ok|^ok [0-9]+' "$out")
  n_fail=$(grep -cE '\.\.\. FAILED|^not ok [0-9]+|\.\.\. failed' "$out")
  passed=$((passed + n_ok))
  failed=$((failed + n_fail))
  if [ "$status" -ne 0 ]; then
    [ "$n_fail" -eq 0 ] && { echo "FAILED: $tag$name exited with status $status"; failed=$((failed + 1)); tail -20 "$out"; }
    [ -f "$outputdir/regression.diffs" ] && head -100 "$outputdir/regression.diffs"
  fi
}

# ---- the cluster-level suite, once per PostgreSQL major ----
# Runs in the current directory (a tree built for the server that PATH,
# PG_CONFIG and DP_PG_BIN name); $1 labels the major in the output.
run_cluster_suite() {
  local pg=$1 regress_tests isolation_tests
  local pgtap_status
  local tag="" major=${1%%.*}
  [ "$major" = 15 ] || tag="pg$major/"
  mkdir -p "$log_dir/$tag"

  echo "== [PostgreSQL $pg] install into a throwaway cluster"
  dp_install_extension
  dp_cluster_start || { echo "FAILED: ${tag}the cluster did not start"; failed=$((failed + 1)); return; }

  echo "== [PostgreSQL $pg] pg_regress"
  # every test of test/regress/sql/, in alphabetical order (upgrade.out
  # shows NOTICEs about objects earlier tests left); test/fixtures/ is read
  # from the top of the tree, the current directory
  regress_tests=$(ls test/regress/sql/*.sql | xargs -n1 basename | sed 's/\.sql$//' | sort)
  rm -rf test/regress/results test/regress/regression.diffs test/regress/regression.out
  run_regress regress test/regress/pg_regress test/regress test/regress dp_stream_regress "" $regress_tests

  # ---- the examples of the docs (test/docs.sh) ----
  # Every page of README.md and docs/ runs as a reader would run it: its
  # ```sql blocks exactly as written, in a fresh database, in a throwaway
  # cluster of its own with pg_cron preloaded; the outputs the page states
  # (a ```text block after a ```sql block) must be what psql prints, and no
  # other block may print an ERROR or WARNING.  One test per page.  Where
  # the major has no pg_cron, the pages that schedule jobs are skipped.
  run_tap_script docs "[PostgreSQL $pg] docs pages, as written" "$tag"

  # ---- isolation tests (test/isolation/) ----
  # Concurrent sessions with PostgreSQL's isolation tester (from
  # postgresql-server-dev-15, or built with the server): each spec of
  # test/isolation/specs/ interleaves the steps of several sessions (who
  # waits for whom, what each gets) and its output must match
  # test/isolation/expected/.  One test per spec.
  echo "== [PostgreSQL $pg] isolation (pg_isolation_regress)"
  isolation_tests=$(ls test/isolation/specs/*.spec | xargs -n1 basename | sed 's/\.spec$//' | sort)
  mkdir -p "$log_dir/${tag}isolation"
  run_regress isolation test/isolation/pg_isolation_regress test/isolation \
    "$log_dir/${tag}isolation" dp_stream_isolation --load-extension=dp_stream $isolation_tests

  # dp_stream.seed from postgresql.conf, -c, PGOPTIONS and
  # shared_preload_libraries: these need config edits and server restarts,
  # so test/seed_guc.sh starts a throwaway cluster of its own (the one above
  # is left alone).  The SQL-reachable seed cases are in
  # test/regress/sql/seed_setting.sql.
  run_tap_script seed_guc "[PostgreSQL $pg] dp_stream.seed sources" "$tag"

  # Managed streams under load (pgbench, 8 clients) and across a crash
  # (kill -9 of a backend, crash recovery): a cluster of its own, since the
  # crash restarts every backend.  Advances per second in its "# load" lines.
  run_tap_script managed_streams "[PostgreSQL $pg] managed streams: load and crash" "$tag"
  grep -E '^# load [a-z_]+ \(' "$log_dir/${tag}managed_streams.tap" | sed 's/^# /  /'

  # Publishing a daily statistic from scheduled jobs (docs/publishing.md):
  # a year of daily jobs, retries, concurrent duplicates and materialized
  # views, then pg_cron's worker, in a cluster of its own with pg_cron
  # preloaded.  About 1 to 2 minutes (pg_cron's smallest schedule is a
  # minute).  Debian 12 packages pg_cron for 15 only.
  if [ -f "$(pg_config --pkglibdir)/pg_cron.so" ] || [ "$major" = 15 ]; then
    run_tap_script cron "[PostgreSQL $pg] scheduled jobs: pg_cron end to end" "$tag"
  else
    echo "== [PostgreSQL $pg] scheduled jobs: pg_cron end to end (test/cron.sh)"
    skip_part "${tag}cron: pg_cron is not installed for PostgreSQL $pg (Debian 12 packages it for 15 only)"
  fi

  # pg_dump of a database with states, a managed stream and keyed releases,
  # restored into databases whose dp_stream was created at each older
  # version: keyed noise is refused or the published one, never new.
  run_tap_script restore_versions "[PostgreSQL $pg] restore into older versions" "$tag"

  # A database owner who is not a superuser plants overloads in public and
  # in the superuser's "$user" schema; the superuser installs as README.md
  # says and runs the docs' examples: none of the planted functions may run.
  run_tap_script safe_install "[PostgreSQL $pg] safe install" "$tag"

  # The privacy-budget ledger at every isolation level under pgbench (8
  # clients as a LOGIN administrator, serialization failures retried):
  # exactly the charges that fit, none past the budget.
  run_tap_script ledger_load "[PostgreSQL $pg] ledger under load" "$tag"

  # Issue 30, item 3 through SQL: seeded rolling and release(t) - release(t-W)
  # counts of 4,000 partitions against the exact variance bench/rolling.c
  # reads off the core (band from the variance of a sample variance); a
  # cluster of its own, about 10 s.
  run_tap_script rolling_accuracy "[PostgreSQL $pg] rolling windows: measured against exact" "$tag"

  # Every function of the extension called with NULL in each argument, as a
  # role with no grants and as a superuser: a cluster of its own, since a
  # crash restarts every backend.
  run_tap_script null_sweep "[PostgreSQL $pg] NULL sweep" "$tag"

  # dp_stream on a Citus coordinator and two workers, then three: Citus
  # built once from its source tarball in DP_PG_SOURCES (13.2.2 for 15,
  # 14.0.1 for 17 and 18; scripts/citus.sh) and cached; one set of secrets,
  # states and keyed releases that mean the same on every node and survive
  # shard moves and node additions, docs/citus.md as written.  Clusters of
  # its own; without a Citus for this major, one line says why (skipped).
  run_tap_script citus "[PostgreSQL $pg] Citus: coordinator and workers" "$tag"

  echo "== [PostgreSQL $pg] pgTAP"
  createdb dp_stream_tap
  psql -q -X -d dp_stream_tap -c 'CREATE EXTENSION pgtap; CREATE EXTENSION dp_stream;' >/dev/null
  pg_prove --verbose -d dp_stream_tap test/pgtap/*.sql >"$log_dir/${tag}pgtap.out" 2>&1
  pgtap_status=$?
  count_tap "$log_dir/${tag}pgtap.out" $pgtap_status "${tag}pgtap"
  grep -E '^test/|^Result' "$log_dir/${tag}pgtap.out" | sed 's/^/  /'
  [ "$pgtap_status" -ne 0 ] && grep -E 'ERROR|Dubious|# ' "$log_dir/${tag}pgtap.out" | head -40

  dp_cluster_stop
}

# ---- every PostgreSQL major (issue 26) ----
# The installed 15 runs the suite in this tree.  17 and 18 are built once
# from their release tarballs (the folder DP_PG_SOURCES; .ci/run sets it)
# into /var/cache/dp_stream (scripts/postgres.sh); dp_stream is built
# against each with -Wall -Wextra -Werror in a copy of the tree, and the
# same suite runs in throwaway clusters of that major.  DP_PG_VERSIONS
# selects versions ("15" alone, or "18.6", for a quick run).  A version
# without its tarball is counted as skipped with the reason; one that does
# not build, as failed.
versions=${DP_PG_VERSIONS:-"15 17.11 18.6"}
newest_bin=""
for version in $versions; do
  major=${version%%.*}
  started=$(date +%s)
  if [ "$major" = 15 ]; then
    run_cluster_suite 15
    echo "== PostgreSQL 15: $(( $(date +%s) - started )) s"
    continue
  fi

  echo "== [PostgreSQL $version] server from its release tarball"
  prefix=$(dp_build_postgres "$version")
  status=$?
  if [ "$status" -eq 2 ]; then
    skip_part "PostgreSQL $version: no postgresql-$version.tar.bz2 in DP_PG_SOURCES (${DP_PG_SOURCES:-unset}); set DP_PG_SOURCES to the folder of the release tarballs"
    continue
  elif [ "$status" -ne 0 ]; then
    echo "FAILED: PostgreSQL $version: building the server from its tarball failed"
    failed=$((failed + 1))
    continue
  fi
  copy=$(mktemp -d "${TMPDIR:-/tmp}/dp_stream_pg$major.XXXXXX")
  chmod 755 "$copy"
  dp_copy_tree "$copy"
  if (cd "$copy" && make -s -j"$(nproc)" PG_CONFIG="$prefix/bin/pg_config" DP_WERROR=-Werror) \
       >"$log_dir/pg$major-build.log" 2>&1; then
    echo "  ok: dp_stream builds against PostgreSQL $version with -Wall -Wextra -Werror"
    passed=$((passed + 1))
  else
    echo "FAILED: pg$major/build: dp_stream does not build against PostgreSQL $version"
    tail -20 "$log_dir/pg$major-build.log"
    failed=$((failed + 1))
    rm -rf "$copy"
    continue
  fi
  dp_add_pgtap "$prefix" || echo "  (pgTAP not found for 15: the pgTAP part will fail)"
  saved_path=$PATH saved_bin=$DP_PG_BIN
  export PATH="$prefix/bin:$PATH" PG_CONFIG="$prefix/bin/pg_config" DP_PG_BIN="$prefix/bin"
  pushd "$copy" >/dev/null
  run_cluster_suite "$version"
  # A database of 15 moved to this major by dump and restore (pg_dump
  # custom and plain) and by pg_upgrade: sealed states, managed streams,
  # keys, publications and the ledger continue byte-identically
  # (test/cross_major.sh; clusters of its own; needs 15's dp_stream, which
  # the 15 suite above installed).
  if [[ " $versions " == *" 15 "* ]]; then
    DP_PG_OLD_BIN=$saved_bin DP_PG_NEW_BIN="$prefix/bin" \
      run_tap_script cross_major "[PostgreSQL $version] a 15 database moved to $version" "pg$major/"
  else
    skip_part "pg$major/cross_major: 15 is not in DP_PG_VERSIONS, so no 15 database is moved to $version"
  fi
  popd >/dev/null
  export PATH=$saved_path DP_PG_BIN=$saved_bin
  unset PG_CONFIG
  rm -rf "$copy"
  newest_bin="$prefix/bin"
  echo "== PostgreSQL $version: $(( $(date +%s) - started )) s"
done
# ---- end of every PostgreSQL major ----

rm -rf "$log_dir"
if [ "$skipped" -gt 0 ]; then
  echo "$passed passed, $failed failed, $skipped skipped"
else
  echo "$passed passed, $failed failed"
fi
[ "$failed" -eq 0 ]
