#!/usr/bin/env bash
# The NULL sweep (issue 23, hole 0): every function of the extension (every
# pg_proc row that depends on the extension, in every schema) is called with
# NULL in each argument position in turn, the other arguments a plausible
# value of their type, and with every argument NULL; aggregates as
# aggregates, plain and as window functions, with the NULL in every row and
# in one row only, and over no row.  Each function is called twice: as a LOGIN role with no
# grants (what any user of the database can do), and as a superuser inside a
# transaction that is rolled back (so that functions revoked from PUBLIC are
# reached too).  An error is fine; a lost connection, a backend terminated by
# a signal (in the server log) or an internal error (XX000, an elog that a
# user should never reach) is not.  One TAP test per function.
#
# Runs a throwaway cluster of its own (scripts/cluster.sh), since a crash
# restarts every backend of the cluster.  The extension must be installed.
set -uo pipefail
cd "$(dirname "$0")/.."
. scripts/cluster.sh

db=null_sweep
role=null_sweeper
work=$(mktemp -d "${TMPDIR:-/tmp}/dp_stream_null_sweep.XXXXXX")
chmod 755 "$work"
cleanup() { dp_cluster_stop; rm -rf "$work"; }

dp_cluster_start || { echo "Bail out! the cluster did not start"; exit 1; }
trap cleanup EXIT
trap 'cleanup; exit 130' INT TERM
log="$DP_CLUSTER_DIR/server.log"
createdb "$db" || { echo "Bail out! createdb failed"; exit 1; }
psql -X -q -v ON_ERROR_STOP=1 -d "$db" \
  -c 'CREATE EXTENSION dp_stream' -c "CREATE ROLE $role LOGIN" >/dev/null ||
  { echo "Bail out! setup failed"; exit 1; }

# A plausible value of an argument, from its name and type (the functions'
# declared argument names), so that a call gets past the other arguments'
# checks and the NULL is what is tested.
sample() {
  local function=$1 name=$2 type=$3
  case "$function:$name:$type" in
    dp_mechanism_in:*) echo "(public.dp_binary(1, 64, 1)::text)::cstring" ;;
    dp_counter_in:*) echo "(public.dp_counter_new(public.dp_binary(1, 64, 1))::text)::cstring" ;;
    dp_statistic_in:*) echo "(public.dp_statistic_new('variance', 0, 10, public.dp_binary(1, 64))::text)::cstring" ;;
    *:epsilon:*|*:epsilon_current:*) echo "1" ;;
    *:epsilon_past:*|*:rho:*|*:lambda:*) echo "0.5" ;;
    *:delta:*) echo "1e-6" ;;
    *:confidence:*) echo "0.95" ;;
    *:half_width:*) echo "100" ;;
    *:total_epsilon:*) echo "100" ;;
    *:lower:*) echo "0" ;;
    *:upper:*) echo "10" ;;
    dp_balanced*:arity:*) echo "5" ;;
    *:arity:*|*:contributions:*|*:delay:*|*:age:*) echo "2" ;;
    *:block:*) echo "8" ;;
    *:horizon:*) echo "64" ;;
    *:max_age:*|*:steps:*) echo "10" ;;
    *:max_per_step:*) echo "5" ;;
    *:window_size:*) echo "8" ;;
    dp_mechanism_of:parameter:*|dp_zcdp_mechanism_of:parameter:*) echo "5" ;;
    dp_mechanism_of:kind:*) echo "'balanced'" ;;
    dp_zcdp_mechanism_of:kind:*) echo "'kary'" ;;
    *:secret_id:*) echo "1" ;;
    *:estimate:text) echo "'sum'" ;;
    *:key:text) echo "'null_sweep_key'" ;;
    *:statistic:text) echo "'sum'" ;;
    *:computes:text) echo "'count'" ;;
    *:dataset:text|*:name:text) echo "'null_sweep'" ;;
    *:double\ precision) echo "1" ;;
    *:bigint|*:integer) echo "1" ;;
    *:boolean) echo "false" ;;
    *:text) echo "'null_sweep'" ;;
    *:dp_mechanism) echo "public.dp_binary(1, 64, 1)" ;;
    *:dp_counter) echo "public.dp_counter_new(public.dp_binary(1, 64, 5))" ;;
    *:dp_statistic) echo "public.dp_statistic_new('average', 0, 10, public.dp_binary(1, 64))" ;;
    *:dp_stream.streams) echo "(SELECT s FROM dp_stream.streams s WHERE s.name = 'null_sweep')" ;;
    *:timestamp\ without\ time\ zone) echo "'2026-01-01'" ;;
    *:interval) echo "'1 day'" ;;
    *:regrole) echo "current_user::regrole" ;;
    *:numeric) echo "1" ;;
    *:bytea) echo "'\\x00'" ;;
    *:name) echo "'null_sweep'" ;;
    *:regclass) echo "'dp_stream.streams'" ;;
    *:timestamp\ with\ time\ zone) echo "'2026-01-01 00:00+00'" ;;
    *:jsonb|*:json) echo "'{}'" ;;
    *\[\]) echo "'{}'" ;;
    *) echo "NULL" ;;
  esac
}

# the superuser's transaction: a budget, a key, a stream and a publication
# the samples name (publish and dp_publication then get past the lookup)
superuser_setup="SELECT dp_stream.create_budget('null_sweep', 100);
SELECT dp_stream.create_key('null_sweep_key', public.dp_binary(1, 64, 1));
SELECT dp_stream.create_stream('null_sweep', 'count', public.dp_binary(1, 64, 1), NULL, NULL,
                               '2026-01-01', '1 day', 'null_sweep');
SELECT dp_stream.create_publication('null_sweep', 'count', public.dp_binary(1, 64, 1),
                                    dataset => 'null_sweep', first_period => '2026-01-01');"

# every function of the extension: oid, kind, name, argument types and names
psql -X -At -F '|' -d "$db" -c "
  SELECT p.oid, p.prokind,
         quote_ident(n.nspname) || '.' || quote_ident(p.proname),
         p.oid::regprocedure,
         coalesce((SELECT string_agg(format_type(t, NULL), ';' ORDER BY i)
                     FROM unnest(p.proargtypes::oid[]) WITH ORDINALITY a(t, i)), ''),
         coalesce(array_to_string(p.proargnames[1:p.pronargs], ';', '?'), ''),
         p.pronargs
    FROM pg_proc p
    JOIN pg_namespace n ON n.oid = p.pronamespace
    JOIN pg_depend d ON d.classid = 'pg_proc'::regclass AND d.objid = p.oid AND d.deptype = 'e'
    JOIN pg_extension e ON e.oid = d.refobjid AND e.extname = 'dp_stream'
   ORDER BY p.oid::regprocedure::text" >"$work/functions" ||
  { echo "Bail out! could not list the functions"; exit 1; }

planned=$(($(wc -l <"$work/functions") + 1))
run=0
echo "1..$planned"
report() {
  run=$((run + 1))
  if [ "$1" -eq 0 ]; then echo "ok $run - $2"; else echo "not ok $run - $2"; fi
}

# Writes the calls of one function to stdout, one statement a line.
calls() {
  local kind=$1 qualified=$2 types=$3 names=$4 nargs=$5
  local -a type_of name_of
  local short=${qualified##*.} variant i j expression list position
  IFS=';' read -r -a type_of <<<"$types"
  IFS=';' read -r -a name_of <<<"$names"
  # variants: -1 = every argument a sample; 0..n-1 = NULL at that position;
  # n = every argument NULL
  for ((variant = -1; variant <= nargs; variant++)); do
    for position in all row; do
      # a NULL in one row only means something for aggregates
      [ "$position" = row ] && { [ "$kind" != a ] || [ "$variant" -lt 0 ]; } && continue
      list=""
      for ((j = 0; j < nargs; j++)); do
        if [ "$variant" -eq "$j" ] || [ "$variant" -eq "$nargs" ]; then
          if [ "$position" = row ]; then
            expression="CASE WHEN g = 2 THEN NULL ELSE $(sample "$short" "${name_of[j]:-?}" "${type_of[j]}") END::${type_of[j]}"
          else
            expression="NULL::${type_of[j]}"
          fi
        else
          expression="($(sample "$short" "${name_of[j]:-?}" "${type_of[j]}"))::${type_of[j]}"
        fi
        list="$list${list:+, }$expression"
      done
      if [ "$kind" = a ]; then
        echo "SELECT $qualified($list) FROM generate_series(1, 3) g;"
        echo "SELECT $qualified($list) OVER (ORDER BY g) FROM generate_series(1, 3) g;"
        # no row at all: the final function gets no state
        [ "$position" = all ] && echo "SELECT $qualified($list) FROM generate_series(1, 0) g;"
      else
        echo "SELECT $qualified($list);"
        [ "$nargs" -eq 0 ] && break 2
      fi
    done
  done
}

wait_for_server() {
  for _ in $(seq 1 120); do
    pg_isready -q -h "$PGHOST" -p "$PGPORT" && psql -X -Atq -d "$db" -c 'SELECT 1' >/dev/null 2>&1 &&
      return 0
    sleep 0.5
  done
  return 1
}

# Runs one script; prints the problems found, if any.
run_calls() {
  local who=$1 script=$2 output=$3 from status
  from=$(stat -c %s "$log")
  psql -X -q -U "$who" -d "$db" -v VERBOSITY=verbose -f "$script" </dev/null >"$output" 2>&1
  status=$?
  if [ "$status" -eq 2 ] || grep -qE 'server closed the connection|connection to server was lost' "$output"; then
    echo "lost connection as $who"
  elif [ "$status" -ne 0 ]; then
    # could not connect or read the script: nothing was tested
    echo "psql exited with status $status as $who:"
    head -3 "$output"
  fi
  if tail -c +"$((from + 1))" "$log" | grep -qE 'terminated by signal|server process .* was terminated'; then
    echo "backend terminated by a signal as $who:"
    tail -c +"$((from + 1))" "$log" | grep -E 'terminated by signal|DETAIL:  Failed process' | head -3
    wait_for_server || echo "the server did not come back"
  fi
  if grep -q 'ERROR:  25P02' "$output"; then
    echo "calls as $who ran in an aborted transaction: untested"
  fi
  if grep -q 'ERROR:  XX000' "$output"; then
    echo "internal error (XX000) as $who:"
    grep -B1 'ERROR:  XX000' "$output" | head -4
  fi
}

total_calls=0
total_errors=0
while IFS='|' read -r oid kind qualified signature types names nargs; do
  if grep -q '\binternal\b' <<<"$types"; then
    # not callable from SQL at all (no value casts to internal): reached
    # through its aggregates or the type's binary input
    report 0 "$signature # SKIP an internal argument: reached only through its aggregate or type"
    continue
  fi
  calls "$kind" "$qualified" "$types" "$names" "$nargs" >"$work/calls.sql"
  n=$(wc -l <"$work/calls.sql")
  total_calls=$((total_calls + 2 * n))
  { echo "SET statement_timeout = '30s';"; cat "$work/calls.sql"; } >"$work/unprivileged.sql"
  { echo "SET statement_timeout = '30s';"
    echo "BEGIN;"
    # each statement in a savepoint of its own, the setup's too: one error
    # must not abort the transaction and leave every later call untested
    echo "\\set ON_ERROR_ROLLBACK on"
    echo "$superuser_setup"
    cat "$work/calls.sql"
    echo "ROLLBACK;"; } >"$work/superuser.sql"
  problems=$(run_calls "$role" "$work/unprivileged.sql" "$work/unprivileged.out"
             run_calls postgres "$work/superuser.sql" "$work/superuser.out")
  total_errors=$((total_errors + $(cat "$work/unprivileged.out" "$work/superuser.out" | grep -c 'ERROR:')))
  if [ -n "${NULL_SWEEP_VERBOSE:-}" ]; then
    # every error the calls raised, for tuning the samples
    { grep -h 'ERROR:' "$work/unprivileged.out" | sed 's/^/unprivileged: /'
      grep -h 'ERROR:' "$work/superuser.out" | sed 's/^/superuser: /'; } |
      sed -E "s|psql:[^ ]*: ||; s|^|# $signature: |"
  fi
  if [ -n "$problems" ]; then
    report 1 "$signature: $n calls with NULL arguments"
    sed 's/^/# /' <<<"$problems"
  else
    report 0 "$signature: $n calls with NULL arguments, as $role and as a superuser"
  fi
done <"$work/functions"

# a backend killed by any other signal, at any time of the sweep
if grep -qE 'terminated by signal|server process .* was terminated' "$log"; then
  report 1 "no backend was terminated by a signal during the sweep"
else
  report 0 "no backend was terminated by a signal during the sweep ($total_calls calls)"
fi
# what was reached (the setup's statements are not counted as calls, but
# their errors are): a sweep in which everything errors shows here
echo "# $total_calls calls: $((total_calls - total_errors)) returned, $total_errors raised an error with an SQLSTATE"

if [ "$run" -ne "$planned" ]; then
  echo "# You planned $planned tests but ran $run"
  exit 1
fi
exit 0
