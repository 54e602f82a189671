#!/usr/bin/env bash
# The acceptance threshold of a fresh draw's low part is computed without a
# branch or a division (src/core/noise/dp_laplace_low.c): its time must not
# depend on the proposal v, which becomes the low bits of the noise when it
# is accepted.  C promises nothing about branches, so this reads the
# machine code:
#   1. the checker sees a conditional branch where there is one (a small
#      function with an if, compiled here)
#   2. the built object's dp_laplace_low_enclosure (`make`) has no
#      conditional branch and no division
#   3. the same from the source with every compiler found here (gcc,
#      clang) at -O2, -O3 and -Os
# A comparison that gcc -O2 had compiled into a branch, taken for tiny v
# (v = 0 among them), was found this way.  Needs objdump; prints TAP and
# exits non-zero on a failure.
set -uo pipefail
cd "$(dirname "$0")/.."
. test/tap.sh
planned=3
echo "1..$planned"

function_code() {  # function_code OBJECT FUNCTION: its instructions
  objdump -d --no-show-raw-insn "$1" | awk -v f="<$2>:" '$2 == f {on = 1; next} on && /^$/ {exit} on'
}

# conditional jumps (j.. other than jmp), loops and divisions
suspects() {
  grep -E '[[:space:]](j[a-z]+|loop[a-z]*|i?div[a-z]*)[[:space:]]' | grep -vE '[[:space:]]jmp[[:space:]]'
}

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
includes=$(for d in src/core src/core/*/; do printf -- '-I%s ' "${d%/}"; done)
compilers=$(for cc in gcc clang clang-14; do command -v "$cc" >/dev/null && echo "$cc"; done)
first=$(head -1 <<<"$compilers")

cat >"$work/branchy.c" <<'C'
extern int other(int);
int branchy(int a) { if (a > 3) return other(a); return 7; }
C
"$first" -O2 -c -o "$work/branchy.o" "$work/branchy.c"
[ -n "$(function_code "$work/branchy.o" branchy | suspects)" ]
report $? "the checker sees the branch of a function with an if ($first -O2)"

object=src/core/noise/dp_laplace_low.o
if [ -f "$object" ]; then
  found=$(function_code "$object" dp_laplace_low_enclosure)
  [ -n "$found" ] && [ -z "$(suspects <<<"$found")" ]
  report $? "$object: dp_laplace_low_enclosure has no conditional branch and no division"
  [ -n "$found" ] || echo "# dp_laplace_low_enclosure not found in $object"
  suspects <<<"$found" | sed 's/^/# /'
else
  report 1 "$object: not built (run make first)"
fi

bad=""
for cc in $compilers; do
  for level in -O2 -O3 -Os; do
    # shellcheck disable=SC2086
    "$cc" $level $includes -c -o "$work/low.o" src/core/noise/dp_laplace_low.c 2>/dev/null || {
      bad="$bad $cc$level(build)"; continue; }
    found=$(function_code "$work/low.o" dp_laplace_low_enclosure)
    if [ -z "$found" ] || [ -n "$(suspects <<<"$found")" ]; then
      bad="$bad $cc$level"
    fi
  done
done
[ -z "$bad" ]
report $? "dp_laplace_low_enclosure is branch-free with $(tr '\n' ' ' <<<"$compilers")at -O2, -O3, -Os"
[ -z "$bad" ] || echo "# with branches:$bad"
finish
