#!/usr/bin/env bash
# Publishing a daily statistic from scheduled jobs (docs/publishing.md, run
# end to end).  A hospital's admissions are counted per day into a managed
# stream by a job function, publish_daily(today), that advances the stream
# for yesterday from yesterday's events.  Needs pg_cron (Debian package
# postgresql-15-cron, installed by scripts/setup.sh) and the extension
# installed; runs a throwaway cluster of its own (scripts/cluster.sh; stopped
# and deleted on exit) with pg_cron preloaded.  Prints TAP; exits non-zero on
# any failure.  About 1.5 to 2.5 minutes: pg_cron starts jobs on minute
# boundaries only, and part e waits for two of them.
#
# Two databases: "sim" replays a simulated year with fixed dates, so its
# checks do not depend on the clock; "live" is pg_cron's database
# (cron.database_name), where the job runs from the cron worker on today's
# date.
#
# a) a simulated year: the job role calls publish_daily once per day for
#    365 days, each call its own transaction: 365 releases, steps 1..365,
#    the budget charged once.
# b) retries: a retried day returns the stored release (same estimate, same
#    released_at) and adds no row, even when late events have arrived; a
#    job that fails or rolls back after advancing leaves no release, and
#    the retry publishes exactly one.  A missed day is filled on the next
#    day's run, and running it late returns the filled release.
# c) 8 concurrent sessions run the same day's job: one release, and all 8
#    saw it.
# d) a materialized view over dp_stream.releases is identical after every
#    refresh (plain and CONCURRENTLY), and after a retried job.
# e) pg_cron: the job scheduled every minute by the job role succeeds and
#    publishes yesterday once; a duplicated schedule adds no release.
set -uo pipefail
cd "$(dirname "$0")/.."
. scripts/cluster.sh

planned=32
echo "1..$planned"
. test/tap.sh
bail() { echo "Bail out! $1"; exit 1; }
q() {  # q SQL: as the administrator in "sim"; one value (or rows joined by |), errors included
  psql -X -At -v ON_ERROR_STOP=1 -d sim -c "$1" 2>&1
}
qas() {  # qas ROLE DATABASE SQL: the same as another role or in another database
  psql -X -At -v ON_ERROR_STOP=1 -U "$1" -d "$2" -c "$3" 2>&1
}

# ==== the roles' privileges: the one place to switch ====================
# The job role runs publish_daily; the reader reads the releases and the
# dashboard's materialized view.  They get the extension's group roles
# (0.6.0): dp_stream_admin may advance streams, dp_stream_reader may read
# releases (the grants on the test's own objects, in setup_sql, stay).
dp_grants="
GRANT dp_stream_admin TO reporting_job;
GRANT dp_stream_reader TO dashboard;
"
# ========================================================================

# The walkthrough of docs/publishing.md (the same objects and names), run in
# each database as the administrator (the extension's owner); :first_period
# is the stream's first day.  The job role reads the raw events and advances
# the stream; the reader reads releases only.
setup_sql="
CREATE EXTENSION dp_stream;
CREATE TABLE admissions (
    admitted_at timestamp NOT NULL,
    patient_id  bigint    NOT NULL
);
CREATE INDEX ON admissions (admitted_at);
SELECT dp_stream.create_budget('hospital', 2.0);
SELECT dp_stream.create_stream('daily_admissions', 'count',
                               dp_hybrid(epsilon => 1.0, max_per_step => 50),
                               first_period => :'first_period',
                               dataset => 'hospital');
CREATE FUNCTION publish_daily(today date) RETURNS dp_stream.releases
LANGUAGE sql AS \$\$
  SELECT * FROM dp_stream.advance(
      'daily_admissions',
      (today - 1)::timestamp,
      (SELECT count(*) FROM admissions
       WHERE admitted_at >= today - 1 AND admitted_at < today))
\$\$;
REVOKE EXECUTE ON FUNCTION publish_daily(date) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION publish_daily(date) TO reporting_job;
GRANT SELECT ON admissions TO reporting_job;
$dp_grants"

# admissions: setseed makes them the same on every run; 0 to 40 a day (the
# reference to d makes the inner series run again for every day)
events_sql() {  # events_sql FIRST_DAY LAST_DAY
  echo "SELECT setseed(0.25);
INSERT INTO admissions (admitted_at, patient_id)
SELECT d + random() * interval '1 day', (random() * 100000)::bigint
FROM generate_series(timestamp '$1', timestamp '$2', interval '1 day') AS d,
     LATERAL generate_series(1, (random() * 40 + 0 * extract(day from d))::int) AS i;"
}

# ---- before anything: pg_cron must be installed (scripts/setup.sh) ----
if [ ! -f "$("$DP_PG_BIN/pg_config" --pkglibdir)/pg_cron.so" ] ||
   [ ! -f "$("$DP_PG_BIN/pg_config" --sharedir)/extension/pg_cron.control" ]; then
  bail "pg_cron is not installed (Debian package postgresql-15-cron): run scripts/setup.sh"
fi

bg_pids=()  # background psql sessions of part c
cleanup() {
  local pid
  for pid in "${bg_pids[@]}"; do kill "$pid" 2>/dev/null; done
  dp_cluster_stop
}

start=$SECONDS
dp_cluster_start || bail "the cluster did not start"
trap cleanup EXIT
trap 'cleanup; exit 130' INT TERM

# pg_cron must be preloaded and told its database before the server starts.
# Its jobs connect with libpq to cron.host: the cluster listens on its
# Unix socket only.
createdb sim && createdb live || bail "createdb failed"
cat >>"$DP_CLUSTER_DIR/data/postgresql.conf" <<CONF
shared_preload_libraries = 'pg_cron'
cron.database_name = 'live'
cron.host = '$DP_CLUSTER_DIR'
CONF
dp_run_as_owner "$DP_PG_BIN/pg_ctl" -D "$DP_CLUSTER_DIR/data" -l "$DP_CLUSTER_DIR/server.log" \
  -w -t 60 restart >/dev/null || { cat "$DP_CLUSTER_DIR/server.log" >&2; bail "the restart with pg_cron failed"; }

psql -X -q -v ON_ERROR_STOP=1 -d postgres >/dev/null <<'SQL' || bail "creating the roles failed"
CREATE ROLE reporting_job LOGIN;
CREATE ROLE dashboard LOGIN;
SQL
{ echo "$setup_sql"; events_sql 2025-01-01 2026-01-10; } |
  psql -X -q -v ON_ERROR_STOP=1 -v first_period=2025-01-01 -d sim >/dev/null ||
  bail "setup of the database sim failed"
# the live stream starts yesterday: the cron job's first run is its step 1
live_first=$(psql -X -At -d live -c "SELECT current_date - 1")
{ echo "$setup_sql"; events_sql "$live_first" "$(psql -X -At -d live -c "SELECT current_date")"; echo "
CREATE EXTENSION pg_cron;
GRANT USAGE ON SCHEMA cron TO reporting_job;"; } |
  psql -X -q -v ON_ERROR_STOP=1 -v first_period="$live_first" -d live >/dev/null ||
  bail "setup of the database live failed"

# ---- e (start): schedule the job now, so that the wait for pg_cron's next
# minute overlaps parts a to d; its checks follow part d ----
is "e: pg_cron is preloaded and its launcher runs in the database live" \
  "$(qas postgres live "SELECT current_setting('shared_preload_libraries') || ' ' ||
        (SELECT string_agg(datname, ',') FROM pg_stat_activity WHERE backend_type = 'pg_cron launcher')")" \
  "pg_cron live"
scheduled_at=$(date +%s)
job1=$(qas reporting_job live \
  "SELECT cron.schedule('publish-daily', '* * * * *', \$\$SELECT publish_daily(current_date)\$\$)")
is "e: the job role scheduled publish-daily every minute; pg_cron will run it as reporting_job" \
  "$(qas postgres live "SELECT jobname || ' ' || schedule || ' ' || username || ' ' || database || ' ' || active::text
                        FROM cron.job WHERE jobid = '$job1'")" \
  "publish-daily * * * * * reporting_job live true"

# ---- a) a simulated year ----
# today = 2025-01-02 .. 2026-01-01: the job publishes 2025-01-01 .. 2025-12-31
first_day=2025-01-01
days=365
for i in $(seq 1 $days); do
  echo "SELECT format('%s|%s|%s|%s', step, period, estimate, released_at) FROM publish_daily(date '$first_day' + $i);"
done >"$DP_CLUSTER_DIR/year.sql"
psql -X -At -v ON_ERROR_STOP=1 -U reporting_job -d sim -f "$DP_CLUSTER_DIR/year.sql" \
  >"$DP_CLUSTER_DIR/year.out" 2>&1
year_status=$?
is "a: the job role ran the job once per day for $days days, each call its own transaction, without an error" \
  "$year_status $(wc -l <"$DP_CLUSTER_DIR/year.out")" "0 $days"
is "a: $days releases, steps 1..$days contiguous, step k for day $first_day + k - 1" \
  "$(q "SELECT count(*) || ' ' || min(step) || ' ' || max(step) || ' ' || count(DISTINCT step) || ' ' ||
              bool_and(period = timestamp '$first_day' + (step - 1) * interval '1 day')
        FROM dp_stream.releases WHERE stream = 'daily_admissions'")" \
  "$days 1 $days $days true"
is "a: each call returned the release stored for its day" \
  "$(q "SELECT string_agg(format('%s|%s|%s|%s', step, period, estimate, released_at), E'\n' ORDER BY step)
        FROM dp_stream.releases WHERE stream = 'daily_admissions'")" \
  "$(cat "$DP_CLUSTER_DIR/year.out")"
is "a: the budget was charged once, the mechanism's epsilon (spent = dp_epsilon, 1 charge), the stream's steps = $days" \
  "$(q "SELECT b.spent_epsilon = dp_epsilon(s.mechanism) AND b.remaining_epsilon = 2.0 - dp_epsilon(s.mechanism)
               AND b.charges = 1 AND s.steps = $days
        FROM dp_stream.budget('hospital') AS b, dp_stream.streams AS s WHERE s.name = 'daily_admissions'")" \
  "t"
# the job passes the day's count: the running total is near the true total
# (5 times its 95% half-width: a false alarm is practically impossible)
is "a: the last estimate, the year's running total, is within 5 error bounds of the true count" \
  "$(q "SELECT abs(r.estimate - (SELECT count(*) FROM admissions
                                 WHERE admitted_at >= '$first_day' AND admitted_at < '2026-01-01'))
               <= 5 * r.error_bound
        FROM dp_stream.releases AS r WHERE stream = 'daily_admissions' AND step = $days")" \
  "t"

# ---- b) retries ----
stored() {  # stored PERIOD: the stored release of a day
  q "SELECT format('%s|%s|%s|%s', step, period, estimate, released_at) FROM dp_stream.releases
     WHERE stream = 'daily_admissions' AND period = '$1'"
}
job() {  # job TODAY: one run of the job as the job role, its release
  qas reporting_job sim "SELECT format('%s|%s|%s|%s', step, period, estimate, released_at) FROM publish_daily('$1')"
}
# what the year's call for today = 2025-07-01 (the 181st) returned
first_call=$(sed -n 181p "$DP_CLUSTER_DIR/year.out")
is "b: a retry of a published day (2025-06-30) returns the identical release: same step, estimate and released_at as the first call" \
  "$(job 2025-07-01)" "$first_call"
psql -X -q -d sim -c "INSERT INTO admissions SELECT timestamp '2025-06-30 12:00' + i * interval '1 minute', 900000 + i
                      FROM generate_series(1, 30) AS i" >/dev/null
is "b: a retry after 30 late events arrived for that day still returns the stored release (late events are not counted)" \
  "$(job 2025-07-01) $(job 2025-07-01)" "$first_call $first_call"
is "b: the retries added no row" \
  "$(q "SELECT count(*) FROM dp_stream.releases WHERE stream = 'daily_admissions'")" "$days"

# a job that fails after advancing (an error later in its transaction), and
# one that rolls back: both made step 366 before their transaction ended
fail_out=$(psql -X -At -v ON_ERROR_STOP=1 -U reporting_job -d sim 2>&1 <<'SQL'
BEGIN;
SELECT 'advanced: step ' || step FROM publish_daily('2026-01-02');
SELECT 1 / 0;  -- whatever else the job does fails after the advance
COMMIT;
SQL
)
fail_status=$?
rollback_out=$(psql -X -At -v ON_ERROR_STOP=1 -U reporting_job -d sim 2>&1 <<'SQL'
BEGIN;
SELECT 'advanced: step ' || step FROM publish_daily('2026-01-02');
ROLLBACK;
SQL
)
is "b: a job that failed after advancing (exit 3, division by zero) and one that rolled back had both made step 366" \
  "$fail_status $(grep -c '^advanced: step 366$' <<<"$fail_out") $(grep -c 'division by zero' <<<"$fail_out") $(grep -c '^advanced: step 366$' <<<"$rollback_out")" \
  "3 1 1 1"
is "b: they left no release for 2026-01-01, and the stream at step $days" \
  "$(q "SELECT count(*) FILTER (WHERE period = '2026-01-01') || ' ' || count(*) || ' ' ||
              (SELECT steps FROM dp_stream.streams WHERE name = 'daily_admissions')
        FROM dp_stream.releases WHERE stream = 'daily_admissions'")" \
  "0 $days $days"
retry=$(job 2026-01-02)
is "b: the retry publishes 2026-01-01 as step 366, once" \
  "$(cut -d'|' -f1,2 <<<"$retry") $(q "SELECT count(*) FROM dp_stream.releases WHERE stream = 'daily_admissions' AND period = '2026-01-01'")" \
  "366|2026-01-01 00:00:00 1"
is "b: the retry's release is the stored one" "$retry" "$(stored 2026-01-01)"

# ---- c) 8 concurrent runs of the same day's job ----
# A barrier: the administrator holds an advisory lock until the 8 sessions
# wait for it, then all 8 start the job at once.
psql -X -q -d sim >/dev/null 2>&1 <<'SQL' &
DO $$
BEGIN
  PERFORM pg_advisory_lock(4242);
  FOR i IN 1 .. 600 LOOP
    EXIT WHEN (SELECT count(*) FROM pg_locks
               WHERE locktype = 'advisory' AND objid = 4242 AND NOT granted) >= 8;
    PERFORM pg_sleep(0.05);
  END LOOP;
  PERFORM pg_advisory_unlock(4242);
END $$;
SQL
bg_pids+=($!)
for i in $(seq 1 100); do
  [ "$(q "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND objid = 4242 AND granted")" = 1 ] && break
  sleep 0.05
done
for c in $(seq 1 8); do
  psql -X -At -v ON_ERROR_STOP=1 -U reporting_job -d sim >"$DP_CLUSTER_DIR/concurrent.$c" 2>&1 <<'SQL' &
SELECT pg_advisory_lock_shared(4242) \g /dev/null
SELECT format('%s|%s|%s|%s', step, period, estimate, released_at) FROM publish_daily('2026-01-03');
SQL
  bg_pids+=($!)
done
statuses=""
for pid in "${bg_pids[@]}"; do wait "$pid"; statuses+="$? "; done
bg_pids=()
is "c: the barrier and 8 concurrent sessions running the job for 2026-01-02 all succeeded" \
  "$statuses" "0 0 0 0 0 0 0 0 0 "
is "c: exactly one release for 2026-01-02 (step 367)" \
  "$(q "SELECT count(*) || ' ' || min(step) FROM dp_stream.releases WHERE stream = 'daily_admissions' AND period = '2026-01-02'")" \
  "1 367"
is "c: all 8 sessions saw that release (same step, estimate and released_at)" \
  "$(cat "$DP_CLUSTER_DIR"/concurrent.* | sort | uniq -c | sed -E 's/^ +//')" \
  "8 $(stored 2026-01-02)"

# ---- a missed day ----
# no job ran on 2026-01-04 (for 2026-01-03); the run of 2026-01-05 fills
# 2026-01-03 with no data and publishes 2026-01-04
# (0.13.0: the filled day is marked, and the run warns about it)
gap_run=$(job 2026-01-05)
gap=$(grep -v '^\(WARNING\|DETAIL\|HINT\):' <<<"$gap_run")
is "missed day: the next run publishes 2026-01-04 as step 369 and fills 2026-01-03 as step 368, marked" \
  "$(cut -d'|' -f1,2 <<<"$gap") $(q "SELECT string_agg(step || ':' || period::date || ':' || filled_without_data, ' '
                                                 ORDER BY step)
                                      FROM dp_stream.releases WHERE stream = 'daily_admissions' AND step > 367")" \
  "369|2026-01-04 00:00:00 368:2026-01-03:true 369:2026-01-04:false"
is "missed day: the run that fills it warns" \
  "$(grep '^WARNING:' <<<"$gap_run")" \
  'WARNING:  stream "daily_admissions": 1 period before 2026-01-04 00:00:00 released without data'

is "missed day: running the missed day's job late returns the filled release (its events are not counted), no new row" \
  "$(job 2026-01-04) $(q "SELECT count(*) FROM dp_stream.releases WHERE stream = 'daily_admissions'")" \
  "$(stored 2026-01-03) 369"

# ---- d) a materialized view for the dashboard ----
# weekly admissions: the difference of the running totals at the ends of
# consecutive weeks (post-processing of releases, no epsilon spent)
psql -X -q -v ON_ERROR_STOP=1 -d sim >/dev/null <<'SQL' || bail "creating the materialized view failed"
CREATE MATERIALIZED VIEW admissions_weekly AS
SELECT week, days,
       total - lag(total, 1, 0::float8) OVER (ORDER BY week) AS admissions,
       total AS total_to_date,
       total_error_bound
FROM (SELECT date_trunc('week', period)::date AS week,
             count(*) AS days,
             (array_agg(estimate ORDER BY period DESC))[1] AS total,
             (array_agg(error_bound ORDER BY period DESC))[1] AS total_error_bound
      FROM dp_stream.releases
      WHERE stream = 'daily_admissions'
      GROUP BY 1) AS w;
CREATE UNIQUE INDEX ON admissions_weekly (week);
GRANT SELECT ON admissions_weekly TO dashboard;
SQL
mv_md5="SELECT md5(string_agg(format('%s %s %s %s %s', week, days, admissions, total_to_date, total_error_bound),
                              ',' ORDER BY week)) FROM admissions_weekly"
mv_diff="SELECT (SELECT count(*) FROM (SELECT * FROM admissions_weekly EXCEPT SELECT * FROM weekly_before) AS a)
                || ' ' || (SELECT count(*) FROM (SELECT * FROM weekly_before EXCEPT SELECT * FROM admissions_weekly) AS b)"
before=$(q "$mv_md5")
q "CREATE TABLE weekly_before AS SELECT * FROM admissions_weekly" >/dev/null
is "d: the view has the weeks of 2025-01-01 .. 2026-01-04 (53 weeks, 369 days)" \
  "$(q "SELECT count(*) || ' ' || sum(days) FROM admissions_weekly")" "53 369"
q "REFRESH MATERIALIZED VIEW admissions_weekly" >/dev/null
is "d: refreshed: identical (md5 of the ordered rows; EXCEPT both ways empty)" \
  "$(q "$mv_md5") $(q "$mv_diff")" "$before 0 0"
q "REFRESH MATERIALIZED VIEW CONCURRENTLY admissions_weekly" >/dev/null
is "d: refreshed again, CONCURRENTLY: identical" "$(q "$mv_md5") $(q "$mv_diff")" "$before 0 0"
job 2026-01-05 >/dev/null
job 2025-03-01 >/dev/null
q "REFRESH MATERIALIZED VIEW admissions_weekly" >/dev/null
is "d: refreshed after two retried jobs: identical" "$(q "$mv_md5") $(q "$mv_diff")" "$before 0 0"
is "d: the reader reads the view and the releases" \
  "$(qas dashboard sim "SELECT (SELECT count(*) FROM admissions_weekly) || ' ' ||
                               (SELECT count(*) FROM dp_stream.releases)")" \
  "53 369"
is "d: the reader cannot read the raw events or the states, nor advance a stream (42501)" \
  "$(for sql in "SELECT 1 FROM admissions" "SELECT 1 FROM dp_stream.streams" \
                "SELECT dp_stream.advance('daily_admissions', '2026-01-05', 1)"; do
       psql -X -At -U dashboard -d sim -v VERBOSITY=sqlstate -c "$sql" 2>&1; done | tr '\n' ' ')" \
  "ERROR:  42501 ERROR:  42501 ERROR:  42501 "

# ---- e) through the cron worker ----
# wait_runs JOBID MIN_START: waits until a run of JOBID that started at or
# after MIN_START (epoch) has ended, at most 75 s; sets waited to the
# seconds waited, or "75 (timeout)".  (Not in a command substitution, so
# that Ctrl-C or TERM stop the script within a second.)
waited=""
wait_runs() {
  local t0=$SECONDS
  while [ $((SECONDS - t0)) -lt 75 ]; do
    if [ "$(qas postgres live "SELECT count(*) FROM cron.job_run_details
              WHERE jobid = '$1' AND status IN ('succeeded', 'failed')
                AND start_time >= to_timestamp($2)")" != 0 ]; then
      waited=$((SECONDS - t0)); return 0
    fi
    sleep 1
  done
  waited="75 (timeout)"; return 1
}
runs() {  # runs JOBID MIN_START: the statuses (and messages) of its runs that started at or after MIN_START
  qas postgres live "SELECT coalesce(string_agg(DISTINCT status || coalesce(' (' || nullif(return_message, '1 row') || ')', ''), ', '), 'none')
                     FROM cron.job_run_details WHERE jobid = '$1' AND start_time >= to_timestamp($2)"
}
wait_runs "$job1" "$scheduled_at"
echo "# e: the first run of publish-daily ended ${waited} s after parts a to d ($(( $(date +%s) - scheduled_at )) s after scheduling)"
first_run=$(qas postgres live "SELECT runid FROM cron.job_run_details WHERE jobid = '$job1' ORDER BY runid LIMIT 1")
is "e: pg_cron ran publish-daily as reporting_job within 75 s, and the run succeeded" \
  "$(qas postgres live "SELECT status || ' ' || username || ' ' || return_message FROM cron.job_run_details WHERE runid = '$first_run'")" \
  "succeeded reporting_job 1 row"
# the day the job published: yesterday as of its run (cluster time zone)
run_day=$(qas postgres live "SELECT (start_time AT TIME ZONE current_setting('TimeZone'))::date - 1
                             FROM cron.job_run_details WHERE runid = '$first_run'")
# (made by the job: by its role, after it was scheduled; pg_cron records a
# run's start_time in its own transaction, which may start after the job's)
is "e: the release for yesterday ($run_day) exists exactly once, as step 1, made by the scheduled job" \
  "$(qas postgres live "SELECT count(*) || ' ' || min(step) || ' ' ||
                               bool_and(r.released_by = 'reporting_job' AND r.released_at >= to_timestamp($scheduled_at)
                                        AND r.released_at <= d.end_time)
                        FROM dp_stream.releases AS r, cron.job_run_details AS d
                        WHERE r.stream = 'daily_admissions' AND r.period = '$run_day' AND d.runid = '$first_run'")" \
  "1 1 true"
dup_at=$(date +%s)
job2=$(qas reporting_job live \
  "SELECT cron.schedule('publish-daily-duplicate', '* * * * *', \$\$SELECT publish_daily(current_date)\$\$)")
wait_runs "$job2" "$dup_at"
sleep 2  # the run of publish-daily at the same minute ends as well
echo "# e: the duplicated job's first run ended after ${waited} s"
is "e: at the next minute, both schedules ran the job and succeeded" \
  "$(runs "$job1" "$dup_at") / $(runs "$job2" "$dup_at")" "succeeded / succeeded"
is "e: still exactly one release for $run_day, and no other release in the live stream" \
  "$(qas postgres live "SELECT count(*) FILTER (WHERE period = '$run_day') || ' ' || count(*)
                        FROM dp_stream.releases WHERE stream = 'daily_admissions'")" \
  "1 1"
is "e: no run of either job failed; the job role unscheduled both" \
  "$(qas postgres live "SELECT count(*) FROM cron.job_run_details WHERE status = 'failed'") $(
     qas reporting_job live "SELECT cron.unschedule('publish-daily') AND cron.unschedule('publish-daily-duplicate')") $(
     qas postgres live "SELECT count(*) FROM cron.job")" \
  "0 t 0"
is "e: the budget of the live database was charged once" \
  "$(qas postgres live "SELECT spent_epsilon || ' ' || charges FROM dp_stream.budget('hospital')")" "1 1"

echo "# $((SECONDS - start)) s"
dp_cluster_stop
finish
