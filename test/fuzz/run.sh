#!/usr/bin/env bash
# Runs the libFuzzer harnesses built by the Makefile (test/fuzz/README.md).
#
#   run.sh fuzz     BUILD SECONDS TARGET...   fuzz each target for SECONDS
#   run.sh replay   BUILD 0 TARGET...         every corpus file once, TAP out
#   run.sh coverage BUILD 0 TARGET... -- SOURCE...
#                                             corpus through the .cov builds,
#                                             then llvm-cov report of SOURCEs
#
# Run from the repository root.  The corpus is test/fuzz/corpus/TARGET/;
# crashes found by fuzzing go to test/fuzz/crashes/ (git-ignored); new corpus
# entries to FUZZ_WORK (default ${TMPDIR:-/tmp}/dp_stream_fuzz), never into
# the repository.
set -uo pipefail

mode=$1 build=$2 seconds=$3
shift 3
targets=()
sources=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do targets+=("$1"); shift; done
[ $# -gt 0 ] && shift
sources=("$@")

corpus_root=test/fuzz/corpus
dict=test/fuzz/text.dict
work=${FUZZ_WORK:-${TMPDIR:-/tmp}/dp_stream_fuzz}
# leaks and every UBSan report are fatal; stacks symbolised when possible
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0:symbolize=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}

# the text-based targets get the dictionary of the text forms, and so do
# the two whose input begins with a mechanism's text form
dict_args() {
  case $1 in
    *_text|fuzz_text_scanners|fuzz_stream|fuzz_planning) [ -f "$dict" ] && echo "-dict=$dict" ;;
  esac
}

corpus_files() {
  [ -d "$corpus_root/$1" ] && find "$corpus_root/$1" -maxdepth 1 -type f | sort
}

# one line for a failed run: the error, and where in C code it happened
summary_of() {
  local error frame
  error=$(grep -m1 -E 'FUZZ_CHECK failed|runtime error: |ERROR: [A-Za-z]+Sanitizer: |ERROR: libFuzzer: ' "$1" |
    sed -E -e 's/^==[0-9]+==//' -e 's/^ERROR: //' -e 's/ on (unknown )?address.*//' -e "s|$PWD/||g")
  case $error in
    *"runtime error"*|*FUZZ_CHECK*) echo "$error" ;;
    *)
      frame=$(grep -m1 -E '^ +#[0-9]+ 0x[0-9a-f]+ in [^ ]+ [^ (]+\.[ch]:[0-9]+' "$1" |
        sed -E -e 's/^ +#[0-9]+ 0x[0-9a-f]+ in //' -e "s|$PWD/||g")
      echo "${error:-exit status only, no sanitizer report}${frame:+ in $frame}" ;;
  esac
}

fuzz() {
  local status=0 target log
  mkdir -p test/fuzz/crashes "$work"
  for target in "${targets[@]}"; do
    log=$work/$target.log
    mkdir -p "$work/$target"
    # the seeds, without the crash-* findings that still crash (libFuzzer
    # would stop on them before fuzzing); fixed findings stay as seeds
    local seeds=$work/$target.seeds f
    rm -rf "$seeds"
    mkdir -p "$seeds"
    while read -r f; do
      case $(basename "$f") in
        crash-*) "$build/$target" -timeout=10 "$f" >/dev/null 2>&1 || continue ;;
      esac
      ln -s "$PWD/$f" "$seeds/"
    done < <(corpus_files "$target")
    local started=$SECONDS
    "$build/$target" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
      -print_final_stats=1 -artifact_prefix="test/fuzz/crashes/$target-" $(dict_args "$target") \
      "$work/$target" "$seeds" >"$log" 2>&1
    local rc=$?
    local execs cov ft corpus
    execs=$(sed -nE 's/^stat::number_of_executed_units: *([0-9]+).*/\1/p' "$log" | tail -1)
    cov=$(grep -oE 'cov: [0-9]+ ft: [0-9]+ corp: [0-9]+/[^ ]+' "$log" | tail -1)
    echo "$target: ${execs:-?} executions in $((SECONDS - started))s, ${cov:-no coverage line}, exit $rc"
    if [ $rc -ne 0 ]; then
      status=1
      echo "  $(summary_of "$log")"
      grep -E '^artifact_prefix|Test unit written to' "$log" | sed 's/^/  /'
      echo "  log: $log"
    fi
  done
  return $status
}

replay() {
  local status=0 n=0 target
  local scratch
  scratch=$(mktemp -d "${TMPDIR:-/tmp}/dp_stream_replay.XXXXXX")
  echo "1..${#targets[@]}"
  for target in "${targets[@]}"; do
    n=$((n + 1))
    local files=() failed=() notes=()
    mapfile -t files < <(corpus_files "$target")
    local total=${#files[@]} remaining=("${files[@]}")
    # one process for all files; after a crash, go on after the failing file
    while [ ${#remaining[@]} -gt 0 ]; do
      local log=$scratch/$target.log
      "$build/$target" -timeout=10 -rss_limit_mb=2048 -artifact_prefix="$scratch/" \
        "${remaining[@]}" >"$log" 2>&1
      [ $? -eq 0 ] && break
      local culprit
      culprit=$(sed -nE 's/^Running: (.*)$/\1/p' "$log" | tail -1)
      failed+=("${culprit:-?}")
      notes+=("# $target: $(basename "${culprit:-?}"): $(summary_of "$log")")
      # remove the culprit and everything before it
      local rest=() seen=0 f
      for f in "${remaining[@]}"; do
        [ $seen -eq 1 ] && rest+=("$f")
        [ "$f" = "$culprit" ] && seen=1
      done
      [ $seen -eq 0 ] && break       # a failure at exit (a leak): stop here
      remaining=("${rest[@]+"${rest[@]}"}")
    done
    if [ ${#failed[@]} -eq 0 ] && [ "$total" -gt 0 ]; then
      echo "ok $n - $target: $total inputs"
    else
      status=1
      if [ "$total" -eq 0 ]; then
        echo "not ok $n - $target: no corpus in $corpus_root/$target"
      else
        echo "not ok $n - $target: ${#failed[@]} of $total inputs failed"
      fi
      printf '%s\n' "${notes[@]+"${notes[@]}"}"
    fi
  done
  rm -rf "$scratch"
  return $status
}

coverage() {
  local profiles target objects=() f
  profiles=$(mktemp -d "${TMPDIR:-/tmp}/dp_stream_coverage.XXXXXX")
  for target in "${targets[@]}"; do
    objects+=(-object "$build/$target.cov")
    # one process per input: a crashing input loses its own profile only
    while read -r f; do
      LLVM_PROFILE_FILE="$profiles/$target-%m.profraw" \
        "$build/$target.cov" -timeout=5 -rss_limit_mb=2048 -artifact_prefix="$profiles/" \
        "$f" >/dev/null 2>&1 || echo "coverage: $target: $f failed (its profile is lost)"
    done < <(corpus_files "$target")
  done
  llvm-profdata-14 merge -sparse "$profiles"/*.profraw -o "$profiles/all.profdata" || return 1
  # the first -object is the binary argument itself
  llvm-cov-14 report "${objects[1]}" "${objects[@]:2}" -instr-profile="$profiles/all.profdata" \
    "${sources[@]}"
  rm -rf "$profiles"
}

case $mode in
  fuzz) fuzz ;;
  replay) replay ;;
  coverage) coverage ;;
  *) echo "usage: $0 fuzz|replay|coverage BUILD SECONDS TARGET... [-- SOURCE...]" >&2; exit 2 ;;
esac
