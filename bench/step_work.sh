#!/usr/bin/env bash
# Work per step of every mechanism of the registry, by horizon (issue 29:
# per-step work O(1) amortised for every tree mechanism).  For each entry
# below, bench/step_work.c pushes a counter through T = 2^10, 2^16 and 2^20
# steps (a bounded kind with horizon T; an unbounded one just runs T steps)
# under callgrind, which counts the instructions of dp_counter_push and of
# the noise draws inside it: the table shows the difference per step, the
# mechanism's own work around its draws (the draws' cost follows the noise
# scale, which grows with the horizon for most kinds, and is timed by
# bench/sampler_timing.sh).  Instruction counts, not times: the same on a
# busy machine as on a quiet one.
#
# Fails (exit 1) when an entry's work per step at 2^20 exceeds its work at
# 2^16 by more than 2% (a loop over the levels adds about 17% there:
# PPCum's did, 504 -> 588, before 0.21.0; the balanced blocks' walk to
# their open block 4%, 648 -> 674), or when a kind of the
# registry has no entry here (BENCH_QUICK=1: horizons 2^8 to 2^12, every
# kind runs, growth not judged).  Table in bench/out/step_work.md.
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p bench/out
scripts/setup.sh >/dev/null
if ! command -v valgrind >/dev/null 2>&1; then
  echo "bench/step_work.sh: valgrind is not installed (scripts/setup.sh installs it)" >&2
  exit 1
fi
cc -std=c11 -O2 -g $(make -s core-flags) -Ibench -o bench/out/step_work bench/step_work.c -lsodium -lm

# label|text form ("%ld": the horizon); a kind may have several entries
entries=(
  "binary|binary(epsilon=1,horizon=%ld,max_per_step=1)"
  "binary, pan-private|binary(epsilon=1,horizon=%ld,max_per_step=1,pan_private=true)"
  "simple_i|simple_i(epsilon=1,horizon=%ld,max_per_step=1)"
  "simple_ii|simple_ii(epsilon=1,max_per_step=1)"
  "two_level|two_level(epsilon=1,horizon=%ld,max_per_step=1)"
  "hybrid|hybrid(epsilon=1,max_per_step=1)"
  "ppcum|ppcum(epsilon=1,horizon=%ld,max_per_step=1)"
  "kary|kary(epsilon=1,horizon=%ld,max_per_step=1)"
  "balanced|balanced(epsilon=1,horizon=%ld,max_per_step=1)"
  "balanced_unbounded|balanced_unbounded(epsilon=1,max_per_step=1)"
  "blt|blt(rho=0.5,horizon=%ld,max_per_step=1)"
  "honaker|honaker(epsilon=1,horizon=%ld,max_per_step=1)"
  "honaker, arity 2|honaker(epsilon=1,horizon=%ld,max_per_step=1,arity=2)"
  "honaker, pan-private|honaker(epsilon=1,horizon=%ld,max_per_step=1,pan_private=true)"
  "smooth_binary|smooth_binary(rho=0.5,horizon=%ld,max_per_step=1)"
  "expiring|expiring(epsilon=1,delay=8,lambda=1,max_per_step=1)"
  "expiring_baseline|expiring_baseline(epsilon=1,horizon=%ld,window=64,past_ratio=1,max_per_step=1)"
  "decayed|decayed(epsilon=1,gamma=0.99,max_per_step=1)"
  "rolling|rolling(epsilon=1,width=100,levels=3,max_per_step=1)"
)
horizons=(1024 65536 1048576)
if [ -n "${BENCH_QUICK:-}" ]; then horizons=(256 1024 4096); fi

failed=0
# every kind of the registry has an entry
for kind in $(bench/out/step_work --kinds); do
  found=""
  for e in "${entries[@]}"; do
    text=${e#*|}
    [ "${text#"$kind("}" != "$text" ] && found=1
  done
  if [ -z "$found" ]; then
    echo "bench/step_work.sh: the registry's kind $kind has no entry here" >&2
    failed=1
  fi
done

# instructions of FUNCTION (inclusive) in a callgrind output
inclusive() {
  callgrind_annotate --inclusive=yes "$1" 2>/dev/null |
    awk -v f=":$2 " '!done && index($0, f) { gsub(",", "", $1); print $1; done = 1 }'
}

out=bench/out/step_work.md
cg=$(mktemp -d)
trap 'rm -rf "$cg"' EXIT
{
  printf '| mechanism |'
  for T in "${horizons[@]}"; do printf ' T = %s |' "$T"; done
  printf ' %s |\n' "growth, last two"
  printf '|---|'
  for _ in "${horizons[@]}"; do printf -- '---|'; done
  printf -- '---|\n'
} > "$out"
for e in "${entries[@]}"; do
  label=${e%%|*}
  text=${e#*|}
  row="| $label |"
  per_step=()
  for T in "${horizons[@]}"; do
    steps=$(( T > 1048576 ? 1048576 : T ))
    valgrind --tool=callgrind --toggle-collect=dp_counter_push \
      --callgrind-out-file="$cg/out" bench/out/step_work "$text" "$T" >/dev/null 2>"$cg/err" ||
      { echo "bench/step_work.sh: $label at T = $T did not run:" >&2; tail -3 "$cg/err" >&2; failed=1; continue 2; }
    push=$(inclusive "$cg/out" dp_counter_push)
    noise=$(inclusive "$cg/out" dp_counter_noise)
    work=$(( (${push:-0} - ${noise:-0}) / steps ))
    per_step+=("$work")
    row="$row $work |"
  done
  last=${per_step[-1]}
  before=${per_step[-2]}
  growth=$(awk -v a="$before" -v b="$last" 'BEGIN { printf "%.3f", b / a }')
  verdict=""
  # BENCH_QUICK's horizons are below BLT's cap on its buffers (and the
  # levels of a few steps are not yet amortised): every kind runs, none is
  # judged
  if [ -z "${BENCH_QUICK:-}" ] && awk -v g="$growth" 'BEGIN { exit !(g > 1.02) }'; then
    verdict=" (grows)"
    failed=1
  fi
  echo "$row $growth$verdict |" >> "$out"
done
cat "$out"
if [ "$failed" -ne 0 ]; then
  echo "bench/step_work.sh: some mechanism's work per step grows with the horizon, or a kind has no entry (above)"
  exit 1
fi
if [ -n "${BENCH_QUICK:-}" ]; then
  echo "bench/step_work.sh: every mechanism ran (BENCH_QUICK: small horizons, growth not judged)"
else
  echo "bench/step_work.sh: every mechanism's work per step (instructions of dp_counter_push less its draws) is flat from T = ${horizons[-2]} to ${horizons[-1]}"
fi
