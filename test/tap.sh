# Sourced by the shell test scripts (test/managed_streams.sh, test/cron.sh):
# TAP output for a fixed plan.  The script sets `planned` and echoes the
# plan line; finish exits non-zero when a test failed or the count is off.
run=0
failed=0

report() {  # report STATUS DESCRIPTION
  run=$((run + 1))
  if [ "$1" -eq 0 ]; then
    echo "ok $run - $2"
  else
    failed=$((failed + 1))
    echo "not ok $run - $2"
  fi
}

is() {  # is DESCRIPTION GOT EXPECTED
  if [ "$2" = "$3" ]; then
    report 0 "$1"
  else
    report 1 "$1"
    echo "# got:      $(tr '\n' ' ' <<<"$2")"
    echo "# expected: $3"
  fi
}

finish() {
  if [ "$run" -ne "$planned" ]; then
    echo "# You planned $planned tests but ran $run"
    exit 1
  fi
  [ "$failed" -eq 0 ] || { echo "# $failed of $run tests failed"; exit 1; }
  exit 0
}
